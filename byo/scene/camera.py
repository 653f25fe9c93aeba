"""Pinhole camera math shared by sampling (pure Python) and the render layer.

Conventions: world Z is up. The camera orbits its target; azimuth 0 puts it on the -Y side
looking towards +Y, azimuth grows counter-clockwise seen from above. Image pixel coordinates
are continuous, x to the right and y down from the top-left corner (pixel (i, j) covers
[i, i+1) x [j, j+1)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def orbit_location(target, distance: float, elevation_deg: float, azimuth_deg: float) -> tuple[float, float, float]:
    el, az = math.radians(elevation_deg), math.radians(azimuth_deg)
    horizontal = distance * math.cos(el)
    return (
        target[0] + horizontal * math.sin(az),
        target[1] - horizontal * math.cos(az),
        target[2] + distance * math.sin(el),
    )


def camera_axes(location, target, azimuth_deg: float) -> np.ndarray:
    """3x3 matrix whose columns are the camera's right, up and backward (+Z local) axes."""
    forward = np.asarray(target, float) - np.asarray(location, float)
    forward /= np.linalg.norm(forward)
    az = math.radians(azimuth_deg)
    right = np.array([math.cos(az), math.sin(az), 0.0])  # horizontal, well defined even top-down
    up = np.cross(right, forward)
    up /= np.linalg.norm(up)
    return np.column_stack([right, up, -forward])


@dataclass(frozen=True)
class Projector:
    location: tuple[float, float, float]
    target: tuple[float, float, float]
    azimuth: float
    focal_length: float
    sensor_width: float
    resolution: tuple[int, int]
    ortho_scale: float | None = None  # orthographic camera: metres spanned by the larger image side

    @property
    def axes(self) -> np.ndarray:
        return camera_axes(self.location, self.target, self.azimuth)

    def to_camera(self, points) -> np.ndarray:
        """World points (N, 3) to camera coordinates (x right, y up, z backwards)."""
        p = np.atleast_2d(np.asarray(points, float)) - np.asarray(self.location, float)
        return p @ self.axes

    def project(self, points) -> np.ndarray:
        """World points (N, 3) to (N, 3): pixel x, pixel y (down), depth in metres along the view
        (perspective, or orthographic when `ortho_scale` is set)."""
        cam = self.to_camera(points)
        depth = -cam[:, 2]
        w, h = self.resolution
        # Blender's AUTO sensor fit: the sensor width (or the ortho scale) spans the larger side.
        if self.ortho_scale is not None:
            half, scale = self.ortho_scale / 2.0, np.ones_like(depth)
        else:
            half, scale = self.sensor_width / (2.0 * self.focal_length), depth
        half_x, half_y = (half, half * h / w) if w >= h else (half * w / h, half)
        with np.errstate(divide="ignore", invalid="ignore"):
            ndc_x = cam[:, 0] / scale / half_x
            ndc_y = cam[:, 1] / scale / half_y
        return np.column_stack([(ndc_x + 1.0) * 0.5 * w, (1.0 - ndc_y) * 0.5 * h, depth])

    def ground_directions(self) -> dict[str, list[float]]:
        """CLEVR-style unit vectors: camera left/behind projected on the ground, and up/down."""
        axes = self.axes
        left = -axes[:, 0]
        behind = -axes[:, 2]
        behind = np.array([behind[0], behind[1], 0.0])
        if np.linalg.norm(behind) < 1e-9:  # top-down camera: "behind" is the image's up direction
            behind = np.array([axes[0, 1], axes[1, 1], 0.0])
        left = np.array([left[0], left[1], 0.0]) / np.linalg.norm(left[:2])
        behind /= np.linalg.norm(behind)
        vec = {"left": left, "right": -left, "behind": behind, "front": -behind,
               "above": np.array([0.0, 0.0, 1.0]), "below": np.array([0.0, 0.0, -1.0])}
        return {k: [float(round(x, 6)) for x in v] for k, v in vec.items()}


def defocus_diameter_px(depth, *, focal_length: float, sensor_width: float, fstop: float, focus_distance: float,
                        resolution: tuple[int, int]) -> np.ndarray:
    """Thin-lens blur circle (diameter in pixels) of points `depth` metres in front of the camera,
    as Blender's depth of field draws it: aperture diameter focal_length / fstop, focused at
    `focus_distance`, the sensor width spanning the larger image side."""
    f = focal_length / 1000.0
    d = np.asarray(depth, float)
    coc = (f / fstop) * f * np.abs(d - focus_distance) / (d * (focus_distance - f))
    return coc / (sensor_width / 1000.0) * max(resolution)
