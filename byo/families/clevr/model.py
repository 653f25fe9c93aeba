"""CLEVR-style scenes: cubes, spheres, cylinders and cones in CLEVR's colours and materials.

Positions are drawn in CLEVR units (x, y in [-extent, extent]) and scaled to metres by
`scale`. Left/right relations are decided on the projected image x of the object centres (so
they are true of the pixels whatever the perspective), and placement rejects layouts where
CLEVR's ground-plane rule would disagree; front/behind use the ground-plane direction away
from the camera, as CLEVR does. Placement keeps every pair apart by
`direction_margin` along the camera's ground axes and by `x_margin` (fraction of the image
width) in image x, so
every relation is unambiguous.
"""

from __future__ import annotations

import itertools
import math
from typing import Literal

from pydantic import Field, field_validator, model_validator

from byo.families.api import ColorDef, Strict, color_name

SHAPES = ("cube", "sphere", "cylinder", "cone")
COLORS = {  # CLEVR's palette, sRGB 0-255
    "gray": (87, 87, 87), "red": (173, 35, 35), "blue": (42, 75, 215), "green": (29, 105, 20),
    "brown": (129, 74, 25), "purple": (129, 38, 192), "cyan": (41, 208, 208), "yellow": (255, 238, 51),
}
MATERIALS = ("rubber", "metal")
SIZES = {"large": 0.7, "small": 0.35}  # half-extent in CLEVR units
SPLITS = ("all", "train", "id_val", "id_test", "ood_val", "ood_test")
RELATIONS = ("left", "right", "front", "behind")
# Left/right is asked only for centres at least this fraction of the image width apart (and at
# least `x_margin`): closer than that, the image does not decide it.
MIN_X_SEPARATION = 0.01
# Shape, material and size are asked about (or used to name an object) only when every visible
# object is at least this many pixels across (the smaller side of its visible box) and blurred by
# at most this fraction of that: smaller or blurrier, a cube and a cylinder are one blob.
ATTRIBUTE_READABLE_MIN_PX = 8
ATTRIBUTE_READABLE_MAX_BLUR = 0.5


MAX_OBJECTS = 100  # objects in a scene (CLEVR's own scenes hold 3 to 10)


class ObjectConfig(Strict):
    shape: Literal["cube", "sphere", "cylinder", "cone"]
    color: str | ColorDef
    material: Literal["rubber", "metal"] = "rubber"
    size: Literal["large", "small"] = "large"
    position: tuple[float, float] | None = None  # CLEVR units; None: placed at random
    rotation: float | None = None  # degrees; None: random


