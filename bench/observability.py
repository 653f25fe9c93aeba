"""Does every level of every scene option change the image? Renders one fixed chess scene (and a
CLEVR one for the floor, which a table otherwise hides) at each level of each option, all else
held, and measures the mean absolute difference (grey levels, 0-255, over the RGB channels) from
the previous level. Writes docs/observability.md and docs/observability.png:

    .venv/bin/python bench/observability.py

tests/bench/test_observability.py renders the same levels tiny and asserts every difference.
"""

from __future__ import annotations

import argparse
import copy
from pathlib import Path

import matplotlib
import numpy as np

from byo.core.progress import Bar
from byo.render.executors.inprocess import InProcess
from byo.render.runner import render_images
from byo.scene.config import deep_merge
from byo.scene.setup import (
    BLUR_FSTOP,
    CAMERA_DISTANCE,
    CAMERA_ELEVATION,
    LIGHTING,
    TABLE_PALETTE,
    TABLE_TEXTURE,
    level_label,
)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# Four pieces on fixed cells, no random turn: only the option under test changes.
CHESS = {
    "dataset": {"name": "observe", "family": "chess", "seed": 1, "n_images": 1},
    "scene": {"render": {"on_hidden": "flag"}, "content": {"max_rotation": 0.0, "pieces": [
        {"type": "king", "color": "white", "cell": [3, 3]}, {"type": "knight", "color": "black", "cell": [2, 5]},
        {"type": "pawn", "color": "white", "cell": [5, 1]}, {"type": "queen", "color": "black", "cell": [4, 6]}]}},
}
CLEVR = {
    "dataset": {"name": "observe", "family": "clevr", "seed": 1, "n_images": 1},
    "scene": {"render": {"on_hidden": "flag"}, "content": {"mode": "objects", "objects": [
        {"shape": "cube", "color": "red", "position": [-1.0, 0.5], "rotation": 20.0},
        {"shape": "sphere", "color": "blue", "material": "metal", "position": [1.2, -0.4], "rotation": 0.0},
        {"shape": "cylinder", "color": "yellow", "size": "small", "position": [0.2, -1.5], "rotation": 0.0}]}},
}
FLOOR_COLORS = [[0.35, 0.35, 0.35], [0.8, 0.8, 0.8], [0.6, 0.3, 0.2]]
# (option, the scene it is measured on, its levels in order)
OPTIONS: list[tuple[str, str, list]] = [
    ("camera.distance", "chess", list(CAMERA_DISTANCE)),
    ("camera.elevation", "chess", list(CAMERA_ELEVATION)),
    ("lighting.intensity", "chess", list(LIGHTING)),
    ("blur.fstop", "chess", list(BLUR_FSTOP)),
    ("table.texture", "chess", list(TABLE_TEXTURE)),
    ("table.color", "chess", list(TABLE_PALETTE)),
    ("table.shape", "chess", ["rectangular", "circular", "elliptic"]),
    ("floor.color", "chess", FLOOR_COLORS),
    ("floor.color", "clevr", FLOOR_COLORS),
]
SCENES = {"chess": CHESS, "clevr": CLEVR}


def nested(key: str, value) -> dict:
    out: dict = {}
    node = out
    *parents, last = key.split(".")
    for p in parents:
        node = node.setdefault(p, {})
    node[last] = value
    return out


def level_config(base: dict, key: str, value, scene: dict) -> dict:
    cfg = copy.deepcopy(base)
    cfg["scene"] = deep_merge(deep_merge(cfg["scene"], scene), nested(key, value))
    return cfg


def render_levels(option: tuple[str, str, list], scene: dict) -> list[np.ndarray]:
    """The image at each level of the option (same seed, same everything else)."""
    key, base, levels = option
    return [render_images(level_config(SCENES[base], key, v, scene), InProcess())[0].image for v in levels]


def differences(images: list[np.ndarray]) -> list[float]:
    """Mean absolute difference of each image from the previous one, grey levels."""
    return [float(np.abs(b.astype(np.int16) - a.astype(np.int16)).mean()) for a, b in zip(images, images[1:],
                                                                                           strict=False)]


