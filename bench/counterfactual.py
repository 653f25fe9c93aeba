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
(PIXEL_DELTA, MIN_PIXELS, MIN_SHARE) are chosen where they agree with it most, ties to the lowest
thresholds, and the agreement is reported as a confusion table. The same thresholds are then
applied, unchanged, to CLEVR, whose shapes have no measured rule for the view's elevation.

Writes the calibration section of docs/readability_calibration.md (between its markers), the
figures docs/counterfactual_*.png, a contact sheet of the borderline cases and the measurements as
JSON into the output folder. Copy the chosen thresholds into byo/scene/counterfactual.py.
    .venv/bin/python bench/counterfactual.py [--out output/bench_counterfactual] [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from pathlib import Path

import matplotlib
import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage
from skimage.color import deltaE_ciede2000, rgb2lab

from byo.core.progress import Bar
from byo.core.sheets import font
from byo.families import load_config
from byo.families.chess.answers import _types_unreadable
from byo.families.chess.model import PIECE_HEIGHT, PIECE_TYPES
from byo.families.clevr.answers import _shapes_unreadable
from byo.families.clevr.model import SHAPES
from byo.scene import counterfactual as cf
from byo.scene.plan import make_job
from byo.scene.spec import sample_spec

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "readability_calibration.md"
BEGIN, END = "<!-- counterfactual: begin -->", "<!-- counterfactual: end -->"
RESOLUTION = (256, 192)
FOCAL_PX = 50 / 36 * RESOLUTION[0]  # 50 mm lens, 36 mm sensor
SQUARE = 0.06
ELEVATIONS = [20, 35, 50, 65, 80, 90]
KING_PX = [12, 20, 36]
BLURS = [0.0, 0.3, 0.8]  # disc diameter / king height
# The silhouette rule's own domain: every piece's outline against a surround it contrasts with
# (grey squares and backdrop between the white and the black pieces), as the silhouettes of its
# bench are; and the project's default board (cream and brown squares, a dark backdrop).
BOARDS = {
    "contrast": {"board": {"light_color": [0.5, 0.5, 0.5], "dark_color": [0.36, 0.36, 0.36],
                           "frame_color": [0.42, 0.42, 0.42]},
                 "background": {"color": [0.5, 0.5, 0.5], "strength": 1.0}},
    "default": {"board": {}, "background": None},
}
STYLES = ["staunton", "stylised"]
CLEVR_ELEVATIONS = [20, 30, 45, 60, 75, 90]
CLEVR_SIZES = {"large": 1.6, "small": 1.6}  # camera distance (m) per object size
DELTAS = [10.0, 15.0, 20.0, 25.0, 30.0]  # candidate PIXEL_DELTA
MIN_PIXELS = [4, 8, 12, 16, 24, 32, 48]
MIN_SHARES = [0.0, 0.05, 0.1, 0.15, 0.2, 0.3]


# --- scenes ----------------------------------------------------------------------------------
def fstop_for(disc_px: float, distance: float) -> float:
    """The f-stop whose defocus disc is `disc_px` wide at `distance` metres, focused at half of it."""
    f, focus = 0.05, 0.5 * distance
    per_fstop = f * f * abs(distance - focus) / (distance * (focus - f)) / 0.036 * max(RESOLUTION)
    return per_fstop / disc_px


def chess_config(style: str, elevation: float, king_px: float, blur: float, seed: int, board: str = "contrast") -> dict:
    order = np.random.default_rng(seed).permutation(12)
    cells = [(i, j) for i in (0, 2, 4) for j in (0, 2, 4, 6)]
    pieces = [{"type": PIECE_TYPES[k % 6], "color": "white" if k < 6 else "black", "cell": list(cells[n])}
              for n, k in enumerate(order)]
    distance = PIECE_HEIGHT["king"] * SQUARE * FOCAL_PX / king_px
    look = BOARDS[board]
    return {"dataset": {"name": "cf_chess", "family": "chess", "seed": seed, "n_images": 1},
            "scene": {"resolution": list(RESOLUTION),
                      **({"background": look["background"]} if look["background"] else {}),
                      "camera": {"elevation": elevation, "distance": round(distance, 4), "azimuth": 0.0,
                                 "target": [0.0, 0.0, 0.04]},
                      "blur": {"fstop": round(fstop_for(blur * king_px, distance), 4) if blur else "none"},
                      "render": {"on_hidden": "flag", "min_visible_pixels": 1},
                      "content": {"board": {"rows": 5, "columns": 7, "square_size": SQUARE, **look["board"]},
                                  "pieces": pieces, "style": style}}}


def clevr_config(elevation: float, size: str, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    colours = list(rng.choice(["gray", "red", "blue", "green", "brown", "purple", "cyan", "yellow"], size=8))
    at = [(x, y) for y in (-1.2, 1.2) for x in (-2.7, -0.9, 0.9, 2.7)]
    kinds = [(s, m) for m in ("rubber", "metal") for s in SHAPES]
    objects = [{"shape": s, "material": m, "size": size, "color": str(c), "position": list(p)}
               for (s, m), c, p in zip((kinds[k] for k in rng.permutation(8)), colours, at, strict=True)]
    return {"dataset": {"name": "cf_clevr", "family": "clevr", "seed": seed, "n_images": 1},
            "scene": {"resolution": list(RESOLUTION),
                      "camera": {"elevation": elevation, "distance": CLEVR_SIZES[size] * (1 if size == "large" else 0.8)},
                      "render": {"on_hidden": "flag", "min_visible_pixels": 1},
                      "content": {"mode": "objects", "objects": objects, "extent": 3.5}}}


def grid(quick: bool) -> list[tuple[str, dict, dict]]:
    """(family, config, levels) of every scene."""
    scenes = []
    if quick:
        return [("chess", chess_config("staunton", e, 24, 0.0, 7), {"board": "contrast", "style": "staunton",
                                                                     "elevation": e, "king_px": 24, "blur": 0.0})
                for e in (20, 90)] + \
               [("clevr", clevr_config(e, "large", 3), {"elevation": e, "size": "large"}) for e in (30, 90)]
    for n, (style, e, px, blur) in enumerate(itertools.product(STYLES, ELEVATIONS, KING_PX, BLURS)):
        scenes.append(("chess", chess_config(style, e, px, blur, 100 + n),
                       {"board": "contrast", "style": style, "elevation": e, "king_px": px, "blur": blur}))
    for n, (e, px) in enumerate(itertools.product(ELEVATIONS, KING_PX)):
        scenes.append(("chess", chess_config("staunton", e, px, 0.0, 500 + n, "default"),
                       {"board": "default", "style": "staunton", "elevation": e, "king_px": px, "blur": 0.0}))
    for n, (e, size, seed) in enumerate(itertools.product(CLEVR_ELEVATIONS, ("large", "small"), (1, 2))):
        scenes.append(("clevr", clevr_config(e, size, 10 * seed + n), {"elevation": e, "size": size}))
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

    def keep(oid, attribute, value, truth, other):
        crops.setdefault(f"{oid}/truth", truth)
        crops[f"{oid}/{attribute}/{value}"] = other

    with engine.own_scene("cf_bench") as scene:
        _, built = build_scene(spec, cfg.family, scene, 2)
        ids = engine.render_instance_ids(scene, built)
        measured, _, _ = _measured(spec, cfg.family, ids)
        counterfactuals.measure(spec, cfg.family, scene, built, measured, attributes, keep)
        pixels = engine.project_points(scene, [o.location for o in spec.objects])
    legend = {"setup": spec.setup.model_dump(mode="json"), "content": spec.content,
              "objects": [{**o.model_dump(mode="json"), "pixel_coords": list(p), **measured[o.id]}
                          for o, p in zip(spec.objects, pixels, strict=True)]}
    return legend, crops


def render_all(out: Path, quick: bool) -> None:
    scenes = grid(quick)
    with Bar("[bold]counterfactual renders", len(scenes), unit="scene") as bar:
        for n, (family, config, levels) in enumerate(scenes):
            path = out / f"scene_{n:04d}.npz"
            if not path.exists():
                started = time.perf_counter()
                attributes = ["type"] if family == "chess" else ["shape", "material", "size", "color"]
                legend, crops = render_scene(config, attributes)
                meta = {"family": family, "levels": levels, "legend": legend, "seconds": time.perf_counter() - started}
                np.savez_compressed(path, meta=np.array(json.dumps(meta)), **{k.replace("/", "|"): v for k, v in crops.items()})
            bar.advance()


# --- analysis (no bpy) -------------------------------------------------------------------------
def smoothed_delta(truth: np.ndarray, other: np.ndarray) -> np.ndarray:
    a, b = (ndimage.gaussian_filter(rgb2lab(x.astype(np.float64) / 255.0), (cf.SMOOTH_PX, cf.SMOOTH_PX, 0))
            for x in (truth, other))
    return deltaE_ciede2000(a, b)


def load(out: Path) -> list[dict]:
    """Every compared pair: scene levels, object, attribute, value, differing pixels at each
    candidate PIXEL_DELTA, the object's area."""
    rows = []
    for path in sorted(out.glob("scene_*.npz")):
        data = np.load(path)
        meta = json.loads(str(data["meta"]))
        objects = {o["id"]: o for o in meta["legend"]["objects"]}
        for key in data.files:
            if key == "meta" or key.endswith("|truth"):
                continue
            oid, attribute, value = key.split("|")
            d = smoothed_delta(data[f"{oid}|truth"], data[key])
            o = objects[int(oid)]
            rows.append({"scene": path.stem, "family": meta["family"], "levels": meta["levels"], "object": int(oid),
                         "kind": o["kind"], "attributes": o["attributes"], "attribute": attribute, "value": value,
                         "area": o["visible_pixels"], "counts": {str(t): int((d >= t).sum()) for t in DELTAS},
                         "peak": float(d.max()), "legend": meta["legend"]})
    return rows


def visible(row: dict, delta: float, min_px: int, share: float) -> bool:
    n = row["counts"][str(delta)]
    return n >= min_px and n >= share * row["area"]


def questions(rows: list[dict], family: str, attribute: str) -> dict[tuple, list[dict]]:
    """(scene, object) -> its pairs of `attribute` (one question about the object's attribute)."""
    out: dict[tuple, list[dict]] = {}
    for r in rows:
        if r["family"] == family and r["attribute"] == attribute and r["area"] > 0:
            out.setdefault((r["scene"], r["object"]), []).append(r)
    return out


def chess_rule(pairs: list[dict]) -> bool:
    r = pairs[0]
    o = next(o for o in r["legend"]["objects"] if o["id"] == r["object"])
    return _types_unreadable(r["legend"], [o]) is None


def calibrate(rows: list[dict]) -> dict:
    qs = questions(rows, "chess", "type")
    rule = {k: chess_rule(v) for k, v in qs.items()}
    best = None
    for delta, min_px, share in itertools.product(DELTAS, MIN_PIXELS, MIN_SHARES):
        check = {k: all(visible(r, delta, min_px, share) for r in v) for k, v in qs.items()}
        agree = sum(check[k] == rule[k] for k in qs)
        key = (agree, -delta, -min_px, -share)
        if best is None or key > best[0]:
            best = (key, {"delta": delta, "min_px": min_px, "share": share, "agree": agree, "n": len(qs)})
    return best[1]


def confusion(rows: list[dict], params: dict) -> dict:
    qs = questions(rows, "chess", "type")
    table = {(a, b): 0 for a in (True, False) for b in (True, False)}
    by_level: dict[str, dict] = {}
    for v in qs.values():
        rule = chess_rule(v)
        check = all(visible(r, params["delta"], params["min_px"], params["share"]) for r in v)
        table[(rule, check)] += 1
        for name in ("elevation", "king_px", "blur", "style"):
            level = f"{name} {v[0]['levels'][name]}"
            cell = by_level.setdefault(level, {"n": 0, "agree": 0, "rule": 0, "check": 0})
            cell["n"] += 1
            cell["agree"] += rule == check
            cell["rule"] += rule
            cell["check"] += check
    return {"table": {f"{a}/{b}": n for (a, b), n in table.items()}, "by_level": by_level}


def clevr_shapes(rows: list[dict], params: dict) -> dict:
    """Per elevation and shape pair (truth -> alternative): the differing pixels and the share
    of objects whose alternative shows; and per elevation the shape questions the check asks."""
    pairs: dict[tuple, list[int]] = {}
    shown: dict[tuple, list[bool]] = {}
    asked: dict[int, list[bool]] = {}
    old: dict[int, list[bool]] = {}
    for v in questions(rows, "clevr", "shape").values():
        e = v[0]["levels"]["elevation"]
        for r in v:
            pair = (e, r["kind"], r["value"])
            pairs.setdefault(pair, []).append(r["counts"][str(params["delta"])])
            shown.setdefault(pair, []).append(visible(r, params["delta"], params["min_px"], params["share"]))
        asked.setdefault(e, []).append(all(visible(r, params["delta"], params["min_px"], params["share"]) for r in v))
        o = next(o for o in v[0]["legend"]["objects"] if o["id"] == v[0]["object"])
        legend = {**v[0]["legend"], "objects": [{**o, "visible": True}]}
        old.setdefault(e, []).append(_shapes_unreadable(legend) is None)
    return {"pairs": {f"{e}|{a}|{b}": {"median": float(np.median(n)), "min": int(min(n)),
                                        "shown": f"{sum(shown[(e, a, b)])}/{len(n)}"}
                      for (e, a, b), n in sorted(pairs.items())},
            "asked": {e: f"{sum(v)}/{len(v)}" for e, v in sorted(asked.items())},
            "old_rule": {e: f"{sum(v)}/{len(v)}" for e, v in sorted(old.items())}}


def attribute_table(rows: list[dict], params: dict) -> dict:
    """CLEVR: per attribute, the share of (object, alternative) pairs that show, by elevation."""
    out: dict[str, dict] = {}
    for attribute in ("material", "size", "color", "presence"):
        for r in rows:
            if r["family"] != "clevr" or r["attribute"] != attribute or not r["area"]:
                continue
            cell = out.setdefault(attribute, {}).setdefault(r["levels"]["elevation"], [0, 0])
            cell[0] += visible(r, params["delta"], params["min_px"], params["share"])
            cell[1] += 1
    return {a: {e: f"{n}/{t}" for e, (n, t) in sorted(v.items())} for a, v in out.items()}


# --- figures and the doc ------------------------------------------------------------------
def figure(rows: list[dict], params: dict, path: Path) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    qs = questions(rows, "chess", "type")
    for rule_says, colour in ((True, "tab:green"), (False, "tab:red")):
        xs = [min(r["counts"][str(params["delta"])] / max(1, r["area"]) for r in v) for v in qs.values()
              if chess_rule(v) == rule_says]
        axes[0].hist(xs, bins=np.linspace(0, 1, 41), alpha=0.6, color=colour,
                     label=f"silhouette rule: {'readable' if rule_says else 'not readable'}")
    axes[0].axvline(params["share"], color="k", lw=1)
    axes[0].set_xlabel("least differing share of the piece over its 5 alternatives")
    axes[0].set_ylabel("piece-type questions")
    axes[0].legend(fontsize=8)
    shapes = clevr_shapes(rows, params)["pairs"]
    for a in SHAPES:
        for b in SHAPES:
            if a == b or a == "cube" or b == "cube":
                continue
            es = sorted({int(k.split("|")[0]) for k in shapes if k.endswith(f"|{a}|{b}")})
            axes[1].plot(es, [shapes[f"{e}|{a}|{b}"]["median"] for e in es], marker="o", label=f"{a} as {b}")
    axes[1].axhline(params["min_px"], color="k", lw=1)
    axes[1].set_xlabel("camera elevation (degrees)")
    axes[1].set_ylabel(f"differing pixels (median, ΔE00 ≥ {params['delta']:g})")
    axes[1].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def sheet(out: Path, rows: list[dict], params: dict, path: Path, limit: int = 24) -> None:
    """Borderline cases: each tile the truth and the alternative nearest to it, with its numbers."""
    qs = questions(rows, "chess", "type") | questions(rows, "clevr", "shape")
    cases = []
    for v in qs.values():
        worst = min(v, key=lambda r: r["counts"][str(params["delta"])])
        margin = worst["counts"][str(params["delta"])] - max(params["min_px"], params["share"] * worst["area"])
        cases.append((abs(margin), worst))
    cases.sort(key=lambda c: c[0])
    tiles = []
    for _, r in cases[:limit]:
        data = np.load(out / f"{r['scene']}.npz")
        a, b = data[f"{r['object']}|truth"], data[f"{r['object']}|{r['attribute']}|{r['value']}"]
        pair = np.concatenate([a, np.zeros((a.shape[0], 2, 3), np.uint8), b], axis=1)
        scale = max(1, 120 // max(pair.shape[:2]))
        im = Image.fromarray(pair).resize((pair.shape[1] * scale, pair.shape[0] * scale), Image.NEAREST)
        tile = Image.new("RGB", (max(im.width, 240), im.height + 44), "white")
        tile.paste(im, (0, 0))
        n = r["counts"][str(params["delta"])]
        verdict = "shows" if visible(r, params["delta"], params["min_px"], params["share"]) else "does not show"
        lv = r["levels"]
        ImageDraw.Draw(tile).text((2, im.height + 2), f"{r['kind']} as {r['value']}: {n} of {r['area']} px\n"
                                  f"{verdict}; elev {lv['elevation']}"
                                  + (f", king {lv['king_px']} px, blur {lv['blur']}" if "king_px" in lv else ""),
                                  fill="black", font=font(11)[0])
        tiles.append(tile)
    if not tiles:
        return
    cols = 4
    w, h = max(t.width for t in tiles), max(t.height for t in tiles)
    board = Image.new("RGB", (cols * w, math.ceil(len(tiles) / cols) * h), "white")
    for k, t in enumerate(tiles):
        board.paste(t, ((k % cols) * w, (k // cols) * h))
    board.save(path)


def markdown(result: dict) -> str:
    p, c = result["params"], result["confusion"]
    t = c["table"]
    n = sum(t.values())
    lines = [
        BEGIN,
        "## Counterfactual check: thresholds",
        "",
        f"Measured by `bench/counterfactual.py` ({result['renders']} region renders of {result['scenes']} scenes at "
        f"{RESOLUTION[0]}x{RESOLUTION[1]}, {result['samples']} samples each; its docstring gives the grids). "
        f"A pixel differs when the two renders, smoothed by a Gaussian of {cf.SMOOTH_PX:g} px, are at least "
        f"**{p['delta']:g} ΔE00** apart; a change shows with at least **{p['min_px']} such pixels and "
        f"{p['share']:.0%} of the object's mask pixels**: the thresholds that agree most with the chess silhouette "
        "rule on the grid's piece-type questions (ties to the lowest).",
        "",
        "![calibration](counterfactual_calibration.png)",
        "",
        f"### Chess: the silhouette rule against the counterfactual check ({p['agree']}/{n} piece-type questions "
        f"agree, {p['agree'] / n:.1%})",
        "",
        "| | check: asked | check: not asked |",
        "|---|---|---|",
        f"| rule: asked | {t['True/True']} | {t['True/False']} |",
        f"| rule: not asked | {t['False/True']} | {t['False/False']} |",
        "",
        "| level | questions | agree | rule asks | check asks |",
        "|---|---|---|---|---|",
    ]
    for level, cell in sorted(c["by_level"].items(), key=lambda kv: (kv[0].split()[0], _num(kv[0].split()[1]))):
        lines.append(f"| {level} | {cell['n']} | {cell['agree'] / cell['n']:.0%} | {cell['rule']} | {cell['check']} |")
    s = result["clevr"]
    lines += ["", "### CLEVR shapes by elevation (the same thresholds)", "",
              "Shape questions the check asks (every other shape shows) and the size and blur rule's count, "
              "per object:", "", "| elevation | check asks | size and blur rule asks |", "|---|---|---|"]
    lines += [f"| {e} | {s['asked'][e]} | {s['old_rule'][e]} |" for e in s["asked"]]
    lines += ["", "Differing pixels of each shape rendered as another (median and least over the objects; "
              "shown: objects whose alternative shows):", "",
              "| elevation | shape | as | median px | least px | shown |", "|---|---|---|---|---|---|"]
    for key, v in s["pairs"].items():
        e, a, b = key.split("|")
        lines.append(f"| {e} | {a} | {b} | {v['median']:.0f} | {v['min']} | {v['shown']} |")
    lines += ["", "### CLEVR: other attributes (alternatives that show, of all)", "",
              "| attribute | " + " | ".join(str(e) for e in CLEVR_ELEVATIONS) + " |",
              "|---|" + "---|" * len(CLEVR_ELEVATIONS)]
    for a, v in result["attributes"].items():
        lines.append(f"| {a} | " + " | ".join(v.get(e, v.get(str(e), "-")) for e in CLEVR_ELEVATIONS) + " |")
    lines += ["", "Borderline cases (truth left, the nearest alternative right): "
              "[counterfactual_borderline.png](counterfactual_borderline.png).", "", END]
    return "\n".join(lines) + "\n"


def _num(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def write_doc(block: str) -> None:
    text = DOC.read_text()
    if BEGIN in text:
        head, rest = text.split(BEGIN, 1)
        text = head + block + rest.split(END, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + block
    DOC.write_text(text)


def analyse(out: Path, write: bool) -> dict:
    rows = load(out)
    params = calibrate(rows)
    scenes = len(list(out.glob("scene_*.npz")))
    result = {"params": params, "confusion": confusion(rows, params), "clevr": clevr_shapes(rows, params),
              "attributes": attribute_table(rows, params), "scenes": scenes,
              "renders": len(rows) + len({(r["scene"], r["object"]) for r in rows}),
              "samples": 4}
    (out / "calibration.json").write_text(json.dumps(result, indent=1, default=str))
    docs = ROOT / "docs" if write else out
    figure(rows, params, docs / "counterfactual_calibration.png")
    sheet(out, rows, params, docs / "counterfactual_borderline.png")
    if write:
        write_doc(markdown(result))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "output" / "bench_counterfactual"))
    parser.add_argument("--quick", action="store_true", help="four scenes, nothing written to docs/")
    parser.add_argument("--analyse-only", action="store_true", help="reuse the renders in --out")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.analyse_only:
        render_all(out, args.quick)
    result = analyse(out, write=not args.quick)
    print(json.dumps({k: result[k] for k in ("params", "confusion")}, indent=1, default=str))


if __name__ == "__main__":
    main()
