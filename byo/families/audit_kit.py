"""The audit kit a family's audit module is written with (re-exported by byo.families.api): a
rendered image as the audit sees it, every object's identity from the legend, and whether, where
and how big it shows from the instance mask and the camera projection, measured again here; the
verdicts and the table of audit functions. `byo audit` (byo/audit/run.py) uses it.

This module and the family audits (`<family package>.audit`) never use the question generator's
answer functions or the legend's own visibility and position fields: a wrong field must not
make a wrong answer look right.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from byo.families.base import option_label
from byo.scene import counterfactual, evidence
from byo.scene.camera import Projector, defocus_diameter_px
from byo.scene.setup import ResolvedSetup

SHOWN, EDGE, UNSEEN = "visible", "ambiguous", "hidden"


@dataclass(frozen=True)
class Seen:
    """One object: who it is (legend) and how it shows (mask, projection)."""

    id: int
    kind: str
    attributes: dict[str, Any]
    location: tuple[float, float, float]
    rotation: float  # degrees about the vertical, from the legend
    pixels: int  # mask pixels carrying its id
    box: tuple[int, int, int, int] | None  # [x0, y0, x1, y1), from the mask
    centre: tuple[float, float, float]  # projected centre: pixel x, pixel y, depth (m)
    status: str  # SHOWN, EDGE or UNSEEN, from `pixels` and the band, lowered by its presence
    # what the counterfactual renders measured (byo/scene/counterfactual.py); None: not measured
    alternatives: counterfactual.Measured | None = None
    band: str = ""  # the band of `pixels` alone, as the legend's `visibility` states it

    @property
    def height_px(self) -> int:
        return 0 if self.box is None else self.box[3] - self.box[1]

    @property
    def width_px(self) -> int:
        return 0 if self.box is None else self.box[2] - self.box[0]


@dataclass
class MeasuredImage:
    legend: dict[str, Any]
    mask: np.ndarray
    setup: ResolvedSetup
    objects: list[Seen] = field(default_factory=list)
    rgb: np.ndarray | None = None  # the rendered image (H x W x 3, 8-bit); None: no readability evidence
    # object id -> attribute -> {each value its outline is not told from: why} (byo/audit/outline.py)
    unidentified: dict[int, dict[str, dict[str, str]]] = field(default_factory=dict)
    # what the image does not resolve, by what it is ("squares": a board's) -> why (byo/audit/readable.py)
    unresolved: dict[str, str] = field(default_factory=dict)

    @classmethod
    def measure(cls, legend: dict, mask: np.ndarray, rgb: np.ndarray | None = None,
                alternatives: dict[int, dict] | None = None, contrast: dict[int, str] | None = None,
                unidentified: dict[int, dict[str, dict[str, str]]] | None = None,
                unresolved: dict[str, str] | None = None) -> MeasuredImage:
        """`alternatives`: object id -> counterfactual measurements rendered for the audit itself
        (`byo audit` renders them for images whose legend has none); else the legend's.
        `contrast`: object id -> its band by contrast against its local background in the image
        (presence relative to the scene, measured by byo/audit/readable.py): an object seen by it
        is seen, whatever its removal changed. `unidentified`: the values each object's outline
        is not told from in the image (the audit's own outline measure, byo/audit/outline.py).
        `unresolved`: what the image does not resolve ("squares") -> why."""
        setup = ResolvedSetup.model_validate(legend["setup"])
        image = cls(legend, mask, setup, rgb=rgb, unidentified=unidentified or {}, unresolved=unresolved or {})
        for o in legend["objects"]:
            ids = [o["id"], *image.part_ids(o["id"])]  # an object's pixels include its parts' (own mask ids)
            n = int(sum(image.pixel_counts[i] for i in ids))
            box = None
            if n:
                ys, xs = np.nonzero(np.isin(mask, ids))
                box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
            centre = tuple(float(v) for v in image.projector.project([o["location"]])[0])
            found = (alternatives or {}).get(o["id"]) or o.get(counterfactual.LEGEND_FIELD)
            cf = counterfactual.Measured.from_json(found) if found else None
            seen = counterfactual.higher(counterfactual.presence(cf), (contrast or {}).get(o["id"], UNSEEN)) \
                if cf is not None else None
            status = image.status(n) if seen is None else counterfactual.lower(image.status(n), seen)
            image.objects.append(Seen(o["id"], o["kind"], o["attributes"], tuple(o["location"]), o["rotation"], n,
                                      box, centre, status, cf, image.status(n)))
        return image

    def part_ids(self, owner: int) -> list[int]:
        """Mask ids of the object's parts (a family's mask_parts, listed in the legend's `parts`)."""
        return [p["id"] for p in self.legend.get("parts", []) if p["object"] == owner]

    @cached_property
    def pixel_counts(self) -> np.ndarray:
        """Mask pixels of each id (0-255)."""
        return np.bincount(self.mask.ravel(), minlength=256)

    @cached_property
    def projector(self) -> Projector:
        return self.setup.projector()

    @property
    def size(self) -> tuple[int, int]:
        return self.setup.resolution

    def status(self, pixels: int) -> str:
        """The band the legend's setup states: shown from min_visible_pixels, unseen below
        hidden_below_pixels, ambiguous in between."""
        if pixels >= self.setup.min_visible_pixels:
            return SHOWN
        return UNSEEN if pixels < self.setup.hidden_below_pixels else EDGE

    def with_status(self, status: str) -> list[Seen]:
        return [o for o in self.objects if o.status == status]

    def project(self, points) -> np.ndarray:
        return self.projector.project(points)

    def in_frame(self, points) -> bool:
        px = self.project(points)
        w, h = self.size
        return bool(np.all((px[:, 2] > 0) & (px[:, 0] >= 0) & (px[:, 0] <= w) & (px[:, 1] >= 0) & (px[:, 1] <= h)))

    def blur_px(self, o: Seen) -> float:
        b, cam = self.setup.blur, self.setup.camera
        if not b.enabled:
            return 0.0
        return float(defocus_diameter_px(o.centre[2], focal_length=cam.focal_length, sensor_width=cam.sensor_width,
                                         fstop=b.fstop, focus_distance=b.focus_distance, resolution=self.size))

    # --- readability in the rendered image file (byo.scene.evidence; docs/readability.md) ------------
    @cached_property
    def evidence(self) -> dict[int, evidence.Evidence]:
        """Each object's evidence measured again from the image and mask files ({} without the image)."""
        if self.rgb is None:
            return {}
        return evidence.measure_objects(self.rgb, self.mask, {o.id: [o.id, *self.part_ids(o.id)] for o in self.objects})

    def unshown(self, objects: list[Seen]) -> IllPosed | None:
        """Ill-posed when an object does not stand out from its surroundings in the image. An object
        whose presence the render measured (counterfactual) is judged by that instead, as the
        questions judge it (its status is lowered by its presence)."""
        for o in objects:
            e = self.evidence.get(o.id)
            if e is not None and o.alternatives is None and not evidence.shows(e):
                return IllPosed(f"unreadable (contrast): {o.kind} {o.id} does not stand out in the image "
                                f"(contrast {e.contrast:.1f}, edge {e.edge:.1f} grey levels)")
        return None

    def unseparable(self, objects: list[Seen]) -> IllPosed | None:
        """Ill-posed when an object that borders another shows neither ink nor a seam in the image."""
        for o in objects:
            e = self.evidence.get(o.id)
            if e is not None and e.seam is not None and not evidence.separable(e):
                return IllPosed(f"unreadable (overlap): {o.kind} {o.id} merges with its neighbour in the image "
                                f"(ink {e.ink} px, seam {e.seam:.1f} grey levels)")
        return None

    def color_off(self, objects: list[Seen], palette: dict[str, tuple[float, ...]],
                  named: frozenset[str] | None = None) -> IllPosed | None:
        """Ill-posed when an object's rendered colour is not nearer its own palette colour than any
        other by evidence.COLOUR_MARGIN (CIEDE2000). With `named` (the colours the question names),
        only an object of one of them, or whose colour could be read as one, counts."""
        for o in objects:
            e, own = self.evidence.get(o.id), o.attributes.get("color")
            if e is None or not isinstance(own, str) or own not in palette:
                continue
            margin, _ = evidence.color_margin(e.lab, own, palette)
            if margin >= evidence.COLOR_MARGIN:
                continue
            rivals = evidence.read_as(e.lab, own, palette)  # the colours it could be read as, nearest first
            if named is None or own in named or named & set(rivals):
                return IllPosed(f"unreadable (color): {own} {o.kind} {o.id} renders as {rivals[0]} "
                                f"(ΔE00 margin {margin:.1f})")
        return None

    # --- the counterfactual check (byo/scene/counterfactual.py) ----------------------------------------
    @staticmethod
    def measured(objects: list[Seen], attribute: str) -> bool:
        """Whether `attribute`'s alternatives were rendered for every one of `objects`."""
        return all(o.alternatives is not None and attribute in o.alternatives.alternatives for o in objects)

    @staticmethod
    def attribute_off(objects: list[Seen], attribute: str, values=None) -> IllPosed | None:
        """Ill-posed when an object rendered with another value of `attribute` (of `values`, or any
        rendered) does not differ visibly: the image does not tell which it is."""
        for o in objects:
            bad = counterfactual.unreadable_values(o.alternatives, attribute, values) if o.alternatives else None
            if bad:
                own = o.attributes.get(attribute, o.kind)
                return IllPosed(f"unreadable ({attribute}): {o.kind} {o.id} rendered with {attribute} {bad[0]} instead "
                                f"of {own} differs by {o.alternatives.alternatives[attribute][bad[0]]:g} < "
                                f"{counterfactual.MIN_DIFFERENCE:g} ΔE00")
        return None

    def outline_off(self, objects: list[Seen], attribute: str, values=None) -> IllPosed | None:
        """Ill-posed when an object's outline, as the image draws it, is another value's of
        `attribute` (of `values`, or any): different is not identifiable (a cone from above is a disc)."""
        for o in objects:
            found = self.unidentified.get(o.id, {}).get(attribute, {})
            bad = [v for v in (found if values is None else values) if v in found]
            if bad:
                return IllPosed(f"unreadable ({attribute}): {found[bad[0]]}")
        return None

    def elevation_to(self, point) -> float:
        """Degrees above the horizon of the camera's line of sight to `point`."""
        cam = self.setup.camera
        if cam.projection == "orthographic":
            return cam.elevation
        d = np.subtract(cam.location, point)
        return math.degrees(math.atan2(d[2], math.hypot(d[0], d[1])))


# --- verdicts -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Expected:
    """The answer the pixels give."""

    value: Any


@dataclass(frozen=True)
class IllPosed:
    """The image does not decide the question."""

    reason: str


Finding = Expected | IllPosed
# question (a questions.jsonl row), the measured image, the objects taken as seen -> a finding.
# The audit calls it once with the visible objects and again with every choice of the objects
# in the ambiguous band added: a question whose finding changes is ill-posed.
AuditFn = Callable[[dict, MeasuredImage, list[Seen]], Finding]
# The measured image -> problems with the legend's family fields, as (field, what is wrong).
LegendCheck = Callable[[MeasuredImage], list[tuple[str, str]]]


class AuditTable(dict[str, AuditFn]):
    """Question key -> audit function; `@table.key("count_pieces")` adds one."""

    def key(self, *names: str) -> Callable[[AuditFn], AuditFn]:
        def register(fn: AuditFn) -> AuditFn:
            for name in names:
                self[name] = fn
            return fn

        return register


def letter_of(question: dict, truths: list[bool]) -> Finding:
    """A multiple-choice answer: the letter of the one true option, or ill-posed."""
    true = [k for k, t in enumerate(truths) if t]
    if len(true) != 1:
        return IllPosed(f"{len(true)} options are true of the image: "
                        + (", ".join(question["choices"][k] for k in true) or "none"))
    return Expected(option_label(true[0]))


def guarded(table: AuditTable, keys, check: Callable[[dict, MeasuredImage, list[Seen]], IllPosed | None]) -> None:
    """Wrap the audits of `keys` in `table`: a question is ill-posed when `check` finds an object it
    depends on unreadable in the image, whatever the pixels' answer."""
    for key in keys:
        fn = table[key]

        def checked(q, image, seen, fn=fn):
            return check(q, image, seen) or fn(q, image, seen)

        table[key] = checked
