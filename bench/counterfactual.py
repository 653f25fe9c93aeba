"""Calibrates the counterfactual readability check (byo/scene/counterfactual.py) and compares it with
the measured rules it joins: the chess silhouette rule (docs/piece_silhouettes.md) and CLEVR's size
and blur rule.

Two grids of scenes, each object's region rendered by the render layer's own check
(byo/render/counterfactuals.py: the region as rendered, without the object, and with each other
value of an attribute) at the check's samples, every pair of renders kept:

- **chess**: the six types in white and in black on a 7 x 5 board (every other cell), both styles,
  seen from elevations 20 to 90 degrees, the king ~10 to 40 px tall, blurred by a disc of 0 to 0.8 x
  its height (f-stop solved for the board's centre); each piece's type against the five others;
- **clevr**: the four shapes in rubber and metal, large and small, colours drawn, seen from 20 to 90
  degrees; each object's shape, material, size and colour against every other value.

The chess silhouette rule decides each piece-type question of the grid; the check's thresholds
(smoothing, pixel rank, level) and the rule's least piece height are chosen together where the two
agree most beyond chance (Cohen's kappa), ties to the lowest, and the agreement is reported as a
confusion table (and at each candidate height). The same thresholds are then applied, unchanged,
to CLEVR, whose shapes have no measured rule for the view's elevation.

Writes the calibration section of docs/readability_calibration.md (between its markers), the
figures docs/counterfactual_*.png, a contact sheet of the borderline cases and the measurements as
JSON into the output folder. Copy the chosen thresholds into byo/scene/counterfactual.py and the
height into byo/families/chess/model.py (TYPE_READABLE_MIN_HEIGHT_PX).
    .venv/bin/python bench/counterfactual.py [--out output/bench_counterfactual] [--quick] [--samples N]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import pickle
import time
from pathlib import Path

import matplotlib
import numpy as np
from figures import write_block
from PIL import Image, ImageDraw
from scipy import ndimage
from skimage.color import deltaE_ciede2000, rgb2lab
from statsmodels.stats.inter_rater import cohens_kappa

from byo.core.progress import Bar
from byo.core.sheets import font
from byo.families import load_config
from byo.families.chess.answers import _types_unreadable
from byo.families.chess.model import PIECE_HEIGHT, PIECE_TYPES
from byo.families.clevr.answers import _shapes_unreadable
from byo.families.clevr.model import COLORS, SHAPES
from byo.scene import counterfactual as cf
from byo.scene import evidence
from byo.scene.plan import make_job
from byo.scene.setup import CounterfactualConfig
from byo.scene.spec import sample_spec

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "readability_calibration.md"
BEGIN, END = "<!-- counterfactual: begin -->", "<!-- counterfactual: end -->"
RESOLUTION = (320, 176)
FOCAL_PX = 50 / 36 * RESOLUTION[0]  # 50 mm lens, 36 mm sensor
SQUARE = 0.06
ELEVATIONS = [20, 35, 50, 65, 80, 90]
KING_PX = [12, 20, 36]
BLURS = [0.0, 0.3, 0.8]  # disc diameter / king height
# The silhouette rule's own domain, as its bench's silhouettes are: the twelve pieces side by side
# on one row (none hides another), each outline against a surround it contrasts with (grey
# squares, table and backdrop, between the white and the black pieces). And the project's
# default look (cream and brown squares, a wooden table, a dark backdrop) with the pieces on
# every other cell of a 5 x 7 board, nearer ones hiding farther ones at low elevations.
GREY = [0.5, 0.5, 0.5]
BOARDS = {
    "contrast": {"board": {"rows": 1, "columns": 12, "light_color": GREY, "dark_color": [0.4, 0.4, 0.4],
                           "frame_color": GREY},
                 "scene": {"background": {"color": GREY, "strength": 1.0}, "table": {"color": GREY},
                           "floor": {"color": GREY}}},
    "default": {"board": {"rows": 5, "columns": 7}, "scene": {}},
}
CLEVR_ELEVATIONS = [20, 30, 45, 60, 75, 90]
CLEVR_SIZES = {"large": 1.6, "small": 1.6}  # camera distance (m) per object size


# --- scenes ----------------------------------------------------------------------------------
def fstop_for(disc_px: float, distance: float) -> float:
    """The f-stop whose defocus disc is `disc_px` wide at `distance` metres, focused at half of it."""
    f, focus = 0.05, 0.5 * distance
    per_fstop = f * f * abs(distance - focus) / (distance * (focus - f)) / 0.036 * max(RESOLUTION)
    return per_fstop / disc_px


def chess_config(style: str, elevation: float, king_px: float, blur: float, seed: int, board: str = "contrast") -> dict:
    order = np.random.default_rng(seed).permutation(12)
    cells = [(0, j) for j in range(12)] if board == "contrast" else [(i, j) for i in (0, 2, 4) for j in (0, 2, 4, 6)]
    pieces = [{"type": PIECE_TYPES[k % 6], "color": "white" if k < 6 else "black", "cell": list(cells[n])}
              for n, k in enumerate(order)]
    distance = PIECE_HEIGHT["king"] * SQUARE * FOCAL_PX / king_px
    look = BOARDS[board]
    return {"dataset": {"name": "cf_chess", "family": "chess", "seed": seed, "n_images": 1},
            "scene": {"resolution": list(RESOLUTION), **look["scene"],
                      "camera": {"elevation": elevation, "distance": round(distance, 4), "azimuth": 0.0,
                                 "target": [0.0, 0.0, 0.04]},
                      "blur": {"fstop": round(fstop_for(blur * king_px, distance), 4) if blur else "none"},
                      "render": {"on_hidden": "flag", "min_visible_pixels": 1},
                      "content": {"board": {"square_size": SQUARE, **look["board"]},
                                  "pieces": pieces, "style": style}}}


def clevr_config(elevation: float, size: str, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    colors = list(rng.choice(["gray", "red", "blue", "green", "brown", "purple", "cyan", "yellow"], size=8))
    at = [(x, y) for y in (-1.4, 1.4) for x in (-3.3, -1.1, 1.1, 3.3)]
    kinds = [(s, m) for m in ("rubber", "metal") for s in SHAPES]
    objects = [{"shape": s, "material": m, "size": size, "color": str(c), "position": list(p)}
               for (s, m), c, p in zip((kinds[k] for k in rng.permutation(8)), colors, at, strict=True)]
    return {"dataset": {"name": "cf_clevr", "family": "clevr", "seed": seed, "n_images": 1},
            "scene": {"resolution": list(RESOLUTION),
                      "camera": {"elevation": elevation, "distance": CLEVR_SIZES[size] * (1 if size == "large" else 0.8)},
                      "render": {"on_hidden": "flag", "min_visible_pixels": 1},
                      "content": {"mode": "objects", "objects": objects, "extent": 4.0}}}


def grid(quick: bool) -> list[tuple[str, dict, dict]]:
    """(family, config, levels) of every scene."""
    scenes = []
    if quick:
        return [("chess", chess_config("staunton", e, 24, 0.0, 7), {"board": "contrast", "style": "staunton",
                                                                     "elevation": e, "king_px": 24, "blur": 0.0})
                for e in (20, 90)] + \
               [("clevr", clevr_config(e, "large", 3), {"elevation": e, "size": "large"}) for e in (30, 90)]
    for n, (e, px, blur) in enumerate(itertools.product(ELEVATIONS, KING_PX, BLURS)):
        scenes.append(("chess", chess_config("staunton", e, px, blur, 100 + n),
                       {"board": "contrast", "style": "staunton", "elevation": e, "king_px": px, "blur": blur}))
    for n, (e, size, seed) in enumerate(itertools.product(CLEVR_ELEVATIONS, ("large", "small"), (1, 2))):
        scenes.append(("clevr", clevr_config(e, size, 10 * seed + n), {"elevation": e, "size": size, "seed": seed}))
    for n, (e, px) in enumerate(itertools.product(ELEVATIONS, KING_PX)):
        scenes.append(("chess", chess_config("staunton", e, px, 0.0, 500 + n, "default"),
                       {"board": "default", "style": "staunton", "elevation": e, "king_px": px, "blur": 0.0}))
    for n, (e, px, blur) in enumerate(itertools.product(ELEVATIONS, KING_PX, BLURS[:2])):
        scenes.append(("chess", chess_config("stylised", e, px, blur, 300 + n),
                       {"board": "contrast", "style": "stylised", "elevation": e, "king_px": px, "blur": blur}))
    return scenes


# --- rendering (bpy) -------------------------------------------------------------------------
def render_scene(config: dict, attributes: list[str]) -> tuple[dict, dict[str, np.ndarray]]:
    """A legend-like record of the scene (setup, objects with their mask box and pixels) and every
    pair of region renders the check compared, keyed "<id>/<attribute>/<value>"."""
    from byo.blender import engine
    from byo.render import counterfactuals
    from byo.render.job import _measured, build_scene

    cfg = load_config(config)
    spec = sample_spec(cfg, make_job(cfg, 0))
    crops: dict[str, np.ndarray] = {}

    def keep(oid, attribute, value, truth, other):  # each change is compared on its own region
        crops[f"{oid}/{attribute}/{value}/truth"] = truth
        crops[f"{oid}/{attribute}/{value}"] = other

    reads = {}
    with engine.own_scene("cf_bench") as scene:
        _, built = build_scene(spec, cfg.family, scene, 2)
        ids = engine.render_instance_ids(scene, built)
        measured, _, _ = _measured(spec, cfg.family, ids)
        if "color" in attributes:  # the colour rule reads the image as rendered
            found = evidence.measure_objects(engine.render_image(scene), ids, {o.id: [o.id] for o in spec.objects})
            palette = {name: tuple(c / 255 for c in rgb) for name, rgb in COLORS.items()}
            reads = {i: evidence.color_margin(e.lab, spec.objects[i - 1].attributes["color"], palette)[0]
                     >= evidence.COLOR_MARGIN for i, e in found.items()}
        counterfactuals.measure(spec, cfg.family, scene, built, measured, attributes, keep)
        pixels = engine.project_points(scene, [o.location for o in spec.objects])
    legend = {"setup": spec.setup.model_dump(mode="json"), "content": spec.content,
              "objects": [{**o.model_dump(mode="json"), "pixel_coords": list(p), **measured[o.id],
                           **({"colour_reads": reads[o.id]} if o.id in reads else {})}
                          for o, p in zip(spec.objects, pixels, strict=True)]}
    return legend, crops


def render_noise(config: dict) -> dict[str, np.ndarray]:
    """Each visible object's region rendered twice as the check renders it, with two seeds: the
    sampling grain the check's threshold must stay above ("<id>/truth" and "<id>/noise/None")."""
    from byo.blender import engine, regions
    from byo.render.counterfactuals import blur_diameter_px
    from byo.render.job import _measured, build_scene

    cfg = load_config(config)
    spec = sample_spec(cfg, make_job(cfg, 0))
    crops: dict[str, np.ndarray] = {}
    with engine.own_scene("cf_noise") as scene:
        _, built = build_scene(spec, cfg.family, scene, 2)
        measured, _, _ = _measured(spec, cfg.family, engine.render_instance_ids(scene, built))
        with regions.region_renders(scene, spec.setup.render.counterfactual.samples, False):
            for o in spec.objects:
                if not measured[o.id]["visible_pixels"]:
                    continue
                box = cf.region([tuple(measured[o.id]["bbox"]), regions.projected_box(scene, built[o.id])],
                                blur_diameter_px(spec, o), spec.setup.resolution)
                crops[f"{o.id}/truth"] = regions.render_region(scene, box)
                scene.cycles.seed += 1
                crops[f"{o.id}/noise/None"] = regions.render_region(scene, box)
                scene.cycles.seed -= 1
    return crops


