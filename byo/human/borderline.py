"""The borderline sheet: the questions nearest each readability rule's threshold, on both sides.

A rule (docs/readability.md) decides whether a question is asked from the objects' measures in the
image as rendered. Its *margin* on an object is how far the object's measure lies from the rule's
threshold, signed: at or above 0 the rule reads the object, below 0 it does not.

- `hidden` (presence): the best of the Weber-contrast band (|weber|, standout and step over their
  thresholds, the least of the three), the counterfactual presence over 14 ΔE00 and, where the
  render measured no presence, the grey-level contrast rule; relative (0.5: half again the threshold).
- `contrast`: the same measure (the rule reads presence where the render measured none).
- `color`: the median colour's ΔE00 margin to the nearest other palette colour, less 1 ΔE00.
- `shape`, `material`, `size`: the lesser of the least rendered alternative's difference over
  14 ΔE00 and the least outline difference over its threshold (both must pass); relative.
- `separation`: 1 - the merge ratio with a blurred neighbour over 0.4.
- `overlap`: the better of ink over 7 px and seam over 9 grey levels; relative.

A question's margin under a rule is the least margin of its objects: for a question the rule found
unreadable, the objects it named; for a question asked, the objects its answer rests on (those
whose absence would change it, `byo.families.base.counted`), or every visible object of its image
when none does ("is there a red cube? no"). A rule's *asked side* draws from the questions asked (no rule flagged them) of
the keys the rule found unreadable at least once in the dataset (a rule that never fires on a key
has no threshold to be near there); its *unreadable side* from the questions flagged under it. The
sheet keeps, per rule and side, the N of smallest |margin|. Margins take every visible object and
every other value, where a rule may ask fewer (those that would change the answer): an asked
question can show a negative margin.

The flagged questions are those of `byo questions DATASET --unreadable flag`; a dataset whose
unreadable questions were skipped has no unreadable side, and `pick` says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from byo.core.dataset import Layout
from byo.families import get_family
from byo.families.base import counted
from byo.questions.generate import SUMMARY_FILE, with_evidence
from byo.questions.load import Question
from byo.scene import counterfactual, evidence, outline

ASKED = "asked"
UNREADABLE = "unreadable"
SIDES = (ASKED, UNREADABLE)
ATTRIBUTES = ("shape", "material", "size")


def _least(values) -> float | None:
    found = [v for v in values if v is not None]
    return min(found) if found else None


def presence_margin(o: Mapping, legend: Mapping | None = None) -> float | None:
    """How far the object stands out, relative to the thresholds (>= 0: seen)."""
    found = []
    e = o.get("rendered") or {}
    if "weber" in e:
        found.append(min(abs(e["weber"]) / evidence.PRESENT_WEBER, e.get("standout", 0.0) / evidence.PRESENT_STANDOUT,
                         e.get("step", 0.0) / evidence.MIN_STEP) - 1)
    m = counterfactual.measured(o)
    if m is not None:
        found.append(m.presence / counterfactual.MIN_DIFFERENCE - 1)
    elif "contrast" in e:
        found.append(max(e["contrast"] / evidence.SHOW_CONTRAST, e["edge"] / evidence.SHOW_EDGE) - 1)
    return max(found) if found else None


def _palette(legend: Mapping) -> Mapping[str, Sequence[float]] | None:
    """The colours a person could name an object by, from the family's answers module (`palette`)."""
    try:
        fn = getattr(get_family(legend["family"]).module("answers"), "palette", None)
    except (KeyError, ModuleNotFoundError):
        return None
    return fn(legend) if callable(fn) else None


def color_margin(o: Mapping, legend: Mapping) -> float | None:
    """The object's rendered colour's ΔE00 margin to the nearest other colour, less the rule's 1 ΔE00."""
    e, own = o.get("rendered") or {}, o.get("attributes", {}).get("color")
    palette = _palette(legend)
    if "lab" not in e or not palette or own not in palette:
        return None
    return evidence.color_margin(e["lab"], own, palette)[0] - evidence.COLOR_MARGIN


def attribute_margin(attribute: str) -> Callable[[Mapping, Mapping], float | None]:
    def margin(o: Mapping, legend: Mapping) -> float | None:
        m = counterfactual.measured(o)
        rendered = (min(m.alternatives[attribute].values()) / counterfactual.MIN_DIFFERENCE - 1
                    if m is not None and m.alternatives.get(attribute) else None)
        found = (o.get(outline.OUTLINE_FIELD) or {}).get(attribute)
        return _least([rendered, min(found.values()) / outline.MIN_OUTLINE - 1 if found else None])

    return margin


def separation_margin(o: Mapping, legend: Mapping) -> float | None:
    m = counterfactual.measured(o)
    if m is None or not m.merged:
        return None
    return 1 - max(m.merged.values()) / counterfactual.MAX_MERGE


