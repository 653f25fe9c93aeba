"""Crest answers (KamonBench): parsing helpers and label metrics.

Answer types: `crest_program` (program code), `crest_kdl` (kamon description in Japanese),
`crest_english` (English translation).

The metrics are KamonBench's, as the paper defines them (section 4):

> "Before computing string-level metrics, whitespace is removed and katakana is converted to
> hiragana. Acc is the fraction of examples whose normalized prediction matches the normalized
> target. Acc NIT is the same accuracy restricted to composite test examples for which neither
> the target nor the prediction appears in the training set under the corresponding label-space
> normalization. CER and TER are both total Levenshtein edit distance divided by total target
> length, using characters for Japanese and English and program tokens for program-code targets."

> "We call a prediction parseable when it contains optional container codes, exactly one
> modifier code, and exactly one motif code."

One extraction policy for every label form (program code, KDL, English): the paper's models
emit the label and nothing else, and it is that whole string that must match. A VLM's reply is
read the same way, whatever its form: the prediction is the whole reply, or the part the model
marked as its answer (a JSON field, `{answer: ...}`, `<answer>`, "Answer: ...", the blank of a
fill-in prompt, read by byo.score.parse), never a label found inside prose. "The program code is
C:01 X:3 M:0008.", "The crest is 丸に桔梗." and "The crest shows bellflower in a circle." are all
predictions that hold the target among other words: wrong by the paper's rule (Acc 0, their extra
units cost CER / TER), right by the lenient reading, which finds the label inside them.
"丸に丸に桔梗" for 丸に桔梗, or "bellflower in a circle in a square" for "bellflower in a
circle", is wrong under both (the extra container costs its characters). A reply of prose
(several lines, braces or brackets, or longer than BARE_WORDS words / BARE_CHARS characters)
holds no prediction, in every form: unparsed, it costs its whole target.

Normalisation (`RULES`): `kamonbench` (the headline of every KamonBench table) is the paper's:
whitespace removed, katakana turned into hiragana, nothing else (case, articles, a frame and a
final full stop count; characters written apart, "丸 に 桔 梗" or "C : 01 X : 3 M : 0008", are
the label); a program is the whitespace-free string cut before each `C:`, `X:`, `M:`, its tokens
(TER counts them), parseable with optional C tokens, exactly one X and exactly one M. `lenient`
is this project's reading, kept beside it under its own name (column `exact_lenient`), the
same for every form: the label found inside the prediction; English lowercased without a
leading frame ("The crest shows"), article, quotes or final punctuation; KDL reduced to its
Japanese characters without a polite frame ("この家紋は...です"); a program the one code its
prediction holds (the same code written twice is one; two different codes are none), in any
case, with commas between tokens, and a missing X read as `X:0`. Every table row says which
rule its main columns used (`normalisation`).

Metrics (all functions take aligned lists; a prediction of None is a failed parse):
- exact match (Acc); CER / TER = total Levenshtein edits / total target length, in characters
  or program tokens; an unparsed or empty prediction is the empty string, so it costs the whole
  target (`unparsed` counts them);
- factor accuracy (Table 2): container (rows whose target has a container), modifier, motif,
  motif over contained and over containerless rows, exact match over contained rows; an
  unparseable prediction is wrong;
- motif sensitivity (Table 3) over contexts o = (C, R) of contained targets, pairs with
  different target motifs: motif separation, pair motif accuracy, collapsed motif groups over
  the evaluated contexts (those with at least one such pair);
- slices: the test split first (the paper's Table 1 is taken on its test examples), then the
  other splits and all rows; recombination slices of the test rows (Table 4): the (C, M),
  (R, M) or (C, R, M) combination never among the training targets while each of its factor
  values is; accuracy NIT over test rows (neither target nor prediction among training labels);
- 95% bootstrap intervals (Table 1: "95% bootstrap intervals from full test-set resampling with
  replacement") for Acc, Acc NIT and CER / TER.
"""

from __future__ import annotations

import itertools
import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import Levenshtein

from byo.families.api import AnswerType, Column, ReportTable

