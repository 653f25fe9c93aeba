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
  visible change (`reads`; `tells_apart` for the values that would change one answer);
- two objects blurred together (a disc of MERGE_MIN_BLUR_PX or more at both) are **told apart**
  when their removals' difference maps, added, dip between their peaks (`merge_ratio`: the
  highest level at which a path joins the two peaks, over the lower peak, stays under
  MAX_MERGE): a count rests on objects told apart from one another, since a person counts
  blobs, and two objects that blur into one blob read as one (`merged_pair`).

The renders of objects whose regions (widened by GROUP_MARGIN) do not overlap are shared where
that is cheaper: one render per alternative for a whole group (`groups`), each object's region
cropped from it. A first pass renders at half the samples the changes it may settle
(`may_settle`); only those it leaves near the threshold (`settled`), and the rest, are rendered at
the check's samples.

Thresholds from bench/counterfactual.py; docs/readability_calibration.md publishes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

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
# A removal under blur is measured on renders smoothed by the blur disc over this (presence_smoothing):
# the pooling at which 4 samples give what 64 give (mean error 0.74 ΔE00 on bench/separation.py's pairs).
PRESENCE_POOLING = 12
# Two objects read as one blob when the saddle between their removals' peaks is this share of the
# lower peak or more (judged by eye on bench/separation.py's grid, docs/readability_calibration.md).
MAX_MERGE = 0.4
MERGE_SMOOTH_PX = 1.5  # the least pooling of a difference map before its peaks are found
# Blur merges objects into blobs; sharp objects that touch keep their outlines, faces and seams,
# which the added differences do not see (two overlapping cards' faces differ where one covers
# the other: 0.91 at overlap 0.6, sharp), and the overlap rule judges them. A pair is measured
# when the blur disc at both is at least this wide.
MERGE_MIN_BLUR_PX = 4.0
EDGE_STEP_PX = 2  # an edge between two objects: a visible change across this many pixels
MERGE_FIELD = "merged"  # Measured's JSON: other object's id -> merge_ratio, for regions that overlap
# Grouping of the region renders: regions widened by this share of their larger side (shadows and
# reflections reach past an object's box) and at least GROUP_MARGIN_PX must not overlap, and a
# render shared by n regions may cover at most GROUP_RENDER_PIXELS x (n - 1) pixels more than
# they do: a region render's fixed cost is worth that many pixels of its work (Cycles, 4 samples:
# about 3 ms against 9 us a pixel, bench/counterfactual_groups.py). Past that, one render each.
GROUP_MARGIN = 0.5
GROUP_MARGIN_PX = 4
GROUP_RENDER_PIXELS = 330
# The first pass at half the samples (render.counterfactual.screen) settles a change whose difference
# lies below SETTLED_BELOW or at SETTLED_FROM and above: on bench/counterfactual.py's grid, rendered at
# 2 and at 4 samples (bench/counterfactual_screen.py), no change so settled at 2 is decided otherwise
# at 4. The rest are rendered again at the check's samples.
SETTLED_BELOW = 8.0  # ΔE00
SETTLED_FROM = 24.0


def _lab(rgb: np.ndarray) -> np.ndarray:
    return skimage.color.rgb2lab(np.asarray(rgb)[..., :3].astype(np.float64) / 255.0)


def pixel_differences(truth: np.ndarray, other: np.ndarray, smooth: float = SMOOTH_PX) -> np.ndarray:
    """CIEDE2000 between two renders of one region (H x W x 3, 8-bit sRGB), each smoothed by a
    Gaussian of `smooth` px (SMOOTH_PX; `presence_smoothing` for a removal), per pixel."""
    if truth.shape != other.shape:
        raise ValueError(f"renders of one region differ in size: {truth.shape} and {other.shape}")
    a, b = (scipy.ndimage.gaussian_filter(_lab(x), (smooth, smooth, 0)) for x in (truth, other))
    return skimage.color.deltaE_ciede2000(a, b)


def difference(truth: np.ndarray, other: np.ndarray, top: int = TOP_PIXELS) -> float:
    """The difference of a change: the CIEDE2000 of the `top`-th most changed pixel (0 for a
    region smaller than that), rounded to 0.1."""
    return ranked(pixel_differences(truth, other), top)


def ranked(differences: np.ndarray, top: int = TOP_PIXELS) -> float:
    """The `top`-th largest of per-pixel differences, rounded to 0.1 (0 for fewer pixels)."""
    d = np.sort(differences.ravel())
    return round(float(d[-top]), 1) if d.size >= top else 0.0


