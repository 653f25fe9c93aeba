"""Identifiable, not just different: whether an object's shape can be named from the image alone.
The counterfactual check (counterfactual.py) asks whether the image with another shape in the
object's place differs; a highlight that moves or a silhouette a pixel wider passes it, though a
person, who never sees the alternative, could not tell which shape stands there. Here the truth's
outline and each alternative's are compared **aligned on the object**: each projected through the
image's camera (the family's `silhouette`, its points; their convex hull is the outline), the
alternative's moved, scaled and stretched (an affine map) to the truth's centroid and second
moments (so neither position, size nor aspect is a cue: a rectangle is a rectangle, a disc a disc), both drawn at the image's resolution and blurred as the image
blurs them (the depth-of-field disc at the object, at least the eye's and the renderer's pixel
filter, ACUITY_PX), and compared as shapes: the soft symmetric difference over the soft union
(`outline_difference`, 0: the same outline, 1: disjoint). A shape reads against a value from
MIN_OUTLINE (docs/readability.md "Identifiable, not just different", with the calibration table).
Pure numpy / scipy / scikit-image; the question generator and `byo audit` compute it from a
legend alone."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import scipy
import skimage

from byo.scene.camera import defocus_diameter_px
from byo.scene.spec import SceneObject, SceneSpec

OUTLINE_FIELD = "outline"  # the legend object's field (at question time): attribute -> value -> difference
ACUITY_PX = 0.7  # Gaussian sigma, pixels: the pixel filter and the eye at one image pixel
MIN_OUTLINE = 0.012  # calibrated in docs/readability.md ("Identifiable, not just different")
SUPERSAMPLE = 4
# Below this many pixels across (the smaller side of its outline) no outline is resolved: a 4 px dot
# is a dot whatever its shape (CLEVR's size rule, model.ATTRIBUTE_READABLE_MIN_PX, says the same).
MIN_RESOLVED_PX = 8
UNSEEN_STEP = 0.05  # a difference of outline coverage under this share of the peak is not seen


def _hull(points: np.ndarray) -> np.ndarray:
    """The convex hull of 2-D points, in order (a degenerate set: its points)."""
    try:
        return points[scipy.spatial.ConvexHull(points).vertices]
    except scipy.spatial.QhullError:
        return points


def _moments(polygon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centroid and covariance (px, px^2) of the area a polygon covers, from a fine raster."""
    lo = polygon.min(axis=0)
    span = np.maximum(polygon.max(axis=0) - lo, 1e-3)
    n = 64
    p = (polygon - lo) / span * (n - 1)
    rr, cc = skimage.draw.polygon(p[:, 1], p[:, 0], (n, n))
    if rr.size < 3:
        return polygon.mean(axis=0), np.diag(np.maximum(span / 4, 0.05) ** 2)
    xy = np.column_stack([cc, rr]) / (n - 1) * span + lo
    return xy.mean(axis=0), np.cov(xy.T) + np.eye(2) * 1e-4


def _sqrtm(c: np.ndarray) -> np.ndarray:
    w, v = np.linalg.eigh(c)
    return v @ np.diag(np.sqrt(np.maximum(w, 1e-8))) @ v.T


def _drawn(polygon: np.ndarray, origin: np.ndarray, shape: tuple[int, int], blur_px: float) -> np.ndarray:
    """Pixel coverage of `polygon` (x, y px) on a grid of `shape` starting at `origin`, as the image
    draws it: the pixel filter (ACUITY_PX), the blur disc (`blur_px` across), peak 1."""
    s = SUPERSAMPLE
    fine = np.zeros((shape[0] * s, shape[1] * s))
    p = (polygon - origin) * s
    rr, cc = skimage.draw.polygon(p[:, 1], p[:, 0], fine.shape)
    fine[rr, cc] = 1.0
    coverage = fine.reshape(shape[0], s, shape[1], s).mean(axis=(1, 3))
    out = scipy.ndimage.gaussian_filter(coverage, ACUITY_PX)
    if blur_px > 1:  # the lens's disc of confusion, then the pixel filter
        r = blur_px / 2
        yy, xx = np.mgrid[-int(r):int(r) + 1, -int(r):int(r) + 1]
        disc = (xx ** 2 + yy ** 2 <= r * r).astype(float)
        out = scipy.ndimage.convolve(out, disc / disc.sum(), mode="constant")
    top = out.max()
    return out / top if top > 0 else out


