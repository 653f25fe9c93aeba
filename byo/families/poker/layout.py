"""Where things lie on the table: hands, river, chip piles, mats, overlap rows and grid cells.
Pure geometry (numpy, shapely); no bpy.

A card lies flat: its centre, its turn about the vertical (degrees, counter-clockwise seen from
above; 0 puts the top of the face towards +Y) and its level in a stack. A face-up card shows its
face with the top edge towards `up`; its corner indices are quads on the face.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from shapely import affinity
from shapely.geometry import Point, Polygon, box
from shapely.ops import unary_union

from byo.families.poker.faces import ACE_PIP_BOX, INDEX_BOX

MAT_THICKNESS = 0.0012  # metres: mats lie on the table, cards and chips on the mats
LINE_HEIGHT = 0.0003  # grid lines
STACK_GAP = 0.00025  # between a card and the one lying on it
INDEX_LIFT = 0.00006  # the corner-index quads lie this far above the face
CORNERS = ("top_left", "bottom_right")


@dataclass
class CardPlace:
    code: str
    face_up: bool
    owner: str  # "player_2", "river", "row", "grid"
    position: int  # order in its hand, row or grid
    x: float
    y: float
    rotation: float  # degrees
    level: int = 0  # stack level within its group (higher lies on top)
    base: float = 0.0  # height of what it lies on (a mat, the table)
    extra: dict = field(default_factory=dict)


def turn(vector, degrees: float) -> np.ndarray:
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    v = np.asarray(vector, float)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def heading(up) -> float:
    """The card turn (degrees) that points the top of its face along the ground vector `up`."""
    return math.degrees(math.atan2(-up[0], up[1]))


def card_z(card: CardPlace, thickness: float) -> float:
    """Height of a card's centre."""
    return card.base + card.level * (thickness + STACK_GAP) + thickness / 2 + STACK_GAP


def footprint(x: float, y: float, rotation: float, width: float, height: float) -> Polygon:
    rect = box(-width / 2, -height / 2, width / 2, height / 2)
    return affinity.translate(affinity.rotate(rect, rotation, origin=(0, 0)), x, y)


def face_quad_local(face_box, width: float, height: float) -> list[tuple[float, float]]:
    """A box of the face ([u0, v0, u1, v1] fractions from its top-left corner, v down) in the card's
    own frame (x right, y towards the top of the face), counter-clockwise."""
    u0, t0, u1, t1 = face_box
    x0, x1 = -width / 2 + u0 * width, -width / 2 + u1 * width
    y0, y1 = height / 2 - t1 * height, height / 2 - t0 * height
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def card_corners_world(location, rotation: float, card: dict) -> list[tuple[float, float, float]]:
    """A card's four top corners in world metres (`card`: the legend's width, height, thickness)."""
    z = location[2] + card["thickness"] / 2
    return [(float(location[0] + p[0]), float(location[1] + p[1]), float(z))
            for p in (turn(q, rotation) for q in face_quad_local((0, 0, 1, 1), card["width"], card["height"]))]


def ace_pip_world(location, rotation: float, width: float, height: float, thickness: float
                  ) -> list[tuple[float, float, float]]:
    """An ace's central pip (faces.ACE_PIP_BOX) on a face-up card, in world metres."""
    z = location[2] + thickness / 2
    return [(float(location[0] + p[0]), float(location[1] + p[1]), float(z))
            for p in (turn(q, rotation) for q in face_quad_local(ACE_PIP_BOX, width, height))]


def index_quad_local(corner: str, width: float, height: float) -> list[tuple[float, float]]:
    """A corner index's quad in the card's own frame (x right, y towards the top of the face),
    counter-clockwise."""
    u0, t0, u1, t1 = INDEX_BOX  # from the top-left corner, y down
    x0, x1 = -width / 2 + u0 * width, -width / 2 + u1 * width
    y0, y1 = height / 2 - t1 * height, height / 2 - t0 * height
    quad = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    if corner == "bottom_right":
        quad = [(-x, -y) for x, y in quad]
    return quad


def index_quad_world(location, rotation: float, width: float, height: float, thickness: float,
                     corner: str) -> list[tuple[float, float, float]]:
    """The corner index of a face-up card in world metres."""
    z = location[2] + thickness / 2 + INDEX_LIFT
    return [(float(location[0] + p[0]), float(location[1] + p[1]), float(z))
            for p in (turn(q, rotation) for q in index_quad_local(corner, width, height))]


# --- table mode -----------------------------------------------------------------------------
@dataclass
class Seat:
    player: int  # 1-based
    angle: float  # degrees on the seat ellipse
    point: np.ndarray  # seat centre on the table
    inward: np.ndarray  # unit ground vector from the player towards the table centre
    right: np.ndarray  # the player's right, facing the centre
    layout: str  # horizontal (hand along x) or vertical (hand along y)