def presence_smoothing(blur_px: float) -> float:
    """The smoothing of the renders an object's removal is measured on: SMOOTH_PX, or the blur
    disc at the object over PRESENCE_POOLING where that is wider. Under a strong blur a removal
    changes every pixel of the disc a little, and the few samples' grain, which the delivered
    image does not have, carried it over the threshold: two white pieces on the cream board at
    f/0.5 (a 36 px disc) measured 16 ΔE00 smoothed by 0.5 px, 5 at 64 samples, 4.7-5.0 pooled
    thus (bench/separation.py)."""
    return max(SMOOTH_PX, blur_px / PRESENCE_POOLING)


def presence_rank(area: int) -> int:
    """The rank at which an object's removal is measured: TOP_PIXELS, or half its mask pixels for
    an object smaller than twice that (a 20 px object cannot change 32 pixels: it shows when half
    of it changes by MIN_DIFFERENCE)."""
    return max(1, min(TOP_PIXELS, -(-area // 2)))


def visible(difference: float) -> bool:
    """Whether a change of this difference shows in the image."""
    return difference >= MIN_DIFFERENCE


def may_settle(attribute: str, rank: int = TOP_PIXELS, blur_px: float = 0.0) -> bool:
    """Whether the first pass (half the samples) may settle a change: one measured at TOP_PIXELS,
    and for a removal one blurred by less than MERGE_MIN_BLUR_PX (a smaller rank is noisier than
    the calibrated one, and blurred removals are kept as maps for `merge_ratio`)."""
    return rank == TOP_PIXELS and (attribute != PRESENCE or blur_px < MERGE_MIN_BLUR_PX)


def settled(attribute: str, difference: float) -> bool:
    """Whether a change the first pass measured (one that `may_settle`) keeps that measure: its
    difference lies clearly on one side of MIN_DIFFERENCE (below SETTLED_BELOW, or SETTLED_FROM and
    above). A removal settles only when clearly visible: its presence band has a second threshold
    (HIDDEN_SHARE x MIN_DIFFERENCE) which the calibration did not test."""
    if attribute == PRESENCE:
        return difference >= SETTLED_FROM
    return difference < SETTLED_BELOW or difference >= SETTLED_FROM


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


def area(b: Box) -> int:
    return (b[2] - b[0]) * (b[3] - b[1])


def union(boxes: Iterable[Box]) -> Box:
    found = list(boxes)
    return (min(b[0] for b in found), min(b[1] for b in found), max(b[2] for b in found), max(b[3] for b in found))


def _widened(b: Box) -> Box:
    pad = max(GROUP_MARGIN_PX, int(np.ceil(GROUP_MARGIN * max(b[2] - b[0], b[3] - b[1]))))
    return (b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad)


def overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def within_budget(boxes: Sequence[Box]) -> bool:
    """Whether one render of the union of `boxes` costs no more than rendering each: the pixels
    it adds stay within GROUP_RENDER_PIXELS for each render it saves."""
    return area(union(boxes)) - sum(area(b) for b in boxes) <= GROUP_RENDER_PIXELS * (len(boxes) - 1)


def groups(boxes: Sequence[Box]) -> list[list[int]]:
    """Indices of `boxes` in groups whose regions can share their renders (a greedy colouring of
    the graph of widened regions that overlap, largest region first): within a group no two
    widened regions overlap, and one render of their union costs no more than one each
    (`within_budget`)."""
    out: list[list[int]] = []
    for k in sorted(range(len(boxes)), key=lambda k: (-area(boxes[k]), k)):
        for group in out:
            members = [boxes[j] for j in group] + [boxes[k]]
            if any(overlaps(_widened(boxes[k]), _widened(boxes[j])) for j in group):
                continue
            if within_budget(members):
                group.append(k)
                break
        else:
            out.append([k])
    return [sorted(g) for g in out]


def crop(pixels: np.ndarray, outer: Box, inner: Box) -> np.ndarray:
    """The part `inner` of a render of the region `outer` (both [x0, y0, x1, y1) in the image)."""
    return pixels[inner[1] - outer[1]:inner[3] - outer[1], inner[0] - outer[0]:inner[2] - outer[0]]


def pooling_px(blur_px: float) -> float:
    """The Gaussian (sigma, pixels) a difference map is pooled with before its peaks are found:
    MERGE_SMOOTH_PX, or a quarter of the blur disc where that is wider (the image holds no detail
    finer than the disc, and the few samples' grain grows against the signal as it spreads)."""
    return max(MERGE_SMOOTH_PX, blur_px / 4)


def edges(rgb: np.ndarray, pooling: float = MERGE_SMOOTH_PX) -> np.ndarray:
    """Where the image (H x W x 3, 8-bit sRGB) pooled by a Gaussian of `pooling` px (pooling the
    samples' grain) changes visibly across EDGE_STEP_PX: the CIEDE2000 between the pixels on
    either side, right-left or below-above, is at least MIN_DIFFERENCE."""
    lab = scipy.ndimage.gaussian_filter(_lab(rgb), (pooling, pooling, 0))
    k = EDGE_STEP_PX
    out = np.zeros(lab.shape[:2], dtype=bool)
    if lab.shape[1] > k:
        across = skimage.color.deltaE_ciede2000(lab[:, :-k], lab[:, k:]) >= MIN_DIFFERENCE
        for shift in range(k + 1):
            out[:, shift:shift + across.shape[1]] |= across
    if lab.shape[0] > k:
        down = skimage.color.deltaE_ciede2000(lab[:-k], lab[k:]) >= MIN_DIFFERENCE
        for shift in range(k + 1):
            out[shift:shift + down.shape[0]] |= down
    return out


# One object's part in `merge_ratio`: its region, its removal's per-pixel difference there and
# the image's pixels there (the render of the unchanged scene).
Hump = tuple[Box, np.ndarray, np.ndarray]


def merge_ratio(a: Hump, b: Hump, pooling: float = MERGE_SMOOTH_PX) -> float:
    """How far two objects' removals blur into one blob: their difference maps (each over its
    region, `pixel_differences` of the image without the object) pooled by a Gaussian of
    `pooling` px (`pooling_px`) and added on the union of their regions; the highest level at
    which the two maps' peaks are joined by a path that stays at or above it (the saddle between
    them), over the lower of the two peaks (as the sum has them). A path may not cross a visible
    edge of the image (`edges`): sharp objects that touch, one in front of another, are told
    apart by the edge between them, which blur smooths away. Two objects whose colours differ
    visibly where each shows most (the image, pooled alike, at the two peaks: at least
    MIN_DIFFERENCE) are told apart whatever the saddle: a red blob beside a blue one is two.
    0: apart; 1: one hump. Rounded to 0.01."""
    if not overlaps(a[0], b[0]):
        return 0.0
    outer = union([a[0], b[0]])
    shape = (outer[3] - outer[1], outer[2] - outer[0])
    total, image = np.zeros(shape), np.zeros((*shape, 3), dtype=np.uint8)
    pooled = []
    for box, d, rgb in (a, b):
        where = np.s_[box[1] - outer[1]:box[3] - outer[1], box[0] - outer[0]:box[2] - outer[0]]
        canvas = np.zeros(shape)
        canvas[where] = d
        image[where] = rgb
        pooled.append(scipy.ndimage.gaussian_filter(canvas, pooling))
        total += pooled[-1]
    peaks = [np.unravel_index(int(np.argmax(d)), d.shape) for d in pooled]
    top = min(total[p] for p in peaks)
    if top <= 0:
        return 0.0
    lab = scipy.ndimage.gaussian_filter(_lab(image), (pooling, pooling, 0))
    if skimage.color.deltaE_ciede2000(lab[peaks[0]], lab[peaks[1]]) >= MIN_DIFFERENCE:
        return 0.0
    open_ = ~edges(image, pooling)
    for p in peaks:
        open_[p] = True
    low, high = 0.0, float(top)  # joined at `low`, maybe not at `high`
    for _ in range(20):
        level = (low + high) / 2
        labels, _ = scipy.ndimage.label((total >= level) & open_)
        if labels[peaks[0]] and labels[peaks[0]] == labels[peaks[1]]:
            low = level
        else:
            high = level
    return round(low / float(top), 2)


def told_apart(ratio: float) -> bool:
    """Whether two objects of this merge ratio read as two blobs."""
    return ratio < MAX_MERGE


@dataclass(frozen=True)
class Measured:
    """What the renders measured of one object: its mask pixels, the differing pixels without
    it, and for each attribute the differing pixels of each other value."""

    area: int
    presence: float
    alternatives: Mapping[str, Mapping[str, float]]
    # other id -> merge_ratio, for the objects blurred with this one whose regions overlap its own
    merged: Mapping[int, float] = field(default_factory=dict)
    # model -> the same measured on the renders resampled to the size it receives (RECEIVED_FIELD)
    received: Mapping[str, AtReceived] = field(default_factory=dict)

    def to_json(self) -> dict:
        merged = {MERGE_FIELD: {str(k): v for k, v in sorted(self.merged.items())}} if self.merged else {}
        received = {RECEIVED_FIELD: {k: r.to_json() for k, r in sorted(self.received.items())}} if self.received else {}
        return {"area": self.area, PRESENCE: self.presence,
                **{a: dict(sorted(v.items())) for a, v in sorted(self.alternatives.items())}, **merged, **received}

    @classmethod
    def from_json(cls, data: Mapping) -> Measured:
        return cls(int(data["area"]), float(data[PRESENCE]),
                   {k: {str(v): float(n) for v, n in values.items()} for k, values in data.items()
                    if k not in ("area", PRESENCE, MERGE_FIELD, RECEIVED_FIELD)},
                   {int(k): float(v) for k, v in (data.get(MERGE_FIELD) or {}).items()},
                   {k: AtReceived.from_json(v) for k, v in (data.get(RECEIVED_FIELD) or {}).items()})


RECEIVED_FIELD = "received"  # Measured's JSON: model -> AtReceived


@dataclass(frozen=True)
class AtReceived:
    """An object's check at the size a model receives the image (`size`, width x height): its
    mask pixels there (`area`), its removal's and each alternative's difference measured on the
    same two renders resampled to that size (`at_scale`). Merges are not measured again."""

    size: tuple[int, int]
    area: int
    presence: float
    alternatives: Mapping[str, Mapping[str, float]]

    def to_json(self) -> dict:
        return {"size": list(self.size), "area": self.area, PRESENCE: self.presence,
                **{a: dict(sorted(v.items())) for a, v in sorted(self.alternatives.items())}}

    @classmethod
    def from_json(cls, data: Mapping) -> AtReceived:
        return cls((int(data["size"][0]), int(data["size"][1])), int(data["area"]), float(data[PRESENCE]),
                   {k: {str(v): float(n) for v, n in values.items()} for k, values in data.items()
                    if k not in ("size", "area", PRESENCE)})

    def as_measured(self, merged: Mapping[int, float]) -> Measured:
        """The check as if rendered at this size (the merges as rendered)."""
        return Measured(self.area, self.presence, self.alternatives, merged)


def resampled(rgb: np.ndarray, scale: float) -> np.ndarray:
    """A region render (H x W x 3, 8-bit) at `scale` received pixels per rendered pixel, bicubic
    with antialiasing (PIL's, as transformers' Qwen2-VL and CLIP processors resize; the APIs
    publish no filter)."""
    from PIL import Image  # loaded on first use, as scipy and skimage

    h, w = rgb.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return np.asarray(Image.fromarray(np.ascontiguousarray(rgb[..., :3])).resize(size, Image.Resampling.BICUBIC))


def at_scale(truth: np.ndarray, other: np.ndarray, scale: float, *, removal_area: int | None = None,
             blur_px: float = 0.0) -> float:
    """A change's difference as a model receiving the image at `scale` sees it: both renders
    resampled (`resampled`), then measured as at the rendered size, in received pixels (a
    removal at `presence_rank` of the object's received area `removal_area`, smoothed by the blur
    disc there; an alternative at TOP_PIXELS)."""
    a, b = resampled(truth, scale), resampled(other, scale)
    if removal_area is not None:
        return ranked(pixel_differences(a, b, presence_smoothing(blur_px * scale)), presence_rank(removal_area))
    return ranked(pixel_differences(a, b))


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


def higher(a: str, b: str) -> str:
    """The higher of two visibility bands."""
    return max(a, b, key=BANDS.index)


def counting(key: str) -> bool:
    """Whether the question of `key` asks for a count, resting on objects told apart (every
    family names those count_*)."""
    return key.startswith("count")


def merged_pair(objects: Mapping[int, Measured | None]) -> tuple[int, int, float] | None:
    """The first two of `objects` (id -> measurements) that read as one blob, with their merge
    ratio; None when every pair the render measured is told apart (pairs not measured are: their
    regions do not overlap)."""
    for a, m in sorted(objects.items()):
        if m is None:
            continue
        for b, ratio in sorted(m.merged.items()):
            if b in objects and b != a and not told_apart(ratio):
                return a, b, ratio
    return None


def unreadable_values(m: Measured, attribute: str, values: Iterable[str] | None = None) -> list[str] | None:
    """The alternative values of `attribute` (those in `values`, or all measured) whose change
    does not show; None when the attribute was not measured."""
    if attribute not in m.alternatives:
        return None
    found = m.alternatives[attribute]
    wanted = found if values is None else [v for v in values if v in found]
    return [v for v in wanted if not visible(found[v])]
