"""`byo audit DATASET`: recompute every question's answer from the instance masks, the measured
boxes and the camera projection, and check the legend's fields against the pixels.

Each distinct question (an image, a key, its parameters, options and answer; the prompt variants
of one question are one question) gets one verdict:

- `ok`: the answer is what the pixels give;
- `wrong`: the pixels give another answer;
- `ill_posed`: the image does not decide it (two true options, an object at the edge of
  visibility that changes the answer, a row asked on a board seen along its diagonal...);
- `flagged`: ill-posed, and asked flagged as unreadable (`questions.unreadable: flag`): scored
  apart, not a failure;
- `unchecked`: the family has no audit for that key.

A family's audit is the module of its package it names as `Family.audit` (e.g.
byo/families/chess/audit.py) with `AUDITS`, an AuditTable of key -> function, and optionally
`LEGEND_CHECKS`, functions checking its own legend fields. A family without one still gets the
generic legend checks.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from byo.audit import outline, readable
from byo.core.dataset import Layout, atomic_write_text
from byo.core.errors import ConfigError, InputError
from byo.core.inputs import DATA_ERRORS, read_image, read_json, reading
from byo.core.progress import Bar
from byo.families import get_family
from byo.families.audit_kit import (
    EDGE,
    SHOWN,
    UNSEEN,
    AuditTable,
    Expected,
    IllPosed,
    LegendCheck,
    MeasuredImage,
    Seen,
)
from byo.questions.load import QUESTIONS, SUMMARY_FILE, load_questions
from byo.scene import counterfactual
from byo.scene.counterfactual import LEGEND_FIELD
from byo.scene.setup import ResolvedSetup

AUDIT_FILE = "audit.json"
STATUSES = ("ok", "wrong", "ill_posed", "flagged", "unchecked")
MAX_EDGE = 4  # objects in the ambiguous band tried in every combination
PIXEL_TOLERANCE = 0.5  # legend pixel_coords against the projection, pixels


@dataclass
class QuestionVerdict:
    id: str  # the first prompt variant's id
    image: str
    key: str
    status: str
    answer: Any
    expected: Any = None
    reason: str = ""
    variants: int = 1
    levels: dict = field(default_factory=dict)  # the image's level of each varying variable


@dataclass
class LegendProblem:
    image: str
    field: str
    problem: str


@dataclass
class DamagedFile:
    """A file of the dataset that does not match what its legend records (or a legend that does
    not read): the image is not audited, and the audit fails."""

    file: str
    problem: str


@dataclass
class AuditReport:
    dataset: str
    family: str
    images: int
    questions: list[QuestionVerdict] = field(default_factory=list)
    legend_problems: list[LegendProblem] = field(default_factory=list)
    damaged: list[DamagedFile] = field(default_factory=list)
    # what `byo questions` left out (its summary): variable -> level -> questions skipped, and why
    skipped: dict[str, dict[str, int]] = field(default_factory=dict)
    skipped_why: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)

    def level_table(self) -> list[dict]:
        """Per variable and level: the questions asked (distinct, audited) by status, the questions
        `byo questions` skipped (images x prompt variants, as its summary counts them) and why, and
        the reasons of the ill-posed ones."""
        cells: dict[tuple[str, str], dict] = {}

        def cell(variable: str, level: str) -> dict:
            return cells.setdefault((variable, level), {"variable": variable, "level": level, "asked": Counter(),
                                                        "skipped": 0, "why": Counter()})
        for q in self.questions:
            for variable, level in q.levels.items():
                c = cell(variable, level if isinstance(level, str) else json.dumps(level))
                c["asked"][q.status] += 1
                if q.status in ("ill_posed", "flagged"):
                    c["why"][f"{q.status}: {_short(q.reason)}"] += 1
        for variable, levels in self.skipped.items():
            for level, n in levels.items():
                c = cell(variable, level)
                c["skipped"] += n
                for reason, k in self.skipped_why.get(variable, {}).get(level, {}).items():
                    if reason.startswith("skipped: "):
                        c["why"][reason] += k
        return [{**c, "asked": dict(c["asked"]), "why": dict(c["why"].most_common())} for c in cells.values()]

    def table(self) -> dict[str, Counter]:
        """key -> Counter of statuses."""
        out: dict[str, Counter] = defaultdict(Counter)
        for q in self.questions:
            out[q.key][q.status] += 1
        return dict(sorted(out.items()))

    def count(self, status: str) -> int:
        return sum(q.status == status for q in self.questions)

    @property
    def failed(self) -> bool:
        return bool(self.count("wrong") or self.count("ill_posed") or self.legend_problems or self.damaged)

    def to_json(self) -> dict:
        return {"dataset": self.dataset, "family": self.family, "images": self.images,
                "totals": {s: self.count(s) for s in STATUSES} | {"legend_problems": len(self.legend_problems),
                                                                   "damaged_files": len(self.damaged)},
                "table": {k: dict(v) for k, v in self.table().items()},
                "levels": self.level_table(),
                "findings": [asdict(q) for q in self.questions if q.status != "ok"],
                "legend_problems": [asdict(p) for p in self.legend_problems],
                "damaged_files": [asdict(d) for d in self.damaged]}


def family_audit(family) -> tuple[AuditTable, list[LegendCheck]]:
    """The family's audit module (`Family.audit`), or nothing to check its questions with."""
    if family.audit is None:
        return AuditTable(), []
    module = family.module(family.audit)
    return module.AUDITS, list(getattr(module, "LEGEND_CHECKS", []))