_TOKEN = re.compile(r"(?<![A-Za-z0-9_:])([CXMcxm])\s?:\s?([A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]+)*)")
_CODE = re.compile(r"([CXM]):([A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]+)*)")  # one program token, as the paper writes it
_RUN_GAP = re.compile(r"^[\s,;|>+\-]*$")
_SPACE = re.compile(r"\s+")
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff々〆ヶ]+")
_KATAKANA = {chr(k): chr(k - 0x60) for k in range(0x30A1, 0x30F7)}
_JA_FRAME = re.compile(r"^(?:この家紋は|この紋は|家紋は|これは|答えは|答え[:：]?)|(?:です|である|だ|でございます)$")
_EN_FILLER = re.compile(
    r"^(?:(?:the |this |that )?(?:crest|kamon|emblem|image|design|mon|answer)\s+(?:is|shows|depicts|displays|represents)"
    r"(?:\s+an?\b)?|it\s+is|it's|this\s+is|that\s+is|i\s+see|there\s+is|shows?)\s*:?\s*", re.IGNORECASE)
SCHEMES = {"cm": ("C", "M"), "rm": ("R", "M"), "crm": ("C", "R", "M")}
ANSWER_TYPES = ("crest_program", "crest_kdl", "crest_english")  # the keys of SCORING, below
BOOTSTRAP = 1000  # resamples of a slice for its intervals
TEST = "test"  # the split the paper's aggregate metrics are taken on
# An unmarked reply is the prediction when it reads as one: one line, no braces or brackets, and
# at most this long (longer prose holds no description to score, so it is unparsed).
BARE_WORDS = 40  # English words (the longest label of one container has 17)
BARE_CHARS = 80  # Japanese characters, whitespace aside (the longest such label has 21)


# --- what a reply predicts -----------------------------------------------------------------------
def program_runs(text: str) -> list[tuple[str, int, int]]:
    """Runs of adjacent program tokens, each as one prediction, as written: its tokens without
    inner whitespace ("C : 01" is C:01, whitespace being what the paper removes), kept in their
    case and with whatever separates them ("c:01, X:3 M:0008")."""
    runs: list[list[re.Match]] = []
    for m in _TOKEN.finditer(text):
        if runs and _RUN_GAP.match(text[runs[-1][-1].end(): m.start()]):
            runs[-1].append(m)
        else:
            runs.append([m])
    out = []
    for run in runs:
        written = f"{run[0].group(1)}:{run[0].group(2)}"
        for a, b in itertools.pairwise(run):
            gap = _SPACE.sub(" ", text[a.end(): b.start()])
            written += (gap if gap.strip() else " ") + f"{b.group(1)}:{b.group(2)}"
        out.append((written, run[0].start(), run[-1].end()))
    return out


def lenient_program(text: str) -> str | None:
    """The lenient reading of a program prediction: the one code it holds, as written (the same
    code twice is one; None for none or two different ones)."""
    if program_factors(text, "kamonbench"):  # the whole prediction is one code ("C : 01 X : 3 M : 0008")
        return " ".join(paper_tokens(text))
    found = {_SPACE.sub("", code): code for code, _, _ in program_runs(text)}
    codes = {f.code if (f := program_factors(code, "lenient")) else key for key, code in found.items()}
    return next(iter(found.values())) if len(codes) == 1 else None


# A reply that names its label form before the label marks it as the answer, as "Answer:" does.
_FORM_LABEL = re.compile(r"(?:the\s+)?(?:program(?:\s+code)?|code|kdl|english(?:\s+label|\s+description)?|"
                         r"description|translation|label)\s*[:：]\s*", re.IGNORECASE)


def whole_reply(span: str, answer_type: str) -> list[tuple[str, int, int]]:
    """The reply (or the part of it the model marked as its answer: after "Answer:", or after its
    label form, "Program:", "KDL:", "English:", without the sentence's full stop) as one
    prediction, in every form alike: the paper scores the whole string a model emits, so a reply
    that contains the target among other words is not the target. Prose (several lines, braces or brackets, or longer than BARE_WORDS words
    / BARE_CHARS characters) is no prediction."""
    said = span.strip()
    if (label := _FORM_LABEL.match(said)) and said[label.end():].strip():  # "Program: C:01 X:3 M:0008."
        said = said[label.end():].strip().removesuffix(".").removesuffix("。").strip()
    if not said or "\n" in said or set(said) & set("{}<>[]"):
        return []
    if answer_type == "crest_kdl" and len("".join(said.split())) > BARE_CHARS:
        return []
    if answer_type in ("crest_english", "crest_program") and len(said.split()) > BARE_WORDS:
        return []
    return [(said, span.index(said), span.index(said) + len(said))]