def _name(family: str, levels: dict) -> str:
    return "_".join([family, *(f"{k}{v}" for k, v in levels.items())])


def with_samples(config: dict, samples: int) -> dict:
    """The config with the check's region renders at `samples` samples, in one pass (every pair
    kept is a render at those samples)."""
    render = {**config["scene"]["render"], "counterfactual": {"samples": samples, "screen": False}}
    return {**config, "scene": {**config["scene"], "render": render}}


def render_all(out: Path, quick: bool, samples: int) -> None:
    scenes = [(family, with_samples(config, samples), levels) for family, config, levels in grid(quick)]
    with Bar("[bold]counterfactual renders", len(scenes), unit="scene") as bar:
        for family, config, levels in scenes:
            path = out / f"scene_{_name(family, levels)}.npz"
            if not path.exists():
                started = time.perf_counter()
                attributes = ["type"] if family == "chess" else ["shape", "material", "size", "color"]
                legend, crops = render_scene(config, attributes)
                meta = {"family": family, "levels": levels, "legend": legend, "seconds": time.perf_counter() - started}
                np.savez_compressed(path, meta=np.array(json.dumps(meta)), **{k.replace("/", "|"): v for k, v in crops.items()})
            bar.advance()
    noise = scenes[::6]  # the grain of every sixth scene
    with Bar("[bold]sampling grain", len(noise), unit="scene") as bar:
        for family, config, levels in noise:
            path = out / f"noise_{_name(family, levels)}.npz"
            if not path.exists():
                crops = render_noise(config)
                np.savez_compressed(path, meta=np.array(json.dumps({"family": family, "levels": levels})),
                                    **{k.replace("/", "|"): v for k, v in crops.items()})
            bar.advance()



