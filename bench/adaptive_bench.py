"""byo adapt's psi method against a simulated observer, no rendering: how often its interval covers
the planted threshold, and how many trials it needs for an interval as narrow as a fixed grid's.

The observer answers right with probability chance + (1 - chance - lapse) * logistic(b * (x - t))
(chance 0, as for counts; lapse 0.02; falling with x), on a variable tested from 0 to 10. Settings:
3 planted thresholds t (a quarter, half and three quarters of the range) x 2 steepnesses, given as
the width of the curve's rise from 25% to 75% of its span: 5% and 10% of the range (b = 2 ln 3 /
width); a third, 20%, is measured beside them and named as what it is (outside the requirement).

Per setting, in one run:
- the fixed grid: 10 levels evenly from 0 to 10 x 20 trials, 200 simulated data sets; its interval
  (a) from the same posterior byo adapt uses (the psi method's grid, prior and 95% credible
  interval, fed the grid's 200 answers), and (b) from byo score's fit of the same data
  (byo.score.psychometric.estimate: its 95% profile-likelihood interval, where it reports one);
- the adaptive method (byo.diagnose.adaptive with the settings byo adapt uses: 41 candidate levels,
  direction unknown), 200 runs, each stopped when its interval is as narrow as the grid's median
  (a), or at 200 trials: the trials it took, and whether its interval then covers the planted
  threshold. The same runs give the trials to reach the median width of (b).

Draws docs/adaptive_bench.png (--plot). Requirements: coverage at least 90% in every setting, and a median of at most 200 / 3 trials to reach
the grid's width (a). Run with `make bench`; BENCH_QUICK=1 runs 20 of each.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from figures import QUICK, Section  # noqa: E402

from byo.diagnose.adaptive import PsiMethod, candidate_levels
from byo.score import psychometric

LO, HI = 0.0, 10.0
GRID_LEVELS, GRID_TRIALS = 10, 20
THRESHOLDS = (2.5, 5.0, 7.5)
WIDTHS = (0.05, 0.10)  # the curve's 25-75% rise, as a share of the range: the requirement's two slopes
SHALLOW = 0.20  # measured beside them
LAPSE, CHANCE = 0.02, 0.0
MAX_TRIALS = 200
ROOT = Path(__file__).resolve().parent.parent


def steepness(width_share: float) -> float:
    return 2 * math.log(3) / (width_share * (HI - LO))


def p_right(x, threshold: float, b: float):
    return CHANCE + (1 - CHANCE - LAPSE) / (1 + np.exp(b * (np.asarray(x, float) - threshold)))


def grid_fits(levels: np.ndarray, k: np.ndarray) -> list[tuple[float, float] | None]:
    """byo score's interval of each grid data set (rows of k): byo.score.psychometric.estimate, its
    profile-likelihood interval; None where it reports none (not estimable)."""
    found = psychometric.estimate(levels, k.astype(float), np.full(k.shape, float(GRID_TRIALS)), CHANCE)
    return [(b.lo, b.hi) if b.verdict in psychometric.ESTIMATED else None for b in found]


def setting(threshold: float, width_share: float, runs: int, rng: np.random.Generator) -> dict:
    b = steepness(width_share)
    levels = np.linspace(LO, HI, GRID_LEVELS)
    candidates = candidate_levels(LO, HI)
    bayes = []
    grids = rng.binomial(GRID_TRIALS, p_right(levels, threshold, b), size=(runs, GRID_LEVELS))
    for k in grids:
        method = PsiMethod(candidates, lo=LO, hi=HI)
        for level, hits in zip(levels, k, strict=True):
            for j in range(GRID_TRIALS):
                method.update(level, j < hits)
        est = method.estimate()
        bayes.append((est.lo, est.hi))
    fits = grid_fits(levels, grids)
    bayes_width = float(np.median([hi - lo for lo, hi in bayes]))
    fitted = [f for f in fits if f is not None]
    fit_width = float(np.median([hi - lo for lo, hi in fitted]))
    targets = {"bayes": bayes_width, "fit": fit_width}
    needed = {name: [] for name in targets}
    covered = {name: 0 for name in targets}
    started = time.perf_counter()
    answers = 0
    for _ in range(runs):
        method = PsiMethod(candidates, lo=LO, hi=HI)
        todo = dict(targets)
        while todo and len(method.history) < MAX_TRIALS:
            level = method.next_level()
            method.update(level, rng.random() < p_right(level, threshold, b))
            est = method.estimate()
            for name, width in list(todo.items()):
                if est.closed and est.width <= width:
                    needed[name].append(est.trials)
                    covered[name] += est.lo <= threshold <= est.hi
                    del todo[name]
        for name in todo:  # the budget ran out first
            est = method.estimate()
            needed[name].append(MAX_TRIALS)
            covered[name] += est.lo <= threshold <= est.hi
        answers += len(method.history)
    seconds = time.perf_counter() - started
    return {
        "threshold": threshold, "width_share": width_share, "steepness": b,
        "grid_bayes_width": bayes_width, "grid_bayes_coverage": float(np.mean([lo <= threshold <= hi for lo, hi in bayes])),
        "grid_fit_width": fit_width, "grid_fit_coverage": float(np.mean([lo <= threshold <= hi for lo, hi in fitted])),
        "grid_fit_reported": len(fitted) / runs,
        **{f"adaptive_{name}_{stat}": value for name in targets for stat, value in (
            ("median", float(np.median(needed[name]))), ("mean", float(np.mean(needed[name]))),
            ("p90", float(np.percentile(needed[name], 90))),
            ("capped", float(np.mean(np.array(needed[name]) >= MAX_TRIALS))),
            ("coverage", covered[name] / runs))},
        "ms_per_trial": 1000 * seconds / answers,
        "trials_needed": needed["bayes"],
    }


def write_figure(rows: list[dict], path: Path) -> None:
    """Per setting: the trials each adaptive run took to the grid's width (a box of the 200 runs)
    against the grid's 200 and a third of it; and how often each interval covers the threshold."""
    fig, (trials_ax, cover_ax) = plt.subplots(1, 2, figsize=(11, 4.2))
    names = [f"t={r['threshold']:g}\n{r['width_share']:.0%}" for r in rows]
    at = np.arange(len(rows))
    trials_ax.boxplot([r["trials_needed"] for r in rows], positions=at, widths=0.6, whis=(5, 95), showfliers=False)
    trials_ax.axhline(GRID_LEVELS * GRID_TRIALS, color="#d62728", ls="--", lw=1, label="fixed grid: 10 levels x 20")
    trials_ax.axhline(GRID_LEVELS * GRID_TRIALS / 3, color="#2ca02c", ls=":", lw=1.2, label="a third of the grid")
    trials_ax.set_ylabel("trials to the grid's interval width")
    trials_ax.set_title("trials byo adapt needs (box: quartiles, whiskers 5-95%)", fontsize=10)
    trials_ax.legend(fontsize=8, loc="upper left")
    cover_ax.plot(at, [r["adaptive_bayes_coverage"] for r in rows], "o", label="adaptive, at its stop")
    cover_ax.plot(at, [r["grid_bayes_coverage"] for r in rows], "s", mfc="none", label="fixed grid (same posterior)")
    cover_ax.plot(at, [r["grid_fit_coverage"] for r in rows], "x", label="fixed grid (byo score's fit)")
    cover_ax.axhline(0.90, color="#d62728", ls="--", lw=1, label="required: 90%")
    cover_ax.set_ylim(0.8, 1.005)
    cover_ax.set_ylabel("share of runs whose 95% interval covers it")
    cover_ax.set_title("coverage of the planted threshold", fontsize=10)
    cover_ax.legend(fontsize=8, loc="lower left")
    for ax in (trials_ax, cover_ax):
        ax.set_xticks(at, names, fontsize=8)
        ax.set_xlabel("planted threshold t (range 0-10); the curve's 25-75% rise / range")
        ax.axvline(len(WIDTHS) * len(THRESHOLDS) - 0.5, color="grey", lw=0.8)  # right of it: beside the requirement
        ax.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20 if QUICK else 200, help="simulated runs per setting")
    parser.add_argument("--seed", type=int, default=47)
    parser.add_argument("--json", type=Path, help="write the section here (bench/results/adaptive.json)")
    parser.add_argument("--plot", type=Path, default=ROOT / "docs" / "adaptive_bench.png")
    args = parser.parse_args()
    section = Section(
        "adaptive", "byo adapt: the psi method against a simulated observer, next to a fixed grid of 10 levels x 20",
        __doc__.split("\n\n", 1)[1].strip())
    rng = np.random.default_rng(args.seed)
    rows = []
    for width in (*WIDTHS, SHALLOW):
        for threshold in THRESHOLDS:
            r = setting(threshold, width, args.runs, rng)
            rows.append(r)
            name = f"t{threshold:g}_w{width * 100:g}"
            required = width in WIDTHS
            label = f"threshold {threshold:g}, 25-75% rise over {width:.0%} of the range"
            section.figure(f"coverage_{name}", round(r["adaptive_bayes_coverage"], 3), "",
                           f"adaptive interval covers the threshold ({label})",
                           at_least=0.90 if required else None)
            section.figure(f"trials_{name}", r["adaptive_bayes_median"], "trials",
                           f"median trials to the grid's width ({label})",
                           at_most=round(GRID_LEVELS * GRID_TRIALS / 3, 1) if required else None)
            print(name, {k: round(v, 3) for k, v in r.items() if k != "trials_needed"}, flush=True)
    section.table("per setting", [
        ("threshold", ""), ("rise 25-75%", "of range"), ("grid width (posterior)", ""), ("grid coverage", ""),
        ("grid width (byo score fit)", ""), ("fit coverage", ""), ("adaptive: median trials", "trials"),
        ("mean", "trials"), ("90th percentile", "trials"), ("coverage at stop", ""),
        ("median trials to the fit's width", "trials"), ("coverage there", ""), ("ms per trial", "ms")],
        [[r["threshold"], r["width_share"], round(r["grid_bayes_width"], 3), round(r["grid_bayes_coverage"], 3),
          round(r["grid_fit_width"], 3), round(r["grid_fit_coverage"], 3), r["adaptive_bayes_median"],
          round(r["adaptive_bayes_mean"], 1), r["adaptive_bayes_p90"], round(r["adaptive_bayes_coverage"], 3),
          r["adaptive_fit_median"], round(r["adaptive_fit_coverage"], 3), round(r["ms_per_trial"], 2)]
         for r in rows])
    section.write(args.json)
    write_figure(rows, args.plot)


if __name__ == "__main__":
    main()