def hiragana(text: str) -> str:
    return "".join(_KATAKANA.get(ch, ch) for ch in text)


def english_text(text: str) -> str:
    """The lenient rule's English: lowercased, without a leading frame ("The crest shows", or a
    Japanese one: no English label has a Japanese character), article, surrounding quotes and final
    punctuation."""
    t = " ".join(_EN_FILLER.sub("", _JAPANESE.sub(" ", text).strip()).lower().split()).strip(" \"'.,;:!?。、「」")
    return re.sub(r"^(?:an?|the)\s+", "", t)


def japanese_text(text: str) -> str:
    """The lenient rule's KDL: the reply's Japanese characters without a polite frame
    ("この家紋は...です") or brackets."""
    return _JA_FRAME.sub("", "".join(_JAPANESE.findall(text)))


# --- program factors -------------------------------------------------------------------------
RULES = ("kamonbench", "lenient")  # normalisation rules; the first is the paper's and the default


@dataclass(frozen=True)
class Factors:
    containers: tuple[str, ...]  # outermost first; () without a container
    modifier: str  # the X value; "0" when absent (lenient rule only)
    motif: str

    @property
    def code(self) -> str:
        return " ".join([f"C:{c}" for c in self.containers] + [f"X:{self.modifier}", f"M:{self.motif}"])


def program_factors(code: str | None, rule: str = "kamonbench") -> Factors | None:
    """Factors of a parseable program code; None otherwise. KamonBench: whitespace-separated
    tokens C:, X:, M: as the paper writes them, optional C tokens, exactly one X and exactly one
    M; lenient: any case, commas or bars between tokens, and at most one X (none means X:0)."""
    if not code:
        return None
    containers, modifiers, motifs = [], [], []
    tokens = paper_tokens(code) if rule == "kamonbench" else [t for t in re.split(r"[\s,;|]+", code) if t]
    for token in tokens:
        m = _CODE.fullmatch(token if rule == "kamonbench" else token[:1].upper() + token[1:])
        if m is None:
            return None
        {"C": containers, "X": modifiers, "M": motifs}[m.group(1)].append(m.group(2))
    if len(motifs) != 1 or len(modifiers) > 1 or (rule == "kamonbench" and not modifiers):
        return None
    return Factors(tuple(containers), modifiers[0] if modifiers else "0", motifs[0])


_TOKEN_START = re.compile(r"(?=[CXM]:)")


def paper_tokens(code: str) -> list[str]:
    """A program prediction's tokens by the paper's rule: whitespace removed, then cut before each
    C:, X: and M: ("C : 01 X:3 M:0008" -> C:01, X:3, M:0008; prose before the code is one token)."""
    return [t for t in _TOKEN_START.split("".join(code.split())) if t]


def predicted_factors(prediction: str | None, rule: str = "kamonbench") -> Factors | None:
    """A prediction's factors: the whole prediction's by the paper's rule, the one code it holds
    by the lenient one."""
    if rule == "lenient" and prediction:
        prediction = lenient_program(prediction) or prediction
    return program_factors(prediction, rule)


def normalize(value: str | None, answer_type: str, rule: str = "kamonbench") -> str | None:
    """The string compared for exact match and CER (see the module docstring)."""
    if value is None:
        return None
    if rule == "lenient":
        if answer_type == "crest_program":
            value = lenient_program(value) or value
            f = program_factors(value, rule)
            return "".join((f.code if f else value).split())
        if answer_type == "crest_english":
            value = english_text(value)
        if answer_type == "crest_kdl":
            value = japanese_text(value)
    return hiragana("".join(str(value).split()))


