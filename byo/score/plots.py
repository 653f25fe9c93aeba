"""Figures for the report (matplotlib, Agg), each returned as PNG bytes.

Like BYO-Eval's: a metric against the levels of a variable with intervals, the
signed-error distribution, prompt-variant bars and model comparison bars. Heatmaps and
confusion matrices are coloured tables (byo/score/heat.py), not figures.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np

from byo.core.figures import color, png, pyplot, subplots, text_width
from byo.core.figures import panels as panels_grid


def _yerr(points: list[dict]) -> np.ndarray | None:
    lows = [p["value"] - p["lo"] if p.get("lo") is not None else 0 for p in points]
    highs = [p["hi"] - p["value"] if p.get("hi") is not None else 0 for p in points]
    return np.array([lows, highs]).clip(min=0)


def metric_vs_levels(rows: list[tuple[str, list[tuple[str, list[str], dict[str, list[dict]]]], bool, tuple | None]],
                     marks: dict[str, set[str]] | None = None) -> bytes:
    """A grid of panels: one row per metric, one column per variable; x = the variable's levels, one line
    per model with interval bars.

    `rows` holds (metric, panels, show_parse_rate, ylim); a panel is (variable, levels,
    {model: [{"level", "value", "lo", "hi", "parse_rate"}]}). `marks`: levels of a variable shaded grey
    (where most questions were not asked).
    """
    n_cols = max(len(panels) for _, panels, _, _ in rows)
    labels = [level for _, panels, _, _ in rows for _, levels, _ in panels for level in levels]
    long = max(map(len, labels), default=0) > 6  # tick labels turned 30 degrees
    drop, reach = turned_label(text_width(max(labels, key=len, default="")))
    room = 0.12 + (drop if long else 0.16) + 0.22  # below an axes: tick labels and the variable
    gap = max(0.85, reach - 0.3) if long else 0.85
    left, panel = max(0.85, reach + 0.1 if long else 0), (min(3.4, (11.0 - (n_cols - 1) * gap) / n_cols), 2.0)
    legend_labels = [*dict.fromkeys(m for _, panels, _, _ in rows for _, _, series in panels for m in series),
                     "parse rate (dotted)"]
    legend_width = left + n_cols * panel[0] + (n_cols - 1) * gap
    legend_rows = math.ceil(len(legend_labels) / legend_columns(legend_labels, legend_width))
    fig, axes = panels_grid(len(rows), n_cols, panel=panel, left=left, right=0.25, top=0.2 + 0.22 * legend_rows,
                            bottom=room + 0.05, wspace=gap, hspace=room + 0.3, squeeze=False)
    any_parse = False
    for r, (metric, panels, show_parse_rate, ylim) in enumerate(rows):
        for c in range(n_cols):
            ax = axes[r][c]
            if c >= len(panels):
                ax.set_visible(False)
                continue
            variable, levels, series = panels[c]
            x = {level: i for i, level in enumerate(levels)}
            for level in sorted((marks or {}).get(variable, set()) & set(x)):
                ax.axvspan(x[level] - 0.5, x[level] + 0.5, color="#bbb", alpha=0.45, lw=0)
            offset = 0.06 * (len(series) - 1)
            for i, (model, points) in enumerate(series.items()):
                points = [p for p in points if p["value"] is not None]
                if not points:
                    continue
                xs = np.array([x[p["level"]] for p in points]) - offset / 2 + offset * i / max(1, len(series) - 1)
                ax.errorbar(xs, [p["value"] for p in points], yerr=_yerr(points), marker="o", ms=4, lw=1.6,
                            capsize=3, color=color(i), label=model)
                if show_parse_rate:
                    any_parse = True
                    ax.plot(xs, [p["parse_rate"] for p in points], ls=":", lw=1.2, color=color(i), alpha=0.8)
            ax.set_xticks(range(len(levels)), levels, rotation=30 if long else 0, ha="right" if long else "center")
            ax.set_xlim(-0.4, len(levels) - 0.6)
            ax.set_xlabel(variable)
            ax.set_ylabel(metric)
            if ylim:
                ax.set_ylim(*ylim)
    entries = {}  # every model of every panel (datasets with models of their own), once
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    if any_parse:
        entries["parse rate (dotted)"] = pyplot().Line2D([], [], ls=":", color="#555")
    fig.legend(list(entries.values()), list(entries), loc="upper center", bbox_to_anchor=(0.5, 1.0),
               ncol=legend_columns(list(entries), legend_width))
    return png(fig, crop=True)


def turned_label(width: float) -> tuple[float, float]:
    """(how far below its axis, how far left of its tick) a tick label `width` inches wide reaches
    when turned 30 degrees and aligned right: sin 30 of its width and a line's height, cos 30."""
    return 0.5 * width + 0.11, 0.87 * width


