"""A small pure-Python rasterizer for crest geometry (previews and tests; renders use Blender)."""

from __future__ import annotations

import numpy as np
import shapely
from PIL import Image
from shapely.geometry.base import BaseGeometry


def rasterize(g: BaseGeometry, size: int = 256, extent: float = 1.05, supersample: int = 1) -> np.ndarray:
    """Boolean (size, size) array, True where the shape covers the pixel centre (with
    `supersample` > 1: covers most of the pixel's sub-sample centres). The canvas
    [-extent, extent]^2 fills the image, y up; pixel (i, j) covers [i, i+1) x [j, j+1)."""
    n = size * supersample
    centres = (np.arange(n) + 0.5) / n * 2 * extent - extent
    x, y = np.meshgrid(centres, -centres)
    shapely.prepare(g)
    inside = shapely.contains_xy(g, x, y)
    if supersample > 1:
        inside = inside.reshape(size, supersample, size, supersample).mean(axis=(1, 3)) >= 0.5
    return inside


def to_image(mask: np.ndarray, ink=(0, 0, 0), ground=(255, 255, 255)) -> Image.Image:
    rgb = np.where(mask[..., None], np.array(ink, np.uint8), np.array(ground, np.uint8))
    return Image.fromarray(rgb.astype(np.uint8), "RGB")
