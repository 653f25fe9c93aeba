"""When can a chess piece's type be read off the image? A measured rule for the question generator.

Renders the six piece types side by side (both styles, turned at random, seen by an orthographic
camera at elevations from 20 to 90 degrees) and keeps each piece's silhouette from the instance
mask. A silhouette is then shrunk to H pixels tall, optionally blurred by a disc of diameter
r x H first, seen as a blob at a random sub-pixel phase, and classified by its nearest neighbour
among the silhouettes of the other turns (leave one turn out; each silhouette stretched to a
common box, so neither size nor proportions say anything). A type is readable where that
accuracy is at least 90%.

The same silhouettes calibrate when a piece counts as seen at all (visible: counted, located): the
pixels the smallest piece covers at the smallest height from which every view up to the type
rule's elevation reads at least SEEN (its outline is resolved, not a speck); pixels of an image
as rendered, whatever its size (the visibility band, byo/scene/measure.py).

Writes docs/piece_silhouettes.md and docs/piece_silhouettes.png. Run it once after changing the
pieces, then copy the rules into byo/families/chess/model.py (TYPE_READABLE_*, MIN_VISIBLE_PIXELS):
    .venv/bin/python bench/silhouettes.py
"""

from __future__ import annotations

import argparse
import json
import pickle
from pathlib import Path

import matplotlib
import numpy as np
import scipy  # scipy.signal loads on first use (importing this module stays cheap)
from PIL import Image

from byo.core.progress import Bar
from byo.families.chess.model import PIECE_TYPES, TYPE_READABLE_MAX_ELEVATION
from byo.render.executors.inprocess import InProcess
from byo.render.runner import render_images

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ELEVATIONS = [20, 30, 42, 50, 60, 70, 80, 90]
HEIGHTS = [4, 6, 8, 10, 12, 16, 24, 32]
BLUR_RATIOS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0]
BLUR_HEIGHT = 32  # silhouettes this tall for the blur study
CANON = 48  # common box for comparison
READABLE = 0.90  # six types: chance is 17%
SEEN = 0.75  # a piece's outline is resolved: its type read 3 times in 4 (4.5 x chance)


def config(style: str, elevation: float, turn: int) -> dict:
    """One image: the six types side by side, in an order that changes with the turn (so that no
    type keeps the same sub-pixel position), each turned at random."""
    order = np.random.default_rng(turn).permutation(len(PIECE_TYPES))
    pieces = [{"type": PIECE_TYPES[k], "color": "white", "cell": [0, j]} for j, k in enumerate(order)]
    return {
        "dataset": {"name": f"sil_{style}_{elevation}", "family": "chess", "seed": 3 + turn, "n_images": 1},
        "scene": {
            "resolution": [1200, 320],
            "camera": {"projection": "orthographic", "ortho_scale": 0.66, "elevation": elevation, "azimuth": 0.0,
                       "distance": 2.0, "target": [0.0, 0.0, 0.05]},
            "table": {"enabled": False}, "floor": {"enabled": False},
            "render": {"engine": "workbench", "on_hidden": "flag", "min_visible_pixels": 1},
            "content": {"board": {"rows": 1, "columns": 6, "square_size": 0.1}, "pieces": pieces,
                        "scale": 0.5, "max_rotation": 180.0, "style": style},
        },
    }


