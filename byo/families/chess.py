"""Chess scenes (BYO-Eval): a procedural board of any size and procedural pieces on it.

Board coordinates: physical cell (i, j) has i counted from the +Y edge of the board and j
from its -X edge, which is exactly the view from the default camera (azimuth 0). The legend
also gives every piece's *view* cell: row 0 is the row farthest from the camera (top of the
image) and column 0 the leftmost as the camera sees it, for any azimuth. When the camera looks
along the board's other axis, view rows follow physical columns (and the view board is
columns x rows). On an exact diagonal the Y axis wins.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from byo.setup import ResolvedSetup
from byo.spec import PlacementError, SceneObject

PIECE_TYPES = ("pawn", "rook", "knight", "bishop", "queen", "king")
PIECE_HEIGHT = {"pawn": 0.9, "rook": 1.0, "knight": 1.15, "bishop": 1.3, "queen": 1.5, "king": 1.65}  # x square
PIECE_COLORS = {"white": (0.92, 0.89, 0.80), "black": (0.06, 0.05, 0.05)}  # sRGB
COUNT_PRESETS = {"low": (1, 5), "medium": (5, 15), "high": (15, 32)}
TYPE_PRESETS = {
    "all": PIECE_TYPES, "pawns": ("pawn",), "major": ("rook", "queen"), "minor": ("knight", "bishop"),
    "royal": ("king", "queen"), "no_pawns": PIECE_TYPES[1:],
}
SPREAD_POOL = {"low": 1.0, "medium": 2.5}  # candidate cells per piece nearest the start; high: all cells
STYLES = ("staunton", "stylised")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _rgb(v):
    if v is not None and (len(v) not in (3, 4) or not all(0 <= c <= 1 for c in v)):
        raise ValueError("expected an RGB(A) colour as 3 or 4 numbers in [0, 1] (sRGB)")
    return None if v is None else tuple(v[:3])


class BoardConfig(Strict):
    rows: int = Field(8, ge=1, le=12)
    columns: int = Field(8, ge=1, le=12)
    square_size: float = Field(0.06, gt=0)  # metres
    border: float = Field(0.025, ge=0)
    thickness: float = Field(0.02, gt=0)
    frame_color: tuple[float, ...] = (0.30, 0.18, 0.10)
    light_color: tuple[float, ...] = (0.93, 0.87, 0.74)
    dark_color: tuple[float, ...] = (0.45, 0.30, 0.20)
    random_pattern: bool = False  # seeded random light/dark squares instead of a checkerboard
    location: tuple[float, float] = (0.0, 0.0)  # board centre on the table, metres

    @field_validator("frame_color", "light_color", "dark_color")
    @classmethod
    def _colors(cls, v):
        return _rgb(v)


class ColorDef(Strict):
    name: str
    rgb: tuple[float, float, float]


class PieceConfig(Strict):
    type: Literal["pawn", "rook", "knight", "bishop", "queen", "king"]
    color: str | ColorDef = "white"
    cell: tuple[int, int] | None = None  # physical (i, j); None: placed like the random pieces


class PlacementConfig(Strict):
    cells: list[tuple[int, int]] | None = None  # allowed cells (physical); None: the whole board
    spread: Literal["low", "medium", "high"] = "high"
    start: Literal["center", "corner"] | tuple[int, int] = "center"


class ChessContent(Strict):
    board: BoardConfig = BoardConfig()
    count: int | tuple[int, int] | Literal["low", "medium", "high"] = 5
    types: list[Literal["pawn", "rook", "knight", "bishop", "queen", "king"]] | str = "all"
    n_types: int | None = Field(None, ge=1, le=6)  # draw this many distinct types per image from `types`
    colors: list[str | ColorDef] = ["white", "black"]
    pieces: list[PieceConfig] = []  # explicit pieces; when given, `count`/`types` are not used
    placement: PlacementConfig = PlacementConfig()
    style: Literal["staunton", "stylised"] = "staunton"
    scale: float = Field(1.0, gt=0, le=1.5)  # piece size relative to the square
    max_rotation: float = Field(30.0, ge=0, le=180)  # degrees of seeded random turn about the vertical

    @field_validator("types")
    @classmethod
    def _types(cls, v):
        if isinstance(v, str) and v not in TYPE_PRESETS:
            raise ValueError(f"unknown piece type preset {v!r}; expected one of {', '.join(TYPE_PRESETS)} or a list")
        return v

    @field_validator("colors")
    @classmethod
    def _colors(cls, v):
        for c in v:
            if isinstance(c, str) and c not in PIECE_COLORS:
                raise ValueError(f"unknown piece colour {c!r}; expected white, black or {{name, rgb}}")
        return v

    @property
    def type_pool(self) -> tuple[str, ...]:
        return TYPE_PRESETS[self.types] if isinstance(self.types, str) else tuple(self.types)

    @property
    def count_range(self) -> tuple[int, int]:
        if isinstance(self.count, str):
            return COUNT_PRESETS[self.count]
        return (self.count, self.count) if isinstance(self.count, int) else tuple(self.count)

    @model_validator(mode="after")
    def _feasible(self):
        rows, cols = self.board.rows, self.board.columns
        for cell in [*(self.placement.cells or []), *(p.cell for p in self.pieces if p.cell is not None)]:
            if not (0 <= cell[0] < rows and 0 <= cell[1] < cols):
                raise ValueError(f"cell {list(cell)} is off the {rows}x{cols} board")
        start = self.placement.start
        if isinstance(start, tuple) and not (0 <= start[0] < rows and 0 <= start[1] < cols):
            raise ValueError(f"placement.start {list(start)} is off the {rows}x{cols} board")
        available = len(set(self.placement.cells)) if self.placement.cells else rows * cols
        lo, hi = self.count_range
        wanted = len(self.pieces) if self.pieces else hi
        if lo < 0 or hi < lo:
            raise ValueError("count must be >= 0, or [min, max] with min <= max")
        if wanted > available:
            raise ValueError(f"{wanted} pieces cannot stand on {available} cells of a {rows}x{cols} board")
        taken = [p.cell for p in self.pieces if p.cell is not None]
        if len(taken) != len(set(taken)):
            raise ValueError("two explicit pieces share a cell")
        if self.n_types is not None and self.n_types > len(self.type_pool):
            raise ValueError(f"n_types {self.n_types} exceeds the {len(self.type_pool)} types available")
        return self


def piece_rgb(content: ChessContent, color: str) -> tuple[float, float, float]:
    for c in [*content.colors, *(p.color for p in content.pieces)]:
        if isinstance(c, ColorDef) and c.name == color:
            return c.rgb
    return PIECE_COLORS[color]


class BoardGeometry:
    """Cell centres and corners of a board in world metres (the top surface at z = thickness)."""

    def __init__(self, board: BoardConfig):
        self.board = board
        self.rows, self.cols, self.size = board.rows, board.columns, board.square_size
        self.top = board.thickness

    def centre(self, i: int, j: int) -> tuple[float, float, float]:
        x0, y0 = self.board.location
        return (x0 + (j - (self.cols - 1) / 2) * self.size, y0 + ((self.rows - 1) / 2 - i) * self.size, self.top)

    def corners(self) -> list[tuple[float, float, float]]:
        """(rows + 1) x (columns + 1) grid corners, row-major from the (0, 0) corner."""
        x0, y0 = self.board.location
        return [(x0 + (j - self.cols / 2) * self.size, y0 + (self.rows / 2 - i) * self.size, self.top)
                for i in range(self.rows + 1) for j in range(self.cols + 1)]


class ViewMapping:
    """Physical cells to view cells (row 0 farthest from the camera, column 0 leftmost)."""

    def __init__(self, rows: int, cols: int, directions: dict):
        front = -np.array(directions["behind"][:2])  # towards the camera on the ground
        right = -np.array(directions["left"][:2])
        row_axis, col_axis = np.array([0.0, -1.0]), np.array([1.0, 0.0])  # physical i, j increase
        self.swapped = bool(abs(front @ col_axis) > abs(front @ row_axis) + 1e-9)
        if not self.swapped:
            self.flip_row, self.flip_col = bool(front @ row_axis < 0), bool(right @ col_axis < 0)
            self.view_rows, self.view_cols = rows, cols
        else:
            self.flip_row, self.flip_col = bool(front @ col_axis < 0), bool(right @ row_axis < 0)
            self.view_rows, self.view_cols = cols, rows

    def view_cell(self, i: int, j: int) -> tuple[int, int]:
        r, c = (j, i) if self.swapped else (i, j)
        return (self.view_rows - 1 - r if self.flip_row else r, self.view_cols - 1 - c if self.flip_col else c)


class ChessFamily:
    name = "chess"
    content_model = ChessContent
    builder = "byo.render.builders.chess"
    default_scene: dict[str, Any] = {
        "camera": {"distance": 1.3, "elevation": 42.0, "azimuth": 0.0, "focal_length": 50.0},
        "table": {"enabled": True, "length": 1.4, "width": 1.0},
        "resolution": [640, 360],
        # Pieces are small: about 45 px visible at 640x360 counts as seen.
        "render": {"min_visible_fraction": 0.0002},
    }

    def _identities(self, c: ChessContent, draw: np.random.Generator) -> list[dict]:
        colors = [x if isinstance(x, str) else x.name for x in c.colors]
        if c.pieces:
            return [{"type": p.type, "color": p.color if isinstance(p.color, str) else p.color.name,
                     "cell": p.cell} for p in c.pieces]
        lo, hi = c.count_range
        n = int(draw.integers(lo, hi, endpoint=True))
        pool = list(c.type_pool)
        if c.n_types is not None:
            pool = [pool[k] for k in sorted(draw.choice(len(pool), size=c.n_types, replace=False))]
        return [{"type": pool[int(draw.integers(len(pool)))], "color": colors[int(draw.integers(len(colors)))],
                 "cell": None} for _ in range(n)]

    def _cells(self, c: ChessContent, n_free: int, taken: set, place: np.random.Generator) -> list[tuple[int, int]]:
        rows, cols = c.board.rows, c.board.columns
        allowed = sorted(set(c.placement.cells)) if c.placement.cells else [
            (i, j) for i in range(rows) for j in range(cols)]
        free = [cell for cell in allowed if cell not in taken]
        if n_free > len(free):
            raise PlacementError(f"{n_free} pieces do not fit on the {len(free)} free allowed cells")
        spread = c.placement.spread
        if spread != "high":
            start = c.placement.start
            if start == "center":
                start = ((rows - 1) / 2, (cols - 1) / 2)
            elif start == "corner":
                start = (0, 0)
            # Nearest cells first; random tie-breaking keeps clusters from always growing the same way.
            dist = np.array([math.hypot(i - start[0], j - start[1]) for i, j in free]) + place.uniform(0, 0.5, len(free))
            pool_size = min(len(free), max(n_free, math.ceil(SPREAD_POOL[spread] * n_free)))
            free = [free[k] for k in np.argsort(dist, kind="stable")[:pool_size]]
        picks = place.choice(len(free), size=n_free, replace=False)
        return [free[k] for k in picks]

    def sample(self, content: ChessContent, setup: ResolvedSetup, *, draw: np.random.Generator,
               place: np.random.Generator) -> tuple[list[SceneObject], dict[str, Any]]:
        idents = self._identities(content, draw)
        rotations = [float(draw.uniform(-content.max_rotation, content.max_rotation)) for _ in idents]
        board = content.board
        geometry = BoardGeometry(board)
        taken = {p["cell"] for p in idents if p["cell"] is not None}
        free_cells = iter(self._cells(content, sum(p["cell"] is None for p in idents), taken, place))
        directions = setup.projector().ground_directions()
        view = ViewMapping(board.rows, board.columns, directions)
        pattern = (place.integers(0, 2, size=(board.rows, board.columns)).tolist() if board.random_pattern
                   else [[(i + j) % 2 for j in range(board.columns)] for i in range(board.rows)])

        objects = []
        for k, (p, rot) in enumerate(zip(idents, rotations, strict=True)):
            i, j = p["cell"] if p["cell"] is not None else next(free_cells)
            row, col = view.view_cell(i, j)
            objects.append(SceneObject(
                id=k + 1, name=f"{p['color']}_{p['type']}_{k + 1}", kind=p["type"],
                attributes={"type": p["type"], "color": p["color"],
                            "rgb": [round(v, 6) for v in piece_rgb(content, p["color"])],
                            "style": content.style, "cell": [i, j], "row": row, "column": col,
                            "height": round(PIECE_HEIGHT[p["type"]] * board.square_size * content.scale, 6)},
                location=tuple(round(v, 6) for v in geometry.centre(i, j)),  # base centre on the board
                rotation=round(rot % 360.0, 4), scale=round(board.square_size * content.scale, 6)))

        extras = {
            "board": {
                "rows": board.rows, "columns": board.columns, "view_rows": view.view_rows,
                "view_columns": view.view_cols, "square_size": board.square_size, "border": board.border,
                "thickness": board.thickness, "location": list(board.location),
                "colors": {"frame": list(board.frame_color), "light": list(board.light_color),
                           "dark": list(board.dark_color)},
                "pattern": "random" if board.random_pattern else "checker",
                "dark_squares": pattern,  # 1 = dark, physical [i][j]
                "view_axes_swapped": view.swapped, "view_flip_rows": view.flip_row,
                "view_flip_columns": view.flip_col,
            },
            "directions": directions,
        }
        return objects, extras

    def landmarks(self, spec) -> dict:
        board = ChessContent.model_validate(spec.content).board
        return {"board_corners": BoardGeometry(board).corners()}

    def export(self, layout, legends: list[dict]) -> dict:
        return {}

    def legend_lines(self, legend: dict[str, Any]) -> list[str]:
        b = legend["extras"]["board"]
        lines = [f"board: {b['rows']}x{b['columns']} squares of {b['square_size']} m ({b['pattern']}), seen as "
                 f"{b['view_rows']} rows x {b['view_columns']} columns; colours light {b['colors']['light']}, "
                 f"dark {b['colors']['dark']}, frame {b['colors']['frame']}"]
        by_type: dict[str, list[str]] = {}
        for o in legend["objects"]:
            a = o["attributes"]
            by_type.setdefault(a["type"], []).append(f"{a['color']} at row {a['row']}, column {a['column']}")
        for t in PIECE_TYPES:
            if t in by_type:
                lines.append(f"{t.upper()} ({len(by_type[t])}): " + "; ".join(by_type[t]))
        return lines


CHESS = ChessFamily()
