"""CLEVR-style scenes: sampling identities and positions, relations as the image shows them,
legend lines and the CLEVR scenes file. The content model and the conventions: model.py."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from byo.families.api import (
    BRIGHT_LIGHT,
    HD_PIXELS,
    NO_BLUR,
    OVERHEAD,
    Family,
    PlacementError,
    QualityPreset,
    ResolvedSetup,
    SceneObject,
    color_name,
    unseen,
    visible,
)
from byo.families.clevr import compass_metrics, metrics
from byo.families.clevr.answers import ANSWERS, colored, readable, shown
from byo.families.clevr.autocomp import cells, concept_caption, concept_rng, sample_concept
from byo.families.clevr.compass import compass_answers
from byo.families.clevr.compass_scene import compass_identities
from byo.families.clevr.export import export_scenes
from byo.families.clevr.model import (
    MATERIALS,
    RELATIONS,
    SHAPES,
    SIZES,
    ClevrContent,
    _color_names,
    _color_table,
    _footprint_radius,
    _in_split,
    arrangement,
    object_label_split,
    phrasings,
    relation_label,
    relation_label_split,
    relation_margin_px,
    two_object_pairs,
)
from byo.families.clevr.sheet import SHEETS
from byo.families.clevr.vocab import VOCABULARY


def _ring(z: float, segments: int = 32) -> np.ndarray:
    t = np.linspace(0.0, 2 * np.pi, segments, endpoint=False)
    return np.column_stack([np.cos(t), np.sin(t), np.full(segments, z)])


def _unit_sphere(rings: int = 16, segments: int = 32) -> np.ndarray:
    polar = np.linspace(0.0, np.pi, rings + 1)
    return np.vstack([_ring(np.cos(p)) * [np.sin(p), np.sin(p), 1.0] for p in polar])


# Each shape's points as builder.py makes it, at unit size (its silhouette, projected, is their hull).
UNIT_POINTS = {
    "cube": np.array([[x, y, z] for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)]),
    "sphere": _unit_sphere(),
    "cylinder": np.vstack([_ring(-1.0), _ring(1.0)]),
    "cone": np.vstack([_ring(-1.0), [[0.0, 0.0, 1.0]]]),
}


class ClevrFamily(Family):
    name = "clevr"
    content_model = ClevrContent
    template_file = "clevr.yaml"
    # COMPASS: compass.py; its captions name colours, and every object must stand out
    answers = {**ANSWERS, **{key: shown(colored(fn)) for key, fn in compass_answers(readable).items()}}
    design_keys = ("mode", "count", "shapes", "colors", "materials", "sizes", "split", "scale", "extent")
    audit = "audit"
    # COMPASS's caption sets (dataset_configs/compass/ asks them) and the compositional-generalisation
    # study's relational ZSL as the paper samples it, which a ranker blind to the relation answers
    # (answers.relation_zsl)
    opt_in_keys = ("compass_*", "relation_zsl_split")
    key_modes = {"label_*": ("single_object", "two_object"), "relation_*": ("relational",),
                 "binding_*": ("color_binding",), "autocomp_*": ("autocomp",)}
    tables = metrics.TABLES + compass_metrics.TABLES
    sheets = SHEETS
    vocabulary = VOCABULARY
    object_kinds = SHAPES
    explain_factors = (NO_BLUR, BRIGHT_LIGHT, OVERHEAD)  # byo explain: each alone, in a failed image's scene
    default_scene: dict[str, Any] = {
        # CLEVR's camera (about 11.3 units away, 28 degrees up), objects on a plain grey ground.
        "camera": {"distance": 1.0, "elevation": 28.0, "azimuth": 49.0, "focal_length": 35.0},
        "table": {"enabled": False},
        "floor": {"color": [0.45, 0.45, 0.45], "roughness": 0.9},
        "lighting": {"intensity": "medium"},
        "resolution": [320, 240],
    }
    # From 1920x1080 up the shared standard (adaptive 0.0325) gives 49.3 dB but SSIM 0.9931 on the
    # busiest scene's centre third: its misses are noise the denoiser leaves on large smooth
    # surfaces. With the denoiser's albedo and normal guides prefiltered accurately, 32 samples
    # adaptive 0.1 give 50.5 dB and 0.9965 there at 6.1x BYO-Eval's CPU time, where 64 samples at
    # 0.0125 with unfiltered guides took 2.8x (bench/family_presets.py, docs/speed.md). Below
    # 1920x1080 the shared standard stays: it is as fast there (5.8x against 5.5x at 640x360).
    quality_presets = {"standard": [QualityPreset({"samples": 32, "adaptive_threshold": 0.1,
                                                   "denoise_prefilter": "accurate"}, from_pixels=HD_PIXELS)]}

    # -- what is in the scene ------------------------------------------------------------
    def _identities(self, c: ClevrContent, draw: np.random.Generator) -> tuple[list[dict], dict]:
        colors = _color_names(c.colors)

        def pick(seq):
            return seq[int(draw.integers(len(seq)))]

        def obj(shape, color, **kw):
            return {"shape": shape, "color": color, "material": kw.get("material") or pick(c.materials),
                    "size": kw.get("size") or pick(c.sizes), "position": kw.get("position"),
                    "rotation": kw.get("rotation")}

        if c.mode == "compass":  # COMPASS's scenes: compass_scene.py
            return compass_identities(c, draw)
        if c.mode == "objects":
            return [obj(o.shape, color_name(o.color), material=o.material,
                        size=o.size, position=o.position, rotation=o.rotation) for o in c.objects], {}
        if c.mode == "random":
            lo, hi = c.count_range
            n = int(draw.integers(lo, hi, endpoint=True))
            return [obj(pick(c.shapes), pick(colors)) for _ in range(n)], {}
        if c.mode == "single_object":
            labels = [(s, col) for s in c.shapes for col in colors if _in_split(object_label_split(col, s), c.split)]
            if not labels:
                raise PlacementError(f"split {c.split!r} has no labels for these shapes and colours")
            s, col = pick(labels)
            return [obj(s, col)], {"label": f"{col} {s}", "label_split": object_label_split(col, s)}
        if c.mode == "two_object":
            pairs = two_object_pairs(c.shapes, colors, c.split)
            if not pairs:
                raise PlacementError(f"split {c.split!r} has no two-object labels for these shapes and colours")
            (s, col), (t, col2), split = pick(pairs)
            return [obj(s, col), obj(t, col2)], {"labels": [f"{col} {s}", f"{col2} {t}"], "label_split": split}
        if c.mode == "relational":
            # One label of the split drawn (the authors' label folders), its arrangement rendered;
            # `split_labels`: the arrangement's phrasings this split holds (the question's truths).
            labels = [relation_label(a, r, b) for a, b in itertools.permutations(c.shapes, 2) for r in ("left", "right")]
            labels = [lab for lab in labels if _in_split(relation_label_split(lab), c.split)]
            if not labels:
                raise PlacementError(f"split {c.split!r} has no relational labels for these shapes")
            drawn = pick(labels)
            left, right = arrangement(drawn)
            cols = draw.choice(len(colors), size=2, replace=len(colors) < 2)
            both = phrasings(left, right)
            return ([obj(left, colors[cols[0]]), obj(right, colors[cols[1]])],
                    {"labels": list(both), "label_split": relation_label_split(drawn),
                     "split_labels": [lab for lab in both if _in_split(relation_label_split(lab), c.split)],
                     "left_to_right": [left, right]})
        # color_binding (Auto-Comp): N objects, N distinct shapes, one distinct colour each.
        lo, hi = c.count_range
        n = int(draw.integers(lo, hi, endpoint=True))
        shapes = [c.shapes[i] for i in draw.choice(len(c.shapes), size=n, replace=False)]
        cols = [colors[i] for i in draw.choice(len(colors), size=n, replace=False)]
        return [obj(s, col) for s, col in zip(shapes, cols, strict=True)], {"n": n}

    # -- where it stands -----------------------------------------------------------------
    def sample(self, content: ClevrContent, setup: ResolvedSetup, *, draw: np.random.Generator,
               place: np.random.Generator) -> tuple[list[SceneObject], dict[str, Any]]:
        if content.mode == "autocomp":
            return self._autocomp(content, setup)
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
        extras["relationships"] = relationships(objects, pixels[:, 0], directions,
                                                relation_margin_px(content, setup.resolution[0]),
                                                content.direction_margin * s / 2)
        extras["scale"] = s
        if content.mode == "color_binding":
            order = np.argsort(pixels[:, 0])
            extras["binding_left_to_right"] = [
                {"color": objects[k].attributes["color"], "shape": objects[k].kind} for k in order]
        return objects, extras

    def _autocomp(self, c: ClevrContent, setup: ResolvedSetup) -> tuple[list[SceneObject], dict[str, Any]]:
        """Auto-Comp: a concept's objects on a grid in the camera's view plane (so over / under /
        left / right hold in the image), drawn from the concept's own generator: the Minimal and
        Contextual images of one concept show the same objects in the same layout."""
        lo, hi = c.count_range
        n_draw = concept_rng(c.concept_seed, c.concept, c.task, hi)
        n = int(n_draw.integers(lo, hi, endpoint=True))
        draw = concept_rng(c.concept_seed, c.concept, c.task, n)
        concept = sample_concept(draw, c.task, n, c.shapes, _color_names(c.colors))
        grid = np.array(cells(concept["relations"], n), float)
        if c.task == "color":  # the row's order is drawn: captions state no left-to-right order
            grid = grid[draw.permutation(n)]
        grid -= (grid.min(axis=0) + grid.max(axis=0)) / 2
        projector = setup.projector()
        right, up = projector.axes[:, 0], projector.axes[:, 1]
        target = np.array(projector.target, float)
        size, material = c.sizes[0], c.materials[0]
        half = SIZES[size] * c.scale
        colors = _color_table(c)
        objects = []
        for i, (o, (col, row)) in enumerate(zip(concept["objects"], grid, strict=True)):
            shift = draw.uniform(-c.jitter, c.jitter, size=2)
            at = target + (col * c.cell + shift[0]) * right - (row * c.cell + shift[1]) * up
            if at[2] - half < 0.005 and setup.floor.enabled:
                raise PlacementError(f"object {i + 1} would sink into the floor (centre {at[2]:.3f} m, half-size "
                                     f"{half:.3f} m); raise camera.target's height or lower `cell`")
            objects.append(SceneObject(
                id=i + 1, name=f"{o['color']}_{material}_{o['shape']}_{i + 1}", kind=o["shape"],
                attributes={"shape": o["shape"], "color": o["color"], "material": material, "size": size,
                            "rgb": [round(v, 6) for v in colors[o["color"]]]},
                location=tuple(round(float(v), 6) for v in at), rotation=round(float(draw.uniform(0, 90)), 4),
                scale=round(half, 6)))
        pixels = projector.project([o.location for o in objects])
        w, h = setup.resolution
        if not np.all((pixels[:, 0] > c.frame_margin * w) & (pixels[:, 0] < (1 - c.frame_margin) * w)
                      & (pixels[:, 1] > c.frame_margin * h) & (pixels[:, 1] < (1 - c.frame_margin) * h)):
            raise PlacementError(f"the concept's grid (cell {c.cell} m) does not fit in the camera's view; "
                                 "lower `cell` or move the camera back")
        directions = projector.ground_directions()
        extras: dict[str, Any] = {"directions": directions, "scale": c.scale, "relationships": relationships(
            objects, pixels[:, 0], directions, relation_margin_px(c, w), c.direction_margin * c.scale / 2)}
        extras["autocomp"] = {**concept, "condition": c.condition, "concept": c.concept,
                              "minimal": concept_caption(concept, "minimal"),
                              "contextual": concept_caption(concept, "contextual")}
        if c.condition == "contextual":
            extras["set"] = contextual_set(draw, projector, c.props, [colors[k] for k in _color_names(c.colors)])
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
        bands = np.array([o.get("x_band") or (0.0, 1.0) for o in idents], float) * w  # image x an object may take
        lo = np.array([c.frame_margin * w, c.frame_margin * h])
        hi = np.array([(1 - c.frame_margin) * w, (1 - c.frame_margin) * h])

        def image_x(xy: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray]:
            """Projected x of candidate centres and whether they are well inside the frame."""
            pts = np.column_stack([xy * c.scale, np.full(len(xy), heights[i] * c.scale)])
            px = projector.project(pts)
            inside = (px[:, 2] > 0) & np.all((px[:, :2] >= lo) & (px[:, :2] <= hi), axis=1)
            return px[:, 0], inside

        fixed = [o["position"] is not None for o in idents]
        pinned = np.array([o["position"] if f else (np.inf, np.inf) for o, f in zip(idents, fixed, strict=True)], float)
        for a, b in itertools.combinations(np.flatnonzero(fixed), 2):
            if np.hypot(*(pinned[a] - pinned[b])) < radii[a] + radii[b]:
                raise PlacementError(
                    f"objects {a + 1} and {b + 1} ({idents[a]['shape']} at {list(idents[a]['position'])}, "
                    f"{idents[b]['shape']} at {list(idents[b]['position'])}) intersect: their footprints "
                    f"(radius {radii[a]:.2f} and {radii[b]:.2f} CLEVR units) overlap; move them apart")
        for _ in range(c.max_restarts):
            xy = np.zeros((0, 2))
            px = np.zeros(0)
            for i, o in enumerate(idents):
                cand = (np.array([o["position"]], float) if fixed[i]
                        else place.uniform(-c.extent, c.extent, size=(c.max_tries, 2)))
                cx, ok = image_x(cand, i)
                if fixed[i]:
                    ok[:] = True  # explicit positions are the user's call; visibility still checks them
                else:  # never onto an object with an explicit position (pinned; the others are at infinity)
                    ok &= (cx >= bands[i, 0]) & (cx <= bands[i, 1])
                    d = cand[:, None, :] - pinned[None, :, :]
                    ok &= np.all(np.hypot(d[..., 0], d[..., 1]) - radii[i] - radii >= c.min_gap, axis=1)
                if len(xy) and not fixed[i]:
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

    # -- visibility before rendering (byo/scene/visibility.py) -------------------------------------
    def silhouette(self, spec, obj: SceneObject) -> np.ndarray:
        """The object's points as the builder makes it (each unit shape spans [-1, 1]^3, scaled by
        `scale`, turned by `rotation` about the vertical): convex shapes, so their hull is the object."""
        a = np.radians(obj.rotation)
        turn = np.array([[np.cos(a), -np.sin(a), 0.0], [np.sin(a), np.cos(a), 0.0], [0.0, 0.0, 1.0]])
        return UNIT_POINTS[obj.kind] @ turn.T * obj.scale

    def placement_area(self, spec) -> tuple[tuple[float, float], tuple[float, float]] | None:
        """CLEVR's placement square, [-extent, extent]^2 CLEVR units; none for Auto-Comp's grid
        in the view plane or objects at explicit positions."""
        c = ClevrContent.model_validate(spec.content)
        if c.mode == "autocomp" or any(o.position is not None for o in c.objects):
            return None
        half = c.extent * c.scale
        return (-half, half), (-half, half)

    # -- the counterfactual check (byo/scene/counterfactual.py) ------------------------------------
    # Shape, material and size are told by rendering each other value; colour by the colour rule
    # (docs/readability.md), which docs/readability_calibration.md compares with rendered colours.
    rendered_attributes = ("shape", "material", "size")

    def alternatives(self, spec, obj: SceneObject) -> dict[str, dict[str, SceneObject]]:
        a = obj.attributes
        table = _color_table(ClevrContent.model_validate(spec.content))

        def changed(**kw) -> SceneObject:
            return obj.model_copy(update={"attributes": {**a, **kw}, "name": f"{obj.name}_as_{next(iter(kw.values()))}"})

        out: dict[str, dict[str, SceneObject]] = {
            "shape": {s: changed(shape=s).model_copy(update={"kind": s}) for s in SHAPES if s != obj.kind},
            "material": {m: changed(material=m) for m in MATERIALS if m != a["material"]},
            "color": {c: changed(color=c, rgb=list(rgb)) for c, rgb in table.items() if c != a["color"]},
        }
        sizes = {}
        for size, half in SIZES.items():
            if size != a["size"]:
                scale = obj.scale * half / SIZES[a["size"]]
                x, y, z = obj.location
                sizes[size] = changed(size=size).model_copy(update={"scale": scale, "location": (x, y, z - obj.scale + scale)})
        out["size"] = sizes
        return out

    def export(self, layout, legends: list[dict]) -> dict:
        return export_scenes(layout, legends)

    def caption(self, legend: dict[str, Any]) -> str:
        """Visible objects only; the label only when every object of the scene shows."""
        text = f"{len(visible(legend))} obj"
        edge = sum(o.get("visibility") == "ambiguous" for o in legend["objects"])
        if edge:
            text += f" (+{edge} unclear)"
        label = legend["extras"].get("label") or (legend["extras"].get("labels") or [None])[0]
        return text + (f": {label}" if label and not unseen(legend) else "")

    def legend_lines(self, legend: dict[str, Any]) -> list[str]:
        lines = []
        extras = legend.get("extras", {})
        for key in ("label", "labels", "label_split", "split_labels", "binding_left_to_right"):
            if key in extras:
                lines.append(f"{key}: {extras[key]}")
        if "autocomp" in extras:
            a = extras["autocomp"]
            lines.append(f"autocomp: {a['task']} binding, N={a['n']}, {a['condition']}, concept {a['concept']}")
            lines.append(f"caption: {a[a['condition']]}")
        rel = extras.get("relationships", {})
        names = [o["name"] for o in legend["objects"]]
        for i, name in enumerate(names):
            parts = [f"{r}: {', '.join(names[j] for j in rel[r][i]) or '-'}" for r in ("left", "right") if r in rel]
            lines.append(f"{name} has to its " + "; ".join(parts))
        return lines


def relationships(objects: list[SceneObject], pixel_x, directions: dict, x_margin_px: float,
                  ground_margin: float) -> dict[str, list[list[int]]]:
    """CLEVR's `relationships`: rel[name][i] lists the j that are `name` of object i.

    left/right come from the projected image x of the centres, front/behind from the ground-plane
    `behind` direction (metres). A pair closer than the margin in image x (left/right) or along
    `behind` (front/behind) is in neither list: the image does not decide it.
    """
    n = len(objects)
    behind = np.array(directions["behind"])
    coords = np.array([o.location for o in objects])
    rel = {r: [[] for _ in range(n)] for r in RELATIONS}
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            dx = pixel_x[j] - pixel_x[i]
            if abs(dx) >= x_margin_px:
                (rel["left"] if dx < 0 else rel["right"])[i].append(j)
            along = (coords[j] - coords[i]) @ behind
            if abs(along) > ground_margin:
                (rel["behind"] if along > 0 else rel["front"])[i].append(j)
    return rel


def contextual_set(draw: np.random.Generator, projector, props: int, palette: list) -> list[dict[str, Any]]:
    """Auto-Comp's Contextual condition as a set behind the objects: a wooden floor, a sky-blue
    environment light (the world's colour; the Minimal condition keeps the config's white), a back
    wall, a table, a rug and `props` tori (a shape outside the vocabulary, so no caption can name
    one). Everything stands beyond the objects' plane, so nothing of the set hides an object."""
    forward = np.array(projector.axes[:, 2]) * -1.0
    flat = np.array([forward[0], forward[1], 0.0])
    flat /= np.linalg.norm(flat)
    side = np.array([-flat[1], flat[0], 0.0])
    target = np.array(projector.target, float)
    base = np.array([target[0], target[1], 0.0])
    yaw = float(np.degrees(np.arctan2(flat[1], flat[0])))

    def at(v) -> list[float]:
        return [round(float(x), 4) for x in v]

    wall_rgb = [0.78, 0.72, 0.62] if draw.random() < 0.5 else [0.62, 0.7, 0.74]
    out = [{"kind": "floor", "location": at(base), "size": [4.0, 4.0, 0.001], "rotation": yaw, "rgb": [0.55, 0.42, 0.3]},
           {"kind": "environment", "location": [0.0, 0.0, 0.0], "size": [1.0, 1.0, 1.0], "rotation": 0.0,
            "rgb": [0.85, 0.9, 1.0]},
           {"kind": "wall", "location": at(base + flat * 1.2 + [0, 0, 0.8]), "size": [0.03, 3.0, 0.8],
            "rotation": yaw, "rgb": wall_rgb},
           {"kind": "table", "location": at(base + flat * 0.75 + side * float(draw.uniform(-0.2, 0.2))),
            "size": [0.22, 0.4, 0.24], "rotation": yaw, "rgb": [0.45, 0.3, 0.18]},
           {"kind": "rug", "location": at(base + flat * 0.2), "size": [0.5, 0.9, 0.004], "rotation": yaw,
            "rgb": [round(float(v), 3) for v in draw.uniform(0.3, 0.7, size=3)]}]
    for _ in range(props):
        depth, across = float(draw.uniform(0.45, 1.0)), float(draw.uniform(-0.7, 0.7))
        radius = float(draw.uniform(0.035, 0.06))
        rgb = palette[int(draw.integers(len(palette)))]
        out.append({"kind": "torus", "location": at(base + flat * depth + side * across + [0, 0, radius * 0.35]),
                    "size": [radius, radius, radius], "rotation": float(draw.uniform(0, 360)),
                    "rgb": [round(float(v), 4) for v in rgb]})
    return out
