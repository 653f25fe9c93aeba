"""Figures as PNG bytes in one house style: matplotlib's Agg backend, imported on first use (a
command that draws nothing never pays for matplotlib)."""

from __future__ import annotations

import functools
import io

PALETTE = ["#2563eb", "#ea580c", "#16a34a", "#9333ea", "#dc2626", "#0891b2", "#ca8a04", "#db2777"]
STYLE = {
    "figure.dpi": 110, "font.size": 9, "axes.titlesize": 10, "axes.spines.top": False, "axes.spines.right": False,
    "axes.grid": True, "grid.alpha": 0.25, "legend.frameon": False, "font.family": "DejaVu Sans",
}


def color(i: int) -> str:
    """The i-th run's colour, the same in every figure."""
    return PALETTE[i % len(PALETTE)]


@functools.cache
def pyplot():
    """matplotlib.pyplot on the Agg backend, in the house style."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(STYLE)
    return plt


def png(fig) -> bytes:
    """The figure as PNG bytes; the figure is closed."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    pyplot().close(fig)
    return buffer.getvalue()