def silhouettes(style: str, elevation: float, turns: int) -> list[list[np.ndarray]]:
    """[turn][type] -> boolean silhouette cropped to its box."""
    out = []
    for turn in range(turns):
        (result,) = render_images(config(style, elevation, turn), InProcess())
        row = [None] * len(PIECE_TYPES)
        for o in result.legend["objects"]:
            mask = result.instance_ids == o["id"]
            ys, xs = np.nonzero(mask)
            row[PIECE_TYPES.index(o["kind"])] = mask[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
        out.append(row)
    return out


def seen_at(sil: np.ndarray, height: int, blur_ratio: float, rng: np.random.Generator) -> np.ndarray:
    """The silhouette as an image `height` px tall shows it: blurred by a disc of diameter
    blur_ratio x height, shrunk at a random sub-pixel phase, then seen as a blob (ink where the
    pixel is more than half covered), stretched to a common CANON x CANON box. A lone piece shows
    its outline, not its proportions against a reference, so only the outline's details count."""
    img = sil.astype(np.float32)
    if blur_ratio > 0:
        d = blur_ratio * sil.shape[0]
        r = int(np.ceil(d / 2))
        yy, xx = np.mgrid[-r: r + 1, -r: r + 1]
        disc = (np.hypot(yy, xx) <= d / 2).astype(np.float32)
        img = scipy.signal.fftconvolve(np.pad(img, r), disc / disc.sum(), mode="same").clip(0, 1).astype(np.float32)
    step = sil.shape[0] / height  # full-size pixels per image pixel
    dy, dx = (int(v) for v in rng.uniform(0, step, size=2))
    img = np.pad(img, ((dy, int(np.ceil(step))), (dx, int(np.ceil(step)))))
    shape = (max(1, round(img.shape[1] / step)), max(1, round(img.shape[0] / step)))
    small = np.asarray(Image.fromarray(img).resize(shape, Image.BOX)) > 0.5
    if not small.any():
        return np.zeros((CANON, CANON), np.float32)
    ys, xs = np.nonzero(small)
    blob = Image.fromarray(small[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1].astype(np.uint8) * 255)
    return np.asarray(blob.resize((CANON, CANON), Image.NEAREST), dtype=np.float32) / 255


def accuracy(sils: list[list[np.ndarray]], height: int, blur_ratio: float = 0.0) -> float:
    """Leave-one-turn-out nearest-neighbour accuracy over types x turns."""
    rng = np.random.default_rng(0)
    seen = [[seen_at(s, height, blur_ratio, rng) for s in row] for row in sils]
    right = total = 0
    for turn, row in enumerate(seen):
        templates = [(k, s) for other, r in enumerate(seen) if other != turn for k, s in enumerate(r)]
        for k, query in enumerate(row):
            guess = min(templates, key=lambda t: float(((t[1] - query) ** 2).sum()))[0]
            right += guess == k
            total += 1
    return right / total


def coverage(sils: list[list[np.ndarray]]) -> dict[str, float]:
    """Per type: the pixels its silhouette covers per square pixel of its height (median over the
    turns), so that a piece H px tall covers about coverage x H^2 pixels."""
    return {t: float(np.median([row[k].sum() / row[k].shape[0] ** 2 for row in sils]))
            for k, t in enumerate(PIECE_TYPES)}


def visibility_rule(results: dict) -> tuple[int | None, float, int | None]:
    """(the smallest height H from which every view up to TYPE_READABLE_MAX_ELEVATION, both
    styles, reads at least SEEN at H and every height above, the smallest coverage of any type
    from those views, the pixels that type covers H px tall: the visibility threshold)."""
    views = [(d, e) for d in results["styles"].values() for e in results["elevations"]
             if e <= TYPE_READABLE_MAX_ELEVATION]
    heights = [h for h in results["heights"] if all(d["by_height"][e][k] >= SEEN for d, e in views
                                                    for k in results["heights"] if k >= h)]
    smallest = min(min(d["coverage"][e].values()) for d, e in views)
    height = min(heights) if heights else None
    return height, smallest, (round(smallest * height**2) if height else None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=8, help="random turns per piece type")
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--cache", type=Path, help="keep the rendered silhouettes here (pickle) and reuse them")
    args = parser.parse_args()
    cache = pickle.loads(args.cache.read_bytes()) if args.cache and args.cache.is_file() else {}
    results: dict = {"heights": HEIGHTS, "elevations": ELEVATIONS, "blur_ratios": BLUR_RATIOS, "styles": {}}
    with Bar("[bold]silhouettes", 2 * len(ELEVATIONS), unit="view") as bar:
        for style in ("staunton", "stylised"):
            by_height, by_blur, fill = {}, {}, {}
            for e in ELEVATIONS:
                if (style, e) not in cache:
                    cache[style, e] = silhouettes(style, e, args.turns)
                sils = cache[style, e]
                full = min(min(s.shape[0] for s in row) for row in sils)
                by_height[e] = {"full": accuracy(sils, full), **{h: accuracy(sils, h) for h in HEIGHTS}}
                by_blur[e] = {r: accuracy(sils, BLUR_HEIGHT, r) for r in BLUR_RATIOS}
                fill[e] = coverage(sils)
                bar.advance()
            results["styles"][style] = {"by_height": by_height, "by_blur": by_blur, "coverage": fill}
    if args.cache:
        args.cache.write_bytes(pickle.dumps(cache))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "piece_silhouettes.json").write_text(json.dumps(results, indent=1) + "\n")
    write_figure(results, args.out / "piece_silhouettes.png")
    write_doc(results, args.out / "piece_silhouettes.md")


