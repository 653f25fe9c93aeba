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


# A character of the house font is about this share of its size wide (DejaVu Sans, digits and
# lower case): what margins are estimated from before anything is drawn.
CHAR_WIDTH = 0.6
CROP_PAD = 6  # pixels left around what png(crop=True) keeps


def text_width(text: str, size: float | None = None) -> float:
    """About how wide `text` is drawn, in inches (a margin estimate; png(crop=True) trims any excess)."""
    return CHAR_WIDTH * (size or STYLE["font.size"]) * max(map(len, str(text).split("\n"))) / 72


def panels(nrows: int, ncols: int, *, panel: tuple[float, float], left: float, right: float, top: float,
           bottom: float, wspace: float = 0.0, hspace: float = 0.0, **kwargs):
    """(figure, axes) of nrows x ncols panels of `panel` inches (width, height), with margins and
    gaps between panels in inches. Sized to hold any label generously instead of measuring them
    (tight_layout costs about a draw): png(crop=True) then trims the margin left over."""
    width = left + ncols * panel[0] + (ncols - 1) * wspace + right
    height = top + nrows * panel[1] + (nrows - 1) * hspace + bottom
    grid = {"left": left / width, "right": 1 - right / width, "bottom": bottom / height, "top": 1 - top / height,
            "wspace": wspace / panel[0], "hspace": hspace / panel[1]}
    return subplots(nrows, ncols, figsize=(width, height), gridspec_kw=grid, **kwargs)


def png(fig, *, tight: bool = False, crop: bool = False) -> bytes:
    """The figure as PNG bytes of at most 256 colours (a plot has few; the file is a third the
    size), drawn once. `crop`: trimmed to what is drawn (a figure from `panels`); `tight`: cropped
    by matplotlib to what is drawn outside the figure too, at the cost of drawing twice."""
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
        pixels = np.asarray(fig.canvas.buffer_rgba())
        if crop:
            drawn = (pixels[..., :3] < 250).any(axis=2)  # not the white of the figure
            rows, columns = np.flatnonzero(drawn.any(axis=1)), np.flatnonzero(drawn.any(axis=0))
            if rows.size:
                pixels = pixels[max(0, rows[0] - CROP_PAD): rows[-1] + 1 + CROP_PAD,
                                max(0, columns[0] - CROP_PAD): columns[-1] + 1 + CROP_PAD]
        image = Image.fromarray(pixels)
    buffer = io.BytesIO()
    # zlib's default level: a file 15% larger than optimize=True's, written in a third of the time
    image.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE).save(buffer, format="png")
    return buffer.getvalue()
