"""Chess content: what a user writes under `scene.content`, and the piece tables.

Chess scenes (BYO-Eval): a procedural board of any size and procedural pieces on it.

Board coordinates: physical cell (i, j) has i counted from the +Y edge of the board and j
from its -X edge, which is exactly the view from the default camera (azimuth 0). The legend
also gives every piece's *view* cell: row 0 is the row farthest from the camera (top of the
image) and column 0 the leftmost as the camera sees it, for any azimuth. When the camera looks
along the board's other axis, view rows follow physical columns (and the view board is
columns x rows). On an exact diagonal the Y axis wins.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from byo.families.api import (
    SRGB,
    ColorDef,
    PackError,
    Strict,
    color_name,
    custom_rgb,
    find_pack,
    keyed_error,
    left_out_when_none,
)

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
# Footprint radius of each piece in squares at scale 1 (builder.py's widest profile point; the
# staunton knight's head reaches further than its base). Two pieces whose footprints intersect
# cannot stand where they were put.
FOOTPRINT_RADIUS = {"staunton": {**dict.fromkeys(PIECE_TYPES, 0.37), "knight": 0.40},
                    "stylised": dict.fromkeys(PIECE_TYPES, 0.36)}

# Rows and columns are readable when the camera looks at the board within this many degrees of
# a side's normal; nearer the diagonal, "the row at the top" has no single answer.
ROWS_READABLE_WITHIN = 30.0


# A piece's type is asked about only when its silhouette tells it apart: seen from at most this
# elevation, at least this many pixels tall, blurred by a disc at most this fraction of its height.
# The elevation and the blur are bench/silhouettes.py's (docs/piece_silhouettes.md: the highest
# view at which silhouettes of both styles are told apart 90% of the time). The height is
# bench/counterfactual.py's: the one at which the rule agrees most with rendering each piece as
# every other type (docs/readability_calibration.md); the silhouettes, each stretched to a common
# box, read from 16 px, where a king and a queen differ in a few pixels of the image.
TYPE_READABLE_MAX_ELEVATION = 50.0
TYPE_READABLE_MIN_HEIGHT_PX = 20
TYPE_READABLE_MAX_BLUR = 0.3
# A piece counts as seen (counted, located) from this many mask pixels of the image as rendered,
# whatever its size (render.min_visible_pixels, byo/scene/measure.py's band): what the smallest
# piece covers at the height from which the same bench resolves every piece's outline
# (docs/piece_silhouettes.md, "When does a piece count as seen?").
MIN_VISIBLE_PIXELS = 23
# The board's squares are counted ("how many squares?") only where they resolve: the depth-of-field
# disc at every square at most this many times the square's smaller side as projected. A disc
# 2.44 times the side cancels the checker's period (a uniform disc's first zero); calibrated by
# eye and by the squares' centre contrast on renders at f/9 to f/0.5 (docs/readability.md,
# "The board's squares").
SQUARES_READABLE_MAX_BLUR = 2.0
# ... and every square at least this many pixels across: smaller, the checker aliases on the pixel
# grid (a 1.8 px square of a 64 x 48 image is a texture, a 2.2 px one still a checker).
SQUARES_READABLE_MIN_PX = 2.0


def azimuth_from_side(azimuth: float) -> float:
    """Degrees between the camera azimuth and the nearest board side's normal (0 to 45)."""
    a = azimuth % 90.0
    return min(a, 90.0 - a)


def rows_readable(azimuth: float) -> bool:
    return azimuth_from_side(azimuth) <= ROWS_READABLE_WITHIN


MAX_BOARD = 12  # rows or columns of a board
# A physical (i, j) cell; checked against the board's own size by ChessContent.
Cell = tuple[Annotated[int, Field(ge=0, lt=MAX_BOARD)], Annotated[int, Field(ge=0, lt=MAX_BOARD)]]


class BoardConfig(Strict):
    rows: int = Field(8, ge=1, le=MAX_BOARD)
    columns: int = Field(8, ge=1, le=MAX_BOARD)
    square_size: float = Field(0.06, gt=0)  # metres
    border: float = Field(0.025, ge=0)
    thickness: float = Field(0.02, gt=0)
    frame_color: SRGB = (0.30, 0.18, 0.10)
    light_color: SRGB = (0.93, 0.87, 0.74)
    dark_color: SRGB = (0.45, 0.30, 0.20)
    random_pattern: bool = False  # seeded random light/dark squares instead of a checkerboard
    location: tuple[float, float] = (0.0, 0.0)  # board centre on the table, metres
    # The board's outer size, border included (BYO-Eval's BoardModel length along the columns and
    # width along the rows): when given, square_size follows from it.
    length: float | None = Field(None, gt=0)
    width: float | None = Field(None, gt=0)

    _serialize = left_out_when_none("length", "width")  # legends of boards sized by square stay as they were

    @model_validator(mode="after")
    def _outer_size(self):
        sizes = {name: (outer - 2 * self.border) / cells
                 for name, outer, cells in (("length", self.length, self.columns), ("width", self.width, self.rows))
                 if outer is not None}
        if not sizes:
            return self
        for name, size in sizes.items():
            if size <= 0:
                raise ValueError(f"{name} {getattr(self, name):g} m leaves no room for squares inside a border of "
                                 f"{self.border:g} m")
        if len(sizes) == 2 and not math.isclose(sizes["length"], sizes["width"], rel_tol=1e-6):
            raise ValueError(f"squares are square: length {self.length:g} m over {self.columns} columns and width "
                             f"{self.width:g} m over {self.rows} rows give {sizes['length']:.4g} and "
                             f"{sizes['width']:.4g} m squares")
        size = next(iter(sizes.values()))
        if "square_size" in self.model_fields_set and not math.isclose(size, self.square_size, rel_tol=1e-6):
            raise ValueError(f"square_size {self.square_size:g} m and the board's outer size ({size:.4g} m squares) "
                             "disagree: give one of them")
        self.__dict__["square_size"] = round(size, 9)
        return self