def _short(reason: str) -> str:
    """A finding's reason without its particulars: "unreadable (shape): cone 3 ..." -> "unreadable (shape)"."""
    return reason.split(":", 1)[0]


# --- legend fields every family shares ------------------------------------------------------
def generic_checks(image: MeasuredImage) -> list[tuple[str, str]]:
    problems = []
    h, w = image.mask.shape
    if (image.legend["width"], image.legend["height"]) != (w, h):
        problems.append(("width/height", f"legend says {image.legend['width']}x{image.legend['height']}, "
                                         f"the mask is {w}x{h}"))
    listed = {o.id for o in image.objects} | {p["id"] for p in image.legend.get("parts", [])}
    unlisted = sorted(set(np.unique(image.mask).tolist()) - {0} - listed)
    if unlisted:
        problems.append(("objects", f"the mask shows ids {unlisted} that the legend does not list"))
    if not 1 <= image.setup.hidden_below_pixels <= image.setup.min_visible_pixels:
        problems.append(("setup.hidden_below_pixels", "the visibility band is not 1 <= hidden_below <= min_visible"))
    for o, seen in zip(image.legend["objects"], image.objects, strict=True):
        where = f"objects[{o['id']}]"
        if o["visible_pixels"] != seen.pixels:
            problems.append((f"{where}.visible_pixels", f"{o['visible_pixels']}, the mask shows {seen.pixels}"))
        if (tuple(o["bbox"]) if o["bbox"] else None) != seen.box:
            problems.append((f"{where}.bbox", f"{o['bbox']}, the mask gives {list(seen.box) if seen.box else None}"))
        if o.get("visibility") != seen.band or o.get("visible") != (seen.band == SHOWN):
            problems.append((f"{where}.visibility", f"{o.get('visibility')} (visible: {o.get('visible')}), the mask "
                                                    f"band gives {seen.band} for {seen.pixels} px"))
        px, py, depth = o["pixel_coords"]
        cx, cy, cd = seen.centre
        if abs(px - cx) > PIXEL_TOLERANCE or abs(py - cy) > PIXEL_TOLERANCE or abs(depth - cd) > 1e-3 * max(1, cd):
            problems.append((f"{where}.pixel_coords", f"{o['pixel_coords']}, the projection gives "
                                                      f"[{cx:.2f}, {cy:.2f}, {cd:.4f}]"))
    return problems


# --- questions ------------------------------------------------------------------------------
def same(answer, expected) -> bool:
    if isinstance(answer, list) and isinstance(expected, list):
        return sorted(answer) == sorted(expected)
    return answer == expected


def _merged(fn, question: dict, image: MeasuredImage, shown: list[Seen], finding: Expected) -> str | None:
    """Why a count is ill-posed when two of the objects it counts (those whose absence would
    change the pixels' answer) blur into one blob (counterfactual.merged_pair, as the questions
    judge it); None otherwise."""
    if counterfactual.merged_pair({o.id: o.alternatives for o in shown}) is None:
        return None
    rest = [o for o in shown if fn(question, image, [x for x in shown if x is not o]) != finding]
    pair = counterfactual.merged_pair({o.id: o.alternatives for o in rest})
    if pair is None:
        return None
    a, b, ratio = pair
    return (f"unreadable (separation): objects {a} and {b} blur into one blob (the saddle between them is "
            f"{ratio:.0%} of the lower peak, >= {counterfactual.MAX_MERGE:.0%})")


