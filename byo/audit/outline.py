"""The audit's own shape identifiability (docs/readability.md, "Identifiable, not just different"),
written apart from the question generator's byo/scene/outline.py so that a fault there is not
repeated here. From a dataset's legend alone: each object's points as its family builds them
(`Family.silhouette`, the public family contract) and each other value's (`Family.alternatives`),
projected through the legend's camera; the outlines are their convex hulls.

- **Aligned on the object**: the alternative's outline mapped by the affine map that carries its
  centroid and second moments (exact polygon moments, Green's theorem) onto the truth's, the
  symmetric square roots of the two covariances: position, size and aspect are no cue.
- **Drawn as the image draws them**: each filled with Pillow on a grid 8 times finer than the
  image's pixels and averaged to pixel coverage, blurred by the pixel filter (a Gaussian of
  PIXEL_FILTER_PX) and the depth-of-field disc at the object (thin lens, from the legend's camera
  and blur; an anti-aliased uniform disc), each scaled to peak 1.
- **Compared**: the coverage difference beyond UNSEEN_STEP, summed over the union of the two;
  under MIN_ACROSS_PX across (the smaller side of the projected outline) no outline resolves (0).

A shape is named from the image against a value whose outline differs by MIN_OUTLINE or more.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage

from byo.scene.spec import SceneObject, SceneSpec

# The documented numbers (docs/readability.md, "Identifiable, not just different").
MIN_OUTLINE = 0.012
MIN_ACROSS_PX = 8
PIXEL_FILTER_PX = 0.7  # Gaussian sigma
UNSEEN_STEP = 0.05
FINE = 8  # raster cells per image pixel, each way
ATTRIBUTES = ("shape",)  # what an outline tells; colour, material and size have other rules


def _turn(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """The z of (a - o) x (b - o): positive for a left turn."""
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def hull(points: np.ndarray) -> np.ndarray:
    """The convex hull of 2-D points, counter-clockwise (Andrew's monotone chain)."""
    p = np.unique(np.round(np.asarray(points, float)[:, :2], 9), axis=0)
    if len(p) < 3:
        return p

    def half(rows):
        out: list[np.ndarray] = []
        for q in rows:
            while len(out) >= 2 and _turn(out[-2], out[-1], q) <= 0:
                out.pop()
            out.append(q)
        return out[:-1]

    return np.array(half(p) + half(p[::-1]))


def moments(polygon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centroid and covariance of the area inside a simple polygon (exact, by Green's theorem);
    a polygon of no area: its points' mean and a small round spread."""
    x, y = polygon[:, 0], polygon[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = cross.sum() / 2
    if len(polygon) < 3 or abs(area) < 1e-6:
        spread = max(float(np.ptp(polygon, axis=0).max()) / 4, 0.05) if len(polygon) else 0.05
        return polygon.mean(axis=0), np.eye(2) * spread ** 2
    cx = ((x + xn) * cross).sum() / (6 * area)
    cy = ((y + yn) * cross).sum() / (6 * area)
    sxx = ((x * x + x * xn + xn * xn) * cross).sum() / (12 * area) - cx * cx
    syy = ((y * y + y * yn + yn * yn) * cross).sum() / (12 * area) - cy * cy
    sxy = ((x * yn + 2 * x * y + 2 * xn * yn + xn * y) * cross).sum() / (24 * area) - cx * cy
    return np.array([cx, cy]), np.array([[sxx, sxy], [sxy, syy]]) + np.eye(2) * 1e-6


def _root(c: np.ndarray, power: float) -> np.ndarray:
    w, v = np.linalg.eigh(c)
    return (v * np.maximum(w, 1e-10) ** power) @ v.T


def aligned(truth: np.ndarray, other: np.ndarray) -> np.ndarray:
    """`other` moved, scaled and stretched onto `truth`'s centroid and covariance."""
    (mt, ct), (mo, co) = moments(truth), moments(other)
    return mt + (other - mo) @ (_root(ct, 0.5) @ _root(co, -0.5)).T


def disc_kernel(diameter: float) -> np.ndarray:
    """A uniform disc of `diameter` pixels, its edge cells weighted by the share they cover."""
    r = diameter / 2
    n = int(np.ceil(r))
    fine = (np.arange(-(n + 0.5) * FINE, (n + 0.5) * FINE) + 0.5) / FINE
    xx, yy = np.meshgrid(fine, fine)
    inside = (xx ** 2 + yy ** 2 <= r * r).astype(float)
    k = inside.reshape(2 * n + 1, FINE, 2 * n + 1, FINE).mean(axis=(1, 3))
    return k / k.sum()


def drawn(polygon: np.ndarray, origin: np.ndarray, shape: tuple[int, int], blur_px: float) -> np.ndarray:
    """Pixel coverage of `polygon` (x, y px) on a grid of `shape` (rows, columns) whose first pixel
    starts at `origin`, blurred as the image blurs it, peak 1."""
    canvas = Image.new("L", (shape[1] * FINE, shape[0] * FINE), 0)
    ImageDraw.Draw(canvas).polygon([tuple(p) for p in ((polygon - origin) * FINE - 0.5)], fill=255)
    fine = np.asarray(canvas, float) / 255
    coverage = fine.reshape(shape[0], FINE, shape[1], FINE).mean(axis=(1, 3))
    out = ndimage.gaussian_filter(coverage, PIXEL_FILTER_PX, mode="constant")
    if blur_px > 1:
        out = ndimage.convolve(out, disc_kernel(blur_px), mode="constant")
    top = out.max()
    return out / top if top > 0 else out


def difference(truth_px, other_px, blur_px: float = 0.0) -> float:
    """How far two projected outlines (points, pixels) differ as shapes once aligned: 0 the same,
    towards 1 disjoint."""
    truth, other = hull(truth_px), hull(other_px)
    if len(truth) < 3 or len(other) < 3:
        return 0.0
    other = aligned(truth, other)
    both = np.vstack([truth, other])
    pad = int(np.ceil(3 * PIXEL_FILTER_PX + blur_px / 2)) + 2
    origin = np.floor(both.min(axis=0)) - pad
    top = np.ceil(both.max(axis=0)) + pad
    shape = (int(top[1] - origin[1]), int(top[0] - origin[0]))
    a, b = drawn(truth, origin, shape, blur_px), drawn(other, origin, shape, blur_px)
    union = np.maximum(a, b).sum()
    return float(np.clip(np.abs(a - b) - UNSEEN_STEP, 0, None).sum() / union) if union > 0 else 0.0


def blur_disc_px(setup: Mapping, depth: float) -> float:
    """The depth-of-field disc's diameter (pixels) at `depth` metres, by the thin lens, from the
    legend's camera and blur (0 without blur)."""
    blur = setup.get("blur") or {}
    if not blur.get("enabled"):
        return 0.0
    cam = setup["camera"]
    f, n, s = cam["focal_length"] / 1000, blur["fstop"], blur["focus_distance"]
    aperture = f / n
    on_sensor = aperture * f * abs(depth - s) / (depth * (s - f))
    return float(on_sensor / (cam["sensor_width"] / 1000) * max(setup["resolution"]))


def _spec(legend: Mapping) -> SceneSpec:
    fields = {k: v for k, v in legend.items() if k in SceneSpec.model_fields and k not in ("objects", "tool_version")}
    fields["tool_version"] = legend["tool"]["version"]
    fields["objects"] = [{k: v for k, v in o.items() if k in SceneObject.model_fields} for o in legend["objects"]]
    return SceneSpec.model_validate(fields)


def measure(legend: Mapping, family, project) -> dict[int, dict[str, dict[str, dict]]]:
    """Object id -> attribute -> each other value -> {"difference", "across", "blur"}: the outline
    difference (0 under MIN_ACROSS_PX across), the projected outline's smaller side and the blur
    disc (pixels); `project`: world points -> (x px, y px, depth m). Empty for a family without
    silhouettes or a legend whose scene does not rebuild."""
    try:
        spec = _spec(legend)
    except Exception:  # noqa: BLE001 - an older or foreign legend: its other rules decide
        return {}
    out: dict[int, dict[str, dict[str, dict]]] = {}
    for obj in spec.objects:
        points = family.silhouette(spec, obj)
        if points is None:
            continue
        seen = project(np.asarray(points) + np.asarray(obj.location))
        across = float(np.ptp(seen[:, :2], axis=0).min())
        blur = blur_disc_px(legend["setup"], float(project([obj.location])[0][2]))
        for attribute, values in family.alternatives(spec, obj).items():
            if attribute not in ATTRIBUTES:
                continue
            for value, alt in values.items():
                theirs = family.silhouette(spec, alt)
                if theirs is None:
                    continue
                other = project(np.asarray(theirs) + np.asarray(alt.location))
                d = 0.0 if across < MIN_ACROSS_PX else difference(seen, other, blur)
                out.setdefault(obj.id, {}).setdefault(attribute, {})[value] = {
                    "difference": round(d, 3), "across": round(across, 1), "blur": round(blur, 1)}
    return out


def unidentified(legend: Mapping, family, project) -> dict[int, dict[str, dict[str, str]]]:
    """Object id -> attribute -> {each value it is not told from: why, in numbers}."""
    out: dict[int, dict[str, dict[str, str]]] = {}
    kinds = {o["id"]: o["kind"] for o in legend["objects"]}
    for oid, attributes in measure(legend, family, project).items():
        for attribute, values in attributes.items():
            for value, m in values.items():
                if m["difference"] >= MIN_OUTLINE:
                    continue
                why = (f"{kinds[oid]} {oid} has the outline of a {value} in the image: "
                       + (f"{m['across']:g} px across, under {MIN_ACROSS_PX} px no outline resolves"
                          if m["across"] < MIN_ACROSS_PX else
                          f"outline difference {m['difference']:.3f} < {MIN_OUTLINE:g}, aligned on the object, "
                          f"blur disc {m['blur']:g} px, {m['across']:g} px across"))
                out.setdefault(oid, {}).setdefault(attribute, {})[value] = why
    return out
