"""Calibrates the counterfactual check's first pass (byo/scene/counterfactual.py, `settled`): the
changes of bench/counterfactual.py's grid rendered at half the check's samples and at its samples
(two runs of that bench, `--samples 2` and `--samples 4`, into two folders), each change's
difference taken as the check takes it (smoothed by SMOOTH_PX, its TOP_PIXELS-th most changed
pixel). For bands [below, from) around MIN_DIFFERENCE: the share of changes the first pass leaves
inside the band (rendered again at the check's samples), and how many it settles outside it
that the check's samples decide otherwise.

    .venv/bin/python bench/counterfactual.py --samples 2 --out output/bench_counterfactual_2
    .venv/bin/python bench/counterfactual.py --samples 4 --out output/bench_counterfactual_4
    .venv/bin/python bench/counterfactual_screen.py output/bench_counterfactual_2 output/bench_counterfactual_4
Writes the first pass's section of docs/readability_calibration.md (between its markers).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from counterfactual import load
from figures import write_block

from byo.scene import counterfactual as cf

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "readability_calibration.md"
BEGIN, END = "<!-- screen: begin -->", "<!-- screen: end -->"
BANDS = [(12.0, 16.0), (10.0, 20.0), (9.0, 22.0), (cf.SETTLED_BELOW, cf.SETTLED_FROM), (7.0, 28.0)]


def differences(out: Path) -> dict[tuple, tuple[str, float]]:
    """(scene, object, attribute, value) -> (family, the change's difference)."""
    return {(r["scene"], r["object"], r["attribute"], r["value"]): (r["family"], float(r["top"][cf.SMOOTH_PX][cf.TOP_PIXELS - 1]))
            for r in load(out) if r["attribute"] != "noise"}


def table(half: dict, full: dict) -> list[dict]:
    keys = sorted(set(half) & set(full))
    first = np.array([half[k][1] for k in keys])
    final = np.array([full[k][1] for k in keys])
    family = np.array([full[k][0] for k in keys])
    rows = []
    for below, above in BANDS:
        inside = (first >= below) & (first < above)
        wrong = ~inside & ((first >= cf.MIN_DIFFERENCE) != (final >= cf.MIN_DIFFERENCE))
        rows.append({"band": [below, above], "changes": len(keys), "rendered_again": float(inside.mean()),
                     "rendered_again_by_family": {f: float(inside[family == f].mean()) for f in sorted(set(family))},
                     "settled_otherwise": int(wrong.sum())})
    return rows


def markdown(rows: list[dict]) -> str:
    families = list(rows[0]["rendered_again_by_family"])
    lines = [BEGIN, "## The first pass at half the samples", "",
             f"Measured by `bench/counterfactual_screen.py` on the changes of `bench/counterfactual.py`'s grid, rendered at "
             f"2 and at 4 samples ({rows[0]['changes']} changes). The check renders every change at half its samples "
             "first; a change whose difference lies outside the band is settled there, the rest are rendered again, "
             "with their truth, at the check's samples. A removal is settled only above the band, measured at the "
             "32nd pixel and blurred by less than 4 px (byo/scene/counterfactual.py, `may_settle`). The check takes "
             f"the band [{cf.SETTLED_BELOW:g}, {cf.SETTLED_FROM:g}) ΔE00: the narrowest here that settles no change "
             "otherwise than 4 samples decide it.", "",
             "| band (ΔE00) | rendered again | " + " | ".join(f"rendered again, {f}" for f in families)
             + " | settled otherwise than at 4 samples |",
             "|---|---|" + "---|" * len(families) + "---|"]
    for r in rows:
        chosen = " (the check's)" if tuple(r["band"]) == (cf.SETTLED_BELOW, cf.SETTLED_FROM) else ""
        lines.append(f"| [{r['band'][0]:g}, {r['band'][1]:g}){chosen} | {r['rendered_again']:.1%} | "
                     + " | ".join(f"{r['rendered_again_by_family'][f]:.1%}" for f in families)
                     + f" | {r['settled_otherwise']} |")
    return "\n".join([*lines, "", END]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("half", type=Path, help="bench/counterfactual.py's output at half the check's samples")
    parser.add_argument("full", type=Path, help="its output at the check's samples")
    args = parser.parse_args()
    rows = table(differences(args.half), differences(args.full))
    write_block(DOC, markdown(rows), BEGIN, END)
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
