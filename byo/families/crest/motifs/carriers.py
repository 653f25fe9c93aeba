"""Where a crest sits in the world (pure Python; the Blender side builds the same shapes).

Canvas coordinates (u, v) in [-1, 1] (v up) map to world metres for a crest of half-width
`size`:

- flat: the XY plane, facing +Z (seen from above by an orthographic camera), z = offset;
- plaque: the front of an upright board facing -Y (towards a camera at azimuth 0);
- banner: an upright cloth facing -Y that waves gently along x;
- lantern: wrapped around an upright paper lantern (a barrel), centred on its -Y side.

The crest centre stands CREST_HEIGHT x size above the table top (z = 0) in every 3D carrier.
`offset` lifts a point off the surface along its normal (layers stack a hair apart).
"""

from __future__ import annotations

import math

import numpy as np

CREST_HEIGHT = 1.5  # crest centre above the table, in crest half-widths
CARRIERS = ("plaque", "banner", "lantern")

# Proportions, in crest half-widths.
PLAQUE = {"width": 2.6, "height": 2.6, "thickness": 0.2, "base_height": 0.2, "base_width": 1.7, "base_depth": 0.9}
BANNER = {"width": 2.5, "height": 2.8, "amplitude": 0.035, "wavelength": 1.3, "post_radius": 0.05, "rod_height": 3.0}
LANTERN = {"radius": 1.3, "height": 2.6, "bulge": 0.18, "cap_height": 0.2, "cap_radius": 0.75}
DEFAULT_COLORS = {  # (surface, ink), sRGB
    "plaque": ((0.62, 0.45, 0.28), (0.05, 0.04, 0.035)),
    "banner": ((0.08, 0.12, 0.3), (0.95, 0.95, 0.92)),
    "lantern": ((0.95, 0.92, 0.84), (0.06, 0.05, 0.05)),
}


def lantern_radius(z: np.ndarray, size: float) -> np.ndarray:
    """Barrel profile: widest at the crest's height, narrower towards the caps."""
    half = LANTERN["height"] * size / 2.0
    t = (np.asarray(z, float) - CREST_HEIGHT * size) / half
    return LANTERN["radius"] * size * (1.0 - LANTERN["bulge"] * t**2)


def banner_y(x: np.ndarray, size: float) -> np.ndarray:
    k = 2.0 * math.pi / (BANNER["wavelength"] * size)
    return BANNER["amplitude"] * size * np.sin(k * np.asarray(x, float))


def surface(kind: str, size: float, uv, offset: float = 0.0) -> np.ndarray:
    """World points (N, 3) for canvas points (N, 2)."""
    uv = np.atleast_2d(np.asarray(uv, float))
    u, v = uv[:, 0] * size, uv[:, 1] * size
    z = CREST_HEIGHT * size + v
    if kind == "flat":
        return np.column_stack([u, v, np.full_like(u, offset)])
    if kind == "plaque":
        front = -PLAQUE["thickness"] * size / 2.0
        return np.column_stack([u, np.full_like(u, front - offset), z])
    if kind == "banner":
        return np.column_stack([u, banner_y(u, size) - offset, z])
    if kind == "lantern":
        r0 = LANTERN["radius"] * size
        theta = u / r0  # arc length along the widest circle
        r = lantern_radius(z, size) + offset
        return np.column_stack([r * np.sin(theta), -r * np.cos(theta), z])
    raise ValueError(f"unknown carrier {kind!r}; expected flat or one of {', '.join(CARRIERS)}")


def needs_cells(kind: str) -> bool:
    """Curved carriers need short triangle edges so the crest follows the surface."""
    return kind in ("banner", "lantern")
