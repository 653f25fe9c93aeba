"""When does the rendered image show what a question assumes? Calibrates the readability rules
of byo/scene/evidence.py on renders whose answer is known by construction to be readable or not.

Three example sets, rendered small (draft quality) and measured with byo.scene.evidence exactly as
`byo questions` and `byo audit` measure a dataset:

- **contrast** (does an object stand out?): chess pieces under depth of field, f/none to f/0.5,
  at 160x120 and 320x240. Readable: the defocus disc at the piece (camera.py) is at most 0.5 x its
  height; unreadable: the disc is at least its height (blur larger than the object, issue 25's
  f/0.5 case); between the two: the grey zone, reported but not used to choose the threshold.
  The rule: contrast >= C or edge >= E (grey levels); the (C, E) pair with the fewest errors wins,
  ties to the lowest thresholds.
- **overlap** (is a card of an overlapping row separable?): rows of five cards overlapping by 0 to
  0.97 of a card at 320x240; every card bordering another is an example. Readable: overlap <= 0.9
  (the strips show part of a corner index: countable); unreadable: overlap >= 0.97 (plain white
  strips); 0.95 is the grey zone. The rule: ink >= I pixels or seam >= S grey levels.
- **colour** (does the rendered colour read as the object's own?): CLEVR objects, rubber and metal
  at 320x240. Readable: rubber objects (the palette names matte colours). Unreadable: metal
  objects whose median colour lies nearer another palette colour than their own (issue 25's
  yellow cube that renders green). Every margin from 0 to the smallest rubber margin separates
  the two; the rule takes the low end, one just-noticeable difference (ΔE00 = 1), since metal
  objects nearer their own colour by a few units still read as it (the sheet of refused cases
  shows them), and the table reports the share of all metal objects it refuses.

Writes docs/readability.md (the calibration tables) and docs/readability.png (the measurements),
and the measurements as JSON into the output folder. Copy the chosen thresholds into byo/scene/evidence.py.
    .venv/bin/python bench/readability.py [--out output/bench_readability]
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import matplotlib
import numpy as np
import yaml

from byo.cli import main as byo_main
from byo.core.dataset import Layout
from byo.core.inputs import read_image
from byo.families.base import blur_px, box_size
from byo.families.clevr.model import COLORS
from byo.scene import evidence

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# The draft preset as the calibration was measured (8 samples, light tree on), pinned: the preset since
# moved to 12 samples without the light tree (docs/quality_presets.md).
DRAFT = {"quality": "draft", "samples": 8, "light_tree": True}


def configs() -> dict[str, dict]:
    chess = {"dataset": {"family": "chess", "seed": 102, "n_images": 3},
             "scene": {"render": DRAFT},
             "variables": {"content.count": {"type": "fixed", "value": 3},
                           "blur.fstop": {"type": "varying_all", "levels": ["none", 4.0, 2.0, 1.0, 0.7, 0.5]}}}
    out = {}
    for w, h in ((160, 120), (320, 240)):
        cfg = json.loads(json.dumps(chess))
        cfg["dataset"]["name"] = f"readability_chess_{w}"
        cfg["scene"]["resolution"] = [w, h]
        out[f"chess_{w}"] = cfg
    out["poker"] = {"dataset": {"name": "readability_poker", "family": "poker", "seed": 203, "n_images": 3},
                    "scene": {"resolution": [320, 240], "render": DRAFT, "camera": {"distance": 0.85, "elevation": 75},
                              "content": {"mode": "overlap", "overlap": {"direction": "horizontal", "count": 5}}},
                    "variables": {"content.overlap.factor": {"type": "varying_all",
                                                             "levels": [0.0, 0.6, 0.8, 0.9, 0.95, 0.97]}}}
    out["clevr"] = {"dataset": {"name": "readability_clevr", "family": "clevr", "seed": 31, "n_images": 6},
                    "scene": {"resolution": [320, 240], "render": DRAFT, "content": {"count": [4, 6]}},
                    "variables": {"content.materials": {"type": "varying_all", "levels": [["rubber"], ["metal"]]}}}
    return out


def render(out: Path) -> dict[str, Path]:
    dirs = {}
    for name, cfg in configs().items():
        path = out / f"{name}.yaml"
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(cfg, sort_keys=False))
        dirs[name] = out / name
        done = dirs[name].is_dir() and len(list((dirs[name] / "legends").glob("*.json"))) > 0
        args = ["render", str(path), "-o", str(dirs[name]), "--workers", "1"] + (["--resume"] if done else [])
        if byo_main(args) != 0:
            raise SystemExit(f"rendering {name} failed")
    return dirs


def measured(dataset: Path):
    """(legend, object, evidence) of every object that shows a pixel."""
    layout = Layout(dataset)
    for legend in layout.legends():
        rgb = read_image(dataset / legend["image"], "RGB")
        mask = read_image(dataset / legend["mask"], "L")
        parts: dict[int, list[int]] = {}
        for p in legend.get("parts", []):
            parts.setdefault(p["object"], []).append(p["id"])
        found = evidence.measure_objects(rgb, mask, {o["id"]: [o["id"], *parts.get(o["id"], [])]
                                                     for o in legend["objects"]})
        for o in legend["objects"]:
            if o["id"] in found and o.get("visible", True):
                yield legend, o, found[o["id"]]


def contrast_examples(dirs) -> list[dict]:
    rows = []
    for name in ("chess_160", "chess_320"):
        for legend, o, e in measured(dirs[name]):
            ratio = blur_px(legend, o) / max(1, box_size(o)[1])
            label = "readable" if ratio <= 0.5 else "unreadable" if ratio >= 1.0 else "grey"
            rows.append({"set": name, "label": label, "ratio": ratio, "contrast": e.contrast, "edge": e.edge})
    return rows


def overlap_examples(dirs) -> list[dict]:
    """Every card a strip of which shows beside another: the top card of each row (the most
    pixels: nothing covers it) is left out."""
    rows = []
    found = list(measured(dirs["poker"]))
    top = {}
    for legend, o, e in found:
        if e.pixels > top.get(legend["name"], (0, None))[0]:
            top[legend["name"]] = (e.pixels, o["id"])
    for legend, o, e in found:
        if e.seam is None or top[legend["name"]][1] == o["id"]:
            continue
        factor = legend["levels"]["content.overlap.factor"]
        label = "readable" if factor <= 0.9 else "unreadable" if factor >= 0.97 else "grey"
        rows.append({"set": "poker", "label": label, "factor": factor, "ink": e.ink, "seam": e.seam})
    return rows


def color_examples(dirs) -> list[dict]:
    palette = {name: tuple(v / 255 for v in rgb) for name, rgb in COLORS.items()}
    rows = []
    for _legend, o, e in measured(dirs["clevr"]):
        own = o["attributes"]["color"]
        margin, nearest = evidence.color_margin(e.lab, own, palette)
        material = o["attributes"]["material"]
        label = "readable" if material == "rubber" else "unreadable" if nearest != own else "grey"
        rows.append({"set": material, "label": label, "color": own, "margin": margin, "nearest": nearest,
                     "pixels": e.pixels})
    return rows


def best_pair(rows, a: str, b: str, grid_a, grid_b) -> dict:
    """The thresholds (x on `a`, y on `b`: readable when a >= x or b >= y) with the fewest errors;
    of the pairs tied, the one at the median of each (away from both example sets)."""
    ok = [r for r in rows if r["label"] == "readable"]
    bad = [r for r in rows if r["label"] == "unreadable"]
    scored = []
    for x, y in itertools.product(grid_a, grid_b):
        refused = sum(not (r[a] >= x or r[b] >= y) for r in ok)
        passed = sum(r[a] >= x or r[b] >= y for r in bad)
        scored.append((refused + passed, x, y, refused, passed))
    fewest = min(s[0] for s in scored)
    tied = [s for s in scored if s[0] == fewest]
    mx, my = float(np.median([s[1] for s in tied])), float(np.median([s[2] for s in tied]))
    _, x, y, refused, passed = min(tied, key=lambda s: (abs(s[1] - mx) + abs(s[2] - my), s[1] + s[2]))
    return {a: float(x), b: float(y), "readable": len(ok), "unreadable": len(bad), "false_unreadable": refused,
            "false_readable": passed}


def rates(rows, rule) -> tuple[int, int, int, int]:
    ok = [r for r in rows if r["label"] == "readable"]
    bad = [r for r in rows if r["label"] == "unreadable"]
    return len(ok), sum(not rule(r) for r in ok), len(bad), sum(rule(r) for r in bad)


def pct(k: int, n: int) -> str:
    return f"{k}/{n} ({k / n:.0%})" if n else "-"


def write_docs(contrast, overlap, color, chosen, path_md: Path, path_png: Path) -> None:
    shows = lambda r: r["contrast"] >= evidence.SHOW_CONTRAST or r["edge"] >= evidence.SHOW_EDGE  # noqa: E731
    separable = lambda r: r["ink"] >= evidence.SEPARATE_INK or r["seam"] >= evidence.SEPARATE_SEAM  # noqa: E731
    c_ok, c_fu, c_bad, c_fr = rates(contrast, shows)
    o_ok, o_fu, o_bad, o_fr = rates(overlap, separable)
    rubber = [r for r in color if r["set"] == "rubber"]
    metal = [r for r in color if r["set"] == "metal"]
    off = [r for r in color if r["label"] == "unreadable"]
    grey_c = [r for r in contrast if r["label"] == "grey"]
    grey_o = [r for r in overlap if r["label"] == "grey"]
    lines = [
        "# Calibration of the readability rules",
        "",
        "Measured by `bench/readability.py` (its docstring gives the example sets): renders whose answer is "
        "known to be readable or unreadable, measured with `byo/scene/evidence.py` as `byo questions` and `byo audit` "
        "measure a dataset. [Readability](readability.md) describes the rules and the question policy.",
        "",
        "![measurements](readability.png)",
        "",
        "| rule | readable examples | unreadable examples | threshold (shipped) | best on these examples | "
        "readable refused | unreadable passed |",
        "|---|---|---|---|---|---|---|",
        f"| contrast (chess pieces, f/none to f/0.5) | {c_ok}: disc <= 0.5 x height | {c_bad}: disc >= height | "
        f"contrast >= {evidence.SHOW_CONTRAST:g} or edge >= {evidence.SHOW_EDGE:g} | "
        f"contrast >= {chosen['contrast']['contrast']:g} or edge >= {chosen['contrast']['edge']:g} | "
        f"{pct(c_fu, c_ok)} | {pct(c_fr, c_bad)} |",
        f"| overlap (cards in a row, overlap 0 to 0.97) | {o_ok}: overlap <= 0.9 | {o_bad}: overlap >= 0.97 | "
        f"ink >= {evidence.SEPARATE_INK} px or seam >= {evidence.SEPARATE_SEAM:g} | "
        f"ink >= {chosen['overlap']['ink']:g} or seam >= {chosen['overlap']['seam']:g} | "
        f"{pct(o_fu, o_ok)} | {pct(o_fr, o_bad)} |",
        f"| colour (CLEVR objects) | {len(rubber)}: rubber | {len(off)}: metal nearer another colour | "
        f"ΔE00 margin >= {evidence.COLOR_MARGIN:g} | any margin from 0 to {chosen['color']:.1f} | "
        f"{pct(sum(r['margin'] < evidence.COLOR_MARGIN for r in rubber), len(rubber))} | "
        f"{pct(sum(r['margin'] >= evidence.COLOR_MARGIN for r in off), len(off))} (all metal refused: "
        f"{pct(sum(r['margin'] < evidence.COLOR_MARGIN for r in metal), len(metal))}) |",
        "",
        f"Grey zones (not used to choose): contrast, {len(grey_c)} pieces with a disc between 0.5 and 1 x their "
        f"height, {sum(shows(r) for r in grey_c)} judged to show; overlap 0.95, {len(grey_o)} cards, "
        f"{sum(separable(r) for r in grey_o)} judged separable.",
        "",
        "## Contrast: by blur (disc / piece height)",
        "",
        "| disc / height | pieces | shown by the rule |",
        "|---|---|---|",
    ]
    for lo, hi in ((0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0), (1.0, 1.5), (1.5, 99)):
        band = [r for r in contrast if lo <= r["ratio"] < hi]
        if band:
            lines.append(f"| {lo:g} to {hi if hi < 99 else 'more':} | {len(band)} | {pct(sum(map(shows, band)), len(band))} |")
    lines += ["", "## Overlap: by overlap factor", "", "| overlap | cards bordering another | separable by the rule |",
              "|---|---|---|"]
    for f in sorted({r["factor"] for r in overlap}):
        band = [r for r in overlap if r["factor"] == f]
        lines.append(f"| {f:g} | {len(band)} | {pct(sum(map(separable, band)), len(band))} |")
    lines += ["", "## Colour: by material", "", "| material | objects | colour reads (margin >= "
              f"{evidence.COLOR_MARGIN:g}) | median margin |", "|---|---|---|---|"]
    for name, group in (("rubber", rubber), ("metal", metal)):
        if group:
            lines.append(f"| {name} | {len(group)} | {pct(sum(r['margin'] >= evidence.COLOR_MARGIN for r in group), len(group))} "
                         f"| {np.median([r['margin'] for r in group]):.1f} |")
    path_md.write_text("\n".join(lines) + "\n")

    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    colors = {"readable": "tab:green", "unreadable": "tab:red", "grey": "tab:gray"}
    for label in colors:
        band = [r for r in contrast if r["label"] == label]
        axes[0].scatter([r["contrast"] + 0.5 for r in band], [r["edge"] + 0.5 for r in band], s=12, c=colors[label],
                        label=label)
        band = [r for r in overlap if r["label"] == label]
        axes[1].scatter([r["ink"] + 0.5 for r in band], [r["seam"] for r in band], s=12, c=colors[label], label=label)
    axes[0].axvline(evidence.SHOW_CONTRAST + 0.5, ls="--", c="k")
    axes[0].axhline(evidence.SHOW_EDGE + 0.5, ls="--", c="k")
    axes[0].set(xlabel="contrast + 0.5 (grey levels)", ylabel="edge + 0.5 (grey levels / px)",
                title="contrast: chess pieces", xscale="log", yscale="log")
    axes[1].axvline(evidence.SEPARATE_INK + 0.5, ls="--", c="k")
    axes[1].axhline(evidence.SEPARATE_SEAM, ls="--", c="k")
    axes[1].set(xlabel="ink pixels + 0.5", ylabel="seam (grey levels)", title="overlap: cards", xscale="log")
    axes[2].hist([[r["margin"] for r in rubber], [r["margin"] for r in metal]], bins=20, label=["rubber", "metal"],
                 color=["tab:green", "tab:orange"])
    axes[2].axvline(evidence.COLOR_MARGIN, ls="--", c="k")
    axes[2].set(xlabel="ΔE00 margin (nearest other - own)", ylabel="objects", title="colour: CLEVR objects")
    for ax in axes:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path_png, dpi=90)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "output" / "bench_readability")
    parser.add_argument("--docs", type=Path, default=ROOT / "docs")
    parser.add_argument("--json", type=Path, default=None, help="the measurements (default: OUT/readability.json)")
    args = parser.parse_args()
    args.json = args.json or args.out / "readability.json"
    dirs = render(args.out)
    contrast, overlap, color = contrast_examples(dirs), overlap_examples(dirs), color_examples(dirs)
    rubber = sorted(r["margin"] for r in color if r["set"] == "rubber")
    chosen = {
        "contrast": best_pair(contrast, "contrast", "edge", np.arange(2, 41, 1.0), np.arange(2, 31, 1.0)),
        "overlap": best_pair(overlap, "ink", "seam", range(1, 30), np.arange(2, 31, 1.0)),
        "colour": float(rubber[0]) if rubber else 0.0,  # the smallest rubber margin: the zero-error range's top
    }
    write_docs(contrast, overlap, color, chosen, args.docs / "readability_calibration.md", args.docs / "readability.png")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"chosen": chosen, "contrast": contrast, "overlap": overlap, "colour": color},
                                    indent=1, default=float) + "\n")
    print(json.dumps(chosen, indent=1, default=float))


if __name__ == "__main__":
    main()
