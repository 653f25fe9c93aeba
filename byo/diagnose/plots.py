"""Figures of the closed-loop diagnostics (matplotlib, Agg), each returned as PNG bytes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from byo.core.figures import color, png, subplots
from byo.diagnose.adaptive import PsiMethod


def adapt_figure(method: PsiMethod, trials: Sequence, variable: str, key: str, model: str,
                 grid: dict | None = None) -> bytes:
    """Three panels: the level of each trial (a filled dot right, a hollow one wrong) with the running
    95% interval; the threshold's posterior with its interval; the posterior mean curve with the
    share right at each level tried. `grid`: a fixed-grid fit of the same observer to draw beside
    it ({"threshold", "lo", "hi", "levels", "accuracy", "curve": (x, p), "label"})."""
    fig, (ax_trials, ax_post, ax_curve) = subplots(1, 3, figsize=(13.5, 3.6))
    answered = [(t.index + 1, t.level, h) for t in trials for h in t.hits]  # trials counted from 1, as printed
    if answered:
        index, level, right = (np.array(v) for v in zip(*answered, strict=True))
        ax_trials.scatter(index[right], level[right], s=18, color=color(0), label="right", zorder=3)
        ax_trials.scatter(index[~right], level[~right], s=18, facecolors="none", edgecolors=color(0), label="wrong",
                          zorder=3)
    running = [(t.index + 1, t.estimate) for t in trials if t.estimate is not None]
    if running:
        at = [i for i, _ in running]
        ax_trials.fill_between(at, [e.lo for _, e in running], [e.hi for _, e in running], color=color(1), alpha=0.2,
                               step="post", label="95% interval")
        ax_trials.plot(at, [e.threshold for _, e in running], color=color(1), lw=1.2, drawstyle="steps-post",
                       label="threshold")
    ax_trials.set_xlabel("trial")
    ax_trials.xaxis.get_major_locator().set_params(integer=True)
    ax_trials.set_ylabel(variable)
    ax_trials.set_ylim(method.lo - 0.05 * (method.hi - method.lo), method.hi + 0.05 * (method.hi - method.lo))
    ax_trials.set_title(f"{len(trials)} trials, {len(method.history)} answers")
    ax_trials.legend(fontsize=7, loc="best")

    est = method.estimate()
    step = method.thresholds[1] - method.thresholds[0]
    ax_post.fill_between(method.thresholds, method.marginal() / step, color=color(0), alpha=0.25, step="mid")
    ax_post.plot(method.thresholds, method.marginal() / step, color=color(0), lw=1, drawstyle="steps-mid")
    ax_post.axvspan(est.lo, est.hi, color=color(1), alpha=0.12)
    ax_post.axvline(est.threshold, color=color(1), lw=1.4,
                    label=f"adaptive: {est.threshold:.3g} [{est.lo:.3g}–{est.hi:.3g}]")
    if grid is not None and grid.get("threshold") is not None:
        ax_post.axvline(grid["threshold"], color=color(2), lw=1.4, ls="--",
                        label=f"{grid['label']}: {grid['threshold']:.3g} [{grid['lo']:.3g}–{grid['hi']:.3g}]")
        ax_post.axvspan(grid["lo"], grid["hi"], color=color(2), alpha=0.10)
    ax_post.set_xlabel(f"threshold ({variable})")
    ax_post.set_ylabel("posterior density")
    ax_post.set_xlim(method.thresholds[0], method.thresholds[-1])
    ax_post.set_title("the threshold's posterior")
    ax_post.legend(fontsize=7, loc="upper right")

    x = np.linspace(method.lo, method.hi, 200)
    ax_curve.plot(x, method.curve(x), color=color(1), lw=1.6, label="adaptive (posterior mean)")
    if answered:
        tried = np.unique(level)
        share = [right[level == v].mean() for v in tried]
        count = [int((level == v).sum()) for v in tried]
        ax_curve.scatter(tried, share, s=[8 + 4 * c for c in count], color=color(0), alpha=0.6,
                         label="adaptive trials (size: answers)")
    if grid is not None:
        ax_curve.plot(grid["levels"], grid["accuracy"], "s", ms=4, color=color(2), label=f"{grid['label']} (per level)")
        if grid.get("curve") is not None:
            ax_curve.plot(*grid["curve"], color=color(2), lw=1.2, ls="--", label=f"{grid['label']} fit")
    ax_curve.set_xlabel(variable)
    ax_curve.set_ylabel("P(right)")
    ax_curve.set_ylim(-0.03, 1.03)
    ax_curve.set_title(f"{key} · {model}", fontsize=9)
    ax_curve.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return png(fig)
