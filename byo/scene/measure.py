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
# The visibility band, in mask pixels of the image as rendered. An object is visible from
# render.min_visible_pixels mask pixels, hidden below HIDDEN_FRACTION of that
# (render.hidden_fraction), ambiguous in between. A family may set its own floor, calibrated for
# its objects (chess: a piece's outline; byo/families/*/model.py); otherwise the floor is
# CLEVR's, in the image's terms: its generator asks every object to cover at least
# `min_pixels_per_object` = 200 pixels of its default 320x240 image (render_images.py), the
# share 200 / (320 x 240) of the image, and `scaled_floor` asks the same share of any size.
MIN_VISIBLE_PIXELS = 200
MIN_VISIBLE_AT = (320, 240)  # the image size CLEVR's 200 px are stated for
HIDDEN_FRACTION = 0.25


def scaled_floor(pixels: int) -> int:
    """CLEVR's floor for an image of `pixels` pixels (width x height): MIN_VISIBLE_PIXELS at
    MIN_VISIBLE_AT, scaled with the area (at least 1 px): 112 px at 240x180, 800 px at 640x480."""
    return max(1, round(MIN_VISIBLE_PIXELS * pixels / (MIN_VISIBLE_AT[0] * MIN_VISIBLE_AT[1])))


def hidden_below(min_visible_pixels: int, hidden_fraction: float = HIDDEN_FRACTION) -> int:
    """Mask pixels below which an object is hidden (at least 1)."""
    return max(1, round(hidden_fraction * min_visible_pixels))


def visibility(pixels: int, visible_from: int, hidden_below: int) -> str:
    """The visibility band: visible from `visible_from` mask pixels, hidden below `hidden_below`,
    ambiguous in between (a person may or may not make the object out)."""
    if pixels >= visible_from:
        return VISIBLE
    return HIDDEN if pixels < hidden_below else AMBIGUOUS