def units(value: str | None, answer_type: str, rule: str = "kamonbench") -> list[str]:
    """Program tokens (canonical when parseable, under the lenient rule) or normalised
    characters; nothing for an unparsed answer."""
    if value is None:
        return []
    if answer_type == "crest_program":
        if rule == "kamonbench":
            return paper_tokens(value)
        value = lenient_program(value) or value
        f = program_factors(value, rule)
        return (f.code if f else value).split()
    return list(normalize(value, answer_type, rule) or "")


# --- metrics ---------------------------------------------------------------------------------
def exact_match(preds: Sequence[str | None], golds: Sequence[str], answer_type: str,
                rule: str = "kamonbench") -> list[bool]:
    return [p is not None and normalize(p, answer_type, rule) == normalize(g, answer_type, rule)
            for p, g in zip(preds, golds, strict=True)]


def edits(preds: Sequence[str | None], golds: Sequence[str], answer_type: str,
          rule: str = "kamonbench") -> tuple[list[int], list[int]]:
    """(Levenshtein edits, target length) per row, in characters or program tokens; an unparsed
    answer is empty, so its edits are the whole target."""
    pairs = [(units(p, answer_type, rule), units(g, answer_type, rule)) for p, g in zip(preds, golds, strict=True)]
    return [Levenshtein.distance(p, g) for p, g in pairs], [len(g) for _, g in pairs]


def error_rate(preds: Sequence[str | None], golds: Sequence[str], answer_type: str,
               rule: str = "kamonbench") -> dict:
    """KamonBench's CER (KDL, English) or TER (program): total edits / total target length over
    every row; an unparsed answer costs its whole target (`unparsed` counts them)."""
    cost, length = edits(preds, golds, answer_type, rule)
    return {"value": sum(cost) / sum(length) if sum(length) else None, "edits": sum(cost), "length": sum(length),
            "n": len(cost), "unparsed": sum(p is None for p in preds),
            "unit": "token" if answer_type == "crest_program" else "char"}


def _share(hits: list[bool]) -> dict:
    return {"value": sum(hits) / len(hits) if hits else None, "k": sum(hits), "n": len(hits)}


def factor_accuracy(preds: Sequence[str | None], golds: Sequence[str], rule: str = "kamonbench") -> dict:
    """Parseable rate and accuracy per factor (KamonBench Table 2: "'C Acc' is evaluated only
    when a container is present; 'R' includes spatial arrangements and modifications"), motif
    accuracy over contained and containerless rows, and exact match over contained rows."""
    rows = [(predicted_factors(p, rule), program_factors(g, "lenient"), p, g) for p, g in zip(preds, golds, strict=True)]
    rows = [r for r in rows if r[1] is not None]
    contained = [r for r in rows if r[1].containers]
    free = [r for r in rows if not r[1].containers]
    return {
        "parseable": _share([p is not None for p, *_ in rows]),
        "container": _share([p is not None and p.containers == g.containers for p, g, *_ in contained]),
        "modifier": _share([p is not None and p.modifier == g.modifier for p, g, *_ in rows]),
        "motif": _share([p is not None and p.motif == g.motif for p, g, *_ in rows]),
        "motif_contained": _share([p is not None and p.motif == g.motif for p, g, *_ in contained]),
        "motif_containerless": _share([p is not None and p.motif == g.motif for p, g, *_ in free]),
        "exact_contained": _share(exact_match([r[2] for r in contained], [r[3] for r in contained],
                                              "crest_program", rule)),
    }


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