def judge(fn, question: dict, image: MeasuredImage) -> tuple[str, Any, str]:
    """(status, expected answer, reason) of one question."""
    shown = image.with_status(SHOWN)
    edge = image.with_status(EDGE)
    finding = fn(question, image, shown)
    if edge and len(edge) > MAX_EDGE:
        return "ill_posed", None, f"{len(edge)} objects at the edge of visibility"
    for n in range(1, len(edge) + 1):
        for extra in itertools.combinations(edge, n):
            seen: list[Seen] = sorted([*shown, *extra], key=lambda o: o.id)
            if fn(question, image, seen) != finding:
                return "ill_posed", None, "depends on an object at the edge of visibility"
    if isinstance(finding, IllPosed):
        return "ill_posed", None, finding.reason
    assert isinstance(finding, Expected)
    if counterfactual.counting(question["key"]) and (merged := _merged(fn, question, image, shown, finding)):
        return "ill_posed", None, merged
    unseen = image.with_status(UNSEEN)
    hidden = readable.hidden_changes(finding, unseen, lambda extra: fn(question, image, sorted(
        [*shown, *extra], key=lambda o: o.id)), Expected) if unseen else None
    if hidden is not None:
        return "ill_posed", None, (f"unreadable (hidden): the answer changes if {hidden.kind} {hidden.id}, which the "
                                   f"image does not show ({hidden.pixels} px in the mask), were counted")
    if same(question["answer"], finding.value):
        return "ok", finding.value, ""
    return "wrong", finding.value, f"answer {question['answer']!r}, the pixels give {finding.value!r}"


def distinct(questions) -> dict[tuple, list]:
    """Prompt variants of one question grouped: same image, key, parameters, options, answer."""
    groups: dict[tuple, list] = {}
    for q in questions:
        row = q.model_dump()
        signature = (row["image"], row["key"], json.dumps(row["params"], sort_keys=True),
                     json.dumps(row["choices"]), json.dumps(row["answer"], sort_keys=True))
        groups.setdefault(signature, []).append(row)
    return groups


def damaged_images(layout: Layout) -> tuple[list[str], list[DamagedFile]]:
    """Images whose legend is there but whose files do not match it (SHA-256 compared), or whose
    legend does not read: their names, and each one's first damaged file."""
    names, damaged = [], []
    for path in sorted((layout.root / "legends").glob("[!.]*.json")):
        found = layout.problems(path.stem, deep=True)
        if found:
            error = layout.damage(path.stem, found)
            names.append(path.stem)
            damaged.append(DamagedFile(error.file, error.problems[0][1]))
    return names, damaged


def audit_dataset(dataset: str | Path, *, questions: str | Path | None = None,
                  show_progress: bool = True, write: bool = True) -> AuditReport:
    layout = Layout(dataset)
    broken, damaged = damaged_images(layout)
    legends = [lg for lg in layout.legends(damaged="skip") if lg["name"] not in broken]
    if not legends and not damaged:
        raise ConfigError(str(dataset), [("<dataset>", "no complete images (render the dataset first)")])
    first = layout.legend(legends[0]["name"]) if legends else None
    with reading(first or dataset, "a legend"):
        family = get_family(legends[0]["family"]) if legends else None
    path = Path(questions) if questions else layout.root / QUESTIONS
    if not path.is_file():
        raise ConfigError(str(path), [("<file>", "no questions to audit (run `byo questions DATASET` first)")])
    by_image: dict[str, list] = defaultdict(list)
    # nothing asked (every question skipped): the per-level table still says why
    asked = load_questions(path, layout.root) if path.read_bytes().strip() else []
    for signature, rows in distinct(asked).items():
        by_image[signature[0]].append(rows)
    audits, legend_checks = family_audit(family) if family else (AuditTable(), [])

    report = AuditReport(str(layout.root), family.name if family else "?", len(legends) + len(broken),
                         damaged=damaged)
    summary = path.with_name(SUMMARY_FILE)
    if summary.is_file():  # what `byo questions` left out, per variable and level
        with reading(summary, "a questions summary"):
            data = read_json(summary)
            report.skipped = {v: {lv: int(c.get("skipped", 0)) for lv, c in levels.items() if c.get("skipped")}
                              for v, levels in data.get("levels", {}).items()}
            report.skipped_why = data.get("why", {})
    with Bar("[bold]auditing", len(legends), unit="img", enabled=show_progress) as bar:
        for legend in legends:
            audit_image(layout, legend, report, by_image.pop(legend["image"], []), audits, legend_checks,
                        family.name)
            bar.advance()
    for image, groups in by_image.items():  # questions about images without a complete legend
        for rows in groups:
            report.questions.append(QuestionVerdict(rows[0]["id"], image, rows[0]["key"], "unchecked",
                                                    rows[0]["answer"], reason="no complete legend for this image",
                                                    variants=len(rows), levels=rows[0].get("levels") or {}))
    if write:
        atomic_write_text(layout.root / AUDIT_FILE, json.dumps(report.to_json(), indent=1, default=str) + "\n")
    return report