def outline_difference(truth_px: np.ndarray, other_px: np.ndarray, blur_px: float = 0.0) -> float:
    """How far two outlines differ as shapes, aligned on the truth's moments (see the module): the
    projected points (N x 2, pixels) of the truth and of the alternative; `blur_px`, the blur
    disc's diameter at the object. 0 to 1, rounded to 0.01."""
    truth, other = _hull(np.asarray(truth_px, float)[:, :2]), _hull(np.asarray(other_px, float)[:, :2])
    (m_t, c_t), (m_o, c_o) = _moments(truth), _moments(other)
    aligned = m_t + (other - m_o) @ (_sqrtm(c_t) @ np.linalg.inv(_sqrtm(c_o))).T
    lo, hi = np.minimum(truth.min(axis=0), aligned.min(axis=0)), np.maximum(truth.max(axis=0), aligned.max(axis=0))
    pad = int(np.ceil(3 * ACUITY_PX + blur_px / 2)) + 1
    origin = np.floor(lo) - pad
    shape = (int(np.ceil(hi[1])) + pad - int(origin[1]) + 1, int(np.ceil(hi[0])) + pad - int(origin[0]) + 1)
    a, b = _drawn(truth, origin, shape, blur_px), _drawn(aligned, origin, shape, blur_px)
    union = np.maximum(a, b).sum()
    return round(float(np.maximum(np.abs(a - b) - UNSEEN_STEP, 0).sum() / union), 3) if union > 0 else 0.0


def spec_of(legend: Mapping) -> SceneSpec:
    """The scene spec a legend was rendered from (the legend holds every field of it)."""
    data = {k: legend[k] for k in SceneSpec.model_fields if k in legend and k not in ("objects", "tool_version")}
    data["tool_version"] = legend["tool"]["version"]
    data["objects"] = [{k: o[k] for k in SceneObject.model_fields} for o in legend["objects"]]
    return SceneSpec.model_validate(data)


def _blur(spec: SceneSpec, obj: SceneObject, depth: float) -> float:
    setup = spec.setup
    if not setup.blur.enabled:
        return 0.0
    cam = setup.camera
    return float(defocus_diameter_px(depth, focal_length=cam.focal_length, sensor_width=cam.sensor_width,
                                     fstop=setup.blur.fstop, focus_distance=setup.blur.focus_distance,
                                     resolution=setup.resolution))


def outlines(legend: Mapping, family, attributes: tuple[str, ...] = ("shape",),
             size: tuple[int, int] | None = None) -> dict[int, dict[str, dict[str, float]]]:
    """Object id -> attribute -> each other value -> `outline_difference`, for the objects whose
    family draws their points (`family.silhouette`) and offers the attribute's other values
    (`family.alternatives`); `size`: the image's (width, height) when it is not the render's (a
    received image). Empty for a legend whose spec cannot be rebuilt."""
    try:
        spec = spec_of(legend)
    except Exception:  # noqa: BLE001 - an older or foreign legend: no outline evidence, the other rules decide
        return {}
    projector = spec.setup.projector()
    w, h = spec.setup.resolution
    scale = np.array([size[0] / w, size[1] / h]) if size else np.ones(2)
    out: dict[int, dict[str, dict[str, float]]] = {}
    for obj in spec.objects:
        own = family.silhouette(spec, obj)
        if own is None:
            continue
        seen = projector.project(np.asarray(own) + np.asarray(obj.location))
        blur = _blur(spec, obj, float(np.median(seen[:, 2]))) * float(scale.mean())
        side = float(np.min(np.ptp(seen[:, :2] * scale, axis=0)))
        found: dict[str, dict[str, float]] = {}
        for attribute, values in family.alternatives(spec, obj).items():
            if attribute not in attributes:
                continue
            for value, alt in values.items():
                points = family.silhouette(spec, alt)
                if points is None:
                    continue
                other = projector.project(np.asarray(points) + np.asarray(alt.location))
                found.setdefault(attribute, {})[value] = 0.0 if side < MIN_RESOLVED_PX else outline_difference(
                    seen[:, :2] * scale, other[:, :2] * scale, blur)
        if found:
            out[obj.id] = found
    return out


def unidentifiable(found: Mapping[str, float], values=None) -> list[str]:
    """The values (of `values`, or all in `found`) whose outline the truth's does not differ from."""
    wanted = found if values is None else [v for v in values if v in found]
    return [v for v in wanted if found[v] < MIN_OUTLINE]