def label(key: str, value) -> str:
    """A level as the tables write it: a preset with its value beside its name."""
    return "/".join(f"{v:g}" for v in value) if isinstance(value, list) else level_label(key, value)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, nargs=2, default=[320, 180])
    parser.add_argument("--samples", type=int, default=32)
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--only", help="comma-separated options to measure (default: all; writes no docs)")
    args = parser.parse_args()
    scene = {"resolution": list(args.size), "render": {"samples": args.samples}}
    chosen = [o for o in OPTIONS if not args.only or o[0] in args.only.split(",")]
    rows, strips = [], []
    with Bar("[bold]options", len(chosen), unit="option") as bar:
        for option in chosen:
            key, base, levels = option
            images = render_levels(option, scene)
            bar.advance()
            diffs = differences(images)
            rows += [(key, base, label(key, levels[0]), None)] + [
                (key, base, label(key, v), d) for v, d in zip(levels[1:], diffs, strict=True)]
            strips.append((f"{key} ({base})", levels, images))
    for row in rows:
        print(*row, sep="\t")
    if args.only:
        return
    # References: sampling noise alone (the same image, another seed), and the weakest blur
    # against a pinhole-like f/1000 that samples the lens the same way.
    reseeded = copy.deepcopy(CHESS)
    reseeded["dataset"]["seed"] += 1
    noise = differences([render_images(level_config(cfg, "blur.fstop", "none", scene), InProcess())[0].image
                         for cfg in (CHESS, reseeded)])[0]
    pinhole = differences(render_levels(("blur.fstop", "chess", [1000.0, "very_low"]), scene))[0]
    args.out.mkdir(parents=True, exist_ok=True)
    write_doc(rows, args, args.out / "observability.md", noise, pinhole)
    write_figure(strips, args.out / "observability.png")


def write_doc(rows, args, path: Path, noise: float, pinhole: float) -> None:
    lines = ["# Does every option change the image?", "",
             f"Measured by `bench/observability.py` at {args.size[0]}x{args.size[1]}, {args.samples} Cycles samples: "
             "one chess scene (four pieces on fixed cells, no random turn; the floor colour on a CLEVR scene "
             "too), rendered at each level of each option with everything else, the seed included, held. The "
             "difference is the mean absolute difference from the level above it in the table, in grey levels "
             "(0-255) over the RGB channels. `tests/bench/test_observability.py` renders the same levels at 96x54 and "
             "asserts that each differs from the previous by at least one grey level.", "",
             "Choices made so that every level shows:", "",
             "- **Blur** is a defocus of the whole scene: the camera focuses in front of it, at half its distance "
             "to the target (`blur.focus_distance` overrides this), so everything on the table is out of focus by "
             "about the same amount and each f-stop preset blurs about twice as much as the one before (a blur "
             "circle of about 0.6% of the image width at f/9, 12% at f/0.5 with the chess camera). Focused on "
             "the scene centre, as before, f/9 changed a 640x360 chess image by 0.25 grey levels on average (as "
             "issue 14's audit measured): "
             "everything on the table stood inside the depth of field.",
             "- **The chess table** is 0.9 x 0.7 m, a little larger than the board, so that its outline and the "
             "floor show: on the former 1.4 x 1.0 m table the floor colour changed the image by 0.4 grey "
             "levels and a circular table by 0.8.",
             "- **Workbench** ignores the scene's lights, node textures and small blurs: with `render.engine: "
             "workbench`, setting `lighting`, `blur.fstop` or a `table.texture` other than low is a config error "
             "instead of a level that changes nothing.", "",
             "![levels](observability.png)", "",
             f"For scale: sampling noise alone (the same chess image rendered with another seed) differs by "
             f"{noise:.2f} grey levels; f/9 differs from a pinhole-like f/1000, which samples the lens the same "
             f"way, by {pinhole:.2f}.", "",
             "| option | scene | level | mean difference from the previous level |", "|---|---|---|---|"]
    for key, base, level, diff in rows:
        lines.append(f"| `{key}` | {base} | {level} | {'-' if diff is None else f'{diff:.2f}'} |")
    path.write_text("\n".join(lines) + "\n")


def write_figure(strips, path: Path) -> None:
    n_cols = max(len(levels) for _, levels, _ in strips)
    fig, axes = plt.subplots(len(strips), n_cols, figsize=(2.2 * n_cols, 1.5 * len(strips)))
    for r, (title, levels, images) in enumerate(strips):
        for c in range(n_cols):
            ax = axes[r][c]
            ax.axis("off")
            if c < len(images):
                ax.imshow(images[c])
                ax.set_title(f"{title}: {label(title.split()[0], levels[c])}", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    main()
