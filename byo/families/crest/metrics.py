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

Normalisation (`RULES`): `kamonbench` (the default of every KamonBench table) is the paper's:
whitespace removed, katakana turned into hiragana, nothing else; a program is parseable with
optional C tokens, exactly one X and exactly one M. `lenient` is this project's variant, kept
under its own name (columns `exact_lenient`): English also lowercased with a leading article
and final punctuation dropped, and a program's missing X read as `X:0`. Every table row says
which rule its main columns used (`normalisation`).

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
- recombination slices: rows whose (C, M), (R, M) or (C, R, M) combination never occurs among
  the training targets; accuracy NIT (neither target nor prediction among training labels);
- 95% bootstrap intervals (Table 1: "95% bootstrap intervals from full test-set resampling with
  replacement") for Acc, Acc NIT and CER / TER.
"""

from __future__ import annotations

import functools
import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import Levenshtein

from byo.families.api import AnswerType, Column, ReportTable

_TOKEN = re.compile(r"(?<![\w:])([CXMcxm])\s?:\s?([A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]+)*)")
_RUN_GAP = re.compile(r"^[\s,;|>+\-]*$")
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff々〆ヶ]+")
_KATAKANA = {chr(k): chr(k - 0x60) for k in range(0x30A1, 0x30F7)}
_JA_FRAME = re.compile(r"^(?:この家紋は|この紋は|家紋は|これは|答えは|答え[:：]?)|(?:です|である|だ|でございます)$")
_EN_FILLER = re.compile(
    r"^(?:(?:the |this |that )?(?:crest|kamon|emblem|image|design|mon|answer)\s+(?:is|shows|depicts|displays|represents)"
    r"(?:\s+an?\b)?|it\s+is|it's|this\s+is|that\s+is|i\s+see|there\s+is|shows?)\s*:?\s*", re.IGNORECASE)
SCHEMES = {"cm": ("C", "M"), "rm": ("R", "M"), "crm": ("C", "R", "M")}
ANSWER_TYPES = ("crest_program", "crest_kdl", "crest_english")  # the keys of SCORING, below
BOOTSTRAP = 1000  # resamples of a slice for its intervals


# --- parsing helpers -------------------------------------------------------------------------
def program_runs(text: str) -> list[tuple[str, int, int]]:
    """Runs of adjacent program tokens, each as one code string: ("C:01 X:3 M:0008", start, end)."""
    runs: list[list[re.Match]] = []
    for m in _TOKEN.finditer(text):
        if runs and _RUN_GAP.match(text[runs[-1][-1].end(): m.start()]):
            runs[-1].append(m)
        else:
            runs.append([m])
    return [(" ".join(f"{t.group(1).upper()}:{t.group(2)}" for t in run), run[0].start(), run[-1].end())
            for run in runs]


def hiragana(text: str) -> str:
    return "".join(_KATAKANA.get(ch, ch) for ch in text)


def english_text(text: str) -> str:
    t = " ".join(text.lower().split()).strip(" \"'.,;:!?")
    return re.sub(r"^(?:an?|the)\s+", "", t)


def find_labels(span: str, labels: Sequence[str], answer_type: str) -> list[tuple[str, int, int]]:
    """Known labels in the span, longest first, never overlapping."""
    if not labels:
        return []
    forms, pattern = _label_pattern(tuple(labels), answer_type == "crest_kdl")
    if answer_type == "crest_kdl":
        target = hiragana("".join(span.split()))
        return [(forms[m.group(0)], m.start(), m.end()) for m in pattern.finditer(target)]
    return [(forms[" ".join(m.group(0).lower().split())], m.start(), m.end()) for m in pattern.finditer(span)]


@functools.lru_cache(maxsize=256)
def _label_pattern(labels: tuple[str, ...], kdl: bool) -> tuple[dict[str, str], re.Pattern]:
    """(form -> label, the pattern finding the forms) of a vocabulary, made once: an answer may
    have thousands of spans to search."""
    if kdl:
        forms = {hiragana("".join(label.split())): label for label in labels}
        return forms, re.compile("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)))
    forms = {english_text(label): label for label in labels}
    body = "|".join(r"\s+".join(re.escape(w) for w in f.split()) for f in sorted(forms, key=len, reverse=True))
    return forms, re.compile(rf"(?<![\w-])(?:{body})(?![\w-])", re.IGNORECASE)


def free_text(span: str, answer_type: str) -> list[tuple[str, int]]:
    """Answers outside the known labels: Japanese runs, or one short English phrase, with offsets."""
    if answer_type == "crest_kdl":
        runs = [(_JA_FRAME.sub("", m.group(0)), m.start()) for m in _JAPANESE.finditer(span)]
        return [(r, start) for r, start in runs if r]
    span = span.strip()
    if "\n" in span:
        return []
    phrase = english_text(_EN_FILLER.sub("", span))
    return [(phrase, 0)] if phrase and len(phrase.split()) <= 12 and not set(phrase) & set("{}<>[]") else []


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
    """Factors of a parseable program code; None otherwise. KamonBench: optional C tokens,
    exactly one X and exactly one M; lenient: at most one X (none means X:0)."""
    if not code:
        return None
    containers, modifiers, motifs = [], [], []
    for token in code.split():
        kind, sep, value = token.partition(":")
        if not sep or not value or kind.upper() not in "CXM" or len(kind) != 1:
            return None
        {"C": containers, "X": modifiers, "M": motifs}[kind.upper()].append(value)
    if len(motifs) != 1 or len(modifiers) > 1 or (rule == "kamonbench" and not modifiers):
        return None
    return Factors(tuple(containers), modifiers[0] if modifiers else "0", motifs[0])


def normalize(value: str | None, answer_type: str, rule: str = "kamonbench") -> str | None:
    """The string compared for exact match and CER (see the module docstring)."""
    if value is None:
        return None
    if rule == "lenient":
        if answer_type == "crest_program":
            f = program_factors(value, rule)
            return "".join((f.code if f else value).split())
        if answer_type == "crest_english":
            value = english_text(value)
    return hiragana("".join(str(value).split()))


def units(value: str | None, answer_type: str, rule: str = "kamonbench") -> list[str]:
    """Program tokens (canonical when parseable, under the lenient rule) or normalised
    characters; nothing for an unparsed answer."""
    if value is None:
        return []
    if answer_type == "crest_program":
        f = program_factors(value, rule) if rule == "lenient" else None
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
    rows = [(program_factors(p, rule), program_factors(g, "lenient"), p, g) for p, g in zip(preds, golds, strict=True)]
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
            groups[(gf.containers, gf.modifier)].append((program_factors(p, rule), gf))
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
    `split`), per slice: all, each split part, and for programs novel and seen combinations.
    `train` holds the training labels of the dataset (its train split, rendered or not)."""
    answer_type = rows[0]["answer_type"]
    where = f"{rows[0].get('key')}|{rows[0].get('variant')}"
    slices = [("all", rows)]
    slices += [(f"split={s}", [r for r in rows if r["split"] == s]) for s in sorted({r["split"] for r in rows} - {None})]
    evaluated = [r for r in rows if r["split"] != "train"]
    if train and answer_type == "crest_program":
        for scheme in SCHEMES:
            novel = novel_combinations([r["answer"] for r in evaluated], train, scheme)
            name = ",".join(SCHEMES[scheme]).replace("R", "X")
            slices.append((f"novel {name}", [r for r, n in zip(evaluated, novel, strict=True) if n]))
            slices.append((f"seen {name}", [r for r, n in zip(evaluated, novel, strict=True) if n is False]))
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
            held = [(p, g) for p, g, r in zip(preds, golds, srows, strict=True) if r["split"] != "train"]
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


def _interval(lo: str, hi: str, pct: bool = False):
    def note(r: dict) -> str:
        if r.get(lo) is None or r.get(hi) is None:
            return ""
        return f"[{100 * r[lo]:.1f}, {100 * r[hi]:.1f}]" if pct else f"[{r[lo]:.3f}, {r[hi]:.3f}]"
    return note


TABLE = ReportTable(
    name="crest", title="Crests (KamonBench metrics)",
    definition="KamonBench, normalisation 'kamonbench' (whitespace removed, katakana to hiragana; a "
               "program parses with optional C tokens, exactly one X and one M): Acc = exact match; Acc NIT = "
               "accuracy over non-training rows whose target and prediction are both absent from the dataset's "
               "training labels; CER / TER = total Levenshtein edits / total target length (an unparsed answer "
               "costs its whole target); 95% bootstrap intervals resampling the slice's rows (1000 resamples); "
               "factor accuracy (container over targets with a container; motif over contained and containerless "
               "targets; exact over contained targets); motif separation, pair motif accuracy and collapsed motif "
               "groups over the evaluated (C, R) contexts (those with a pair of different target motifs); slices by "
               "split part and by combinations never seen among the training labels; exact_lenient: the project's "
               "lenient normalisation (English lowercased, article and final punctuation dropped; a missing X "
               "read as X:0)",
    note="KamonBench as the paper measures it, normalisation kamonbench (whitespace removed, katakana to "
         "hiragana; a program needs exactly one X and one M). Acc with its 95% bootstrap interval (the paper's "
         "Table 1: resampling the test set with replacement); Acc NIT over rows whose target and prediction are "
         "both absent from the dataset's training labels (its train split, rendered or not); CER / TER = total "
         "edits / total target length, an unparsed answer costing its whole target. Table 2: factor accuracy "
         "(container over targets with a container), contained exact and motif accuracy, containerless motif "
         "accuracy. Table 3: motif separation, pair motif accuracy and collapsed motif groups over the evaluated "
         "container-modifier contexts. Novel / seen slices: combinations absent from / present in the training "
         "labels. 'lenient': this project's looser normalisation, for comparison.",
    columns=(Column("slice", "slice", "text"), Column("n", "n", "int"), Column("parse rate", "parse_rate"),
             Column("Acc", "exact", note=_interval("exact_lo", "exact_hi", pct=True)),
             Column("Acc NIT", "acc_nit", note=lambda r: f"n {r['acc_nit_n']}" if "acc_nit_n" in r else ""),
             Column("CER / TER", "error_rate", "num",
                    note=lambda r: r["error_unit"] + " " + _interval("error_rate_lo", "error_rate_hi")(r)),
             Column("lenient Acc", "exact_lenient"),
             Column("container", "container_acc"), Column("modifier", "modifier_acc"), Column("motif", "motif_acc"),
             Column("contained exact", "exact_contained_acc"), Column("contained motif", "motif_contained_acc"),
             Column("containerless motif", "motif_containerless_acc"),
             Column("motif sep.", "motif_separation"), Column("pair motif", "pair_motif_accuracy"),
             Column("collapsed", "collapsed_motif_groups")),
    measure=measure)


def _answer_type(name: str, find, fallback=None) -> AnswerType:
    return AnswerType(find=find, fallback=fallback, table=TABLE,
                      correct=lambda value, truth: exact_match([value], [truth], name)[0])


SCORING = {
    "crest_program": _answer_type("crest_program", lambda text, labels: program_runs(text)),
    **{name: _answer_type(name, lambda text, labels, n=name: find_labels(text, labels, n),
                          lambda text, n=name: [(v, s, s + len(v)) for v, s in free_text(text, n)])
       for name in ("crest_kdl", "crest_english")},
}