# --- analysis (no bpy) -------------------------------------------------------------------------
SIGMAS = [0.5, 0.7, 1.0]  # candidate SMOOTH_PX
TOPS = [4, 8, 16, 32]  # candidate TOP_PIXELS
LEVELS = np.arange(4.0, 40.5, 1.0)  # candidate MIN_DIFFERENCE (ΔE00)
RULE_HEIGHTS = [12, 14, 16, 18, 20, 22, 24, 28]  # candidate TYPE_READABLE_MIN_HEIGHT_PX of the silhouette rule
KEEP = 64  # the most changed pixels kept per pair and smoothing


def _most_changed(truth: np.ndarray, other: np.ndarray) -> dict[float, np.ndarray]:
    """Per candidate smoothing, the CIEDE2000 of the KEEP most changed pixels, largest first."""
    a, b = (rgb2lab(x.astype(np.float64) / 255.0) for x in (truth, other))
    out = {}
    for sigma in SIGMAS:
        d = deltaE_ciede2000(ndimage.gaussian_filter(a, (sigma, sigma, 0)), ndimage.gaussian_filter(b, (sigma, sigma, 0)))
        top = np.sort(d.ravel())[::-1][:KEEP]
        out[sigma] = np.pad(top, (0, KEEP - top.size)).astype(np.float32)
    return out


