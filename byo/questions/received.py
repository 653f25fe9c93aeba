"""Questions decided at the size a model receives (`byo questions --for MODEL`).

A provider resizes the image before its model looks (byo.providers.image_pipeline), so a
question readable at the rendered size may not be at the received one: BYO-Eval's 24 px pawn at
7.5 m reaches GPT-4.1 at about 17 px, under the chess silhouette rule's 20. Here an image and its
mask are resampled to the received size (the image bicubic, as Qwen2-VL's and CLIP's processors
resample, the closest documented filter for the APIs, which publish none; the mask nearest), the
legend's pixel measures scaled with them (boxes, pixel coordinates, visible pixels, the
resolution the blur is computed at), and the family's rules asked again on that.

Deviations, named: the visibility bands and the counterfactual presence check stay as the render
measured them (their renders are not kept to be resampled); the counterfactual differences of an
attribute (CLEVR's shape, a piece's type) are measured at the rendered resolution and do not
transfer to a smaller one, so at a received size below the rendered one they are set aside and
the family's own pixel rules decide; a centre crop's cut-away margin is not removed (the objects
there are judged at the received scale).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from PIL import Image

from byo.scene import counterfactual

# A model's rule: the sent (width, height) -> the image's own pixels as received, None if unknown.
Receiver = Callable[[int, int], "tuple[int, int] | None"]


@dataclass(frozen=True)
class AtSize:
    """An image as a model receives it: the resampled pixels and mask, and the legend's pixel
    measures scaled to them."""

    size: tuple[int, int]
    rgb: np.ndarray
    mask: np.ndarray
    legend: dict


def _scale_box(box, sx: float, sy: float):
    x0, y0, x1, y1 = box
    return [math.floor(x0 * sx), math.floor(y0 * sy), max(math.floor(x0 * sx) + 1, round(x1 * sx)),
            max(math.floor(y0 * sy) + 1, round(y1 * sy))]


def scaled_object(o: Mapping, sx: float, sy: float) -> dict:
    """One legend object's pixel measures at `sx` x `sy` received pixels per rendered pixel."""
    out = dict(o)
    if o.get("bbox"):
        out["bbox"] = _scale_box(o["bbox"], sx, sy)
    if o.get("pixel_coords"):
        x, y, *rest = o["pixel_coords"]
        out["pixel_coords"] = [x * sx, y * sy, *rest]
    if isinstance(o.get("visible_pixels"), int | float):
        out["visible_pixels"] = round(o["visible_pixels"] * sx * sy)
    if (data := o.get(counterfactual.LEGEND_FIELD)) and (sx < 1 or sy < 1):
        out[counterfactual.LEGEND_FIELD] = {k: v for k, v in data.items()
                                            if k in ("area", counterfactual.PRESENCE, counterfactual.MERGE_FIELD)}
    return out


def at_size(legend: dict, rgb: np.ndarray, mask: np.ndarray, size: tuple[int, int]) -> AtSize:
    """The image, its mask and its legend as received at `size` (width, height)."""
    height, width = mask.shape[:2]
    sx, sy = size[0] / width, size[1] / height
    small_rgb = np.asarray(Image.fromarray(rgb).resize(size, Image.Resampling.BICUBIC))
    small_mask = np.asarray(Image.fromarray(mask).resize(size, Image.Resampling.NEAREST))
    setup = {**legend["setup"], "resolution": list(size)} if "setup" in legend else None
    scaled = {**legend, "width": size[0], "height": size[1], **({"setup": setup} if setup else {}),
              "objects": [scaled_object(o, sx, sy) for o in legend["objects"]]}
    return AtSize(size, small_rgb, small_mask, scaled)
