"""Crest answers (KamonBench, seed 000): parsing helpers and label metrics.

Answer types: `crest_program` (program code), `crest_kdl` (kamon description in Japanese),
`crest_english` (English translation).

Program code: whitespace-separated tokens, zero or more `C:<id>` (outermost container first),
at most one `X:<k>` (modifier; a missing X means `X:0`, no modifier), exactly one `M:<id>`.
A program is *parseable* when it has exactly one M, at most one X and no other tokens.

Normalisation before string metrics: whitespace removed and katakana turned into hiragana (the
benchmark's rule); English is also lowercased, with a leading article and final punctuation
dropped; parseable programs are written canonically (C..., X, M), so `X:0` may be left out.

Metrics (all functions take aligned lists; a prediction of None is a failed parse):
- exact match; CER / TER = total Levenshtein edits / total target length, in characters or
  program tokens, over parsed predictions only (the excluded count is returned);
- factor accuracy: container (rows whose target has a container), modifier, motif; an
  unparseable prediction is wrong;
- motif sensitivity over contexts o = (C, R) of contained targets, pairs with different target
  motifs: motif separation, pair motif accuracy, collapsed motif groups;
- recombination slices: rows whose (C, M), (R, M) or (C, R, M) combination never occurs among
  the training targets; accuracy NIT (neither target nor prediction among training labels).
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from byo.families.api import AnswerType, Column, ReportTable, proportion

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
@dataclass(frozen=True)
class Factors:
    containers: tuple[str, ...]  # outermost first; () without a container
    modifier: str  # the X value; "0" when absent
    motif: str

    @property
    def code(self) -> str:
        return " ".join([f"C:{c}" for c in self.containers] + [f"X:{self.modifier}", f"M:{self.motif}"])


def program_factors(code: str | None) -> Factors | None:
    """Factors of a parseable program code; None otherwise."""
    if not code:
        return None
    containers, modifiers, motifs = [], [], []
    for token in code.split():
        kind, sep, value = token.partition(":")
        if not sep or not value or kind.upper() not in "CXM" or len(kind) != 1:
            return None
        {"C": containers, "X": modifiers, "M": motifs}[kind.upper()].append(value)
    if len(motifs) != 1 or len(modifiers) > 1:
        return None
    return Factors(tuple(containers), modifiers[0] if modifiers else "0", motifs[0])


def normalize(value: str | None, answer_type: str) -> str | None:
    """The string compared for exact match and CER (see the module docstring)."""
    if value is None:
        return None
    if answer_type == "crest_program":
        f = program_factors(value)
        return "".join((f.code if f else value).split())
    if answer_type == "crest_english":
        value = english_text(value)
    return hiragana("".join(str(value).split()))


def units(value: str, answer_type: str) -> list[str]:
    """Program tokens (canonical when parseable) or normalised characters."""
    if answer_type == "crest_program":
        f = program_factors(value)
        return (f.code if f else value).split()
    return list(normalize(value, answer_type) or "")


# --- metrics ---------------------------------------------------------------------------------
def exact_match(preds: Sequence[str | None], golds: Sequence[str], answer_type: str) -> list[bool]:
    return [p is not None and normalize(p, answer_type) == normalize(g, answer_type)
            for p, g in zip(preds, golds, strict=True)]


def error_rate(preds: Sequence[str | None], golds: Sequence[str], answer_type: str) -> dict:
    """CER (KDL, English) or TER (program), over parsed predictions; `excluded` counts the rest."""
    pairs = [(units(p, answer_type), units(g, answer_type)) for p, g in zip(preds, golds, strict=True) if p is not None]
    edits = sum(Levenshtein.distance(p, g) for p, g in pairs)
    length = sum(len(g) for _, g in pairs)
    return {"value": edits / length if length else None, "edits": edits, "length": length,
            "n": len(pairs), "excluded": len(preds) - len(pairs),
            "unit": "token" if answer_type == "crest_program" else "char"}


def _share(hits: list[bool]) -> dict:
    return {"value": sum(hits) / len(hits) if hits else None, "k": sum(hits), "n": len(hits)}


def factor_accuracy(preds: Sequence[str | None], golds: Sequence[str]) -> dict:
    """Parseable rate and accuracy per factor; container accuracy over rows with a container."""
    rows = [(program_factors(p), program_factors(g)) for p, g in zip(preds, golds, strict=True)]
    rows = [(p, g) for p, g in rows if g is not None]
    contained = [(p, g) for p, g in rows if g.containers]
    return {
        "parseable": _share([p is not None for p, _ in rows]),
        "container": _share([p is not None and p.containers == g.containers for p, g in contained]),
        "modifier": _share([p is not None and p.modifier == g.modifier for p, g in rows]),
        "motif": _share([p is not None and p.motif == g.motif for p, g in rows]),
        "motif_contained": _share([p is not None and p.motif == g.motif for p, g in contained]),
    }


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


def motif_sensitivity(preds: Sequence[str | None], golds: Sequence[str]) -> dict:
    """Motif separation, pair motif accuracy and collapsed motif groups over (C, R) contexts."""
    groups: dict[tuple, list[tuple[Factors | None, Factors]]] = defaultdict(list)
    for p, g in zip(preds, golds, strict=True):
        gf = program_factors(g)
        if gf is not None and gf.containers:
            groups[(gf.containers, gf.modifier)].append((program_factors(p), gf))
    separated = correct = pairs = 0
    collapsed = []
    for members in groups.values():
        # Pairs of members with different true motifs, counted from how many share a motif (the
        # pairs of a group of n are n(n-1)/2): linear in the group's size.
        truths = Counter(g.motif for _, g in members)
        pairs += _pairs(len(members)) - sum(_pairs(n) for n in truths.values())
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
    seen = {combination(f, scheme) for g in train_golds if (f := program_factors(g)) is not None}
    return [None if (f := program_factors(g)) is None else combination(f, scheme) not in seen for g in golds]


def accuracy_nit(preds: Sequence[str | None], golds: Sequence[str], train_golds: Sequence[str],
                 answer_type: str) -> dict:
    """Accuracy over rows whose target and prediction are both absent from the training labels."""
    seen = {normalize(t, answer_type) for t in train_golds}
    hits = [normalize(p, answer_type) == normalize(g, answer_type)
            for p, g in zip(preds, golds, strict=True)
            if normalize(g, answer_type) not in seen and normalize(p, answer_type) not in seen]
    return _share(hits)


# --- what the scorer uses (the crest family's answer types) ----------------------------------
def measure(rows: list[dict], train: list[str]) -> list[dict]:
    """KamonBench's label metrics for one key and prompt variant (scored rows with the image's
    `split`), per slice: all, each split part, and for programs novel and seen combinations."""
    answer_type = rows[0]["answer_type"]
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
        exact = proportion(exact_match(preds, golds, answer_type))
        rate = error_rate(preds, golds, answer_type)
        row = {"slice": name, "n": len(srows), "parse_rate": sum(r["status"] == "ok" for r in srows) / len(srows),
               "exact": exact["value"], "exact_lo": exact["lo"], "exact_hi": exact["hi"],
               "error_rate": rate["value"], "error_unit": rate["unit"], "excluded": rate["excluded"]}
        if train and name == "all":
            nit = accuracy_nit(preds, golds, train, answer_type)
            row["acc_nit"], row["acc_nit_n"] = nit["value"], nit["n"]
        if answer_type == "crest_program":
            for factor, stat in factor_accuracy(preds, golds).items():
                row[f"{factor}_acc" if factor != "parseable" else "parseable"] = stat["value"]
            row.update(motif_sensitivity(preds, golds))
        out.append(row)
    return out


TABLE = ReportTable(
    name="crest", title="Crests",
    definition="KamonBench: exact match after normalisation, CER / TER over parsed answers, factor accuracy, "
               "motif separation, pair motif accuracy, collapsed motif groups, novel-combination slices",
    note="KamonBench (seed 000). Exact match after normalisation; CER / TER over parsed answers; factor accuracy "
         "(container over targets with a container); motif separation, pair motif accuracy and collapsed motif "
         "groups over container-modifier contexts; slices by split part and by combinations never seen among the "
         "training targets. The crest metrics' own intervals are Wilson intervals taking the questions as "
         "independent.",
    columns=(Column("slice", "slice", "text"), Column("n", "n", "int"), Column("parse rate", "parse_rate"),
             Column("exact", "exact"),
             Column("CER / TER", "error_rate", "num",
                    note=lambda r: r["error_unit"] + (f", {r['excluded']} excl." if r["excluded"] else "")),
             Column("container", "container_acc"), Column("modifier", "modifier_acc"), Column("motif", "motif_acc"),
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
