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


def png(fig, *, tight: bool = False) -> bytes:
    """The figure as PNG bytes of at most 256 colours (a plot has few; the file is a third the
    size); the figure is closed. The figures lay themselves out (tight_layout): `tight` crops to
    what is drawn outside them too (a legend beside the axes), at the cost of drawing twice."""
    from PIL import Image

    drawn = io.BytesIO()
    fig.savefig(drawn, format="png", **({"bbox_inches": "tight"} if tight else {}))
    pyplot().close(fig)
    drawn.seek(0)
    buffer = io.BytesIO()
    with Image.open(drawn) as image:
        image.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE).save(buffer, format="png", optimize=True)
    return buffer.getvalue()