def seats(n: int, radius: tuple[float, float], start: float, layouts: list[str]) -> list[Seat]:
    out = []
    for k in range(n):
        a = start + 360.0 * k / n
        c, s = math.cos(math.radians(a)), math.sin(math.radians(a))
        point = np.array([radius[0] * c, radius[1] * s])
        layout = layouts[k]
        if layout == "auto":  # along the table edge the player sits at
            layout = "horizontal" if abs(s) >= abs(c) - 1e-9 else "vertical"
        if layout == "horizontal":
            inward = np.array([0.0, -1.0 if s > 0 else 1.0])
        else:
            inward = np.array([-1.0 if c > 0 else 1.0, 0.0])
        right = np.array([inward[1], -inward[0]])
        out.append(Seat(k + 1, round(a % 360.0, 6), point, inward, right, layout))
    return out


def hand_places(seat: Seat, codes: list[str], face_up: list[bool], width: float, height: float,
                spread: float, fan: float, centre) -> list[CardPlace]:
    """A hand laid side by side from the player's left to right, tops of the faces away from the
    player; with a fan, turned about a point one card height towards the player."""
    n = len(codes)
    base = heading(seat.inward)
    pivot = np.asarray(centre, float) - seat.inward * height
    places = []
    for k, (code, up) in enumerate(zip(codes, face_up, strict=True)):
        offset = (k - (n - 1) / 2)
        rel = seat.right * offset * spread * width + seat.inward * height
        angle = -offset * fan  # the player's right-hand cards turn clockwise
        x, y = pivot + turn(rel, angle)
        places.append(CardPlace(code, up, f"player_{seat.player}", k, float(x), float(y), base + angle, level=k))
    return places


def row_places(codes: list[str], face_up: list[bool], owner: str, centre, along, up, step: float,
               ) -> list[CardPlace]:
    """Cards in a row along the ground vector `along`, `step` metres apart, each lying on the one
    before it; the tops of the faces point along `up`."""
    n = len(codes)
    rotation = heading(up)
    out = []
    for k, (code, fu) in enumerate(zip(codes, face_up, strict=True)):
        x, y = np.asarray(centre, float) + np.asarray(along, float) * (k - (n - 1) / 2) * step
        out.append(CardPlace(code, fu, owner, k, float(x), float(y), rotation, level=k))
    return out


def pile_shape(x: float, y: float, radius: float, spread: float) -> Polygon:
    return Point(x, y).buffer(radius * (1 + spread) + 0.002)


def scatter_piles(n: int, area: Polygon, avoid, radius: float, spread: float, rng: np.random.Generator,
                  tries: int = 2000) -> list[tuple[float, float]] | None:
    """`n` pile centres inside `area`, clear of `avoid` and of each other (rejection sampling)."""
    placed: list[tuple[float, float]] = []
    shapes = [avoid] if avoid is not None and not avoid.is_empty else []
    x0, y0, x1, y1 = area.bounds
    for _ in range(tries):
        if len(placed) == n:
            break
        x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
        shape = pile_shape(x, y, radius, spread)
        if area.contains(shape) and not any(shape.intersects(s) for s in shapes):
            placed.append((float(x), float(y)))
            shapes.append(shape)
    return placed if len(placed) == n else None


def union(shapes) -> Polygon:
    return unary_union(list(shapes))


# --- grid mode ------------------------------------------------------------------------------
@dataclass
class GridFrame:
    """An R x C grid as the camera sees it: `right` and `down` are ground vectors of the image's
    x and y directions; cell (0, 0) is at the top left."""

    rows: int
    columns: int
    pitch: tuple[float, float]  # metres between cell centres along right, down
    centre: np.ndarray
    right: np.ndarray
    down: np.ndarray

    @classmethod
    def from_extras(cls, g: dict) -> GridFrame:
        return cls(g["rows"], g["columns"], tuple(g["pitch"]), np.array(g["centre"], float),
                   np.array(g["right"], float), np.array(g["down"], float))

    def cell_centre(self, row: int, column: int) -> np.ndarray:
        return (self.centre + self.right * (column - (self.columns - 1) / 2) * self.pitch[0]
                + self.down * (row - (self.rows - 1) / 2) * self.pitch[1])

    def corners(self, z: float = 0.0) -> list[tuple[float, float, float]]:
        """(rows + 1) x (columns + 1) grid corners, row-major from the top-left corner."""
        out = []
        for i in range(self.rows + 1):
            for j in range(self.columns + 1):
                p = (self.centre + self.right * (j - self.columns / 2) * self.pitch[0]
                     + self.down * (i - self.rows / 2) * self.pitch[1])
                out.append((round(float(p[0]), 6), round(float(p[1]), 6), z))
        return out


def view_axes(directions: dict) -> tuple[np.ndarray, np.ndarray]:
    """Ground vectors of the image's right and down directions (from the camera's ground
    directions: down in the image is towards the camera)."""
    right = np.array(directions["right"][:2], float)
    down = np.array(directions["front"][:2], float)
    return right / np.linalg.norm(right), down / np.linalg.norm(down)