def load(out: Path) -> list[dict]:
    """Every compared pair (the noise pairs too, attribute "noise"): scene levels, object,
    attribute, value, the most changed pixels per smoothing, the object's mask pixels. Cached in
    the output folder per scene."""
    rows = []
    for path in sorted([*out.glob("scene_*.npz"), *out.glob("noise_*.npz")]):
        cache = path.with_suffix(".pairs.pkl")
        if cache.exists() and cache.stat().st_mtime >= path.stat().st_mtime:
            rows += pickle.loads(cache.read_bytes())
            continue
        data = np.load(path)
        meta = json.loads(str(data["meta"]))
        legend = meta.get("legend") or {"objects": []}
        objects = {o["id"]: o for o in legend["objects"]}
        found = []
        for key in data.files:
            if key == "meta" or key.endswith("|truth"):
                continue
            oid, attribute, value = key.split("|")
            truth = data[f"{key}|truth"] if f"{key}|truth" in data.files else data[f"{oid}|truth"]
            o = objects.get(int(oid), {"kind": "?", "attributes": {}, "visible_pixels": 1})
            found.append({"scene": path.stem, "family": meta["family"], "levels": meta["levels"], "object": int(oid),
                          "kind": o["kind"], "attributes": o["attributes"], "attribute": attribute, "value": value,
                          "area": o["visible_pixels"], "top": _most_changed(truth, data[key]),
                          "legend": legend})
        cache.write_bytes(pickle.dumps(found))
        rows += found
    return rows


def difference(row: dict, p: dict) -> float:
    return float(row["top"][p["sigma"]][p["k"] - 1])


def visible(row: dict, p: dict) -> bool:
    return difference(row, p) >= p["level"]


def questions(rows: list[dict], family: str, attribute: str, board: str | None = None) -> dict[tuple, list[dict]]:
    """(scene, object) -> its pairs of `attribute` (one question about the object's attribute)."""
    out: dict[tuple, list[dict]] = {}
    for r in rows:
        if (r["family"] == family and r["attribute"] == attribute and r["area"] > 0
                and (board is None or r["levels"].get("board") == board)):
            out.setdefault((r["scene"], r["object"]), []).append(r)
    return out


def chess_rule(pairs: list[dict], height: float) -> bool:
    """Whether the silhouette rule, with pieces readable from `height` px tall, asks the question."""
    r = pairs[0]
    o = next(o for o in r["legend"]["objects"] if o["id"] == r["object"])
    return _types_unreadable(r["legend"], [o], height) is None


def kappa(rule: np.ndarray, check: np.ndarray) -> float:
    """Cohen's kappa of two yes/no ratings of the same questions: their agreement beyond what their
    rates of yes alone would give (0 when either always says the same)."""
    table = np.array([[np.sum(rule & check), np.sum(rule & ~check)], [np.sum(~rule & check), np.sum(~rule & ~check)]])
    with np.errstate(invalid="ignore", divide="ignore"):  # its standard errors, of a table with an empty side
        value = cohens_kappa(table.astype(float)).kappa
    return float(value) if np.isfinite(value) else 0.0