def motif_sensitivity(preds: Sequence[str | None], golds: Sequence[str], rule: str = "kamonbench") -> dict:
    """KamonBench's counterfactual motif sensitivity (Table 3). For a context o = (C, R) of
    contained composites, G_o = {i : C_i = C, R_i = R}; P = the eligible pairs (i, k) of one G_o
    with M_i != M_k; p_i = prediction i is parseable.

    - MotifSeparation = 1/|P| sum_P 1{p_i and p_k and M^_i != M^_k};
    - PairMotifAcc = 1/|P| sum_P 1{p_i and p_k and M^_i = M_i and M^_k = M_k};
    - CollapsedMotifGroups = 1/|O| sum_O 1{|M^_o| <= 1}, M^_o = {M^_i : i in G_o, p_i}, O "the
      set of evaluated container-modifier contexts": those with at least one eligible pair (a
      context of one motif cannot tell a collapsed model from a right one).
    """
    groups: dict[tuple, list[tuple[Factors | None, Factors]]] = defaultdict(list)
    for p, g in zip(preds, golds, strict=True):
        gf = program_factors(g, "lenient")
        if gf is not None and gf.containers:
            groups[(gf.containers, gf.modifier)].append((predicted_factors(p, rule), gf))
    separated = correct = pairs = 0
    collapsed = []
    for members in groups.values():
        # Pairs of members with different true motifs, counted from how many share a motif (the
        # pairs of a group of n are n(n-1)/2): linear in the group's size.
        truths = Counter(g.motif for _, g in members)
        eligible = _pairs(len(members)) - sum(_pairs(n) for n in truths.values())
        if not eligible:
            continue  # not an evaluated context
        pairs += eligible
        right = Counter(g.motif for p, g in members if p is not None and p.motif == g.motif)
        correct += _pairs(sum(right.values())) - sum(_pairs(n) for n in right.values())
        parsed = [(p.motif, g.motif) for p, g in members if p is not None]
        # ...both parsed, with different predictions: all parsed pairs, less those with the same true
        # motif or the same prediction, plus those with both the same (taken away twice)
        separated += (_pairs(len(parsed)) - sum(_pairs(n) for n in Counter(t for _, t in parsed).values())
                      - sum(_pairs(n) for n in Counter(p for p, _ in parsed).values())
                      + sum(_pairs(n) for n in Counter(parsed).values()))
        predicted = {p.motif for p, _ in members if p is not None}
        collapsed.append(len(predicted) <= 1)
    return {"motif_separation": separated / pairs if pairs else None,
            "pair_motif_accuracy": correct / pairs if pairs else None,
            "collapsed_motif_groups": sum(collapsed) / len(collapsed) if collapsed else None,
            "pairs": pairs, "groups": len(collapsed)}


def combination(f: Factors, scheme: str) -> tuple:
    values = {"C": f.containers, "R": f.modifier, "M": f.motif}
    return tuple(values[k] for k in SCHEMES[scheme])


def novel_combinations(golds: Sequence[str], train_golds: Sequence[str], scheme: str) -> list[bool | None]:
    """Per row: whether its target's combination is absent from the training targets (None if unparseable)."""
    seen = {combination(f, scheme) for g in train_golds if (f := program_factors(g, "lenient")) is not None}
    return [None if (f := program_factors(g, "lenient")) is None else combination(f, scheme) not in seen
            for g in golds]


def unseen_factors(golds: Sequence[str], train_golds: Sequence[str], scheme: str) -> list[bool | None]:
    """Per row: whether one of the factor values of its target's combination never occurs among
    the training targets (None if unparseable). KamonBench's recombination items are the rows
    without one: "the corresponding container and motif each occur in other training composites"."""
    seen: set[tuple[int, object]] = set()
    for g in train_golds:
        if (f := program_factors(g, "lenient")) is not None:
            seen.update(enumerate(combination(f, scheme)))
    return [None if (f := program_factors(g, "lenient")) is None
            else not set(enumerate(combination(f, scheme))) <= seen for g in golds]


def nit_rows(preds: Sequence[str | None], golds: Sequence[str], train_golds: Sequence[str], answer_type: str,
             rule: str = "kamonbench") -> list[bool]:
    """Per row: whether neither its target nor its prediction is among the training labels."""
    seen = {normalize(t, answer_type, rule) for t in train_golds}
    return [normalize(g, answer_type, rule) not in seen and normalize(p, answer_type, rule) not in seen
            for p, g in zip(preds, golds, strict=True)]


def accuracy_nit(preds: Sequence[str | None], golds: Sequence[str], train_golds: Sequence[str],
                 answer_type: str, rule: str = "kamonbench") -> dict:
    """Accuracy over rows whose target and prediction are both absent from the training labels."""
    keep = nit_rows(preds, golds, train_golds, answer_type, rule)
    hits = exact_match(preds, golds, answer_type, rule)
    return _share([h for h, k in zip(hits, keep, strict=True) if k])


