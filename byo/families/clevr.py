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
import json
import math
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from byo.dataset import atomic_write_text
from byo.setup import ResolvedSetup
from byo.spec import PlacementError, SceneObject

SHAPES = ("cube", "sphere", "cylinder", "cone")
COLORS = {  # CLEVR's palette, sRGB 0-255
    "gray": (87, 87, 87), "red": (173, 35, 35), "blue": (42, 75, 215), "green": (29, 105, 20),
    "brown": (129, 74, 25), "purple": (129, 38, 192), "cyan": (41, 208, 208), "yellow": (255, 238, 51),
}
MATERIALS = ("rubber", "metal")
SIZES = {"large": 0.7, "small": 0.35}  # half-extent in CLEVR units
SPLITS = ("all", "train", "id_val", "id_test", "ood_val", "ood_test")
RELATIONS = ("left", "right", "front", "behind")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ColorDef(Strict):
    name: str
    rgb: tuple[float, float, float]  # sRGB in [0, 1]

    @field_validator("rgb")
    @classmethod
    def _rgb(cls, v):
        if not all(0.0 <= c <= 1.0 for c in v):
            raise ValueError("rgb components must be in [0, 1] (sRGB)")
        return v


class ObjectConfig(Strict):
    shape: Literal["cube", "sphere", "cylinder", "cone"]
    color: str | ColorDef
    material: Literal["rubber", "metal"] = "rubber"
    size: Literal["large", "small"] = "large"
    position: tuple[float, float] | None = None  # CLEVR units; None: placed at random
    rotation: float | None = None  # degrees; None: random


class ClevrContent(Strict):
    mode: Literal["random", "objects", "single_object", "two_object", "relational", "color_binding"] = "random"
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
    max_tries: int = Field(500, ge=1)  # candidates per object (drawn at once) before the layout restarts
    max_restarts: int = Field(200, ge=1)

    @field_validator("count")
    @classmethod
    def _count(cls, v):
        if v is None:
            return v
        lo, hi = (v, v) if isinstance(v, int) else v
        if lo < 1 or hi < lo:
            raise ValueError("count must be a positive integer or [min, max] with 1 <= min <= max")
        return v

    @field_validator("colors")
    @classmethod
    def _colors(cls, v):
        if not v:
            raise ValueError("at least one colour is needed")
        names = [c if isinstance(c, str) else c.name for c in v]
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
        if self.mode in ("two_object", "relational") and len(self.shapes) < 2:
            raise ValueError(f"mode {self.mode!r} needs at least two shapes")
        if self.mode == "two_object" and len(self.colors) < 2:
            raise ValueError("mode 'two_object' needs at least two colours")
        if self.mode == "random":
            self._check_fits(hi)
        return self

    @property
    def count_range(self) -> tuple[int, int]:
        if self.count is None:
            return (2, 2) if self.mode == "color_binding" else (3, 10)
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
    return [c if isinstance(c, str) else c.name for c in colors]


# --- label splits (seed 004): held-out combinations; every single factor stays in training ---
def object_label_split(shape_i: int, color_i: int, n_colors: int) -> str:
    """Split of a (shape, colour) label. Each shape holds out two colours, each colour is held
    out for at most one shape per split, so every shape and colour still appears in train."""
    k = (color_i - 2 * shape_i) % n_colors
    return {0: "ood_val", 1: "ood_test"}.get(k, "train")


def relation_label_split(left_i: int, right_i: int, n_shapes: int) -> str:
    """Split of an ordered (left shape, right shape) pair: the cyclic successor pairs are held out."""
    if (right_i - left_i) % n_shapes != 1:
        return "train"
    return "ood_val" if left_i % 2 == 0 else "ood_test"


def _in_split(label_split: str, wanted: str) -> bool:
    if wanted == "all":
        return True
    if wanted in ("train", "id_val", "id_test"):  # in-distribution splits share the training labels
        return label_split == "train"
    return label_split == wanted


def _pair_split(a: str, b: str) -> str:
    if "ood_test" in (a, b):
        return "ood_test"
    return "ood_val" if "ood_val" in (a, b) else "train"