def write_figure(results: dict, path: Path) -> None:
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharey=True)
    for row, style in enumerate(("staunton", "stylised")):
        data = results["styles"][style]
        for e in ELEVATIONS:
            axes[row][0].plot(HEIGHTS, [data["by_height"][e][h] for h in HEIGHTS], marker="o", label=f"{e} deg")
            axes[row][1].plot(BLUR_RATIOS, [data["by_blur"][e][r] for r in BLUR_RATIOS], marker="o", label=f"{e} deg")
        axes[row][0].set_title(f"{style}: accuracy against piece height")
        axes[row][0].set_xlabel("piece height in the image (px)")
        axes[row][1].set_title(f"{style}: accuracy against blur ({BLUR_HEIGHT} px pieces)")
        axes[row][1].set_xlabel("blur disc diameter / piece height")
        for ax in axes[row]:
            ax.axhline(READABLE, color="grey", ls="--", lw=0.8)
            ax.set_ylabel("nearest-silhouette accuracy")
    axes[0][1].legend(title="elevation", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def candidate_rules(results: dict) -> list[tuple[int, int | None, float | None]]:
    """For each elevation limit E: the smallest height H and the largest blur ratio B such that
    every elevation up to E, both styles, every height from H up and every blur up to B read at
    least READABLE."""
    rules = []
    for limit in ELEVATIONS:
        views = [(data, e) for data in results["styles"].values() for e in ELEVATIONS if e <= limit]
        heights = [h for h in HEIGHTS if all(d["by_height"][e][k] >= READABLE for d, e in views
                                             for k in HEIGHTS if k >= h)]
        blurs = [r for r in BLUR_RATIOS if all(d["by_blur"][e][k] >= READABLE for d, e in views
                                               for k in BLUR_RATIOS if k <= r)]
        rules.append((limit, min(heights) if heights else None, max(blurs) if blurs else None))
    return rules


def write_doc(results: dict, path: Path) -> None:
    lines = ["# When is a chess piece's type readable?", "",
             "Measured by `bench/silhouettes.py` (see its docstring): each piece type's silhouette, "
             "shrunk to H px tall and classified by its nearest neighbour among the other turns' "
             f"silhouettes. Readable: accuracy >= {READABLE:.0%}. Chance is 17%.", "",
             "![accuracy](piece_silhouettes.png)", "",
             "## Candidate rules", "",
             f"For each elevation limit: the smallest piece height and the largest blur (diameter / height, at "
             f"{BLUR_HEIGHT} px) at which every view up to that elevation, in both styles, reads at least "
             f"{READABLE:.0%}.", "",
             "| view elevation up to | piece at least (px) | blur at most (x height) |", "|---|---|---|"]
    for limit, height, blur in candidate_rules(results):
        lines.append(f"| {limit} | {height if height is not None else 'never'} | "
                     f"{f'{blur:g}' if blur is not None else 'never'} |")
    lines += ["", "The question generator uses the highest elevation at which 16 px pieces still read "
              "(byo/families/chess/model.py, TYPE_READABLE_*): type questions are asked about pieces seen "
              "from at most that elevation and at most that blurred. Their least height, 20 px, is calibrated "
              "against the counterfactual check (docs/readability_calibration.md): a silhouette stretched to a "
              "common box reads from 16 px, where a king and a queen differ in a few pixels of the image.", ""]
    height, smallest, pixels = visibility_rule(results)
    views = [e for e in results["elevations"] if e <= TYPE_READABLE_MAX_ELEVATION]
    lines += ["## When does a piece count as seen?", "",
              f"Pixels a piece covers in an image where it is H px tall (coverage x H², the smallest over both "
              f"styles and the views up to {TYPE_READABLE_MAX_ELEVATION:g} degrees):", "",
              "| type | coverage (px per px² of height) | " + " | ".join(f"{h} px tall" for h in HEIGHTS) + " |",
              "|---|---|" + "---|" * len(HEIGHTS)]
    for t in PIECE_TYPES:
        c = min(d["coverage"][e][t] for d in results["styles"].values() for e in views)
        lines.append(f"| {t} | {c:.3f} | " + " | ".join(f"{round(c * h * h)}" for h in HEIGHTS) + " |")
    lines += ["", f"A piece's outline is resolved (its type read at least {SEEN:.0%} of the time from every view "
              f"up to {TYPE_READABLE_MAX_ELEVATION:g} degrees, both styles, at that height and above) from "
              f"{height} px tall; the smallest piece then covers {pixels} px. The chess family counts a piece "
              "as visible from that many pixels of the image as rendered (byo/families/chess/model.py, "
              "MIN_VISIBLE_PIXELS): a 1920x1080 image shows what it shows, not what a 640x360 one would.", ""]
    for style in ("staunton", "stylised"):
        data = results["styles"][style]
        lines += [f"## {style}: accuracy by elevation and piece height (px)", "",
                  "| elevation | full size | " + " | ".join(f"{h} px" for h in HEIGHTS) + " |",
                  "|---|---|" + "---|" * len(HEIGHTS)]
        for e in ELEVATIONS:
            row = data["by_height"][e]
            lines.append(f"| {e} | {row['full']:.0%} | " + " | ".join(f"{row[h]:.0%}" for h in HEIGHTS) + " |")
        lines += ["", f"## {style}: accuracy by elevation and blur ({BLUR_HEIGHT} px pieces)", "",
                  "| elevation | " + " | ".join(f"blur {r:g} x height" for r in BLUR_RATIOS) + " |",
                  "|---|" + "---|" * len(BLUR_RATIOS)]
        for e in ELEVATIONS:
            row = data["by_blur"][e]
            lines.append(f"| {e} | " + " | ".join(f"{row[r]:.0%}" for r in BLUR_RATIOS) + " |")
        lines.append("")
    path.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