def legend_columns(labels: list[str], width: float, font_size: float = 9.0) -> int:
    """How many legend entries fit side by side in `width` inches: each column as wide as the
    longest label and its line handle (3.5 characters' room)."""
    if not labels:
        return 1
    entry = text_width(max(labels, key=len), font_size) + 3.5 * font_size / 72
    return max(1, min(len(labels), int(width // entry)))


def signed_errors(series: dict[str, list[float]], title: str) -> bytes:
    """Histogram of prediction - truth per model, bars side by side on integer bins; a model without
    answers to the key is left out (its colour stays its own)."""
    fig, ax = panels_grid(1, 1, panel=(4.5, 2.2), left=0.85, right=0.2, top=0.4, bottom=0.6)
    values = [v for vs in series.values() for v in vs]
    lo, hi = (math.floor(min(values)), math.ceil(max(values))) if values else (-1, 1)
    lo, hi = max(lo, -15), min(hi, 15)
    bins = np.arange(lo, hi + 1)
    answered = sum(1 for vs in series.values() if vs)
    width = 0.8 / max(1, answered)
    slot = 0
    for i, (model, vs) in enumerate(series.items()):
        if not vs:
            continue
        clipped = np.clip(np.round(vs), lo, hi)
        counts = np.array([(clipped == b).sum() for b in bins], dtype=float)
        share = counts / counts.sum() if counts.sum() else counts
        ax.bar(bins - 0.4 + width * (slot + 0.5), share, width=width, color=color(i), label=f"{model} (n={len(vs)})")
        slot += 1
    ax.axvline(0, color="#333", lw=0.8)
    ax.set_xlabel("prediction - truth (clipped to +-15)")
    ax.set_ylabel("share of parsed answers")
    ax.set_title(title)
    ax.legend(loc="upper left")
    return png(fig, crop=True)


def grouped_bars(groups: list[str], series: dict[str, list[dict | None]], *, ylabel: str, title: str = "",
                 chance: list[float | None] | None = None, horizontal_labels: bool = False) -> bytes:
    """Bars per group (x) and model (colour), with interval whiskers; `n/a` where a model has no data."""
    lines = max((str(g).count("\n") + 1 for g in groups), default=1)
    drop, reach = turned_label(text_width(max(groups, key=lambda g: len(str(g)), default="")))
    below = 0.1 + (0.16 * lines if horizontal_labels else drop) + 0.1
    left, panel = max(0.85, 0 if horizontal_labels else reach + 0.1), (
        min(10.5, max(3.4, 0.55 * len(groups) * max(1, len(series)))), 2.4)
    legend_ncol = legend_columns(list(series), left + panel[0])
    fig, ax = panels_grid(1, 1, panel=panel, left=left, right=0.2, bottom=below,
                          top=0.15 + 0.22 * math.ceil(len(series) / legend_ncol) + (0.3 if title else 0))
    width = 0.8 / max(1, len(series))
    x = np.arange(len(groups))
    for i, (model, points) in enumerate(series.items()):
        vals = [p["value"] if p and p["value"] is not None else np.nan for p in points]
        errs = _yerr([p if p and p["value"] is not None else {"value": 0} for p in points])
        pos = x - 0.4 + width * (i + 0.5)
        ax.bar(pos, vals, width=width * 0.92, color=color(i), label=model, yerr=errs, capsize=2,
               error_kw={"lw": 0.9, "ecolor": "#333"})
        for px, p in zip(pos, points, strict=True):
            if p and p.get("parse_rate") is not None and p["parse_rate"] < 0.995:
                ax.text(px, 0.01, f"p{p['parse_rate']:.0%}", rotation=90, ha="center", va="bottom", fontsize=6.5,
                        color="white")
    if chance:
        for xi, c in zip(x, chance, strict=True):
            if c is not None and np.isfinite(c):
                ax.hlines(c, xi - 0.45, xi + 0.45, colors="#111", linestyles="--", lw=1)
    ax.set_xticks(x, groups, rotation=0 if horizontal_labels else 30, ha="center" if horizontal_labels else "right")
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1.05)
    if title:
        ax.set_title(title)
    # the legend above the axes (and its title)
    ax.legend(ncol=legend_ncol, loc="lower center", bbox_to_anchor=(0.5, 1.0 + (0.3 if title else 0.04) / panel[1]))
    return png(fig, crop=True)


def psychometric(series: list[dict], *, xlabel: str, ylabel: str, title: str,
                 ticks: list[tuple[float, str]] | None = None) -> bytes:
    """Per-level points with intervals and, where a breaking point is estimated, the fitted curve,
    its threshold (dashed line) and the threshold's interval (shaded; a separated fit has the
    interval only). Each series: {"label", "x", "y", "lo", "hi", "curve": (xs, ys) or None,
    "threshold", "threshold_lo", "threshold_hi", "chance", "prior"}; an answer prior's series is
    drawn dotted. `ticks`: (value, name) of preset levels, written under the axis."""
    fig, ax = panels_grid(1, 1, panel=(5.6, 2.6), left=0.75, right=0.2, top=0.35, bottom=0.6)
    for i, s in enumerate(series):
        c = color(s.get("color", i))
        points = [{"value": y, "lo": lo, "hi": hi} for y, lo, hi in zip(s["y"], s["lo"], s["hi"], strict=True)]
        ax.errorbar(s["x"], s["y"], yerr=_yerr(points), fmt="o", ms=4, capsize=2, color=c, lw=1,
                    label=s["label"], mfc="white" if s.get("prior") else c)
        if s.get("curve") is not None:
            xs, ys = s["curve"]
            ax.plot(xs, ys, color=c, lw=1.8, ls=":" if s.get("prior") else "-")
        if s.get("threshold") is not None:
            ax.axvline(s["threshold"], color=c, ls="--", lw=1)
        if s.get("threshold_lo") is not None:
            ax.axvspan(s["threshold_lo"], s["threshold_hi"], color=c, alpha=0.12, lw=0)
    chances = {s["chance"] for s in series if s.get("chance")}
    for chance in chances:
        ax.axhline(chance, color="#555", ls=":", lw=1)
    if ticks:
        ax.set_xticks([v for v, _ in ticks], [name for _, name in ticks], fontsize=7)
    ax.set_ylim(-0.03, 1.05)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="best")
    return png(fig, crop=True)


def forest(labels: list[str], rows: list[dict], *, xlabel: str, title: str) -> bytes:
    """Differences with their intervals, one line each (top to bottom), a zero line; filled markers
    where the difference is shown (the interval drawn excludes 0); a row without an interval is its
    point alone."""
    fig, ax = subplots(figsize=(6.4, max(1.6, 0.34 * len(rows) + 0.9)))
    y = np.arange(len(rows))[::-1]
    for yi, r in zip(y, rows, strict=True):
        lo = r["lo"] if r["lo"] is not None else r["value"]
        hi = r["hi"] if r["hi"] is not None else r["value"]
        ax.plot([lo, hi], [yi, yi], color="#374151", lw=1.4)
        ax.plot(r["value"], yi, "o", ms=6, color=color(0) if r["shown"] else "white", mec=color(0), mew=1.4)
    ax.axvline(0, color="#111", lw=0.8)
    ax.set_yticks(y, labels)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="y", visible=False)
    fig.tight_layout()
    return png(fig)