def bootstrap(values: Sequence[float], weights: Sequence[float] | None = None, *, n_boot: int = BOOTSTRAP,
              label: str = "") -> tuple[float | None, float | None]:
    """95% percentile interval of sum(values) / sum(weights) (a mean without weights) from
    resampling the rows with replacement (KamonBench Table 1), seeded by `label`."""
    v = np.asarray(values, dtype=float)
    w = np.ones_like(v) if weights is None else np.asarray(weights, dtype=float)
    if v.size == 0 or n_boot <= 0:
        return None, None
    rng = np.random.Generator(np.random.PCG64(zlib.crc32(label.encode())))
    picks = rng.integers(v.size, size=(n_boot, v.size))
    num, den = v[picks].sum(axis=1), w[picks].sum(axis=1)
    stats = num[den > 0] / den[den > 0]
    if stats.size == 0:
        return None, None
    lo, hi = np.quantile(stats, [0.025, 0.975])
    return float(lo), float(hi)


# --- what the scorer uses (the crest family's answer types) ----------------------------------
def measure(rows: list[dict], train: list[str]) -> list[dict]:
    """KamonBench's label metrics for one key and prompt variant (scored rows with the image's
    `split`), per slice. The first is the paper's (Table 1: "the 2,000 composite test examples"):
    the test split; then each other split part, all rows, and for programs the test rows by
    combination (Table 4, the recombination split): novel (the combination never among the
    training targets, each of its factors among them), seen, and unseen factor (a factor value
    never in training: not a recombination item). Acc NIT is taken over a slice's test rows
    ("composite test examples"). `train` holds the training labels of the dataset (its train
    split, rendered or not)."""
    answer_type = rows[0]["answer_type"]
    where = f"{rows[0].get('key')}|{rows[0].get('variant')}"
    parts = sorted({r["split"] for r in rows} - {None}, key=lambda s: (s != TEST, s))
    slices = [(f"split={s}", [r for r in rows if r["split"] == s]) for s in parts]
    slices.append(("all", rows))
    tested = [r for r in rows if r["split"] == TEST]
    if train and answer_type == "crest_program":
        golds = [r["answer"] for r in tested]
        for scheme in SCHEMES:
            novel = novel_combinations(golds, train, scheme)
            unseen = unseen_factors(golds, train, scheme)
            name = ",".join(SCHEMES[scheme]).replace("R", "X")
            slices.append((f"novel {name}", [r for r, n, u in zip(tested, novel, unseen, strict=True) if n and not u]))
            slices.append((f"seen {name}", [r for r, n in zip(tested, novel, strict=True) if n is False]))
            slices.append((f"unseen factor {name}", [r for r, u in zip(tested, unseen, strict=True) if u]))
    out = []
    for name, srows in slices:
        if not srows:
            continue
        preds = [r["value"] for r in srows]
        golds = [r["answer"] for r in srows]
        hits = exact_match(preds, golds, answer_type)
        cost, length = edits(preds, golds, answer_type)
        exact_lo, exact_hi = bootstrap(hits, label=f"exact|{where}|{name}")
        rate_lo, rate_hi = bootstrap(cost, length, label=f"rate|{where}|{name}")
        row = {"slice": name, "n": len(srows), "normalisation": RULES[0],
               "parse_rate": sum(r["status"] == "ok" for r in srows) / len(srows),
               "exact": sum(hits) / len(hits), "exact_lo": exact_lo, "exact_hi": exact_hi,
               "exact_lenient": sum(exact_match(preds, golds, answer_type, "lenient")) / len(srows),
               "error_rate": sum(cost) / sum(length) if sum(length) else None, "error_rate_lo": rate_lo,
               "error_rate_hi": rate_hi, "error_unit": "token" if answer_type == "crest_program" else "char",
               "unparsed": sum(p is None for p in preds)}
        if train:
            held = [(p, g) for p, g, r in zip(preds, golds, srows, strict=True) if r["split"] == TEST]
            keep = nit_rows([p for p, _ in held], [g for _, g in held], train, answer_type)
            nit = [h for h, k in zip(exact_match([p for p, _ in held], [g for _, g in held], answer_type), keep,
                                     strict=True) if k]
            row["acc_nit"], row["acc_nit_n"] = (sum(nit) / len(nit) if nit else None), len(nit)
            row["acc_nit_lo"], row["acc_nit_hi"] = bootstrap(nit, label=f"nit|{where}|{name}")
            row["train_labels"] = len(train)
        if answer_type == "crest_program":
            for factor, stat in factor_accuracy(preds, golds).items():
                row[f"{factor}_acc" if factor != "parseable" else "parseable"] = stat["value"]
            row.update(motif_sensitivity(preds, golds))
        out.append(row)
    return out


