"""The crest library: original procedural motifs and containers, each a shapely geometry.

Every entry has a stable, non-linguistic id (used in program codes), a stable ASCII `key`
(used in configs), its Japanese name, the reading in hiragana, a romanization, an English
name (singular and plural, for translations) and an `oriented` flag: whether the motif has a
clear up direction, so that bottoms-together and heads-together arrangements look different
from three-stacked.

Ids: base motifs are written out literally ("0001".."0043"); a style variant's id is its
style digit followed by the base's last three digits (陰 kage 1, 中陰 nakakage 2, 石持ち地抜き
ishimochi 3): 陰桔梗 is "1008" because 桔梗 is "0008". Containers are "01".."16". Ids never
change once published; tests pin them.

All geometry is drawn here from circles, polygons, strokes and boolean operations. Motifs fit
in a circle of radius 0.95 about the canvas origin; containers reach at most 1.0 and also
give their interior (the region a contained motif sits in, and what peeking is clipped to).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from shapely.geometry import Point, Polygon

from byo.families.crest.motifs.geometry import (
    Geom,
    around,
    box,
    centre_bbox,
    clean,
    cut,
    disk,
    ellipse,
    fit,
    move,
    outline,
    polar,
    regular,
    ring,
    rotate,
    scale,
    sector,
    stroke,
    union,
)

MOTIF_RADIUS = 0.95
# Two motifs are distinct when their silhouettes (the flat render: the shape sampled at pixel
# centres, 128 px across [-1.05, 1.05]) differ in at least this share of the motif disk's pixels;
# two containers, in at least DISTINCT_CONTAINERS of the unit disk's (their bands are thin, and the
# corner-cut and indented-corner squares differ only at their corners).
DISTINCT = 0.04
DISTINCT_CONTAINERS = 0.03


@dataclass(frozen=True)
class Component:
    id: str
    key: str
    kind: Literal["motif", "container"]
    ja: str
    reading: str  # hiragana
    romaji: str
    en: str
    en_plural: str
    oriented: bool
    style: str = "plain"  # plain | kage | nakakage | ishimochi
    base: str | None = None  # key of the base motif of a style variant
    build: Callable[[], object] = field(default=None, repr=False, compare=False)

    @property
    def token(self) -> str:
        return f"{'M' if self.kind == 'motif' else 'C'}:{self.id}"

    def geometry(self) -> Geom:
        """Motif: the shape. Container: the band (what is drawn)."""
        return _geometry(self.kind, self.key)[0]

    def interior(self) -> Geom:
        """Containers only: the region inside the band."""
        if self.kind != "container":
            raise ValueError(f"{self.key} is a motif; only containers have an interior")
        return _geometry(self.kind, self.key)[1]

    def names(self) -> dict[str, str]:
        return {"id": self.id, "key": self.key, "ja": self.ja, "reading": self.reading,
                "romaji": self.romaji, "en": self.en}


# --- containers ------------------------------------------------------------------------------
def _band(outer: Geom, width: float, join: str = "mitre") -> tuple[Geom, Geom]:
    inner = outer.buffer(-width, join_style=join, quad_segs=16)
    return clean(outer.difference(inner)), clean(inner)


def _maru():
    return ring(0.86, 1.0), disk(0.86)


def _hosowa():
    return ring(0.94, 1.0), disk(0.94)


def _futowa():
    return ring(0.72, 1.0), disk(0.72)


def _nijuwa():
    return union(ring(0.94, 1.0), ring(0.80, 0.86)), disk(0.80)


def _kagewa():
    return outline(ring(0.80, 1.0).buffer(0), 0.03), disk(0.80)


def _sumitate_kaku():
    outer = Polygon([(0, 1), (1, 0), (0, -1), (-1, 0)])
    inner = scale(outer, 0.84)
    return clean(outer.difference(inner)), clean(inner)


def _hirakaku():
    return _band(box(-0.9, -0.9, 0.9, 0.9), 0.1)


def _sumikiri_kaku():
    h, c = 0.9, 0.3
    outer = Polygon([(-h + c, -h), (h - c, -h), (h, -h + c), (h, h - c), (h - c, h), (-h + c, h),
                     (-h, h - c), (-h, -h + c)])
    return _band(outer, 0.1)


def _sumiiri_kaku():
    h, c = 0.9, 0.18
    corners = [box(sx * h - c, sy * h - c, sx * h + c, sy * h + c) for sx in (-1, 1) for sy in (-1, 1)]
    return _band(cut(box(-h, -h, h, h), *corners), 0.1)


def _kikko():
    outer = regular(6, 1.0, start=0)
    return clean(outer.difference(regular(6, 0.86, start=0))), clean(regular(6, 0.86, start=0))


def _hakkaku():
    outer = regular(8, 1.0, start=22.5)
    return clean(outer.difference(regular(8, 0.87, start=22.5))), clean(regular(8, 0.87, start=22.5))


def _yukiwa():
    outer = cut(disk(1.0), *(disk(0.2, polar(1.02, 30 + 60 * k)) for k in range(6)))
    return _band(outer, 0.1, join="round")


def _kikuwa():
    petal = union(disk(0.085, (0.915, 0.0)), box(0.83, -0.05, 0.915, 0.05))
    band = union(ring(0.80, 0.855), around(petal, 24, start=90))
    return band, disk(0.80)


def _mokko():
    outer = union(*(disk(0.52, polar(0.46, 90 * k)) for k in range(4)))
    return _band(outer, 0.1, join="round")


def _hishi():
    return _band(Polygon([(0, 1), (0.68, 0), (0, -1), (-0.68, 0)]), 0.09)


def _goka():
    outer = union(disk(0.6), *(disk(0.45, polar(0.53, 90 + 72 * k)) for k in range(5)))
    return _band(outer, 0.1, join="round")


def _miewa():
    return union(ring(0.95, 1.0), ring(0.85, 0.9), ring(0.75, 0.8)), disk(0.75)


def _nijukaku():
    outer = box(-0.9, -0.9, 0.9, 0.9)
    return union(outline(outer, 0.06), outline(box(-0.78, -0.78, 0.78, 0.78), 0.05)), box(-0.73, -0.73, 0.73, 0.73)


def _nijubishi():
    outer = Polygon([(0, 1), (0.8, 0), (0, -1), (-0.8, 0)])
    inner = outer.buffer(-0.08, join_style="mitre")
    return union(outline(outer, 0.05), outline(inner, 0.045)), inner.buffer(-0.045, join_style="mitre")


def _izutsu(turn: float = 0.0):
    """A well frame: four bars crossing near their ends, the square between them the interior."""
    h, w, e = 0.56, 0.065, 0.76
    bars = [box(-e, y - w, e, y + w) for y in (-h, h)] + [box(x - w, -e, x + w, e) for x in (-h, h)]
    return rotate(union(*bars), turn), rotate(box(-h + w, -h + w, h - w, h - w), turn)


def _gokaku():
    return _band(regular(5, 1.0, start=90), 0.1)


# --- motifs ----------------------------------------------------------------------------------
def _kokumochi():
    return disk(0.95)


def _janome():
    return ring(0.5, 0.9)


def _comma(sweep: float, head_r: float = 0.28, head_at: float = 0.38) -> Geom:
    """A tomoe: a round head at the top and a tail that spirals clockwise out to the rim."""
    r0, w0, n = head_at + head_r, 2 * head_r, 90
    outer, inner = [], []
    for i in range(n + 1):
        t = i / n
        a = 90.0 - sweep * t
        ro = r0 + (0.95 - r0) * math.sin(t * math.pi / 2)
        w = w0 * (1 - t) ** 1.3
        outer.append(polar(ro, a))
        inner.append(polar(ro - w, a))
    return union(disk(head_r, (0.0, head_at)), Polygon(outer + inner[::-1]).buffer(0))


def _futatsudomoe():
    return around(_comma(215, head_r=0.3, head_at=0.36), 2)


def _mitsudomoe():
    return around(_comma(170), 3)


def _heart(lobe_r: float = 0.25, lobe_x: float = 0.2, lobe_y: float = 0.6, tip_y: float = 0.0) -> Geom:
    """A heart pointing down at (0, tip_y), lobes up."""
    tip = Point(0.0, tip_y)
    left, right = disk(lobe_r, (-lobe_x, lobe_y)), disk(lobe_r, (lobe_x, lobe_y))
    return union(left.union(tip).convex_hull, right.union(tip).convex_hull)


def _katabami():
    leaf = cut(_heart(0.26, 0.21, 0.6), stroke([(0, 0.12), (0, 0.5)], 0.035))
    return union(*(rotate(leaf, a - 90) for a in (90, 210, 330)))


def _ume():
    petals = union(disk(0.3), *(disk(0.33, polar(0.55, 90 + 72 * k)) for k in range(5)))
    slits = [stroke([polar(0.22, 126 + 72 * k), polar(0.62, 126 + 72 * k)], 0.04) for k in range(5)]
    return cut(petals, ring(0.15, 0.2), *slits)


def _umebachi():
    parts = [disk(0.21)]
    for k in range(5):
        parts.append(disk(0.27, polar(0.64, 90 + 72 * k)))
        b = 126 + 72 * k
        parts += [stroke([polar(0.17, b), polar(0.42, b)], 0.06), disk(0.06, polar(0.44, b))]
    return union(*parts)


def _kikyo():
    pts = []
    for k in range(5):
        c = 90 + 72 * k
        for da, r in ((-36, 0.40), (-28, 0.68), (-19, 0.88), (-9, 0.96), (0, 0.80), (9, 0.96), (19, 0.88),
                      (28, 0.68)):
            pts.append(polar(r, c + da))
    body = Polygon(pts).buffer(0.03, quad_segs=8).buffer(-0.03, quad_segs=8)
    lines = [stroke([(0, 0), polar(0.42, 126 + 72 * k)], 0.035) for k in range(5)]
    return cut(body, ring(0.09, 0.13), *lines)


def _sakura():
    petals = []
    for k in range(5):
        c = 90 + 72 * k
        petal = ellipse(0.27, 0.4, polar(0.55, c), c - 90)
        notch = Polygon([polar(1.0, c - 8), polar(0.84, c), polar(1.0, c + 8)])
        petals.append(cut(petal, notch))
    slits = [stroke([polar(0.18, 126 + 72 * k), polar(0.6, 126 + 72 * k)], 0.035) for k in range(5)]
    return cut(union(disk(0.25), *petals), ring(0.11, 0.15), *slits)


def _petal(a: float, r0: float, r1: float, w0: float, w1: float) -> Geom:
    return disk(w0 / 2, polar(r0, a)).union(disk(w1 / 2, polar(r1, a))).convex_hull


def _kiku():
    front = union(*(_petal(22.5 * k, 0.3, 0.85, 0.06, 0.2) for k in range(16)))
    back = union(*(_petal(11.25 + 22.5 * k, 0.42, 0.84, 0.04, 0.13) for k in range(16)))
    return cut(union(front, cut(back, front, gap=0.025), disk(0.19)), ring(0.19, 0.25))


def _hanabishi():
    petal = _heart(0.24, 0.2, 0.62, tip_y=0.06)
    petals = union(*(rotate(petal, 90 * k) for k in range(4)))
    stamens = [union(stroke([polar(0.12, 45 + 90 * k), polar(0.42, 45 + 90 * k)], 0.04),
                     disk(0.055, polar(0.46, 45 + 90 * k))) for k in range(4)]
    return scale(union(cut(petals, *stamens, gap=0.03), *stamens, disk(0.07)), 0.72, 1.0)


def _lozenge(hw: float, hh: float, centre=(0.0, 0.0)) -> Polygon:
    cx, cy = centre
    return Polygon([(cx, cy + hh), (cx + hw, cy), (cx, cy - hh), (cx - hw, cy)])


def _warabishi():
    w = 0.68
    parts = [_lozenge(w / 2, 0.5, c).buffer(-0.03, join_style="mitre") for c in
             ((0, 0.5), (0, -0.5), (w / 2, 0), (-w / 2, 0))]
    return union(*parts)


def _matsukawabishi():
    return union(_lozenge(0.95, 0.42), _lozenge(0.55, 0.4, (0, 0.4)), _lozenge(0.55, 0.4, (0, -0.4)))


def _four_eyes(hole: bool) -> Geom:
    parts = []
    for c in ((0, 0.5), (0.5, 0), (0, -0.5), (-0.5, 0)):
        eye = _lozenge(0.42, 0.42, c)
        parts.append(cut(eye, _lozenge(0.17, 0.17, c)) if hole else eye)
    return union(*parts)


def _kuyo():
    return union(disk(0.3), *(disk(0.19, polar(0.72, 90 + 45 * k)) for k in range(8)))


def _shichiyo():
    return union(disk(0.29), *(disk(0.29, polar(0.64, 90 + 60 * k)) for k in range(6)))


def _mitsuboshi():
    return union(*(disk(0.4, polar(0.5, 90 + 120 * k)) for k in range(3)))


def _arrow() -> Geom:
    shaft = box(-0.035, -0.86, 0.035, 0.62)
    head = Polygon([(0, 1.0), (-0.14, 0.58), (0, 0.66), (0.14, 0.58)])
    feather = Polygon([(-0.035, -0.42), (-0.17, -0.56), (-0.17, -0.96), (-0.035, -0.82)])
    return union(shaft, head, feather, scale(feather, -1.0, 1.0))


def _chigaiya():
    a, b = rotate(_arrow(), 27), rotate(_arrow(), -27)
    return union(a, cut(b, a, gap=0.035))


def _hitotsuya():
    return _arrow()


def _igeta():
    w, p, e = 0.09, 0.32, 0.9
    rows = [box(-e, y - w, e, y + w) for y in (-p, p)]
    cols = [box(x - w, -e, x + w, e) for x in (-p, p)]
    parts_rows, parts_cols = list(rows), list(cols)
    for i, x in enumerate((-p, p)):
        for j, y in enumerate((-p, p)):
            near = box(x - 0.25, y - 0.25, x + 0.25, y + 0.25)
            if (i + j) % 2 == 0:  # the row passes over the column here
                parts_cols[i] = parts_cols[i].difference(rows[j].buffer(0.035).intersection(near))
            else:
                parts_rows[j] = parts_rows[j].difference(cols[i].buffer(0.035).intersection(near))
    return rotate(union(*parts_rows, *parts_cols), 45)


def _triangle(side: float) -> Polygon:
    h = side * math.sqrt(3) / 2
    return Polygon([(0, h), (-side / 2, 0), (side / 2, 0)])


def _hitotsuuroko():
    side = 1.6
    return move(_triangle(side), 0, -side * math.sqrt(3) / 6)


def _mitsuuroko():
    s = 1.0
    h = s * math.sqrt(3) / 2
    small = [move(_triangle(s), 0, h), move(_triangle(s), -s / 2, 0), move(_triangle(s), s / 2, 0)]
    tris = union(*(t.buffer(-0.025, join_style="mitre") for t in small))
    return move(tris, 0, -2 * h / 3)


def _yamagata():
    return centre_bbox(stroke([(-0.9, -0.3), (0, 0.5), (0.9, -0.3)], 0.32, cap="flat", join="mitre"))


def _ogi():
    pivot = (0.0, -0.7)
    angles = [40 + 100 * k / 7 for k in range(8)]
    paper = sector(0.85, 1.6, 40, 140, pivot)
    folds = [stroke([polar(0.9, a, pivot), polar(1.65, a, pivot)], 0.025) for a in angles[1:-1]]
    ribs = [stroke([pivot, polar(0.9, a, pivot)], 0.045) for a in angles]
    return centre_bbox(union(cut(paper, *folds), *ribs, disk(0.08, pivot)))


def _mikazuki():
    return centre_bbox(cut(disk(0.9), disk(0.76, (0, 0.32))))


def _seigaiha():
    def unit(c):
        arcs = union(ring(0.1, 0.19, c), ring(0.28, 0.37, c), ring(0.46, 0.55, c))
        return arcs.intersection(box(c[0] - 1, c[1], c[0] + 1, c[1] + 1))

    back_c, fronts_c = (0.0, -0.1), [(-0.52, -0.42), (0.52, -0.42)]
    fronts = union(*(unit(c) for c in fronts_c))
    cover = union(*(disk(0.55, c).intersection(box(c[0] - 1, c[1], c[0] + 1, c[1] + 1)) for c in fronts_c))
    return centre_bbox(union(fronts, cut(unit(back_c), cover, gap=0.04)))


def _inazuma():
    pts, (x, y) = [(0.0, 0.0)], (0.0, 0.0)
    step, dirs = 0.22, [(1, 0), (0, -1), (-1, 0), (0, 1)]
    for k in range(9):
        dx, dy = dirs[k % 4]
        length = step * (k // 2 + 1)
        x, y = x + dx * length, y + dy * length
        pts.append((x, y))
    return centre_bbox(stroke(pts, 0.12, cap="flat", join="mitre"))


def _seimei():
    pts = [polar(0.95, 90 + 144 * k) for k in range(6)]
    return union(stroke(pts, 0.09, cap="flat", join="mitre"))


def _asanoha():
    kites = [Polygon([(0, 0), polar(0.4, a - 30), polar(0.95, a), polar(0.4, a + 30)]).buffer(
        -0.025, join_style="mitre") for a in range(90, 450, 60)]
    return union(*kites)


def _bars(n: int) -> Geom:
    band = {1: [(-0.2, 0.2)], 2: [(0.12, 0.48), (-0.48, -0.12)], 3: [(0.39, 0.65), (-0.13, 0.13), (-0.65, -0.39)]}
    return union(*(box(-1, y0, 1, y1) for y0, y1 in band[n])).intersection(disk(0.95))


def _zeni():
    return cut(disk(0.95), box(-0.26, -0.26, 0.26, 0.26), ring(0.77, 0.82))


def _sagarifuji():
    parts = [stroke([polar(0.8, a) for a in range(150, 29, -5)], 0.08)]
    for a in range(40, 141, 20):  # leaves along the branch
        parts.append(ellipse(0.06, 0.13, polar(0.8, a), a - 90 + 25))
    for side in (1, -1):
        cluster = None
        for k in range(8):  # petals hang down in overlapping scales, each behind the one above
            c = polar(0.68 - 0.02 * k, 165 + 13 * k)
            petal = disk(0.15 - 0.013 * k, (side * c[0], c[1]))
            cluster = petal if cluster is None else union(cluster, cut(petal, cluster, gap=0.025))
        parts.append(cluster)
    return centre_bbox(union(*parts))


def _oak_leaf() -> Geom:
    blade = ellipse(0.2, 0.38, (0, 0.55))
    bites = [disk(0.055, (sx * 0.205, 0.55 + dy)) for sx in (-1, 1) for dy in (-0.2, 0.0, 0.2)]
    veins = [stroke([(0, 0.55 + dy), (sx * 0.13, 0.65 + dy)], 0.025) for sx in (-1, 1) for dy in (-0.2, 0.0, 0.2)]
    leaf = cut(blade, *bites, stroke([(0, 0.2), (0, 0.86)], 0.03), *veins)
    return union(leaf, stroke([(0, 0.0), (0, 0.2)], 0.06))


def _mitsugashiwa():
    return union(*(rotate(_oak_leaf(), a - 90) for a in (90, 210, 330)))


def _choji():
    bulb = disk(0.3, (0, 0.4))
    crown = union(disk(0.1, (0, 0.78)), disk(0.09, (-0.16, 0.72)), disk(0.09, (0.16, 0.72)))
    stem = disk(0.12, (0, 0.12)).union(disk(0.04, (0, -0.9))).convex_hull
    return centre_bbox(cut(union(bulb, crown, stem), ring(0.12, 0.16, (0, 0.4))))


def _teardrop(r: float, c: tuple[float, float], tip: tuple[float, float]) -> Geom:
    return disk(r, c).union(Point(tip)).convex_hull


def _hoju():
    body = _teardrop(0.58, (0, -0.3), (0, 0.95))
    inner = outline(_teardrop(0.38, (0, -0.32), (0, 0.5)), 0.05)
    return centre_bbox(cut(body, inner))


def _suzu():
    body = disk(0.66, (0, -0.2))
    slot = union(stroke([(-0.42, -0.34), (0.42, -0.34)], 0.09), disk(0.08, (0, -0.55)),
                 stroke([(0, -0.55), (0, -0.9)], 0.05))
    band = stroke([(-0.7, 0.0), (0.7, 0.0)], 0.035)
    return centre_bbox(union(cut(body, slot, band), ring(0.1, 0.19, (0, 0.6))))


def _wachigai():
    left, right = ring(0.4, 0.52, (-0.36, 0)), ring(0.4, 0.52, (0.36, 0))
    top, bottom = box(-0.3, 0, 0.3, 1), box(-0.3, -1, 0.3, 0)
    right_cut = right.difference(left.buffer(0.035).intersection(top))
    left_cut = left.difference(right.buffer(0.035).intersection(bottom))
    return union(left_cut, right_cut)


def _shippo():
    inner = union(*(ring(0.89, 0.95, polar(0.95, 90 * k)) for k in range(4))).intersection(disk(0.95))
    return union(ring(0.83, 0.95), inner)


def _fundo():
    return cut(box(-0.62, -0.85, 0.62, 0.85), disk(0.5, (-1.0, 0)), disk(0.5, (1.0, 0)))


def _karakasa():
    top = (0.0, -0.05)
    canopy = sector(0.0, 0.85, 0, 180, top)
    bites = [disk(0.12, (x, -0.05)) for x in (-0.72, -0.36, 0.0, 0.36, 0.72)]
    ribs = [stroke([(0, 0.78), (x, 0.04)], 0.03) for x in (-0.54, -0.18, 0.18, 0.54)]
    handle = stroke([(0, -0.05), (0, -0.72)], 0.07)
    hook = stroke([polar(0.12, a, (0.12, -0.72)) for a in range(180, 361, 15)], 0.07)
    return centre_bbox(union(cut(canopy, *bites, *ribs), handle, hook, disk(0.05, (0, 0.84))))


def _rokuyo():
    return union(disk(0.3), *(disk(0.27, polar(0.66, 90 + 72 * k)) for k in range(5)))


def _hachiyo():
    return union(disk(0.3), *(disk(0.22, polar(0.7, 90 + 360 / 7 * k)) for k in range(7)))


def _mirrored(build: Callable[[], Geom]) -> Callable[[], Geom]:
    """The left-turning (hidari) form of a right-turning motif: its mirror image."""
    return lambda: scale(build(), -1.0, 1.0)


def _kutsuwa():
    return union(ring(0.68, 0.92), box(-0.7, -0.09, 0.7, 0.09), box(-0.09, -0.7, 0.09, 0.7))


def _juji():
    return union(box(-0.9, -0.17, 0.9, 0.17), box(-0.17, -0.9, 0.17, 0.9))


def _hitotsumeyui():
    return cut(_lozenge(0.9, 0.9), _lozenge(0.36, 0.36))


# --- style variants ----------------------------------------------------------------------
STYLES = {
    # style: (id digit, Japanese prefix, reading prefix, romaji prefix, English singular, plural)
    "kage": ("1", "陰", "かげ", "kage ", "outlined {}", "outlined {}"),
    "nakakage": ("2", "中陰", "なかかげ", "nakakage ", "thick-outlined {}", "thick-outlined {}"),
    "ishimochi": ("3", "石持ち地抜き", "こくもちじぬき", "kokumochi jinuki ", "{} cut out of a disk",
                  "{} cut out of disks"),
}
OUTLINE_WIDTH = {"kage": 0.06, "nakakage": 0.13}


def _styled(style: str, base_key: str) -> Callable[[], Geom]:
    def build():
        g = MOTIFS_BY_KEY[base_key].geometry()
        if style in OUTLINE_WIDTH:
            return outline(g, OUTLINE_WIDTH[style])
        return cut(disk(0.95), scale(g, 0.78))  # ishimochi: the motif in white on a black disk
    return build


# --- the tables --------------------------------------------------------------------------
def _c(id, key, ja, reading, romaji, en, build):
    return Component(id=id, key=key, kind="container", ja=ja, reading=reading, romaji=romaji, en=en,
                     en_plural=en + "s", oriented=False, build=build)


def _m(id, key, ja, reading, romaji, en, build, oriented=False, plural=None):
    if plural is None:
        plural = en + ("es" if en.endswith(("s", "sh", "ch", "x")) else "s")
    return Component(id=id, key=key, kind="motif", ja=ja, reading=reading, romaji=romaji, en=en,
                     en_plural=plural, oriented=oriented, build=build)


CONTAINERS: tuple[Component, ...] = (
    _c("01", "maru", "丸", "まる", "maru", "circle", _maru),
    _c("02", "hosowa", "細輪", "ほそわ", "hosowa", "thin ring", _hosowa),
    _c("03", "futowa", "太輪", "ふとわ", "futowa", "thick ring", _futowa),
    _c("04", "nijuwa", "二重輪", "にじゅうわ", "nijūwa", "double ring", _nijuwa),
    _c("05", "kagewa", "陰輪", "かげわ", "kagewa", "outlined ring", _kagewa),
    _c("06", "sumitate-kaku", "隅立て角", "すみたてかく", "sumitate kaku", "square on its corner", _sumitate_kaku),
    _c("07", "hirakaku", "平角", "ひらかく", "hirakaku", "square", _hirakaku),
    _c("08", "sumikiri-kaku", "隅切り角", "すみきりかく", "sumikiri kaku", "corner-cut square", _sumikiri_kaku),
    _c("09", "sumiiri-kaku", "隅入り角", "すみいりかく", "sumiiri kaku", "indented-corner square", _sumiiri_kaku),
    _c("10", "kikko", "亀甲", "きっこう", "kikkō", "tortoise shell", _kikko),
    _c("11", "hakkaku", "八角", "はっかく", "hakkaku", "octagon", _hakkaku),
    _c("12", "yukiwa", "雪輪", "ゆきわ", "yukiwa", "snow ring", _yukiwa),
    _c("13", "kikuwa", "菊輪", "きくわ", "kikuwa", "chrysanthemum ring", _kikuwa),
    _c("14", "mokko", "木瓜", "もっこう", "mokkō", "quince", _mokko),
    _c("15", "hishi", "菱", "ひし", "hishi", "lozenge", _hishi),
    _c("16", "goka", "五瓜", "ごか", "goka", "five-lobed quince", _goka),
    _c("17", "miewa", "三重輪", "みえわ", "miewa", "triple ring", _miewa),
    _c("18", "nijukaku", "二重角", "にじゅうかく", "nijū kaku", "double square", _nijukaku),
    _c("19", "nijubishi", "二重菱", "にじゅうびし", "nijū bishi", "double lozenge", _nijubishi),
    _c("20", "izutsu", "井筒", "いづつ", "izutsu", "well frame", _izutsu),
    _c("21", "sumitate-izutsu", "隅立て井筒", "すみたていづつ", "sumitate izutsu", "well frame on its corner",
       lambda: _izutsu(45.0)),
    _c("22", "gokaku", "五角", "ごかく", "gokaku", "pentagon", _gokaku),
)

_BASE_MOTIFS: tuple[Component, ...] = (
    _m("0001", "kokumochi", "黒餅", "こくもち", "kokumochi", "black disk", _kokumochi),
    _m("0002", "janome", "蛇の目", "じゃのめ", "janome", "snake's eye", _janome),
    _m("0003", "futatsudomoe", "二つ巴", "ふたつどもえ", "futatsu domoe", "pair of commas", _futatsudomoe,
       plural="pairs of commas"),
    _m("0004", "mitsudomoe", "三つ巴", "みつどもえ", "mitsu domoe", "trio of commas", _mitsudomoe,
       plural="trios of commas"),
    _m("0005", "katabami", "片喰", "かたばみ", "katabami", "wood sorrel", _katabami),
    _m("0006", "ume", "梅", "うめ", "ume", "plum blossom", _ume),
    _m("0007", "umebachi", "梅鉢", "うめばち", "umebachi", "plum bowl", _umebachi),
    _m("0008", "kikyo", "桔梗", "ききょう", "kikyō", "bellflower", _kikyo),
    _m("0009", "sakura", "桜", "さくら", "sakura", "cherry blossom", _sakura),
    _m("0010", "kiku", "十六菊", "じゅうろくぎく", "jūroku giku", "sixteen-petal chrysanthemum", _kiku),
    _m("0011", "hanabishi", "花菱", "はなびし", "hanabishi", "flower lozenge", _hanabishi),
    _m("0012", "warabishi", "割菱", "わりびし", "waribishi", "divided lozenge", _warabishi),
    _m("0013", "matsukawabishi", "松皮菱", "まつかわびし", "matsukawabishi", "pine-bark lozenge",
       _matsukawabishi),
    _m("0014", "yotsumeyui", "四つ目結", "よつめゆい", "yotsume yui", "knot of four eyes",
       lambda: _four_eyes(True), plural="knots of four eyes"),
    _m("0015", "yotsume", "四つ目", "よつめ", "yotsume", "set of four eyes", lambda: _four_eyes(False),
       plural="sets of four eyes"),
    _m("0016", "kuyo", "九曜", "くよう", "kuyō", "set of nine luminaries", _kuyo,
       plural="sets of nine luminaries"),
    _m("0017", "shichiyo", "七曜", "しちよう", "shichiyō", "set of seven luminaries", _shichiyo,
       plural="sets of seven luminaries"),
    _m("0018", "mitsuboshi", "三つ星", "みつぼし", "mitsuboshi", "trio of stars", _mitsuboshi,
       plural="trios of stars"),
    _m("0019", "chigaiya", "違い矢", "ちがいや", "chigaiya", "pair of crossed arrows", _chigaiya, oriented=True,
       plural="pairs of crossed arrows"),
    _m("0020", "hitotsuya", "一つ矢", "ひとつや", "hitotsuya", "arrow", _hitotsuya, oriented=True),
    _m("0021", "igeta", "井桁", "いげた", "igeta", "well curb", _igeta),
    _m("0022", "hitotsuuroko", "一つ鱗", "ひとつうろこ", "hitotsu uroko", "fish scale", _hitotsuuroko),
    _m("0023", "mitsuuroko", "三つ鱗", "みつうろこ", "mitsu uroko", "trio of fish scales", _mitsuuroko,
       plural="trios of fish scales"),
    _m("0024", "yamagata", "山形", "やまがた", "yamagata", "mountain", _yamagata, oriented=True),
    _m("0025", "ogi", "扇", "おうぎ", "ōgi", "folding fan", _ogi, oriented=True),
    _m("0026", "mikazuki", "三日月", "みかづき", "mikazuki", "crescent moon", _mikazuki, oriented=True),
    _m("0027", "seigaiha", "青海波", "せいがいは", "seigaiha", "wave pattern", _seigaiha, oriented=True),
    _m("0028", "inazuma", "稲妻", "いなずま", "inazuma", "lightning meander", _inazuma),
    _m("0029", "seimei", "晴明桔梗", "せいめいききょう", "seimei kikyō", "pentagram", _seimei),
    _m("0030", "asanoha", "麻の葉", "あさのは", "asa no ha", "hemp leaf", _asanoha, plural="hemp leaves"),
    _m("0031", "hitotsubiki", "一つ引", "ひとつひき", "hitotsu hiki", "single bar", lambda: _bars(1)),
    _m("0032", "futatsubiki", "二つ引", "ふたつひき", "futatsu hiki", "pair of bars", lambda: _bars(2),
       plural="pairs of bars"),
    _m("0033", "mitsubiki", "三つ引", "みつひき", "mitsu hiki", "trio of bars", lambda: _bars(3),
       plural="trios of bars"),
    _m("0034", "zeni", "銭", "ぜに", "zeni", "coin", _zeni),
    _m("0035", "sagarifuji", "下り藤", "さがりふじ", "sagari fuji", "hanging wisteria", _sagarifuji,
       oriented=True),
    _m("0036", "mitsugashiwa", "三つ柏", "みつがしわ", "mitsu gashiwa", "trio of oak leaves", _mitsugashiwa,
       plural="trios of oak leaves"),
    _m("0037", "choji", "丁子", "ちょうじ", "chōji", "clove", _choji, oriented=True),
    _m("0038", "hoju", "宝珠", "ほうじゅ", "hōju", "sacred jewel", _hoju, oriented=True),
    _m("0039", "suzu", "鈴", "すず", "suzu", "bell", _suzu, oriented=True),
    _m("0040", "wachigai", "輪違い", "わちがい", "wachigai", "pair of linked rings", _wachigai,
       plural="pairs of linked rings"),
    _m("0041", "shippo", "七宝", "しっぽう", "shippō", "seven-treasures ring", _shippo),
    _m("0042", "fundo", "分銅", "ふんどう", "fundō", "counterweight", _fundo),
    _m("0043", "karakasa", "傘", "からかさ", "karakasa", "umbrella", _karakasa, oriented=True),
    _m("0044", "rokuyo", "六曜", "ろくよう", "rokuyō", "set of six luminaries", _rokuyo,
       plural="sets of six luminaries"),
    _m("0045", "hachiyo", "八曜", "はちよう", "hachiyō", "set of eight luminaries", _hachiyo,
       plural="sets of eight luminaries"),
    _m("0046", "hidari-mitsudomoe", "左三つ巴", "ひだりみつどもえ", "hidari mitsu domoe",
       "left-turning trio of commas", _mirrored(_mitsudomoe), plural="left-turning trios of commas"),
    _m("0047", "hidari-futatsudomoe", "左二つ巴", "ひだりふたつどもえ", "hidari futatsu domoe",
       "left-turning pair of commas", _mirrored(_futatsudomoe), plural="left-turning pairs of commas"),
    _m("0048", "kutsuwa", "轡", "くつわ", "kutsuwa", "bridle bit", _kutsuwa),
    _m("0049", "juji", "十字", "じゅうじ", "jūji", "cross", _juji),
    _m("0050", "hitotsumeyui", "一つ目結", "ひとつめゆい", "hitotsume yui", "single eye knot", _hitotsumeyui),
)

_VARIANTS = (  # (style, base key): the first ten as published; the rest appended (ids never move)
    ("kage", "mitsudomoe"), ("kage", "ume"), ("kage", "kikyo"), ("nakakage", "kikyo"),
    ("kage", "yamagata"), ("kage", "choji"),
    ("ishimochi", "kikyo"), ("ishimochi", "hanabishi"), ("ishimochi", "ogi"), ("ishimochi", "hoju"),
    # Every style of every base whose silhouette stays distinct from all motifs before it (at least
    # DISTINCT of the motif disk's pixels differ; tests/families/crest/motifs/test_inventory.py):
    # outlines of thin strokes, for one, are the strokes themselves and are left out.
    *(("kage", k) for k in """
    janome futatsudomoe katabami umebachi sakura kiku hanabishi warabishi matsukawabishi yotsumeyui
    yotsume kuyo shichiyo mitsuboshi igeta hitotsuuroko mitsuuroko ogi mikazuki inazuma asanoha
    hitotsubiki futatsubiki mitsubiki zeni hoju suzu fundo karakasa rokuyo hachiyo hidari-mitsudomoe
    hidari-futatsudomoe kutsuwa juji hitotsumeyui
    """.split()),
    *(("ishimochi", k) for k in """
    janome futatsudomoe mitsudomoe katabami ume umebachi sakura kiku warabishi matsukawabishi
    yotsumeyui yotsume kuyo shichiyo mitsuboshi chigaiya hitotsuya igeta hitotsuuroko mitsuuroko
    yamagata mikazuki seigaiha inazuma seimei asanoha hitotsubiki futatsubiki mitsubiki zeni
    sagarifuji mitsugashiwa choji suzu wachigai shippo fundo karakasa rokuyo hachiyo
    hidari-mitsudomoe hidari-futatsudomoe kutsuwa juji hitotsumeyui
    """.split()),
    *(("nakakage", k) for k in """
    janome futatsudomoe mitsudomoe katabami ume umebachi sakura hanabishi warabishi matsukawabishi
    yotsume kuyo shichiyo mitsuboshi hitotsuuroko mitsuuroko mikazuki hitotsubiki futatsubiki zeni
    hoju suzu fundo rokuyo hachiyo hidari-mitsudomoe hidari-futatsudomoe juji hitotsumeyui
    """.split()),
)


# Cut out of a disk, these oriented motifs differ too little when turned (the disk dominates
# the silhouette), so they are not drawn in bottoms- or heads-together arrangements.
_TURN_TOO_SIMILAR = {"ishimochi-chigaiya", "ishimochi-hitotsuya", "ishimochi-seigaiha", "ishimochi-sagarifuji",
                     "ishimochi-choji"}


def _variant(style: str, base: Component) -> Component:
    digit, ja, reading, romaji, en, plural = STYLES[style]
    key = f"{style}-{base.key}"
    return Component(id=digit + base.id[1:], key=key, kind="motif", ja=ja + base.ja,
                     reading=reading + base.reading, romaji=romaji + base.romaji, en=en.format(base.en),
                     en_plural=plural.format(base.en_plural), oriented=base.oriented and key not in _TURN_TOO_SIMILAR,
                     style=style,
                     base=base.key, build=_styled(style, base.key))


_BASE_BY_KEY = {m.key: m for m in _BASE_MOTIFS}
_STYLED = tuple(_variant(s, _BASE_BY_KEY[k]) for s, k in _VARIANTS)
# As published first (43 bases, 10 variants), then what was added after, in the same order.
MOTIFS: tuple[Component, ...] = _BASE_MOTIFS[:43] + _STYLED[:10] + _BASE_MOTIFS[43:] + _STYLED[10:]
MOTIFS_BY_KEY = {m.key: m for m in MOTIFS}
CONTAINERS_BY_KEY = {c.key: c for c in CONTAINERS}
MOTIFS_BY_ID = {m.id: m for m in MOTIFS}
CONTAINERS_BY_ID = {c.id: c for c in CONTAINERS}


@functools.cache
def _geometry(kind: str, key: str) -> tuple[Geom, Geom | None]:
    if kind == "container":
        band, interior = CONTAINERS_BY_KEY[key].build()
        return clean(band), clean(interior)
    return fit(MOTIFS_BY_KEY[key].build(), MOTIF_RADIUS), None


def _lookup(kind: str, ref: str) -> Component:
    by_key, by_id = (MOTIFS_BY_KEY, MOTIFS_BY_ID) if kind == "motif" else (CONTAINERS_BY_KEY, CONTAINERS_BY_ID)
    if not isinstance(ref, str):
        raise KeyError(f"{kind} references are strings (a key such as {next(iter(by_key))!r} or a quoted id "
                       f"such as {next(iter(by_id))!r}); got {ref!r}")
    ref = ref.removeprefix("M:" if kind == "motif" else "C:")
    if ref in by_key:
        return by_key[ref]
    if ref in by_id:
        return by_id[ref]
    for c in by_key.values():
        if ref in (c.ja, c.en):
            return c
    raise KeyError(f"unknown {kind} {ref!r}; expected a key ({', '.join(list(by_key)[:6])}, ...), an id, "
                   f"or a Japanese or English name from the library")


def motif(ref: str) -> Component:
    """A motif by key, id (optionally `M:`-prefixed), Japanese or English name."""
    return _lookup("motif", ref)


def container(ref: str) -> Component:
    """A container by key, id (optionally `C:`-prefixed), Japanese or English name."""
    return _lookup("container", ref)
