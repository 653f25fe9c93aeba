"""Heat tables: a grid of values as an HTML table whose cells are coloured by value, the
report's heatmaps (models x prompt variants, two variables, localization cells) and its
confusion matrices. The numbers stay text a reader can select, search and copy, and a table
costs nothing to draw next to a figure.

A table is a plain dict (the report's sections are built in worker processes and sent back):
{"kind", "title", "row_label", "column_label", "columns", "rows": [{"label", "cells": [{"text",
"note", "background", "color"}]}], "caption"}; the template's `heat` macro draws it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

# A cell of a level x level heatmap with fewer questions is greyed, with its n: its 95% interval
# spans more than +-25 points at any accuracy; a heatmap without a larger cell is not drawn (and
# byo plan warns of it before anything is rendered).
MIN_CELL_QUESTIONS = 10
NO_DATA = "#f3f4f6"  # a cell without a value (too few questions, or none)
EMPTY = "#f8fafc"  # a confusion cell no answer fell in
DARK_TEXT, LIGHT_TEXT, MUTED_TEXT = "#111111", "#ffffff", "#6b7280"


@functools.cache
def _colormap(name: str) -> Callable[[float], tuple]:
    from matplotlib import colormaps  # the colormaps only: no figure is made

    return colormaps[name]


def colour(value: float, cmap: str, vmin: float, vmax: float) -> tuple[str, str]:
    """(background, text colour) of a cell: the colormap at `value` scaled to [vmin, vmax], and
    white or near-black text, whichever contrasts more (WCAG relative luminance)."""
    share = 0.0 if vmax <= vmin else min(1.0, max(0.0, (value - vmin) / (vmax - vmin)))
    r, g, b, _ = _colormap(cmap)(share)
    background = "#{:02x}{:02x}{:02x}".format(*(round(255 * c) for c in (r, g, b)))
    return background, (LIGHT_TEXT if _luminance(r, g, b) < 0.4 else DARK_TEXT)


def _luminance(r: float, g: float, b: float) -> float:
    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)


def heat_table(values: Sequence[Sequence[float | None]], columns: Sequence[str], rows: Sequence[str], *, kind: str,
               title: str, row_label: str, column_label: str, caption: str, cmap: str = "viridis",
               vmin: float = 0.0, vmax: float = 1.0, fmt: str = "{:.2f}",
               notes: Sequence[Sequence[str]] | None = None) -> dict:
    """A heatmap as a table: `values[i][j]` (None or NaN: no value, grey with its note) in row `rows[i]`,
    column `columns[j]`, each cell its formatted value over its note."""
    body = []
    for i, label in enumerate(rows):
        cells = []
        for j, value in enumerate(values[i]):
            note = notes[i][j] if notes is not None else ""
            if value is None or (isinstance(value, float) and math.isnan(value)):
                cells.append({"text": "–", "note": note, "background": NO_DATA, "color": MUTED_TEXT})
            else:
                background, text = colour(float(value), cmap, vmin, vmax)
                cells.append({"text": fmt.format(value), "note": note, "background": background, "color": text})
        body.append({"label": str(label), "cells": cells})
    return _table(kind, title, row_label, column_label, columns, body, caption)


def confusion_table(counts: dict[tuple, int], truths: Sequence, predicted: Sequence, *, title: str) -> dict:
    """A confusion matrix as a table: rows the truth, columns the parsed answer, each cell its count,
    coloured by its share of the row (Blues); a cell no answer fell in is blank."""
    body = []
    for t in truths:
        total = sum(counts.get((t, p), 0) for p in predicted)
        cells = []
        for p in predicted:
            n = counts.get((t, p), 0)
            if n:
                background, text = colour(n / total, "Blues", 0.0, 1.0)
                cells.append({"text": str(n), "note": "", "background": background, "color": text})
            else:
                cells.append({"text": "", "note": "", "background": EMPTY, "color": DARK_TEXT})
        body.append({"label": str(t), "cells": cells})
    return _table("confusion matrix", title, "truth", "predicted", predicted, body, "")


def _table(kind: str, title: str, row_label: str, column_label: str, columns: Sequence, body: list[dict],
           caption: str) -> dict:
    return {"kind": kind, "title": title, "row_label": row_label, "column_label": column_label,
            "columns": [str(c) for c in columns], "rows": body, "caption": caption}