class ClevrFamily:
    name = "clevr"
    content_model = ClevrContent
    builder = "byo.render.builders.clevr"
    default_scene: dict[str, Any] = {
        # CLEVR's camera (about 11.3 units away, 28 degrees up), objects on a plain grey ground.
        "camera": {"distance": 1.0, "elevation": 28.0, "azimuth": 49.0, "focal_length": 35.0},
        "table": {"enabled": False},
        "floor": {"color": [0.45, 0.45, 0.45], "roughness": 0.9},
        "lighting": {"intensity": "medium"},
        "resolution": [320, 240],
    }

    # -- what is in the scene ------------------------------------------------------------
    def _identities(self, c: ClevrContent, draw: np.random.Generator) -> tuple[list[dict], dict]:
        colors = _color_names(c.colors)

        def pick(seq):
            return seq[int(draw.integers(len(seq)))]

        def obj(shape, color, **kw):
            return {"shape": shape, "color": color, "material": kw.get("material") or pick(c.materials),
                    "size": kw.get("size") or pick(c.sizes), "position": kw.get("position"),
                    "rotation": kw.get("rotation")}

        if c.mode == "objects":
            return [obj(o.shape, o.color if isinstance(o.color, str) else o.color.name, material=o.material,
                        size=o.size, position=o.position, rotation=o.rotation) for o in c.objects], {}
        if c.mode == "random":
            lo, hi = c.count_range
            n = int(draw.integers(lo, hi, endpoint=True))
            return [obj(pick(c.shapes), pick(colors)) for _ in range(n)], {}
        if c.mode == "single_object":
            labels = [(s, col) for si, s in enumerate(c.shapes) for ci, col in enumerate(colors)
                      if _in_split(object_label_split(si, ci, len(colors)), c.split)]
            if not labels:
                raise PlacementError(f"split {c.split!r} has no labels for these shapes and colours")
            s, col = pick(labels)
            split = object_label_split(c.shapes.index(s), colors.index(col), len(colors))
            return [obj(s, col)], {"label": f"{col} {s}", "label_split": split}
        if c.mode == "two_object":
            pairs = []
            for (si, s), (sj, t) in itertools.combinations(enumerate(c.shapes), 2):
                for ci, col in enumerate(colors):
                    for cj, col2 in enumerate(colors):
                        if ci == cj:
                            continue
                        split = _pair_split(object_label_split(si, ci, len(colors)),
                                            object_label_split(sj, cj, len(colors)))
                        if _in_split(split, c.split):
                            pairs.append(((s, col), (t, col2), split))
            if not pairs:
                raise PlacementError(f"split {c.split!r} has no two-object labels for these shapes and colours")
            (s, col), (t, col2), split = pick(pairs)
            return [obj(s, col), obj(t, col2)], {"labels": [f"{col} {s}", f"{col2} {t}"], "label_split": split}
        if c.mode == "relational":
            pairs = [(a, b) for (ai, a), (bi, b) in itertools.permutations(enumerate(c.shapes), 2)
                     if _in_split(relation_label_split(ai, bi, len(c.shapes)), c.split)]
            if not pairs:
                raise PlacementError(f"split {c.split!r} has no relational labels for these shapes")
            left, right = pick(pairs)
            split = relation_label_split(c.shapes.index(left), c.shapes.index(right), len(c.shapes))
            cols = draw.choice(len(colors), size=2, replace=len(colors) < 2)
            return ([obj(left, colors[cols[0]]), obj(right, colors[cols[1]])],
                    {"labels": [f"{left} left {right}", f"{right} right {left}"], "label_split": split,
                     "left_to_right": [left, right]})
        # color_binding (seed 001): N objects, N distinct shapes, one distinct colour each.
        lo, hi = c.count_range
        n = int(draw.integers(lo, hi, endpoint=True))
        shapes = [c.shapes[i] for i in draw.choice(len(c.shapes), size=n, replace=False)]
        cols = [colors[i] for i in draw.choice(len(colors), size=n, replace=False)]
        return [obj(s, col) for s, col in zip(shapes, cols, strict=True)], {"n": n}

    # -- where it stands -----------------------------------------------------------------
    def sample(self, content: ClevrContent, setup: ResolvedSetup, *, draw: np.random.Generator,
               place: np.random.Generator) -> tuple[list[SceneObject], dict[str, Any]]:
        idents, extras = self._identities(content, draw)
        rotations = [o["rotation"] if o["rotation"] is not None else float(draw.uniform(0, 360)) for o in idents]
        projector = setup.projector()
        directions = projector.ground_directions()
        positions = self._place(content, setup, idents, place, directions)
        colors = _color_table(content)
        s = content.scale

        objects = []
        for i, (o, (x, y), rot) in enumerate(zip(idents, positions, rotations, strict=True)):
            half = SIZES[o["size"]]
            objects.append(SceneObject(
                id=i + 1, name=f"{o['color']}_{o['material']}_{o['shape']}_{i + 1}", kind=o["shape"],
                attributes={"shape": o["shape"], "color": o["color"], "material": o["material"],
                            "size": o["size"], "rgb": [round(v, 6) for v in colors[o["color"]]]},
                location=(round(x * s, 6), round(y * s, 6), round(half * s, 6)),
                rotation=round(rot % 360.0, 4), scale=round(half * s, 6)))

        pixels = projector.project([o.location for o in objects])
        if content.mode == "relational" and pixels[0, 0] > pixels[1, 0]:
            raise AssertionError("relational placement must put the first shape on the left")
        extras = dict(extras)
        extras["directions"] = directions
        extras["relationships"] = relationships(objects, pixels[:, 0], directions)
        extras["scale"] = s
        if content.mode == "color_binding":
            order = np.argsort(pixels[:, 0])
            extras["binding_left_to_right"] = [
                {"color": objects[k].attributes["color"], "shape": objects[k].kind} for k in order]
        return objects, extras

    def _place(self, c: ClevrContent, setup: ResolvedSetup, idents: list[dict], place: np.random.Generator,
               directions: dict) -> list[tuple[float, float]]:
        """CLEVR's rejection sampling, vectorized: each object draws `max_tries` candidates at
        once and takes the first that passes; after a failure the whole layout restarts."""
        projector = setup.projector()
        w, h = setup.resolution
        axes = np.array([directions["behind"][:2], directions["left"][:2]]).T  # ground -> (behind, left)
        radii = np.array([_footprint_radius(o["shape"], o["size"]) for o in idents])
        heights = np.array([SIZES[o["size"]] for o in idents])
        x_margin = c.x_margin * w
        lo = np.array([c.frame_margin * w, c.frame_margin * h])
        hi = np.array([(1 - c.frame_margin) * w, (1 - c.frame_margin) * h])

        def image_x(xy: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray]:
            """Projected x of candidate centres and whether they are well inside the frame."""
            pts = np.column_stack([xy * c.scale, np.full(len(xy), heights[i] * c.scale)])
            px = projector.project(pts)
            inside = (px[:, 2] > 0) & np.all((px[:, :2] >= lo) & (px[:, :2] <= hi), axis=1)
            return px[:, 0], inside

        fixed = [o["position"] is not None for o in idents]
        for _ in range(c.max_restarts):
            xy = np.zeros((0, 2))
            px = np.zeros(0)
            for i, o in enumerate(idents):
                cand = (np.array([o["position"]], float) if fixed[i]
                        else place.uniform(-c.extent, c.extent, size=(c.max_tries, 2)))
                cx, ok = image_x(cand, i)
                if fixed[i]:
                    ok[:] = True  # explicit positions are the user's call; visibility still checks them
                elif len(xy):
                    d = cand[:, None, :] - xy[None, :, :]
                    gap = np.hypot(d[..., 0], d[..., 1]) - radii[i] - radii[: len(xy)]
                    along = d @ axes  # (cand, placed, [behind, left])
                    ok &= np.all(gap >= c.min_gap, axis=1)
                    ok &= np.all(np.abs(along) >= c.direction_margin, axis=(1, 2))
                    ok &= np.all(np.abs(cx[:, None] - px[None, :]) >= x_margin, axis=1)
                    # CLEVR's 3D "left" must agree with the image (perspective can flip them).
                    ok &= np.all((along[..., 1] > 0) == (cx[:, None] < px[None, :]), axis=1)
                hits = np.flatnonzero(ok)
                if not len(hits):
                    break
                xy = np.vstack([xy, cand[hits[0]]])
                px = np.append(px, cx[hits[0]])
            else:
                if c.mode == "relational" and px[0] > px[1]:
                    xy = xy[::-1].copy()  # the first identity is the left shape: swap the positions
                    if not all(image_x(xy[i : i + 1], i)[1][0] for i in range(2)):
                        continue
                return [(round(float(x), 6), round(float(y), 6)) for x, y in xy]
            if all(fixed):
                break
        raise PlacementError(
            f"could not place {len(idents)} objects in [-{c.extent}, {c.extent}]^2 with min_gap {c.min_gap}, "
            f"direction_margin {c.direction_margin} and x_margin {c.x_margin} inside the camera's view "
            f"after {c.max_restarts} restarts; lower `count`, use smaller `sizes` or raise `extent`")

    def landmarks(self, spec) -> dict:
        return {}

    def export(self, layout, legends: list[dict]) -> dict:
        return export_scenes(layout, legends)

    def legend_lines(self, legend: dict[str, Any]) -> list[str]:
        lines = []
        extras = legend.get("extras", {})
        for key in ("label", "labels", "label_split", "binding_left_to_right"):
            if key in extras:
                lines.append(f"{key}: {extras[key]}")
        rel = extras.get("relationships", {})
        names = [o["name"] for o in legend["objects"]]
        for i, name in enumerate(names):
            parts = [f"{r}: {', '.join(names[j] for j in rel[r][i]) or '-'}" for r in ("left", "right") if r in rel]
            lines.append(f"{name} has to its " + "; ".join(parts))
        return lines


