"""Triangle meshes from polygons with holes (pure Python, so Blender 3.4 and 5.0 get the
same triangles).

Each polygon is split by GEOS's constrained Delaunay triangulation, which keeps every edge of
the outline and the holes. For surfaces that bend (a lantern, a waving banner), `cell` first
cuts the shape along a square grid, so no triangle edge is longer than a cell diagonal and
the mesh follows the curve; the cut edges are shared exactly, so the mesh has no cracks.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from byo.families.crest.motifs.geometry import clean


def _polygons(g: BaseGeometry) -> list[Polygon]:
    return list(clean(g).geoms) if not g.is_empty else []


def _cells(g: BaseGeometry, cell: float) -> list[Polygon]:
    x0, y0, x1, y1 = g.bounds
    i0, j0 = math.floor(x0 / cell), math.floor(y0 / cell)
    i1, j1 = math.ceil(x1 / cell), math.ceil(y1 / cell)
    boxes = [shapely.box(i * cell, j * cell, (i + 1) * cell, (j + 1) * cell)
             for i in range(i0, i1) for j in range(j0, j1)]
    pieces = shapely.intersection(np.array(boxes, dtype=object), g)
    out = []
    for piece in pieces:
        if not piece.is_empty:
            out.extend(_polygons(piece))
    return out


def triangulate(g: BaseGeometry, cell: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (N, 2) and triangles (M, 3), counter-clockwise, covering the shape exactly."""
    polys = _cells(g, cell) if cell else _polygons(g)
    index: dict[tuple[float, float], int] = {}
    verts: list[tuple[float, float]] = []
    faces: list[tuple[int, int, int]] = []

    def vid(x: float, y: float) -> int:
        key = (round(x, 9), round(y, 9))
        if key not in index:
            index[key] = len(verts)
            verts.append(key)
        return index[key]

    for poly in polys:
        tris = shapely.constrained_delaunay_triangles(poly)
        for tri in getattr(tris, "geoms", []):
            (ax, ay), (bx, by), (cx, cy) = list(tri.exterior.coords)[:3]
            ids = (vid(ax, ay), vid(bx, by), vid(cx, cy))
            if len(set(ids)) < 3:
                continue
            if (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) < 0:
                ids = (ids[0], ids[2], ids[1])
            faces.append(ids)
    return np.array(verts, dtype=float).reshape(-1, 2), np.array(faces, dtype=np.int64).reshape(-1, 3)


def mesh_area(verts: np.ndarray, faces: np.ndarray) -> float:
    a, b, c = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    return float(0.5 * np.sum((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])))
