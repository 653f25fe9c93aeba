"""The full-size demonstration of docs/adaptive.md: chess counting under blur, a simulated observer
whose accuracy falls with the blur disc at the pieces, its threshold in f-number found by byo adapt
next to byo score's fit of a fixed grid of the same observer. Draws docs/adaptive_demo.png and
prints the figures the page quotes. Reuses what an earlier run left in OUT.

    .venv/bin/python docs/adaptive_demo.py [--out output/adaptive_demo]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from byo.diagnose.adaptive import Estimate, PsiMethod
from byo.diagnose.plots import adapt_figure
from byo.score.psychometric import curve_from_row
from byo.score.run import load_scores

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "examples" / "adaptive" / "chess_count_blur.yaml"
OBSERVER = "blur_px,threshold=2.75,slope=-4,lapse=0.02"  # at 320x180: 2.75 px is 5.5 px at 640x360
KEY, VARIABLE = "count_pieces", "blur.fstop"


def byo(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "byo.cli", *args], check=True, cwd=ROOT)


def grid_fit(run: Path) -> dict:
    scores = load_scores(run)
    row = next(r for r in scores.tables["breaking_points"]
               if r["key"] == KEY and r["variable"] == VARIABLE and r["link"] == "logistic")
    points = [p for p in scores.tables["breaking_point_levels"] if p["key"] == KEY and p["variable"] == VARIABLE]
    curve = curve_from_row(row)
    x = np.linspace(min(p["level"] for p in points), max(p["level"] for p in points), 200)
    return {"row": row, "threshold": row["threshold"], "lo": row["threshold_lo"], "hi": row["threshold_hi"],
            "levels": [p["level"] for p in points], "accuracy": [p["accuracy"] for p in points],
            "images": sum(p["images"] for p in points), "curve": (x, curve(x)) if curve else None,
            "label": "fixed grid (byo score)"}


def replayed(record: dict) -> tuple[PsiMethod, list]:
    """The posterior and the trials of an adaptive run's record (adapt.json)."""
    method = PsiMethod(record["candidate_levels"], chance=record["chance"], direction=record["direction"],
                       link=record["link"], lo=record["range"][0], hi=record["range"][1])
    trials = []
    for t in record["trials"]:
        for h in t["hits"]:
            method.update(t["level"], h)
        estimate = t["estimate"] and Estimate(t["estimate"]["threshold"], t["estimate"]["lo"], t["estimate"]["hi"],
                                              t["estimate"]["trials"], t["estimate"]["closed"], t["estimate"]["p_falls"])
        trials.append(SimpleNamespace(index=t["trial"], level=t["level"], hits=t["hits"], estimate=estimate))
    return method, trials


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=ROOT / "output" / "adaptive_demo")
    args = parser.parse_args()
    grid, adapt = args.out / "grid", args.out / "adapt"
    byo("render", str(CONFIG), "-o", str(grid), "--resume")
    byo("questions", str(grid), "--keys", KEY)
    byo("eval", str(grid), "--provider", "simulated", "--model", OBSERVER, "--run", "observer")
    byo("score", str(grid / "runs" / "observer"))
    fit = grid_fit(grid / "runs" / "observer")
    if not (adapt / "adapt.json").is_file():  # stops when its interval is as narrow as the grid's
        byo("adapt", str(CONFIG), "--variable", VARIABLE, "--model", f"simulated:{OBSERVER}", "--key", KEY,
            "-o", str(adapt), "--run", "observer", "--width", f"{fit['hi'] - fit['lo']:.6g}",
            "--max-images", str(fit["images"]))
    record = json.loads((adapt / "adapt.json").read_text())
    method, trials = replayed(record)
    png = adapt_figure(method, trials, VARIABLE, KEY, "simulated observer", grid=fit)
    (ROOT / "docs" / "adaptive_demo.png").write_bytes(png)
    est = record["estimate"]
    print(json.dumps({"grid": {"images": fit["images"], "answers": fit["row"]["n"], "threshold": fit["threshold"],
                               "lo": fit["lo"], "hi": fit["hi"], "width": fit["hi"] - fit["lo"],
                               "breaking_point": fit["row"]["breaking_point"]},
                      "adaptive": {"images": record["images"], "answers": record["answers"], **est,
                                   "stopped": record["stopped"]},
                      "skipped_trials": sum(1 for t in record["trials"] if t["skipped"])}, indent=1))


if __name__ == "__main__":
    main()
