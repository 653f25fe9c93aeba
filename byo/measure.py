"""What a render measured, from its segmentation mask (pure numpy; no bpy)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image


def read_mask(path: str | Path) -> np.ndarray:
    """Mask index per pixel (0 = no object), shape (height, width)."""
    with Image.open(path) as im:
        return np.asarray(im.convert("L"), dtype=np.uint8)


def measure(mask: np.ndarray, ids) -> dict[int, dict]:
    """Visible pixel count and 2D box [x0, y0, x1, y1] (x1, y1 exclusive) per object id."""
    counts = np.bincount(mask.ravel(), minlength=256)
    out = {}
    for i in ids:
        n = int(counts[i]) if i < len(counts) else 0
        if n == 0:
            out[i] = {"visible_pixels": 0, "bbox": None}
            continue
        ys, xs = np.nonzero(mask == i)
        out[i] = {"visible_pixels": n,
                  "bbox": [int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1]}
    return out


VISIBLE, AMBIGUOUS, HIDDEN = "visible", "ambiguous", "hidden"


def visibility(pixels: int, visible_from: int, hidden_below: int) -> str:
    """The visibility band: visible from `visible_from` mask pixels, hidden below `hidden_below`,
    ambiguous in between (a person may or may not make the object out)."""
    if pixels >= visible_from:
        return VISIBLE
    return HIDDEN if pixels < hidden_below else AMBIGUOUS
