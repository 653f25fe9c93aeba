"""What a render measured, from its segmentation mask (pure numpy; no bpy)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image


def read_mask(path: str | Path) -> np.ndarray:
    """Mask index per pixel (0 = no object), shape (height, width)."""
    with Image.open(path) as im:
        return np.asarray(im.convert("L"), dtype=np.uint8)


def _region(mask: np.ndarray, counts: np.ndarray, values: list[int]) -> dict:
    """Pixel count and box [x0, y0, x1, y1] (x1, y1 exclusive) of the pixels holding any of `values`."""
    if not any(v < len(counts) and counts[v] for v in values):
        return {"visible_pixels": 0, "bbox": None}
    ys, xs = np.nonzero(np.isin(mask, values))
    return {"visible_pixels": int(len(xs)),
            "bbox": [int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1]}


def measure(mask: np.ndarray, ids, parts: dict[int, int] | None = None) -> dict[int, dict]:
    """Visible pixel count and 2D box per object id. `parts` (part id -> object id) are measured
    on their own too, and an object's pixels include those of its parts."""
    parts = parts or {}
    counts = np.bincount(mask.ravel(), minlength=256)
    out = {}
    for i in ids:
        out[i] = _region(mask, counts, [i, *(p for p, owner in parts.items() if owner == i)])
    for p in parts:
        out[p] = _region(mask, counts, [p])
    return out


VISIBLE, AMBIGUOUS, HIDDEN = "visible", "ambiguous", "hidden"


def visibility(pixels: int, visible_from: int, hidden_below: int) -> str:
    """The visibility band: visible from `visible_from` mask pixels, hidden below `hidden_below`,
    ambiguous in between (a person may or may not make the object out)."""
    if pixels >= visible_from:
        return VISIBLE
    return HIDDEN if pixels < hidden_below else AMBIGUOUS