def relationships(objects: list[SceneObject], pixel_x, directions: dict) -> dict[str, list[list[int]]]:
    """CLEVR's `relationships`: rel[name][i] lists the j that are `name` of object i.

    left/right come from the projected image x of the centres; front/behind from the
    ground-plane `behind` direction (positive dot product: j is behind i).
    """
    n = len(objects)
    behind = np.array(directions["behind"])
    coords = np.array([o.location for o in objects])
    rel = {r: [[] for _ in range(n)] for r in RELATIONS}
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            (rel["left"] if pixel_x[j] < pixel_x[i] else rel["right"])[i].append(j)
            (rel["behind"] if (coords[j] - coords[i]) @ behind > 0 else rel["front"])[i].append(j)
    return rel


CLEVR = ClevrFamily()


def clevr_scene(legend: dict) -> dict:
    """One scene in CLEVR's JSON schema (3d_coords and depth in CLEVR units; rotation in real degrees)."""
    scale = legend["extras"]["scale"]
    objects = []
    for o in legend["objects"]:
        a = o["attributes"]
        px, py, depth = o["pixel_coords"]
        objects.append({
            "shape": a["shape"], "size": a["size"], "material": a["material"], "color": a["color"],
            "3d_coords": [round(v / scale, 4) for v in o["location"]], "rotation": o["rotation"],
            "pixel_coords": [int(round(px)), int(round(py)), round(depth / scale, 4)],
        })
    return {
        "split": legend["split"], "image_index": legend["index"],
        "image_filename": legend["image"].split("/")[-1], "objects": objects,
        "directions": legend["extras"]["directions"], "relationships": legend["extras"]["relationships"],
    }


def export_scenes(layout, legends: list[dict]) -> dict:
    """The combined scenes file that CLEVR's question engine reads."""
    split = legends[0]["split"] if legends else "test"
    data = {"info": {"date": "", "version": "1.0", "split": split, "license": "CC BY 4.0",
                     "generator": "byo-render"},
            "scenes": [clevr_scene(lg) for lg in legends]}
    path = layout.root / "clevr_scenes.json"
    atomic_write_text(path, json.dumps(data) + "\n")
    return {"clevr_scenes": path}

