"""Counterfactual readability, pure numpy / scikit-image: an answer is decidable from an image
when every other answer would have produced a visibly different image, and a renderer can test
that directly. For each object the render measures (byo/render/counterfactuals.py, with the
Blender side in byo/blender/regions.py and the family builder's `build_objects`):

- `presence`: the image without the object, against the image with it (at the rank of half its
  mask pixels when it has fewer than 2 x TOP_PIXELS: `presence_rank`);
- for each attribute its family declares (`Family.alternatives`: CLEVR's shape, material and
  size, a chess piece's type...), the image with each other value of it, same pose, light,
  camera, blur and samples.

Both images are renders of the object's region (its box in the mask and every alternative's
projected box, widened by the blur disc) at the image's resolution with the same seed, so that
they differ only where the change reaches. The *difference* of a change is how far apart
(CIEDE2000) the two renders are at their TOP_PIXELS-th most changed pixel, each render smoothed
by a Gaussian of SMOOTH_PX first (pooling the few samples' grain, as the eye pools it): a change
shows when that many pixels of the image as rendered change by at least MIN_DIFFERENCE, a
colour difference plain at a glance (`visible`). The legend records, per object, its mask pixels
(`area`) and the difference of each change.

The rules built on it, for the question generator and `byo audit` alike:

- an object is **present** when removing it is a visible change: counts, existence and relations
  rest on the objects that are;
- an attribute **reads** when every alternative value the question could be answered with is a
  visible change (`reads`; `tells_apart` for the values that would change one answer).

Thresholds from bench/counterfactual.py; docs/readability_calibration.md publishes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import scipy  # scipy.ndimage and skimage.color load on first use: most commands never need them
import skimage

from byo.scene.measure import AMBIGUOUS, HIDDEN, VISIBLE

PRESENCE = "presence"
LEGEND_FIELD = "counterfactual"  # the legend object's field holding what the render measured
# Calibrated in bench/counterfactual.py (docs/readability_calibration.md).
SMOOTH_PX = 0.5
TOP_PIXELS = 32
MIN_DIFFERENCE = 14.0  # ΔE00
# Presence: an object whose removal differs by less than this share of MIN_DIFFERENCE is not seen
# at all; between that and MIN_DIFFERENCE, a person may or may not make it out (ambiguous).
HIDDEN_SHARE = 0.5


def _lab(rgb: np.ndarray) -> np.ndarray:
    return skimage.color.rgb2lab(np.asarray(rgb)[..., :3].astype(np.float64) / 255.0)


def pixel_differences(truth: np.ndarray, other: np.ndarray) -> np.ndarray:
    """CIEDE2000 between two renders of one region (H x W x 3, 8-bit sRGB), each smoothed by
    SMOOTH_PX, per pixel."""
    if truth.shape != other.shape:
        raise ValueError(f"renders of one region differ in size: {truth.shape} and {other.shape}")
    a, b = (scipy.ndimage.gaussian_filter(_lab(x), (SMOOTH_PX, SMOOTH_PX, 0)) for x in (truth, other))
    return skimage.color.deltaE_ciede2000(a, b)


def difference(truth: np.ndarray, other: np.ndarray, top: int = TOP_PIXELS) -> float:
    """The difference of a change: the CIEDE2000 of the `top`-th most changed pixel (0 for a
    region smaller than that), rounded to 0.1."""
    d = np.sort(pixel_differences(truth, other).ravel())
    return round(float(d[-top]), 1) if d.size >= top else 0.0


def presence_rank(area: int) -> int:
    """The rank at which an object's removal is measured: TOP_PIXELS, or half its mask pixels for
    an object smaller than twice that (a 20 px object cannot change 32 pixels: it shows when half
    of it changes by MIN_DIFFERENCE)."""
    return max(1, min(TOP_PIXELS, -(-area // 2)))


def visible(difference: float) -> bool:
    """Whether a change of this difference shows in the image."""
    return difference >= MIN_DIFFERENCE


Box = tuple[int, int, int, int]


def region(boxes: Iterable[Box | None], blur_px: float, size: tuple[int, int]) -> Box | None:
    """The region the renders compare: the union of `boxes` ([x0, y0, x1, y1), pixels), widened
    by the blur disc's radius and 2 px, within the image (`size`: width, height)."""
    found = [b for b in boxes if b is not None]
    if not found:
        return None
    pad = int(np.ceil(blur_px / 2)) + 2
    w, h = size
    x0, y0 = max(0, min(b[0] for b in found) - pad), max(0, min(b[1] for b in found) - pad)
    x1, y1 = min(w, max(b[2] for b in found) + pad), min(h, max(b[3] for b in found) + pad)
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


@dataclass(frozen=True)
class Measured:
    """What the renders measured of one object: its mask pixels, the differing pixels without
    it, and for each attribute the differing pixels of each other value."""

    area: int
    presence: float
    alternatives: Mapping[str, Mapping[str, float]]

    def to_json(self) -> dict:
        return {"area": self.area, PRESENCE: self.presence,
                **{a: dict(sorted(v.items())) for a, v in sorted(self.alternatives.items())}}

    @classmethod
    def from_json(cls, data: Mapping) -> Measured:
        return cls(int(data["area"]), float(data[PRESENCE]),
                   {k: {str(v): float(n) for v, n in values.items()} for k, values in data.items()
                    if k not in ("area", PRESENCE)})


def measured(o: Mapping) -> Measured | None:
    """The counterfactual measurements of a legend object; None where the render took none."""
    data = o.get(LEGEND_FIELD)
    return Measured.from_json(data) if data else None


def presence(m: Measured) -> str:
    """The object's band by its presence: visible when removing it is a visible change, hidden
    below HIDDEN_SHARE of that difference (a person does not make it out), ambiguous between (a
    person may or may not: questions that depend on it are not asked)."""
    if visible(m.presence):
        return VISIBLE
    return AMBIGUOUS if m.presence >= HIDDEN_SHARE * MIN_DIFFERENCE else HIDDEN


BANDS = (HIDDEN, AMBIGUOUS, VISIBLE)


def lower(a: str, b: str) -> str:
    """The lower of two visibility bands."""
    return min(a, b, key=BANDS.index)


def unreadable_values(m: Measured, attribute: str, values: Iterable[str] | None = None) -> list[str] | None:
    """The alternative values of `attribute` (those in `values`, or all measured) whose change
    does not show; None when the attribute was not measured."""
    if attribute not in m.alternatives:
        return None
    found = m.alternatives[attribute]
    wanted = found if values is None else [v for v in values if v in found]
    return [v for v in wanted if not visible(found[v])]