def calibrate(rows: list[dict]) -> dict:
    """The smoothing, the pixel rank and the level of the check, and the silhouette rule's least
    piece height (RULE_HEIGHTS), at which the two agree most on the contrast board's piece-type
    questions, by Cohen's kappa (plain agreement is highest where both ask almost nothing: a rule
    from 28 px and a check from 31 ΔE00 agree on 97% and on no question asked). Ties: the least
    smoothing, the most pixels, the lowest level, the lowest height."""
    qs = questions(rows, "chess", "type", "contrast")
    rules = {h: np.array([chess_rule(v, h) for v in qs.values()]) for h in RULE_HEIGHTS}
    best = None
    for sigma, k in itertools.product(SIGMAS, TOPS):
        least = np.array([min(float(r["top"][sigma][k - 1]) for r in v) for v in qs.values()])
        for level, height in itertools.product(LEVELS, RULE_HEIGHTS):
            check = least >= level
            key = (round(kappa(rules[height], check), 6), -sigma, k, -level, -height)
            if best is None or key > best[0]:
                best = (key, {"sigma": sigma, "k": k, "level": float(level), "height": height,
                              "agree": int(np.sum(rules[height] == check)), "n": len(qs), "kappa": key[0]})
    return best[1]


def by_height(rows: list[dict], p: dict) -> dict[int, dict]:
    """The agreement of the check at `p`'s thresholds with the rule at each candidate height."""
    return {h: confusion(rows, {**p, "height": h}) for h in RULE_HEIGHTS}


def confusion(rows: list[dict], p: dict, board: str = "contrast") -> dict:
    qs = questions(rows, "chess", "type", board)
    table = {(a, b): 0 for a in (True, False) for b in (True, False)}
    said: list[tuple[bool, bool]] = []  # (rule, check) per question
    by_level: dict[str, dict] = {}
    hidden_pairs: dict[str, int] = {}  # where the rule asks and the check does not: the types that look alike
    for v in qs.values():
        rule = chess_rule(v, p["height"])
        check = all(visible(r, p) for r in v)
        table[(rule, check)] += 1
        said.append((rule, check))
        if rule and not check:
            for r in v:
                if not visible(r, p):
                    pair = f"{r['attributes'].get('type', r['kind'])} as {r['value']}"
                    hidden_pairs[pair] = hidden_pairs.get(pair, 0) + 1
        for name in ("elevation", "king_px", "blur", "style"):
            level = f"{name} {v[0]['levels'][name]}"
            cell = by_level.setdefault(level, {"n": 0, "agree": 0, "rule": 0, "check": 0})
            cell["n"] += 1
            cell["agree"] += rule == check
            cell["rule"] += rule
            cell["check"] += check
    rule_says, check_says = np.array(said, dtype=bool).reshape(-1, 2).T
    return {"table": {f"{a}/{b}": n for (a, b), n in table.items()}, "by_level": by_level,
            "kappa": kappa(rule_says, check_says),
            "hidden_pairs": dict(sorted(hidden_pairs.items(), key=lambda kv: -kv[1])),
            "agree": sum(n for (a, b), n in table.items() if a == b), "n": sum(table.values())}


def held_out(rows: list[dict]) -> list[dict]:
    """The thresholds chosen on half of the contrast board's elevations and their agreement with the
    silhouette rule on the other half (the agreement above is measured on the scenes it was chosen on)."""
    out = []
    for fit in (ELEVATIONS[::2], ELEVATIONS[1::2]):
        chosen = calibrate([r for r in rows if r["levels"].get("elevation") in fit])
        rest = [r for r in rows if r["family"] == "chess" and r["levels"].get("elevation") not in fit]
        c = confusion(rest, chosen)
        out.append({"fit": fit, "params": {k: chosen[k] for k in ("sigma", "k", "level", "height")},
                    "agree": c["agree"], "n": c["n"]})
    return out


def noise(rows: list[dict], p: dict) -> dict:
    """The difference of two renders of one region with two seeds (sampling grain alone)."""
    values = [difference(r, p) for r in rows if r["attribute"] == "noise"]
    if not values:
        return {"n": 0}
    return {"n": len(values), "median": float(np.median(values)), "max": float(max(values)),
            "over": sum(v >= p["level"] for v in values)}


def clevr_shapes(rows: list[dict], p: dict) -> dict:
    """Per elevation and shape pair (truth -> alternative): the differences and the objects whose
    alternative shows; per elevation the shape questions the check asks ("what shape is it?":
    every other shape shows) and those the size and blur rule asks."""
    pairs: dict[tuple, list[float]] = {}
    shown: dict[tuple, list[bool]] = {}
    asked: dict[int, list[bool]] = {}
    old: dict[int, list[bool]] = {}
    for v in questions(rows, "clevr", "shape").values():
        e = v[0]["levels"]["elevation"]
        for r in v:
            pair = (e, r["kind"], r["value"])
            pairs.setdefault(pair, []).append(difference(r, p))
            shown.setdefault(pair, []).append(visible(r, p))
        asked.setdefault(e, []).append(all(visible(r, p) for r in v))
        o = next(o for o in v[0]["legend"]["objects"] if o["id"] == v[0]["object"])
        legend = {**v[0]["legend"], "objects": [{**o, "visible": True}]}
        old.setdefault(e, []).append(_shapes_unreadable(legend) is None)
    return {"pairs": {f"{e}|{a}|{b}": {"median": float(np.median(n)), "min": float(min(n)),
                                        "shown": f"{sum(shown[(e, a, b)])}/{len(n)}"}
                      for (e, a, b), n in sorted(pairs.items())},
            "asked": {e: f"{sum(v)}/{len(v)}" for e, v in sorted(asked.items())},
            "old_rule": {e: f"{sum(v)}/{len(v)}" for e, v in sorted(old.items())}}


