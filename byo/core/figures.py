"""Figures as PNG bytes in one house style: matplotlib's Agg backend, imported on first use (a
command that draws nothing never pays for matplotlib). Figures are made without pyplot (no
figure manager to register and close) and drawn once."""

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
    """matplotlib.pyplot on the Agg backend, in the house style (for its helpers: colormaps,
    locators, Line2D; figures come from `subplots`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(STYLE)
    return plt


def preload() -> None:
    """Import what drawing needs (matplotlib, its Agg canvas, Pillow) now: before forking
    workers that draw, so that each does not import it again."""
    pyplot()
    import matplotlib.backends.backend_agg  # noqa: F401
    import PIL.PngImagePlugin  # noqa: F401


def subplots(nrows: int = 1, ncols: int = 1, **kwargs):
    """(figure, axes) as pyplot.subplots makes them, on an Agg canvas of its own."""
    pyplot()  # the house style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    subplot_options = {k: kwargs.pop(k) for k in ("squeeze", "sharex", "sharey", "subplot_kw", "gridspec_kw")
                       if k in kwargs}
    fig = Figure(**kwargs)
    FigureCanvasAgg(fig)
    return fig, fig.subplots(nrows, ncols, **subplot_options)


def png(fig, *, tight: bool = False) -> bytes:
    """The figure as PNG bytes of at most 256 colours (a plot has few; the file is a third the
    size). The figures lay themselves out (tight_layout) and are drawn once: `tight` crops to
    what is drawn outside them too (a legend beside the axes), at the cost of drawing twice."""
    import numpy as np
    from PIL import Image

    if tight:
        drawn = io.BytesIO()
        fig.savefig(drawn, format="png", bbox_inches="tight")
        drawn.seek(0)
        image = Image.open(drawn)
    else:
        from matplotlib.layout_engine import PlaceHolderLayoutEngine

        if isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine):
            fig.set_layout_engine(None)  # what tight_layout leaves behind: it would cost a second draw
        fig.canvas.draw()
        image = Image.fromarray(np.asarray(fig.canvas.buffer_rgba()))
    buffer = io.BytesIO()
    # zlib's default level: a file 15% larger than optimize=True's, written in a third of the time
    image.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE).save(buffer, format="png")
    return buffer.getvalue()