def radar(axes_labels: list[str], series: dict[str, list[float | None]], *, title: str) -> bytes:
    """A skill profile per model (BYO-Eval's Figure 5): one spoke per task, the value from 0 at the
    centre to 1 at the rim; a model without a task has no point on its spoke (a gap in its line)."""
    n = len(axes_labels)
    angles = np.linspace(0, 2 * np.pi, n, endpoint=False)
    side = min(10.0, 4.6 + 0.22 * n)  # room for the spokes' names
    fig, ax = subplots(figsize=(side, side * 0.9), subplot_kw={"projection": "polar"})
    for i, (model, values) in enumerate(series.items()):
        v = np.array([np.nan if x is None else x for x in values], dtype=float)
        closed_a, closed_v = np.append(angles, angles[0]), np.append(v, v[0])
        ax.plot(closed_a, closed_v, color=color(i), lw=1.8, marker="o", ms=3.5, label=model)
        if np.isfinite(v).all():
            ax.fill(closed_a, closed_v, color=color(i), alpha=0.12)
    ax.set_xticks(angles, [textwrap_label(a) for a in axes_labels], fontsize=8 if n <= 12 else 7)
    ax.tick_params(axis="x", pad=10 if n > 12 else 4)
    ax.set_ylim(0, 1)
    ax.set_yticks([0.25, 0.5, 0.75, 1.0], ["25%", "50%", "75%", "100%"], fontsize=7, color="#555")
    ax.set_title(title, pad=18)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=min(3, len(series)))
    fig.tight_layout()
    return png(fig, tight=True)  # the legend below the axes


def textwrap_label(text: str, width: int = 18) -> str:
    return "\n".join(textwrap.wrap(text.replace("_", " "), width)) or text