def attribute_table(rows: list[dict], p: dict) -> dict:
    """CLEVR: per attribute, the (object, alternative) pairs that show, by elevation."""
    out: dict[str, dict] = {}
    for attribute in ("material", "size", "color", "presence"):
        for r in rows:
            if r["family"] != "clevr" or r["attribute"] != attribute or not r["area"]:
                continue
            cell = out.setdefault(attribute, {}).setdefault(r["levels"]["elevation"], [0, 0])
            cell[0] += visible(r, p)
            cell[1] += 1
    return {a: {e: f"{n}/{t}" for e, (n, t) in sorted(v.items())} for a, v in out.items()}


def color_rule_agreement(rows: list[dict], p: dict) -> dict:
    """CLEVR's colour rule (evidence.colour_margin on the truth's render) against the rendered
    colours: per object, whether every other colour shows, and whether the rule reads it."""
    table = {(a, b): 0 for a in (True, False) for b in (True, False)}
    for v in questions(rows, "clevr", "color").values():
        check = all(visible(r, p) for r in v)
        o = next(o for o in v[0]["legend"]["objects"] if o["id"] == v[0]["object"])
        rule = o.get("colour_reads")
        if rule is None:
            continue
        table[(rule, check)] += 1
    return {f"{a}/{b}": n for (a, b), n in table.items()}