class ClevrContent(Strict):
    mode: Literal["random", "objects", "single_object", "two_object", "relational", "color_binding",
                  "autocomp", "compass"] = "random"
    count: int | tuple[int, int] | None = None  # objects (random, default 3-10) or N (color_binding, default 2)
    shapes: list[Literal["cube", "sphere", "cylinder", "cone"]] = list(SHAPES)
    colors: list[str | ColorDef] = list(COLORS)
    materials: list[Literal["rubber", "metal"]] = list(MATERIALS)
    sizes: list[Literal["large", "small"]] = list(SIZES)
    objects: list[ObjectConfig] = []
    split: Literal["all", "train", "id_val", "id_test", "ood_val", "ood_test"] = "all"
    scale: float = Field(0.1, gt=0)  # metres per CLEVR unit
    extent: float = Field(3.0, gt=0)  # half-size of the placement square, CLEVR units
    min_gap: float = Field(0.25, ge=0)  # between bounding circles, CLEVR units
    direction_margin: float = Field(0.4, ge=0)  # along the camera's ground axes, CLEVR units
    x_margin: float = Field(0.01, ge=0, lt=0.5)  # image-x separation of centres, fraction of width
    frame_margin: float = Field(0.03, ge=0, lt=0.5)  # centres kept this fraction inside the frame
    max_tries: int = Field(500, ge=1, le=100_000)  # candidates per object (drawn at once) before the layout restarts
    max_restarts: int = Field(200, ge=1, le=10_000)
    # autocomp: the binding task, the condition and which concept (autocomp.py)
    task: Literal["color", "position"] = "color"
    condition: Literal["minimal", "contextual"] = "minimal"
    concept: int = Field(0, ge=0, lt=10**9)  # the same index draws the same concept in both conditions
    concept_seed: int = Field(0, ge=0, lt=10**9)
    cell: float = Field(0.22, gt=0, le=10)  # metres between the grid cells objects stand on
    jitter: float = Field(0.02, ge=0, le=1)  # metres an object may move inside its cell
    props: int = Field(4, ge=0, le=20)  # contextual: distractor objects outside the vocabulary (tori)

    @field_validator("count")
    @classmethod
    def _count(cls, v):
        if v is None:
            return v
        lo, hi = (v, v) if isinstance(v, int) else v
        if lo < 1 or hi < lo or hi > MAX_OBJECTS:
            raise ValueError(f"count must be an integer from 1 to {MAX_OBJECTS}, or [min, max] with "
                             f"1 <= min <= max <= {MAX_OBJECTS}")
        return v

    @field_validator("colors")
    @classmethod
    def _colors(cls, v):
        if not v:
            raise ValueError("at least one colour is needed")
        names = [color_name(c) for c in v]
        for c in names:
            if isinstance(c, str) and c not in COLORS and not any(isinstance(d, ColorDef) and d.name == c for d in v):
                raise ValueError(f"unknown colour {c!r}; expected one of {', '.join(COLORS)} or {{name, rgb}}")
        # CLEVR's question engine matches filters by substring: names must not contain one another.
        for a, b in itertools.permutations(names, 2):
            if a in b:
                raise ValueError(f"colour names must not contain one another ({a!r} is inside {b!r})")
        return v

    @model_validator(mode="after")
    def _mode_requirements(self):
        lo, hi = self.count_range
        if self.mode == "objects" and not self.objects:
            raise ValueError("mode 'objects' needs a non-empty `objects` list")
        if self.mode == "color_binding" and hi > min(len(self.shapes), len(self.colors)):
            raise ValueError(f"color_binding with N={hi} needs at least {hi} shapes and {hi} colours")
        if self.mode == "autocomp":
            if hi > min(len(self.shapes), len(self.colors), 3):
                raise ValueError(f"autocomp with N={hi} needs N <= 3 and at least N shapes and N colours")
            if self.task == "position" and lo < 2:
                raise ValueError("position binding needs N >= 2 (N - 1 relations chain the objects)")
        if self.mode in ("single_object", "two_object") and self.split != "all":
            outside = [c for c in _color_names(self.colors) if c not in COLORS]
            if outside:
                raise ValueError(f"split {self.split!r} draws the study's labels (CLEVR's 8 colours); "
                                 f"{', '.join(outside)} belong to no split: use split 'all'")
        if self.mode in ("two_object", "relational") and len(self.shapes) < 2:
            raise ValueError(f"mode {self.mode!r} needs at least two shapes")
        if self.mode == "two_object" and len(self.colors) < 2:
            raise ValueError("mode 'two_object' needs at least two colours")
        if self.mode == "compass":  # compass_scene.py: one shape left out, the others in bands of image x
            if len(self.shapes) < 3:
                raise ValueError("mode 'compass' needs at least 3 shapes: one left out of each image, two or more "
                                 "for a relation chain to walk between")
            if -(-hi // (len(self.shapes) - 1)) > len(self.colors):
                raise ValueError(f"mode 'compass' gives the objects of one shape different colours: {hi} objects "
                                 f"over {len(self.shapes) - 1} shapes need {-(-hi // (len(self.shapes) - 1))} colours")
        if self.mode in ("random", "compass"):
            self._check_fits(hi)
        return self

    @property
    def count_range(self) -> tuple[int, int]:
        if self.count is None:
            return (2, 2) if self.mode in ("color_binding", "autocomp") else (3, 10)
        return (self.count, self.count) if isinstance(self.count, int) else tuple(self.count)

    def _check_fits(self, n: int) -> None:
        """Reject requests that cannot fit, before any work (necessary conditions only; the
        placement itself is tried for every image before rendering starts)."""
        side = 2 * self.extent
        r = min(_footprint_radius(s, z) for s in self.shapes for z in self.sizes)
        coverage = n * math.pi * (r + self.min_gap / 2) ** 2 / side**2
        if coverage > 0.6:  # random sequential placement stalls near 55% coverage
            sizes = "/".join(self.sizes)
            raise ValueError(
                f"{n} {sizes} objects cannot fit in [-{self.extent}, {self.extent}]^2 with min_gap "
                f"{self.min_gap}: they would cover {coverage:.0%} of it (random placement needs under 60%); "
                f"lower `count`, use smaller `sizes` or raise `extent`")
        if self.direction_margin > 0 and n > math.floor(side * math.sqrt(2) / self.direction_margin) + 1:
            raise ValueError(f"{n} objects cannot all be {self.direction_margin} apart along one axis "
                             f"within [-{self.extent}, {self.extent}]^2")


def relation_margin_px(content: ClevrContent, width: int) -> float:
    """How far apart (pixels) two centres must be in image x for left/right to be decided."""
    return max(content.x_margin, MIN_X_SEPARATION) * width


def _footprint_radius(shape: str, size: str) -> float:
    half = SIZES[size]
    return half * math.sqrt(2) if shape == "cube" else half


def _color_table(content: ClevrContent) -> dict[str, tuple[float, float, float]]:
    table = {name: tuple(c / 255 for c in rgb) for name, rgb in COLORS.items()}
    for c in [*content.colors, *(o.color for o in content.objects)]:
        if isinstance(c, ColorDef):
            table[c.name] = c.rgb
    return table


def _color_names(colors) -> list[str]:
    return [color_name(c) for c in colors]


# --- label splits of the compositional-generalisation study, as its authors' code lists them ---
# Single-object labels (Table 1: 17 train, 4 OOD-val, 11 OOD-test; 80 / 100 / 100 images each).
# The authors' loader names them by class id, the row of a prompt file in alphabetical order
# (colour, then shape): tests/families/clevr/test_compgen.py maps those ids onto these names.
OBJECT_SPLITS: dict[str, tuple[str, ...]] = {
    "train": ("red sphere", "green sphere", "purple sphere", "cyan sphere", "gray sphere", "blue sphere",
              "yellow sphere", "gray cube", "blue cube", "brown cube", "red cylinder", "green cylinder",
              "purple cylinder", "cyan cylinder", "purple cone", "brown cone", "yellow cone"),
    "ood_val": ("brown sphere", "yellow cube", "gray cylinder", "cyan cone"),
    "ood_test": ("blue cone", "blue cylinder", "brown cylinder", "cyan cube", "gray cone", "green cone", "green cube",
                 "purple cube", "red cone", "red cube", "yellow cylinder"),
}
# Relational labels "<shape> left|right <shape>" (Table 1: 11 train, 5 OOD-val, 8 OOD-test label
# folders; 40 / 50 / 50 images each), the folders of the authors' dataset. A split holds labels,
# not arrangements: "cylinder left sphere" is a training label and "sphere right cylinder", the
# same picture, an OOD-val one; likewise (sphere, cylinder) and (cone, cube) across OOD val and test.
RELATION_SPLITS: dict[str, tuple[str, ...]] = {
    "train": ("cube left sphere", "cylinder left sphere", "sphere left cone", "cube right sphere", "sphere left cube",
              "sphere right cube", "cylinder left cube", "cylinder left cone", "cone right sphere",
              "cone right cylinder", "cube right cylinder"),
    "ood_val": ("cube left cone", "sphere left cylinder", "sphere right cylinder", "cone right cube", "cube right cone"),
    "ood_test": ("cone left cylinder", "cube left cylinder", "cylinder right cube", "cylinder right sphere",
                 "sphere right cone", "cylinder right cone", "cone left cube", "cone left sphere"),
}
_OBJECT_SPLIT = {label: split for split, labels in OBJECT_SPLITS.items() for label in labels}
_RELATION_SPLIT = {label: split for split, labels in RELATION_SPLITS.items() for label in labels}


def object_label_split(color: str, shape: str) -> str | None:
    """The study's split of the label "<colour> <shape>"; None for a label outside its 32."""
    return _OBJECT_SPLIT.get(f"{color} {shape}")


def relation_label(a: str, relation: str, b: str) -> str:
    return f"{a} {relation} {b}"


def phrasings(left: str, right: str) -> tuple[str, str]:
    """The two labels true of `left` standing left of `right`: "a left b" and "b right a"."""
    return relation_label(left, "left", right), relation_label(right, "right", left)


def arrangement(label: str) -> tuple[str, str]:
    """(left shape, right shape) that a relational label describes."""
    a, relation, b = label.split()
    return (a, b) if relation == "left" else (b, a)


def relation_label_split(label: str) -> str | None:
    """The study's split of a relational label; None for one outside its 24."""
    return _RELATION_SPLIT.get(label)


def two_object_pairs(shapes, colors, wanted: str) -> list[tuple[tuple[str, str], tuple[str, str], str | None]]:
    """The two-object images a split draws: ((shape, colour), (shape, colour), split), two labels
    of one split differing in shape and colour ("The two-object dataset contains images of exactly
    two-objects which differ in both shape and colour"). Both from one split (Table 1: 93
    training pairs x 80 images, 6 OOD-val and 37 OOD-test pairs x 100), so no held-out object
    enters the other held-out split's images."""
    pairs = []
    for s, t in itertools.combinations(shapes, 2):
        for col, col2 in itertools.permutations(colors, 2):
            split = object_label_split(col, s)
            if split == object_label_split(col2, t) and _in_split(split, wanted):
                pairs.append(((s, col), (t, col2), split))
    return pairs


def _in_split(label_split: str | None, wanted: str) -> bool:
    if wanted == "all":
        return True
    if wanted in ("train", "id_val", "id_test"):  # in-distribution splits share the training labels
        return label_split == "train"
    return label_split == wanted
