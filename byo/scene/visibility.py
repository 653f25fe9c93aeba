"""Visibility before rendering: each object's size in the image, projected from the scene spec
(pure numpy and scipy; no bpy).

An object's mask pixels are at most its silhouette's: what stands in front of it only takes
pixels away. A family that knows its objects' shapes gives, for an object, points whose convex
hull is the object (`Family.silhouette`), and the ground rectangle its centre may be placed in
(`Family.placement_area`). Projected through the spec's pinhole camera (byo/scene/camera.py),
the hull of the points is the object's silhouette; its area in pixels, wherever the object may
stand in view, tells

- whether an image can meet the visibility floor at all: when even the nearest placement shows
  an object on fewer pixels than render.min_visible_pixels, every placement of it fails, and the
  render would fail after all its tries;
- what would make it meet the floor: the camera distance (or, for a floor stated in pixels, the
  resolution) at which the object covers the floor wherever it stands, so that only occlusion
  can hide it (and placing it again, as CLEVR's generator does, settles that).

Deviation, named: the silhouette is not clipped by the frame's edges (an object whose centre is
in view near an edge may show less), and antialiasing is not modelled: mask pixels are counted
as the silhouette's area.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from byo.scene import camera as camera_math

GRID = 9  # placement positions per side of the placement area at which an object is projected


def placements(area: tuple[tuple[float, float], tuple[float, float]] | None, location, grid: int = GRID) -> np.ndarray:
    """Centres an object may stand at (M x 3): a grid over the placement area at the object's
    height, or its own location when it has no area (an explicit position, a layout)."""
    if area is None:
        return np.asarray([location], float)
    (x0, x1), (y0, y1) = area
    xs, ys = np.meshgrid(np.linspace(x0, x1, grid), np.linspace(y0, y1, grid))
    return np.column_stack([xs.ravel(), ys.ravel(), np.full(xs.size, location[2])])


@dataclass(frozen=True)
class Reach:
    """The pixels one object's silhouette covers at its nearest and its farthest placement in view."""

    name: str
    best: float  # the most it can show (0: it can stand nowhere in view)
    worst: float  # the least, wherever it stands in view


EXTREMES = 3  # placements in view projected at each end of the depth range (the nearest, the farthest)


def reach(projector: camera_math.Projector, shape: np.ndarray, centres: np.ndarray, name: str) -> Reach:
    """`shape`: the object's points relative to its centre; `centres`: where it may stand. A
    silhouette's area falls with the square of its depth: its most is among the nearest
    placements in view, its least among the farthest; EXTREMES of each are projected."""
    w, h = projector.resolution
    at = projector.project(centres)
    inside = (at[:, 2] > 0) & (at[:, 0] >= 0) & (at[:, 0] <= w) & (at[:, 1] >= 0) & (at[:, 1] <= h)
    order = np.flatnonzero(inside)[np.argsort(at[inside, 2], kind="stable")]
    if not len(order):
        return Reach(name, 0.0, 0.0)
    ends = np.unique(np.concatenate([order[:EXTREMES], order[-EXTREMES:]]))
    points = (shape[None, :, :] + centres[ends][:, None, :]).reshape(-1, 3)
    px = projector.project(points).reshape(len(ends), len(shape), 3)
    areas = [_hull_area(p) for p in px]
    return Reach(name, max(areas), min(areas))


def _hull_area(px: np.ndarray) -> float:
    """Pixels the convex hull of projected points (N x 3: x, y, depth) covers, unclipped; 0 when
    any point is behind the camera."""
    if np.any(px[:, 2] <= 1e-9):
        return 0.0
    try:
        return float(ConvexHull(px[:, :2]).volume)  # in 2D, the hull's "volume" is its area
    except QhullError:  # degenerate: the points project onto a line or a point
        return 0.0


def at_distance(projector: camera_math.Projector, distance: float, elevation: float,
                azimuth: float) -> camera_math.Projector:
    """The same camera moved along its line of sight to `distance` metres from its target."""
    location = camera_math.orbit_location(projector.target, distance, elevation, azimuth)
    return replace(projector, location=location)


def largest_distance(ok: Callable[[float], bool], start: float, step: float = 0.9, steps: int = 12) -> float | None:
    """The largest camera distance below `start` at which `ok` holds: down from `start` by the
    factor `step` until it holds (objects grow as the camera comes closer; much closer, they
    leave the frame), then by bisection up to the last distance where it did not; None when it
    holds nowhere down to a hundredth of `start`."""
    hi = start
    while not ok(lo := hi * step):
        if lo < start / 100.0:
            return None
        hi = lo
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


def resolution_for(size: tuple[int, int], pixels: float, floor: int) -> tuple[int, int]:
    """The smallest resolution of the same aspect at which a silhouette of `pixels` pixels at
    `size` covers `floor` pixels (a silhouette's area grows with the square of the scale)."""
    k = math.sqrt(floor / pixels) if pixels > 0 else math.inf
    return math.ceil(size[0] * k), math.ceil(size[1] * k)