# --- figures and the doc ------------------------------------------------------------------
def figure(rows: list[dict], p: dict, path: Path) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    qs = questions(rows, "chess", "type", "contrast")
    bins = np.linspace(0, 60, 41)
    for rule_says, color in ((True, "tab:green"), (False, "tab:red")):
        xs = [min(difference(r, p) for r in v) for v in qs.values() if chess_rule(v, p["height"]) == rule_says]
        axes[0].hist(xs, bins=bins, alpha=0.6, color=color,
                     label=f"silhouette rule: {'asked' if rule_says else 'not asked'} ({len(xs)})")
    axes[0].axvline(p["level"], color="k", lw=1)
    axes[0].set_xlabel("least difference over the 5 other types (ΔE00)")
    axes[0].set_ylabel("piece-type questions")
    axes[0].set_title("chess, one row on grey", fontsize=9)
    axes[0].legend(fontsize=8)
    shapes = clevr_shapes(rows, p)["pairs"]
    for a in SHAPES:
        for b in SHAPES:
            if a == b or "cube" in (a, b):
                continue
            es = sorted({int(k.split("|")[0]) for k in shapes if k.endswith(f"|{a}|{b}")})
            axes[1].plot(es, [shapes[f"{e}|{a}|{b}"]["min"] for e in es], marker="o", label=f"{a} as {b}")
    axes[1].axhline(p["level"], color="k", lw=1)
    axes[1].set_xlabel("camera elevation (degrees)")
    axes[1].set_ylabel("least difference over the objects (ΔE00)")
    axes[1].set_title("CLEVR, round shapes rendered as one another", fontsize=9)
    axes[1].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def sheet(out: Path, rows: list[dict], p: dict, path: Path, limit: int = 24) -> None:
    """Borderline cases: each tile the truth and the alternative nearest to it, with its numbers;
    half of them just shown, half just not."""
    qs = questions(rows, "chess", "type") | questions(rows, "clevr", "shape")
    worst = [min(v, key=lambda r: difference(r, p)) for v in qs.values()]
    above = sorted((r for r in worst if visible(r, p)), key=lambda r: difference(r, p))[: limit // 2]
    below = sorted((r for r in worst if not visible(r, p)), key=lambda r: -difference(r, p))[: limit // 2]
    tiles = []
    for r in [*below, *above]:
        data = np.load(out / f"{r['scene']}.npz")
        key = f"{r['object']}|{r['attribute']}|{r['value']}"
        a, b = data[f"{key}|truth"], data[key]
        pair = np.concatenate([a, np.zeros((a.shape[0], 2, 3), np.uint8), b], axis=1)
        scale = max(1, 120 // max(pair.shape[:2]))
        im = Image.fromarray(pair).resize((pair.shape[1] * scale, pair.shape[0] * scale), Image.NEAREST)
        tile = Image.new("RGB", (max(im.width, 340), im.height + 30), "white")
        tile.paste(im, (0, 0))
        lv = r["levels"]
        where = (f"{lv['board']}, {lv['style']}, king {lv['king_px']} px, blur {lv['blur']}" if "king_px" in lv
                 else f"{lv['size']} {r['attributes'].get('material', '')}")
        ImageDraw.Draw(tile).text((2, im.height + 2), f"{r['kind']} as {r['value']}: {difference(r, p):.1f} "
                                  f"({'shows' if visible(r, p) else 'does not show'})\nelevation {lv['elevation']}, "
                                  f"{where}", fill="black", font=font(11)[0])
        tiles.append(tile)
    if not tiles:
        return
    cols = 4
    w, h = max(t.width for t in tiles), max(t.height for t in tiles)
    board = Image.new("RGB", (cols * w, math.ceil(len(tiles) / cols) * h), "white")
    for k, t in enumerate(tiles):
        board.paste(t, ((k % cols) * w, (k // cols) * h))
    board.save(path)


def _confusion_lines(c: dict) -> list[str]:
    t = c["table"]
    return ["| | check: asked | check: not asked |", "|---|---|---|",
            f"| rule: asked | {t['True/True']} | {t['True/False']} |",
            f"| rule: not asked | {t['False/True']} | {t['False/False']} |"]


def markdown(result: dict) -> str:
    p, c, d = result["params"], result["confusion"], result["default"]
    lines = [
        BEGIN,
        "## Counterfactual check: thresholds",
        "",
        f"Measured by `bench/counterfactual.py` ({result['renders']} region renders of {result['scenes']} scenes at "
        f"{RESOLUTION[0]}x{RESOLUTION[1]}, {result['samples']} samples each; its docstring gives the grids). "
        f"Each render is smoothed by a Gaussian of **{p['sigma']:g} px**; the difference of a change is the "
        f"CIEDE2000 of its **{_ordinal(p['k'])}** most changed pixel, and a change shows from **{p['level']:g} ΔE00**: "
        "the setting at which the check agrees most with the chess silhouette rule on the contrast board's "
        f"piece-type questions beyond chance (Cohen's kappa {p['kappa']:.2f}), chosen together with the rule's least "
        f"piece height, **{p['height']} px** (ties to the least smoothing, the most pixels, the lowest level and "
        "height; plain agreement is highest where both ask almost nothing). The rule's elevation and blur limits are "
        "bench/silhouettes.py's; its height there, 16 px, comes from silhouettes each stretched to a common box, "
        "where a few pixels of a king's cross or a queen's crown weigh as much as its whole outline.",
        "",
        "![calibration](counterfactual_calibration.png)",
        "",
        "### Chess: the silhouette rule against the counterfactual check",
        "",
        f"The twelve pieces side by side on grey (the rule's own domain): **{c['agree']}/{c['n']} piece-type "
        f"questions agree ({c['agree'] / c['n']:.1%}; kappa {c['kappa']:.2f})**.",
        "",
        *_confusion_lines(c),
        "",
        "| level | questions | agree | rule asks | check asks |",
        "|---|---|---|---|---|",
    ]
    for level, cell in sorted(c["by_level"].items(), key=lambda kv: (kv[0].split()[0], _num(kv[0].split()[1]))):
        lines.append(f"| {level} | {cell['n']} | {cell['agree'] / cell['n']:.0%} | {cell['rule']} | {cell['check']} |")
    lines += ["", "The check at these thresholds against the rule at each candidate height (the rule's elevation and "
              "blur limits unchanged):", "", "| rule: pieces from | agree | kappa | rule asks | check asks |",
              "|---|---|---|---|---|"]
    for height, h in result["by_height"].items():
        t = h["table"]
        chosen = " (the rule's)" if int(height) == p["height"] else ""
        lines.append(f"| {height} px{chosen} | {h['agree']}/{h['n']} ({h['agree'] / h['n']:.1%}) | {h['kappa']:.2f} | "
                     f"{t['True/True'] + t['True/False']} | {t['True/True'] + t['False/True']} |")
    pairs = list(c["hidden_pairs"].items())
    if pairs:
        lines += ["", "Where the rule asks and the check does not, the other types that did not show, with how many "
                  "questions each: " + ", ".join(f"{pair} {n}" for pair, n in pairs[:6]) + "."]
    for h in result["held_out"]:
        q = h["params"]
        lines += ["", f"Chosen on elevations {', '.join(map(str, h['fit']))} alone ({q['sigma']:g} px, "
                  f"{_ordinal(q['k'])} pixel, {q['level']:g} ΔE00, the rule from {q['height']} px), the other elevations agree on "
                  f"{h['agree']}/{h['n']} ({h['agree'] / max(1, h['n']):.1%})."]
    lines += ["", f"The project's default board (cream and brown squares, pieces on every other cell of a 5 x 7 board, "
              f"nearer pieces hiding farther ones): {d['agree']}/{d['n']} agree ({d['agree'] / max(1, d['n']):.1%}).",
              "", *_confusion_lines(d)]
    nz = result["noise"]
    if nz.get("n"):
        lines += ["", f"Sampling grain (each region rendered twice with two seeds, {nz['n']} regions): difference median "
                  f"{nz['median']:.1f}, largest {nz['max']:.1f} ΔE00; {nz['over']} at or above the threshold."]
    s = result["clevr"]
    lines += ["", "### CLEVR shapes by elevation (the same thresholds)", "",
              "Objects whose shape the check reads (every other shape shows) and those the size and blur rule reads:",
              "", "| elevation | check reads | size and blur rule reads |", "|---|---|---|"]
    lines += [f"| {e} | {s['asked'][e]} | {s['old_rule'][e]} |" for e in s["asked"]]
    lines += ["", "The difference of each shape rendered as another (median and least over the objects, ΔE00; "
              "shown: objects whose alternative shows):", "",
              "| elevation | shape | as | median | least | shown |", "|---|---|---|---|---|---|"]
    for key, v in s["pairs"].items():
        e, a, b = key.split("|")
        lines.append(f"| {e} | {a} | {b} | {v['median']:.1f} | {v['min']:.1f} | {v['shown']} |")
    lines += ["", "### CLEVR: other attributes (alternatives that show, of all)", "",
              "| attribute | " + " | ".join(str(e) for e in CLEVR_ELEVATIONS) + " |",
              "|---|" + "---|" * len(CLEVR_ELEVATIONS)]
    for a, v in result["attributes"].items():
        lines.append(f"| {a} | " + " | ".join(v.get(e, v.get(str(e), "-")) for e in CLEVR_ELEVATIONS) + " |")
    col = result["colour"]
    lines += ["", "The colour rule (ΔE00 margin of the rendered median colour, docs/readability.md) against rendering "
              "each other palette colour, per CLEVR object:", "",
              "| | every other colour shows | some colour does not |", "|---|---|---|",
              f"| colour rule reads | {col['True/True']} | {col['True/False']} |",
              f"| colour rule refuses | {col['False/True']} | {col['False/False']} |"]
    lines += ["", "Borderline cases (truth left, the nearest alternative right; the first half just below the "
              "threshold, the rest just above): [counterfactual_borderline.png](counterfactual_borderline.png).",
              "", END]
    return "\n".join(lines) + "\n"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _num(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def analyse(out: Path, write: bool, samples: int) -> dict:
    rows = load(out)
    params = calibrate(rows)
    scenes = len(list(out.glob("scene_*.npz")))
    result = {"params": params, "confusion": confusion(rows, params), "default": confusion(rows, params, "default"),
              "held_out": held_out(rows), "by_height": by_height(rows, params),
              "noise": noise(rows, params), "clevr": clevr_shapes(rows, params),
              "attributes": attribute_table(rows, params), "colour": color_rule_agreement(rows, params),
              "scenes": scenes, "renders": len(rows) + len({(r["scene"], r["object"]) for r in rows}),
              "samples": samples}
    (out / "calibration.json").write_text(json.dumps(result, indent=1, default=str))
    docs = ROOT / "docs" if write else out
    figure(rows, params, docs / "counterfactual_calibration.png")
    sheet(out, rows, params, docs / "counterfactual_borderline.png")
    if write:
        write_block(DOC, markdown(result), BEGIN, END)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "output" / "bench_counterfactual"))
    parser.add_argument("--quick", action="store_true", help="four scenes, nothing written to docs/")
    parser.add_argument("--analyse-only", action="store_true", help="reuse the renders in --out")
    parser.add_argument("--samples", type=int, default=CounterfactualConfig().samples,
                        help="samples per pixel of the region renders (default: the check's)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.analyse_only:
        render_all(out, args.quick, args.samples)
    result = analyse(out, write=not args.quick, samples=args.samples)
    print(json.dumps({k: result[k] for k in ("params", "confusion")}, indent=1, default=str))


if __name__ == "__main__":
    main()