class PieceConfig(Strict):
    type: Literal["pawn", "rook", "knight", "bishop", "queen", "king"]
    color: str | ColorDef = "white"
    cell: Cell | None = None  # physical (i, j); None: placed like the random pieces


class PlacementConfig(Strict):
    cells: list[Cell] | None = None  # allowed cells (physical); None: the whole board
    spread: Literal["low", "medium", "high"] = "high"
    start: Literal["center", "corner"] | Cell = "center"


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
    # An asset pack of kind chess_set (its name or folder) whose pieces replace the procedural ones.
    # Last, so that its check sees the colours and types above.
    piece_set: str | None = Field(None, json_schema_extra={"pack": "chess_set"})

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

    @field_validator("piece_set")
    @classmethod
    def _piece_set(cls, v, info: ValidationInfo):
        if v is None:
            return v
        try:
            pack = find_pack(v, "chess_set")
        except PackError as err:
            raise ValueError(str(err)) from None
        mapping = pack.manifest.pieces
        unknown = sorted({t for types in mapping.values() for t in types} - set(PIECE_TYPES))
        if unknown:
            raise ValueError(f"piece set {v!r} maps unknown piece types {', '.join(unknown)}; "
                             f"expected {', '.join(PIECE_TYPES)}")
        data = info.data
        pieces = data.get("pieces") or []
        if pieces:
            wanted = {(color_name(p.color), p.type) for p in pieces}
        else:
            types = data.get("types", "all")
            pool = TYPE_PRESETS[types] if isinstance(types, str) else types
            wanted = {(color_name(c), t) for c in data.get("colors", []) for t in pool}
        missing = sorted(f"{c} {t}" for c, t in wanted if t not in mapping.get(c, {}))
        if missing:
            raise ValueError(f"piece set {v!r} has no {', '.join(missing)} (it maps "
                             f"{', '.join(f'{c}: {len(m)} types' for c, m in mapping.items())})")
        return v

    _serialize = left_out_when_none("piece_set")  # legends of procedural pieces stay as they were

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
        for key, cells in (("placement.cells", self.placement.cells or []),
                           ("pieces", [p.cell for p in self.pieces if p.cell is not None])):
            for cell in cells:
                if not (0 <= cell[0] < rows and 0 <= cell[1] < cols):
                    raise keyed_error(key, f"cell {list(cell)} is off the {rows}x{cols} board")
        start = self.placement.start
        if isinstance(start, tuple) and not (0 <= start[0] < rows and 0 <= start[1] < cols):
            raise keyed_error("placement.start", f"{list(start)} is off the {rows}x{cols} board")
        available = len(set(self.placement.cells)) if self.placement.cells else rows * cols
        lo, hi = self.count_range
        wanted = len(self.pieces) if self.pieces else hi
        if lo < 0 or hi < lo:
            raise keyed_error("count", "count must be >= 0, or [min, max] with min <= max")
        if wanted > available:
            raise keyed_error("pieces" if self.pieces else "count",
                              f"{wanted} pieces cannot stand on {available} cells of a {rows}x{cols} board")
        taken = [p.cell for p in self.pieces if p.cell is not None]
        if len(taken) != len(set(taken)):
            raise ValueError("two explicit pieces share a cell")
        if self.n_types is not None and self.n_types > len(self.type_pool):
            raise ValueError(f"n_types {self.n_types} exceeds the {len(self.type_pool)} types available")
        return self


def piece_rgb(content: ChessContent, color: str) -> tuple[float, float, float]:
    """The colour pieces of `color` are painted (sRGB); a piece set's own when its pack gives one."""
    if content.piece_set is not None:
        pack_colors = find_pack(content.piece_set, "chess_set").manifest.colors
        if color in pack_colors:
            return pack_colors[color]
    own = custom_rgb([*content.colors, *(p.color for p in content.pieces)], color)
    return own if own is not None else PIECE_COLORS[color]
