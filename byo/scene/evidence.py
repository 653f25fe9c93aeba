"""Readability evidence measured on the rendered image: how each object shows in the final
(blurred, denoised) pixels, not in the sharp instance mask. Pure numpy / scipy / scikit-image;
the question generator and `byo audit` both measure it from the dataset's image and mask files
(so a dataset rendered elsewhere is judged the same way), and the thresholds below decide.

Per object, over its visible region (the mask pixels of its id and of its parts' ids):

- `contrast`: |median grey inside - median grey of the 3-px ring around it| (grey levels 0-255);
- `edge`: mean grey gradient (levels per pixel) on the region's boundary;
- `seam`: the mean grey step across its border with other objects (how visibly it is
  separated from the object it overlaps or that overlaps it); None where it touches none;
- `ink`: pixels inside the region (one pixel in from its boundary) darker by INK_STEP grey
  levels than the region's 90th percentile: print, a corner index, a pip;
- `lab`: the median CIELAB colour (D65) of the region;
- `weber`: the Weber contrast of linear luminance (Y, sRGB decoded) of the region against its
  local background (the ring's pixels no object covers, else the whole ring): (Y_object -
  Y_background) / Y_background, medians. A ratio of luminances, so it holds across exposure: a grey
  cone on the grey floor measures -0.41 to -0.44 from lighting x0.02 to x2.0 (docs/readability.md);
- `standout`: |Y_object - Y_background| over the background's own spread (the interquartile range
  of its luminance): a chequered board smeared by blur varies as much as a piece on it differs.

The rules (thresholds from bench/readability.py; docs/readability.md publishes the calibration):

- an object **shows** as a thing of its own when `contrast >= SHOW_CONTRAST` or
  `edge >= SHOW_EDGE`, or it stands out from its local background (`stands_out`: |weber| at least
  PRESENT_WEBER, `standout` at least PRESENT_STANDOUT and a step of at least MIN_STEP grey levels):
  counted, located and asked about only then;
- a card (or any object) that **overlaps** others is **separable** when its strip shows ink
  (`ink >= SEPARATE_INK`) or a seam (`seam >= SEPARATE_SEAM`);
- a **colour reads** when the median colour is nearer (CIEDE2000, lightness weighted down by
  LIGHTNESS_WEIGHT) the object's own palette colour than any other palette colour, black or
  white by at least COLOUR_MARGIN.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import scipy  # scipy.ndimage and skimage.color load on first use: most commands never need them
import skimage

RING_PX = 3  # the ring of surroundings the contrast is measured against
INK_STEP = 40.0  # grey levels below the region's 90th percentile that count as ink
# Calibrated in bench/readability.py (docs/readability.md).
SHOW_CONTRAST = 24.0
SHOW_EDGE = 5.0
SEPARATE_INK = 7
SEPARATE_SEAM = 9.0
COLOR_MARGIN = 1.0  # one just-noticeable difference (ΔE00)
# CIEDE2000's lightness weight kL: shading and reflections change a surface's lightness far more
# than its hue, and a person names the hue (a shaded yellow sphere is yellow); 4 keeps every
# matte example its own colour by a margin and refuses issue 25's green-rendered yellow cube.
LIGHTNESS_WEIGHT = 4.0
# Colours a person may name any object by, whatever the palette: a gray metal cube that renders
# near black is called black.
PLAIN_COLORS = {"black": (0.02, 0.02, 0.02), "white": (0.95, 0.95, 0.95)}
# Presence relative to the scene (calibrated over the lighting presets and blur in
# bench/presence_weber.py, docs/readability.md "Presence relative to the scene"): an object stands
# out from its local background from this Weber contrast of linear luminance and this many times the
# background's own spread, and is not seen at all below HIDDEN_WEBER or HIDDEN_STANDOUT; an absolute
# step of MIN_STEP grey levels (8-bit sRGB luma) is also needed (a ratio of two near-black levels is noise).
PRESENT_WEBER = 0.2
HIDDEN_WEBER = 0.1
PRESENT_STANDOUT = 1.5
HIDDEN_STANDOUT = 1.0
MIN_STEP = 3.0
_LUMINANCE = np.array([0.2126, 0.7152, 0.0722])  # Rec. 709 / sRGB primaries, linear light


@dataclass(frozen=True)
class Evidence:
    """How one object shows in the rendered image."""

    pixels: int
    contrast: float
    edge: float
    seam: float | None
    ink: int
    lab: tuple[float, float, float]
    weber: float = 0.0
    step: float = 0.0  # |median grey inside - median grey of the local background| (grey levels)
    standout: float = 0.0

    def to_json(self, digits: int | None = 2) -> dict:
        """The evidence as JSON, floats rounded to `digits` (None: as measured, for decisions: a
        standout of 1.498 rounded to 1.5 would pass the 1.5 threshold the audit's own measure fails)."""
        def rounded(v: float) -> float:
            return v if digits is None else round(v, digits)
        return {k: (rounded(v) if isinstance(v, float) else v) for k, v in asdict(self).items()} | {
            "lab": [rounded(c) for c in self.lab]}

    @property
    def shows(self) -> bool:
        return shows(self)

    @property
    def separable(self) -> bool:
        return separable(self)


def shows(e: Evidence) -> bool:
    return e.contrast >= SHOW_CONTRAST or e.edge >= SHOW_EDGE or stands_out(e.weber, e.step, e.standout)


def stands_out(weber: float, step: float, standout: float, nearly: bool = False) -> bool:
    """Whether an object of this Weber contrast, grey step and standout against its local
    background is seen (`nearly`: at the lower thresholds, below which it is not seen at all)."""
    w, k = (HIDDEN_WEBER, HIDDEN_STANDOUT) if nearly else (PRESENT_WEBER, PRESENT_STANDOUT)
    return abs(weber) >= w and standout >= k and step >= MIN_STEP


def linear_luminance(rgb: np.ndarray) -> np.ndarray:
    """Relative luminance Y (0-1, linear light) of an 8-bit sRGB image."""
    c = rgb[..., :3].astype(np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4) @ _LUMINANCE


def weber_contrast(luminance: np.ndarray, g: np.ndarray, region: np.ndarray,
                   background: np.ndarray) -> tuple[float, float, float]:
    """(Weber contrast, grey step, standout) of `region` against `background` (boolean masks of
    one crop): medians of linear luminance and of grey, the luminance step over the background's
    interquartile range; zeros without background pixels."""
    if not background.any() or not region.any():
        return 0.0, 0.0, 0.0
    y_obj, y_bg = float(np.median(luminance[region])), float(np.median(luminance[background]))
    q1, q3 = np.percentile(luminance[background], [25, 75])
    step = abs(float(np.median(g[region])) - float(np.median(g[background])))
    return (y_obj - y_bg) / max(y_bg, 1e-4), step, abs(y_obj - y_bg) / max(float(q3 - q1), 1e-5)


def separable(e: Evidence) -> bool:
    return e.ink >= SEPARATE_INK or (e.seam is not None and e.seam >= SEPARATE_SEAM)


def grey(rgb: np.ndarray) -> np.ndarray:
    """Luma (ITU-R 601) of an 8-bit RGB image, as float grey levels."""
    rgb = rgb[..., :3].astype(np.float64)
    return rgb @ np.array([0.299, 0.587, 0.114])


def measure_objects(rgb: np.ndarray, mask: np.ndarray, ids: Mapping[int, Sequence[int]]) -> dict[int, Evidence]:
    """Evidence of each object (object id -> its mask ids, its own and its parts') that shows at
    least one pixel; `rgb` is the rendered image (H x W x 3 or 4, 8-bit), `mask` the instance ids."""
    if rgb.shape[:2] != mask.shape:
        raise ValueError(f"the image is {rgb.shape[1]}x{rgb.shape[0]}, its mask {mask.shape[1]}x{mask.shape[0]}")
    g = grey(rgb)
    luminance = linear_luminance(rgb)
    gy, gx = np.gradient(g)
    gradient = np.hypot(gx, gy)
    anything = mask > 0
    clean = anything & ~scipy.ndimage.binary_dilation(~anything, structure=np.ones((3, 3), bool))
    boxes = scipy.ndimage.find_objects(mask)  # box of mask id k at k - 1
    pad = RING_PX + 2  # every measure below looks at most this far beyond the object
    out = {}
    for oid, own in ids.items():
        found = [boxes[i - 1] for i in own if 0 < i <= len(boxes) and boxes[i - 1] is not None]
        if not found:
            continue
        y0, y1 = max(0, min(b[0].start for b in found) - pad), min(mask.shape[0], max(b[0].stop for b in found) + pad)
        x0, x1 = max(0, min(b[1].start for b in found) - pad), min(mask.shape[1], max(b[1].stop for b in found) + pad)
        out[oid] = _measure(rgb[y0:y1, x0:x1], mask[y0:y1, x0:x1], g[y0:y1, x0:x1], gradient[y0:y1, x0:x1],
                            anything[y0:y1, x0:x1], clean[y0:y1, x0:x1], own, luminance[y0:y1, x0:x1])
    return out


def _measure(rgb, mask, g, gradient, anything, clean, own, luminance) -> Evidence:
    """One object's evidence, in a crop of the image around it (see measure_objects)."""
    region = np.isin(mask, list(own))
    n = int(region.sum())
    ring = scipy.ndimage.binary_dilation(region, iterations=RING_PX) & ~region
    boundary = region & ~scipy.ndimage.binary_erosion(region, border_value=1)
    # away from the background: a pixel whose neighbours are all objects (its own or another)
    inner = region & clean
    inside = g[region]
    contrast = abs(float(np.median(inside)) - float(np.median(g[ring]))) if ring.any() else 0.0
    ink = int((g[inner] < np.percentile(inside, 90) - INK_STEP).sum()) if inner.any() else 0
    lab = skimage.color.rgb2lab(rgb[..., :3][region].reshape(-1, 1, 3).astype(np.float64) / 255.0).reshape(-1, 3)
    seam = _seam(g, region, anything & ~region, clean)
    # the local background: the ring one pixel out (past the outline's blend), what no object covers
    outer = ring & ~scipy.ndimage.binary_dilation(region)
    local = outer & ~anything if (outer & ~anything).any() else (outer if outer.any() else ring)
    weber, step, standout = weber_contrast(luminance, g, region, local)
    return Evidence(n, contrast, float(gradient[boundary].mean()), seam, ink,
                    tuple(float(v) for v in np.median(lab, axis=0)), weber, step, min(standout, 999.0))


def _seam(g: np.ndarray, region: np.ndarray, others: np.ndarray, clean: np.ndarray) -> float | None:
    """Mean grey step across the region's border with other objects (4-neighbour pairs, one pixel
    in the region and one in another object, both away from the background, whose blend with
    the object's outline is no seam); None where it borders no other object, 0 where it does
    only next to the background."""
    steps, touches = [], False
    for axis in (0, 1):
        for a, b in ((region, others), (others, region)):
            lo = [slice(None)] * 2
            hi = [slice(None)] * 2
            lo[axis], hi[axis] = slice(None, -1), slice(1, None)
            pairs = a[tuple(lo)] & b[tuple(hi)]
            touches |= bool(pairs.any())
            pairs &= clean[tuple(lo)] & clean[tuple(hi)]
            steps.append(np.abs(g[tuple(lo)] - g[tuple(hi)])[pairs])
    steps = np.concatenate(steps)
    if not touches:
        return None
    return float(steps.mean()) if steps.size else 0.0


def srgb_lab(srgb: Sequence[float]) -> np.ndarray:
    """CIELAB of an sRGB colour given in 0-1."""
    return skimage.color.rgb2lab(np.asarray(srgb, dtype=np.float64).reshape(1, 1, 3)).reshape(3)


def color_margin(lab: Sequence[float], own: str, palette: Mapping[str, Sequence[float]]) -> tuple[float, str]:
    """(margin, nearest name): CIEDE2000 (kL = LIGHTNESS_WEIGHT) from the rendered `lab` to the
    nearest colour other than `own` (the palette, name -> sRGB 0-1, and PLAIN_COLOURS), minus the
    distance to `own`. Positive: nearer its own. Kept per (lab, own, palette): a question key asks
    it of every object of an image, and an image has hundreds of keys (COMPASS's 323)."""
    return _color_margin(tuple(float(v) for v in lab), own,
                          tuple((name, tuple(float(v) for v in c)) for name, c in palette.items()))


@functools.lru_cache(maxsize=65536)
def _color_margin(lab: tuple[float, ...], own: str, palette: tuple) -> tuple[float, str]:
    distance = _distances(lab, palette)
    nearest = min(distance, key=distance.__getitem__)
    rivals = [d for name, d in distance.items() if name != own]
    return (min(rivals) if rivals else float("inf")) - distance[own], nearest


def _distances(lab: tuple[float, ...], palette: tuple) -> dict[str, float]:
    """CIEDE2000 (kL = LIGHTNESS_WEIGHT) from `lab` to each colour of PLAIN_COLOURS and `palette`."""
    colors = {**PLAIN_COLORS, **dict(palette)}
    labs = _palette_lab(tuple(colors.items()))
    d = skimage.color.deltaE_ciede2000(np.broadcast_to(np.asarray(lab, dtype=np.float64), labs.shape), labs, kL=LIGHTNESS_WEIGHT)
    return {name: float(v) for name, v in zip(colors, d, strict=True)}


@functools.lru_cache(maxsize=256)
def _palette_lab(colors: tuple) -> np.ndarray:
    """CIELAB of each (name, sRGB 0-1) colour, in order, one row each."""
    return np.stack([srgb_lab(c) for _, c in colors])


def color_reads(lab: Sequence[float], own: str, palette: Mapping[str, Sequence[float]]) -> bool:
    return color_margin(lab, own, palette)[0] >= COLOR_MARGIN


def read_as(lab: Sequence[float], own: str, palette: Mapping[str, Sequence[float]]) -> tuple[str, ...]:
    """The colours other than `own` (the palette and PLAIN_COLOURS) the rendered `lab` could be read
    as: not farther than the distance to `own` plus COLOR_MARGIN (CIEDE2000, as color_margin), nearest
    first. Empty exactly when color_reads."""
    return _read_as(tuple(float(v) for v in lab), own, tuple((name, tuple(float(v) for v in c)) for name, c in palette.items()))


@functools.lru_cache(maxsize=65536)
def _read_as(lab: tuple[float, ...], own: str, palette: tuple) -> tuple[str, ...]:
    distance = _distances(lab, palette)
    return tuple(sorted((name for name, v in distance.items() if name != own and v - distance[own] < COLOR_MARGIN),
                        key=distance.__getitem__))