TABLE = ReportTable(
    name="crest", title="Crests (KamonBench metrics)",
    definition="KamonBench, normalisation 'kamonbench' (whitespace removed, katakana to hiragana, "
               "nothing else; a program parses with optional C tokens, exactly one X and one M): the prediction is "
               "the whole reply or the answer it marks, never a label found inside it; Acc = exact match; Acc NIT = "
               "accuracy over the slice's test rows whose target and prediction are both absent from the dataset's "
               "training labels; CER / TER = total Levenshtein edits / total target length (an unparsed answer "
               "costs its whole target); 95% bootstrap intervals resampling the slice's rows (1000 resamples); "
               "factor accuracy (container over targets with a container; motif over contained and containerless "
               "targets; exact over contained targets); motif separation, pair motif accuracy and collapsed motif "
               "groups over the evaluated (C, R) contexts (those with a pair of different target motifs); slices: "
               "split=test first (the paper's), the other splits, all rows, and test rows by combination: novel "
               "(never among the training labels, each factor value among them), seen, unseen factor (a factor "
               "value never in training); exact_lenient: the project's lenient normalisation (English lowercased "
               "without frame, article and final punctuation; KDL's Japanese characters without a polite frame; a "
               "program in any case, a missing X read as X:0)",
    note="KamonBench as the paper measures it, normalisation kamonbench (whitespace removed, katakana to "
         "hiragana, nothing else; a program needs exactly one X and one M). The prediction is the whole reply (or "
         "the answer it marks): an answer that contains the target among other words is wrong. The first row, "
         "split=test, is the paper's measure (Table 1: its test examples). Acc with its 95% bootstrap interval "
         "(resampling the slice's rows with replacement); Acc NIT over the slice's test rows whose target and "
         "prediction are both absent from the dataset's training labels (its train split, rendered or not); "
         "CER / TER = total edits / total target length, an unparsed answer costing its whole target. Table 2: "
         "factor accuracy (container over targets with a container), contained exact and motif accuracy, "
         "containerless motif accuracy. Table 3: motif separation, pair motif accuracy and collapsed motif groups "
         "over the evaluated container-modifier contexts. Table 4: novel slices, test rows whose combination is "
         "absent from the training labels while each of its factor values is present; 'unseen factor' rows are "
         "not recombination items. 'lenient': this project's looser normalisation, for comparison.",
    columns=(Column("slice", "slice", "text"), Column("n", "n", "int"), Column("parse rate", "parse_rate"),
             Column("Acc", "exact", interval="pct", digits=1),
             Column("Acc NIT", "acc_nit", note=lambda r: f"n {r['acc_nit_n']}" if "acc_nit_n" in r else ""),
             Column("CER / TER", "error_rate", "num", note=lambda r: r["error_unit"], interval="num"),
             Column("lenient Acc", "exact_lenient"),
             Column("container", "container_acc"), Column("modifier", "modifier_acc"), Column("motif", "motif_acc"),
             Column("contained exact", "exact_contained_acc"), Column("contained motif", "motif_contained_acc"),
             Column("containerless motif", "motif_containerless_acc"),
             Column("motif sep.", "motif_separation"), Column("pair motif", "pair_motif_accuracy"),
             Column("collapsed", "collapsed_motif_groups")),
    measure=measure)


def _answer_type(name: str, find) -> AnswerType:
    return AnswerType(find=find, table=TABLE, correct=lambda value, truth: exact_match([value], [truth], name)[0])


SCORING = {name: _answer_type(name, lambda text, labels, n=name: whole_reply(text, n)) for name in ANSWER_TYPES}