def own_alternatives(layout: Layout, name: str) -> dict[int, dict] | None:
    """The counterfactual measurements `byo audit` rendered for this image (object id -> record),
    None when it rendered none."""
    path = layout.counterfactuals(name)
    if not path.is_file():
        return None
    with reading(path, "counterfactual measurements"):
        return {int(k): v for k, v in read_json(path).items()}


def unmeasured(dataset: str | Path) -> list[str]:
    """Images of the dataset whose legend records no counterfactual measurement and for which the
    audit rendered none: a dataset rendered before the check (or with it off)."""
    layout = Layout(dataset)
    return [lg["name"] for lg in layout.legends(damaged="skip")
            if not any(LEGEND_FIELD in o for o in lg["objects"]) and not layout.counterfactuals(lg["name"]).is_file()]


def audit_image(layout: Layout, legend: dict, report: AuditReport, groups: list[list[dict]], audits: AuditTable,
                legend_checks: list[LegendCheck], family: str) -> None:
    """One image's legend checks and question verdicts, added to `report`. A legend the checks
    cannot read (a field missing, lists of different lengths) is a legend problem, not a crash."""
    file = layout.legend(legend["name"])
    if legend["family"] != family:
        report.legend_problems.append(LegendProblem(legend["image"], "family", f"{legend['family']!r}, the dataset's "
                                                    f"first image is {family!r}"))
        return
    try:
        with reading(file, "a legend"):
            mask, rgb = read_image(layout.mask(legend["name"]), "L"), read_image(layout.image(legend["name"]), "RGB")
            parts: dict[int, list[int]] = {}
            for p in legend.get("parts", []):
                parts.setdefault(p["object"], []).append(p["id"])
            contrast = readable.contrast_bands(rgb, mask, {o["id"]: [o["id"], *parts.get(o["id"], [])]
                                                           for o in legend["objects"]})
            unidentified = outline.unidentified(legend, get_family(family), ResolvedSetup.model_validate(
                legend["setup"]).projector().project)
            squares = readable.squares_unresolved(legend, rgb, mask)
            image = MeasuredImage.measure(legend, mask, rgb, own_alternatives(layout, legend["name"]), contrast,
                                          unidentified, {"squares": squares} if squares else None)
    except ValidationError as err:
        raise ConfigError(str(file), [("setup", f"not a legend this version can audit ({err.error_count()} problems; "
                                                "render the dataset again)")]) from None
    except InputError as err:
        report.legend_problems.append(LegendProblem(legend["image"], "legend", err.problems[0][1]))
        return
    for check in [generic_checks, *legend_checks]:
        try:
            with reading(file, "a legend"):
                found = check(image)
        except InputError as err:
            found = [(getattr(check, "__name__", "check"), err.problems[0][1])]
        report.legend_problems += [LegendProblem(legend["image"], f, p) for f, p in found]
    for rows in groups:
        q = rows[0]
        fn = audits.get(q["key"])
        try:
            status, expected, reason = ("unchecked", None, f"no audit for {q['key']!r}") if fn is None \
                else judge(fn, q, image)
        except ConfigError:
            raise
        except DATA_ERRORS as err:  # the legend and the question do not fit together
            status, expected, reason = "unchecked", None, f"cannot be audited ({type(err).__name__}: {err})"
            report.legend_problems.append(LegendProblem(legend["image"], q["key"], f"question {q['id']}: {reason}"))
        if status == "ill_posed" and q.get("unreadable"):  # asked flagged as unreadable (questions.unreadable)
            status = "flagged"
        report.questions.append(QuestionVerdict(q["id"], q["image"], q["key"], status, q["answer"],
                                                expected, reason, len(rows), q.get("levels") or {}))
