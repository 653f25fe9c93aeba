"""A small pure-Python rasterizer for crest geometry (previews and tests; renders use Blender)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw
from shapely.geometry.base import BaseGeometry


def rasterize(g: BaseGeometry, size: int = 256, extent: float = 1.05, supersample: int = 2) -> np.ndarray:
    """Boolean (size, size) array, True where the shape covers the pixel centre (after
    `supersample`-fold supersampling and a majority vote). The canvas [-extent, extent]^2 fills
    the image, y up."""
    n = size * supersample
    out = np.zeros((n, n), dtype=bool)

    def px(coords):
        return [((x + extent) / (2 * extent) * n - 0.5, (extent - y) / (2 * extent) * n - 0.5) for x, y in coords]

    for poly in getattr(g, "geoms", [g]):
        if poly.is_empty:
            continue
        im = Image.new("1", (n, n), 0)
        draw = ImageDraw.Draw(im)
        draw.polygon(px(poly.exterior.coords), fill=1)
        for hole in poly.interiors:
            draw.polygon(px(hole.coords), fill=0)
        out |= np.asarray(im, dtype=bool)
    if supersample > 1:
        out = out.reshape(size, supersample, size, supersample).mean(axis=(1, 3)) >= 0.5
    return out


def to_image(mask: np.ndarray, ink=(0, 0, 0), ground=(255, 255, 255)) -> Image.Image:
    rgb = np.where(mask[..., None], np.array(ink, np.uint8), np.array(ground, np.uint8))
    return Image.fromarray(rgb.astype(np.uint8), "RGB")
