"""2D geometry helpers for crests: shapely polygons (with holes) in the [-1, 1] canvas, y up.

Everything here is plain shapely: unions, differences and buffers build the motifs and
containers; affine maps place them. Circles get a vertex count that grows with the radius so
that edges stay smooth at any render size.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import shapely
from shapely import affinity
from shapely.geometry import GeometryCollection, LineString, MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

Geom = Polygon | MultiPolygon
EMPTY = MultiPolygon()


def polar(r: float, deg: float, centre: Sequence[float] = (0.0, 0.0)) -> tuple[float, float]:
    a = math.radians(deg)
    return (centre[0] + r * math.cos(a), centre[1] + r * math.sin(a))


def _segments(r: float) -> int:
    """Segments per quarter circle: about one every 1.5 degrees for a full-size circle."""
    return max(8, min(64, int(round(64 * r))))


def disk(r: float, centre: Sequence[float] = (0.0, 0.0)) -> Polygon:
    return Point(centre).buffer(r, quad_segs=_segments(r))


def ring(r_in: float, r_out: float, centre: Sequence[float] = (0.0, 0.0)) -> Geom:
    return disk(r_out, centre).difference(disk(r_in, centre))


def ellipse(rx: float, ry: float, centre: Sequence[float] = (0.0, 0.0), angle: float = 0.0) -> Polygon:
    e = affinity.scale(disk(1.0), rx, ry, origin=(0, 0))
    return affinity.translate(affinity.rotate(e, angle, origin=(0, 0)), *centre)


def regular(n: int, r: float, start: float = 90.0, centre: Sequence[float] = (0.0, 0.0)) -> Polygon:
    return Polygon([polar(r, start + 360.0 * k / n, centre) for k in range(n)])


def star(n: int, r_out: float, r_in: float, start: float = 90.0) -> Polygon:
    pts = []
    for k in range(2 * n):
        pts.append(polar(r_out if k % 2 == 0 else r_in, start + 180.0 * k / n))
    return Polygon(pts)


def arc_points(r: float, a0: float, a1: float, centre: Sequence[float] = (0.0, 0.0),
               n: int | None = None) -> list[tuple[float, float]]:
    n = n or max(4, int(abs(a1 - a0) / 3) + 1)
    return [polar(r, a0 + (a1 - a0) * k / (n - 1), centre) for k in range(n)]


def sector(r_in: float, r_out: float, a0: float, a1: float, centre: Sequence[float] = (0.0, 0.0)) -> Polygon:
    """Annular sector between angles a0 < a1 (degrees, counter-clockwise)."""
    outer = arc_points(r_out, a0, a1, centre)
    inner = arc_points(r_in, a1, a0, centre) if r_in > 0 else [tuple(centre)]
    return Polygon(outer + inner)


def stroke(points: Iterable[Sequence[float]], width: float, cap: str = "round", join: str = "round") -> Polygon:
    """A polyline drawn with a pen of `width`."""
    return LineString(list(points)).buffer(width / 2.0, quad_segs=8, cap_style=cap, join_style=join,
                                           mitre_limit=4.0)


def box(x0: float, y0: float, x1: float, y1: float) -> Polygon:
    return shapely.box(x0, y0, x1, y1)


def rotate(g: BaseGeometry, deg: float, origin: Sequence[float] = (0.0, 0.0)) -> BaseGeometry:
    return affinity.rotate(g, deg, origin=tuple(origin))


def move(g: BaseGeometry, dx: float, dy: float) -> BaseGeometry:
    return affinity.translate(g, dx, dy)


def scale(g: BaseGeometry, fx: float, fy: float | None = None,
          origin: Sequence[float] = (0.0, 0.0)) -> BaseGeometry:
    return affinity.scale(g, fx, fx if fy is None else fy, origin=tuple(origin))


def union(*parts: BaseGeometry) -> Geom:
    return clean(unary_union([p for p in parts if p is not None and not p.is_empty]))


def around(g: BaseGeometry, n: int, start: float = 0.0) -> Geom:
    """n copies of g turned about the origin, 360/n degrees apart (the first by `start`)."""
    return union(*(rotate(g, start + 360.0 * k / n) for k in range(n)))


def outline(g: BaseGeometry, width: float) -> Geom:
    """The shape drawn as a band of `width` inside its own edge (the 陰 'shadow' style)."""
    return clean(g.difference(g.buffer(-width, quad_segs=8)))


def cut(g: BaseGeometry, *holes: BaseGeometry, gap: float = 0.0) -> Geom:
    """g minus the holes, each widened by `gap` (white space between touching parts)."""
    remove = unary_union([h.buffer(gap, quad_segs=6) if gap else h for h in holes])
    return clean(g.difference(remove))


def clean(g: BaseGeometry, min_area: float = 1e-6) -> Geom:
    """Valid polygons only (no lines or points), tiny slivers dropped, as a MultiPolygon."""
    if not g.is_valid:
        g = shapely.make_valid(g)
    polys = []
    for part in getattr(g, "geoms", [g]):
        if isinstance(part, Polygon):
            if part.area > min_area:
                polys.append(part)
        elif isinstance(part, (MultiPolygon, GeometryCollection)):
            polys.extend(p for p in clean(part, min_area).geoms)
    return shapely.normalize(MultiPolygon(polys)) if polys else EMPTY


def radius(g: BaseGeometry) -> float:
    """Largest distance from the origin to the shape."""
    if g.is_empty:
        return 0.0
    return max(math.hypot(x, y) for p in getattr(g, "geoms", [g]) for x, y in p.exterior.coords)


def fit(g: BaseGeometry, r: float = 0.95) -> Geom:
    """Scale about the origin so that the shape just fits in a circle of radius r."""
    return clean(scale(g, r / radius(g)))


def centre_bbox(g: BaseGeometry) -> BaseGeometry:
    """Move the shape so its bounding box is centred on the origin."""
    x0, y0, x1, y1 = g.bounds
    return move(g, -(x0 + x1) / 2.0, -(y0 + y1) / 2.0)


def symmetric_difference_ratio(g: BaseGeometry, h: BaseGeometry) -> float:
    """Area that differs between two shapes, relative to the first one's area."""
    return g.symmetric_difference(h).area / max(g.area, 1e-12)