def overlap_margin(o: Mapping, legend: Mapping) -> float | None:
    e = o.get("rendered") or {}
    if e.get("seam") is None:
        return None
    return max(e["ink"] / evidence.SEPARATE_INK, e["seam"] / evidence.SEPARATE_SEAM) - 1


MARGINS: dict[str, Callable[[Mapping, Mapping], float | None]] = {
    "hidden": presence_margin, "contrast": presence_margin, "color": color_margin,
    **{a: attribute_margin(a) for a in ATTRIBUTES}, "separation": separation_margin, "overlap": overlap_margin}


@dataclass(frozen=True)
class Pick:
    """A question on the sheet: the rule whose threshold it is near, on which side, and how near."""

    id: str
    rule: str
    side: str  # ASKED or UNREADABLE
    margin: float

    def to_json(self) -> dict:
        return {"id": self.id, "rule": self.rule, "side": self.side, "margin": round(self.margin, 4)}


def question_margin(rule: str, legend: Mapping, object_ids: Sequence[int] = ()) -> float | None:
    """The least margin under `rule` of the objects named (`object_ids`), else of the image's visible ones."""
    measure = MARGINS[rule]
    objects = ([o for o in legend["objects"] if o["id"] in set(object_ids)] if object_ids
               else [o for o in legend["objects"] if o.get("visible", True)])
    return _least(measure(o, legend) for o in objects)


def resting_on(q: Question, legend: Mapping) -> tuple[int, ...]:
    """The ids of the objects a question's answer rests on (none when its family is not installed)."""
    try:
        fn = get_family(legend["family"]).answers[q.key]
    except KeyError:
        return ()
    return tuple(o["id"] for o in counted(fn, dict(legend), q.key))


def rule_keys(cases: Sequence[Mapping]) -> dict[str, set[str]]:
    """Per rule, the question keys it found unreadable at least once (the summary's cases)."""
    out: dict[str, set[str]] = {}
    for c in cases:
        out.setdefault(c["rule"], set()).add(c["key"])
    return out


def image_name(q: Question) -> str:
    return q.id.split("/", 1)[0]


def pick(questions: Sequence[Question], legends: Mapping[str, Mapping], cases: Sequence[Mapping], n: int) -> list[Pick]:
    """Per rule and side, the `n` questions of smallest |margin| (`legends`: image name -> the legend
    with its evidence, as `byo questions` reads it; `cases`: the summary's unreadable cases)."""
    named = {(c["name"], c["key"], c["rule"]): tuple(c.get("objects") or ()) for c in cases}
    keys = rule_keys(cases)
    found: dict[tuple[str, str], list[Pick]] = {}
    for q in questions:
        legend = legends.get(image_name(q))
        if legend is None:
            continue
        if q.unreadable is not None:
            rules = [(q.unreadable.rule, UNREADABLE, named.get((image_name(q), q.key, q.unreadable.rule), ()))]
        else:
            rules = [(r, ASKED, resting_on(q, legend)) for r, ks in keys.items() if q.key in ks]
        for rule, side, ids in rules:
            if rule not in MARGINS:
                continue
            margin = question_margin(rule, legend, ids)
            if margin is not None:
                found.setdefault((rule, side), []).append(Pick(q.id, rule, side, margin))
    out = []
    for (_, _), picks in sorted(found.items()):
        out += sorted(picks, key=lambda p: (abs(p.margin), p.id))[:n]
    return out


def unmeasured_rules(cases: Sequence[Mapping]) -> list[str]:
    """Rules found in the dataset whose margin this sheet does not measure (chess `type`, poker `identity`...)."""
    return sorted({c["rule"] for c in cases} - set(MARGINS))


def dataset_picks(dataset: Path, questions: Sequence[Question], n: int) -> tuple[list[Pick], list[str]]:
    """The sheet of a dataset: its legends measured as `byo questions` measures them, and what the
    sheet cannot show (notes: skipped unreadable questions, rules without a margin)."""
    layout = Layout(dataset)
    summary_path = layout.root / SUMMARY_FILE
    summary = json.loads(summary_path.read_text()) if summary_path.is_file() else {}
    cases = summary.get("unreadable") or []
    wanted = {image_name(q) for q in questions}
    legends = {lg["name"]: with_evidence(layout, lg) for lg in layout.legends() if lg["name"] in wanted}
    notes = []
    skipped = sum(1 for c in cases if c.get("policy") == "skip")
    if skipped:
        notes.append(f"{skipped} unreadable questions were skipped, not written: the sheet has no unreadable side "
                     "for them (write the questions with `unreadable` flag)")
    if rules := unmeasured_rules(cases):
        notes.append(f"no margin is measured for the rules {', '.join(rules)}: their questions are not on the sheet")
    return pick(questions, legends, cases, n), notes
