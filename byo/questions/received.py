"""Questions decided at the size a model receives (`byo questions --for MODEL`).

A provider resizes the image before its model looks (byo.providers.image_pipeline), so a
question readable at the rendered size may not be at the received one: BYO-Eval's 24 px pawn at
7.5 m reaches GPT-4.1 at about 17 px, under the chess silhouette rule's 20. Here an image and its
mask are resampled to the received size (the image bicubic, as Qwen2-VL's and CLIP's processors
resample, the closest documented filter for the APIs, which publish none; the mask nearest), the
legend's pixel measures scaled with them (boxes, pixel coordinates, the resolution the blur is
computed at) and measured again on the resampled mask (each object's visible pixels, hence its
visibility band: the config's floor in pixels, or CLEVR's share of the image where the floor is
that share), and the family's rules asked again on that.

The counterfactual check: a dataset rendered for the model (`byo render --for MODEL`, or `byo run
--received-size`) carries, per object, the check measured on its renders resampled to the size
the model receives (`counterfactual.received`, byo.scene.counterfactual.AtReceived): presence and
every attribute's alternatives are decided on that. Elsewhere the renders are not kept to be
resampled: presence stays as rendered, and the attributes' differences, measured at the rendered
resolution, are set aside at a smaller size (the family's own pixel rules decide); `AtSize.check`
says which. Deviations, named: merges (blurred objects told apart) stay as rendered; a centre
crop's cut-away margin is not removed (the objects there are judged at the received scale).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from PIL import Image

from byo.scene import counterfactual
from byo.scene.measure import VISIBLE, hidden_below, scaled_floor, visibility

# A model's rule: the sent (width, height) -> the image's own pixels as received, None if unknown.
Receiver = Callable[[int, int], "tuple[int, int] | None"]


# How the counterfactual check was decided at a received size (AtSize.check)
AT_RECEIVED = "received"  # on the renders resampled to it (byo render --for)
AS_RENDERED = "rendered"  # presence as rendered, attributes set aside
NO_CHECK = "none"  # the render measured none


@dataclass(frozen=True)
class AtSize:
    """An image as a model receives it: the resampled pixels and mask, the legend's pixel
    measures scaled to them, and how its counterfactual check was taken (`check`)."""

    size: tuple[int, int]
    rgb: np.ndarray
    mask: np.ndarray
    legend: dict
    check: str = NO_CHECK


def _scale_box(box, sx: float, sy: float):
    x0, y0, x1, y1 = box
    return [math.floor(x0 * sx), math.floor(y0 * sy), max(math.floor(x0 * sx) + 1, round(x1 * sx)),
            max(math.floor(y0 * sy) + 1, round(y1 * sy))]


def received_check(data: Mapping, size: tuple[int, int]) -> dict | None:
    """The legend object's counterfactual check as measured at `size` (an AtReceived of the model,
    or of any model receiving that size), as a Measured's JSON with the rendered merges; None
    where the render measured none there."""
    for entry in (data.get(counterfactual.RECEIVED_FIELD) or {}).values():
        got = counterfactual.AtReceived.from_json(entry)
        if got.size == tuple(size):
            return got.as_measured(counterfactual.Measured.from_json(data).merged).to_json()
    return None


def scaled_object(o: Mapping, sx: float, sy: float, size: tuple[int, int] | None = None) -> tuple[dict, str]:
    """One legend object's pixel measures at `sx` x `sy` received pixels per rendered pixel (the
    image received at `size`), and how its counterfactual check was taken."""
    out = dict(o)
    if o.get("bbox"):
        out["bbox"] = _scale_box(o["bbox"], sx, sy)
    if o.get("pixel_coords"):
        x, y, *rest = o["pixel_coords"]
        out["pixel_coords"] = [x * sx, y * sy, *rest]
    if isinstance(o.get("visible_pixels"), int | float):
        out["visible_pixels"] = round(o["visible_pixels"] * sx * sy)
    data = o.get(counterfactual.LEGEND_FIELD)
    if not data:
        return out, NO_CHECK
    if sx >= 1 and sy >= 1:
        return out, AT_RECEIVED  # received whole: the check as rendered is the check as received
    if size is not None and (at := received_check(data, size)) is not None:
        out[counterfactual.LEGEND_FIELD] = at
        return out, AT_RECEIVED
    out[counterfactual.LEGEND_FIELD] = {k: v for k, v in data.items()
                                        if k in ("area", counterfactual.PRESENCE, counterfactual.MERGE_FIELD)}
    return out, AS_RENDERED


def received_floor(legend: Mapping, size: tuple[int, int]) -> tuple[int, int] | None:
    """The visibility band at `size` (visible from, hidden below), in mask pixels: the legend's
    floor in pixels as rendered, or, where that floor is CLEVR's share of the rendered image
    (byo.scene.measure.scaled_floor), the same share of the received one. None without a floor."""
    setup = legend.get("setup") or {}
    floor, hidden = setup.get("min_visible_pixels"), setup.get("hidden_below_pixels")
    if not isinstance(floor, int) or not isinstance(hidden, int):
        return None
    width, height = legend.get("width"), legend.get("height")
    if isinstance(width, int) and isinstance(height, int) and floor == scaled_floor(width * height) != 1:
        share = scaled_floor(size[0] * size[1])
        return share, hidden_below(share, hidden / floor)
    return floor, hidden


def _banded(objects: list[dict], legend: Mapping, mask: np.ndarray, size: tuple[int, int]) -> list[dict]:
    """Each object's visible pixels and visibility band measured on the received mask (with its
    parts'), where the legend gives a band."""
    band = received_floor(legend, size)
    if band is None:
        return objects
    counts = np.bincount(mask.ravel(), minlength=256)
    parts: dict[int, list[int]] = {}
    for p in legend.get("parts", []):
        parts.setdefault(p["object"], []).append(p["id"])
    out = []
    for o in objects:
        if "visibility" not in o or not isinstance(o.get("id"), int):
            out.append(o)
            continue
        pixels = int(sum(counts[i] for i in (o["id"], *parts.get(o["id"], ())) if 0 <= i < counts.size))
        seen = visibility(pixels, *band)
        out.append({**o, "visible_pixels": pixels, "visibility": seen, "visible": seen == VISIBLE})
    return out


def worse_check(a: str | None, b: str) -> str:
    """Of two images' checks, the one that says least (as rendered before at the received size)."""
    order = (AS_RENDERED, AT_RECEIVED, NO_CHECK)
    return b if a is None else min(a, b, key=order.index)


def at_size(legend: dict, rgb: np.ndarray, mask: np.ndarray, size: tuple[int, int]) -> AtSize:
    """The image, its mask and its legend as received at `size` (width, height)."""
    height, width = mask.shape[:2]
    sx, sy = size[0] / width, size[1] / height
    small_rgb = np.asarray(Image.fromarray(rgb).resize(size, Image.Resampling.BICUBIC))
    small_mask = np.asarray(Image.fromarray(mask).resize(size, Image.Resampling.NEAREST))
    setup = {**legend["setup"], "resolution": list(size)} if "setup" in legend else None
    scaled = [scaled_object(o, sx, sy, size) for o in legend["objects"]]
    checks = {how for _, how in scaled} - {NO_CHECK}
    objects = _banded([o for o, _ in scaled], legend, small_mask, size)
    small = {**legend, "width": size[0], "height": size[1], **({"setup": setup} if setup else {}), "objects": objects}
    check = AS_RENDERED if AS_RENDERED in checks else AT_RECEIVED if checks else NO_CHECK
    return AtSize(size, small_rgb, small_mask, small, check)
