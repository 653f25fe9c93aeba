"""The audit of chess questions (`byo audit`): every answer recomputed from the pieces the mask
shows and the projected board, never from answers.py or the legend's row and column fields.

A piece's view row and column are read off the projection: of the two board lines through its
cell, the one running more horizontally in the image is its row (column = its rank in that line
from the left), the other its column (row = its rank from the top). Limits the audit holds the
questions to: rows and columns only within ROWS_READABLE_WITHIN degrees of a board side and with
the whole grid in the frame; types only within the measured TYPE_READABLE_* silhouette rule.
"""

from __future__ import annotations

import math

import numpy as np

from byo.families.api import (
    POSITION_WORDS,
    AuditTable,
    Expected,
    IllPosed,
    MeasuredImage,
    Seen,
    guarded,
)
from byo.families.chess.model import (
    ROWS_READABLE_WITHIN,
    TYPE_READABLE_MAX_BLUR,
    TYPE_READABLE_MAX_ELEVATION,
    TYPE_READABLE_MIN_HEIGHT_PX,
)

AUDITS = AuditTable()


class Board:
    """The board as built (extras.board) and as the camera projects it."""

    def __init__(self, image: MeasuredImage):
        b = image.legend["extras"]["board"]
        self.rows, self.cols, self.size = b["rows"], b["columns"], b["square_size"]
        self.x0, self.y0 = b["location"]
        self.top = b["thickness"]
        self.image = image
        centres = [self.centre(i, j) for i in range(self.rows) for j in range(self.cols)]
        self.pixels = image.project(centres)[:, :2].reshape(self.rows, self.cols, 2)

    def centre(self, i: float, j: float) -> tuple[float, float, float]:
        """Physical cell (i, j): i from the +Y edge, j from the -X edge."""
        return (self.x0 + (j - (self.cols - 1) / 2) * self.size, self.y0 + ((self.rows - 1) / 2 - i) * self.size,
                self.top)

    def corners(self) -> list[tuple[float, float, float]]:
        return [self.centre(i - 0.5, j - 0.5) for i in range(self.rows + 1) for j in range(self.cols + 1)]

    def cell_of(self, o: Seen) -> tuple[int, int]:
        """The cell the piece stands on, from its location."""
        j = round((o.location[0] - self.x0) / self.size + (self.cols - 1) / 2)
        i = round((self.rows - 1) / 2 - (o.location[1] - self.y0) / self.size)
        return int(i), int(j)

    def grid_problem(self) -> IllPosed | None:
        azimuth = self.image.setup.camera.azimuth % 90.0
        off = min(azimuth, 90.0 - azimuth)
        if off > ROWS_READABLE_WITHIN:
            return IllPosed(f"the camera is {off:.1f} degrees from a board side: rows are not readable")
        outer = self.corners()
        if not self.image.in_frame([outer[0], outer[self.cols], outer[-1 - self.cols], outer[-1]]):
            return IllPosed("the board is partly out of the frame")
        return None

    def _i_runs_vertically(self) -> bool:
        """Whether moving along physical i moves mostly up or down the image."""
        di = self.pixels[-1, 0] - self.pixels[0, 0] if self.rows > 1 else np.array([0.0, 1.0])
        dj = self.pixels[0, -1] - self.pixels[0, 0] if self.cols > 1 else np.array([1.0, 0.0])
        return abs(di[1]) / (np.hypot(*di) + 1e-12) > abs(dj[1]) / (np.hypot(*dj) + 1e-12)

    def view_size(self) -> tuple[int, int]:
        return (self.rows, self.cols) if self._i_runs_vertically() else (self.cols, self.rows)

    def view_cell(self, cell: tuple[int, int]) -> tuple[int, int]:
        """(row from the top, column from the left) as the image shows them."""
        i, j = cell
        if self._i_runs_vertically():
            down, across = self.pixels[:, j], self.pixels[i, :]
            at_down, at_across = i, j
        else:
            down, across = self.pixels[i, :], self.pixels[:, j]
            at_down, at_across = j, i
        row = int(np.sum(down[:, 1] < down[at_down, 1]))
        column = int(np.sum(across[:, 0] < across[at_across, 0]))
        return row, column


def _view(image: MeasuredImage, o: Seen) -> tuple[int, int]:
    board = Board(image)
    return board.view_cell(board.cell_of(o))


def _grid(fn):
    """Questions about rows, columns or cells."""
    def checked(q, image, seen):
        return Board(image).grid_problem() or fn(q, image, seen)

    return checked


def _type_problem(image: MeasuredImage, pieces: list[Seen]) -> IllPosed | None:
    """The silhouette rule, or, where each piece was rendered as every other type, those renders."""
    if pieces and image.measured(pieces, "type"):
        return image.attribute_off(pieces, "type")
    for o in pieces:
        x, y, z = o.location
        elevation = image.elevation_to((x, y, z + o.attributes["height"] / 2))
        if elevation > TYPE_READABLE_MAX_ELEVATION:
            return IllPosed(f"piece {o.id} is seen from {elevation:.0f} degrees up: its silhouette does not tell its type")
        if o.height_px < TYPE_READABLE_MIN_HEIGHT_PX:
            return IllPosed(f"piece {o.id} is {o.height_px} px tall: too small to read its type")
        if image.blur_px(o) > TYPE_READABLE_MAX_BLUR * o.height_px:
            return IllPosed(f"piece {o.id} is blurred by {image.blur_px(o):.1f} px: too blurred to read its type")
    return None


def _one(seen: list[Seen], n: int) -> list[Seen] | IllPosed:
    return seen if len(seen) == n else IllPosed(f"{len(seen)} pieces show, the question needs {n}")


@AUDITS.key("count_pieces")
def count_pieces(q, image, seen):
    return Expected(len(seen))


@AUDITS.key("count_squares")
def count_squares(q, image, seen):
    board = Board(image)
    outer = board.corners()
    if not image.in_frame([outer[0], outer[board.cols], outer[-1 - board.cols], outer[-1]]):
        return IllPosed("the board is partly out of the frame")
    if "squares" in image.unresolved:  # measured in the image by byo audit (byo/audit/readable.py)
        return IllPosed(image.unresolved["squares"])
    return Expected(board.rows * board.cols)


@AUDITS.key("count_identification_white_pieces", "count_identification_black_pieces")
def count_color(q, image, seen):
    color = "white" if "white" in q["key"] else "black"
    return Expected(sum(o.attributes["color"] == color for o in seen))


@AUDITS.key("count_identification_piece_type", "count_identification_any_piece_type")
def count_type(q, image, seen):
    """The count of the type named; the first key names only a type that shows."""
    named = q["params"]["piece_type"]
    if q["key"] == "count_identification_piece_type" and named not in {o.kind for o in seen}:
        return IllPosed(f"it names {named}, a type no piece that shows has")
    return _type_problem(image, seen) or Expected(sum(o.kind == named for o in seen))


@AUDITS.key("identify_type_one_piece")
def identify_type(q, image, seen):
    one = _one(seen, 1)
    return one if isinstance(one, IllPosed) else _type_problem(image, one) or Expected(one[0].kind)


@AUDITS.key("identify_color_one_piece")
def identify_color(q, image, seen):
    one = _one(seen, 1)
    return one if isinstance(one, IllPosed) else Expected(one[0].attributes["color"])


@AUDITS.key("identify_type_several_pieces")
def identify_types(q, image, seen):
    if not seen:
        return IllPosed("no piece shows")
    return _type_problem(image, seen) or Expected(sorted({o.kind for o in seen}))


@AUDITS.key("localize_row_one_piece", "localize_column_one_piece")
@_grid
def localize(q, image, seen):
    one = _one(seen, 1)
    return one if isinstance(one, IllPosed) else Expected(_view(image, one[0])["row" not in q["key"]])


@AUDITS.key("localize_position_word_one_piece")
@_grid
def position_word(q, image, seen):
    one = _one(seen, 1)
    if isinstance(one, IllPosed):
        return one
    rows, cols = Board(image).view_size()
    row, col = _view(image, one[0])
    third_down = min(2, math.floor(3 * (row + 0.5) / rows))
    third_across = min(2, math.floor(3 * (col + 0.5) / cols))
    return Expected(POSITION_WORDS[3 * third_down + third_across])


@AUDITS.key("localize_rows_between_two_pieces", "localize_columns_between_two_pieces")
@_grid
def between(q, image, seen):
    two = _one(seen, 2)
    if isinstance(two, IllPosed):
        return two
    axis = 0 if "rows" in q["key"] else 1
    return Expected(abs(_view(image, two[0])[axis] - _view(image, two[1])[axis]))


def _on_line(q, image, seen, color=None):
    axis, line = (0, q["params"]["row"]) if "row" in q["params"] else (1, q["params"]["column"])
    return Expected(sum(_view(image, o)[axis] == line and color in (None, o.attributes["color"]) for o in seen))


@AUDITS.key("count_localization_pieces_on_row", "count_localization_pieces_on_column")
@_grid
def count_on_line(q, image, seen):
    return _on_line(q, image, seen)


@AUDITS.key("count_identification_localization_white_pieces_row")
@_grid
def white_on_row(q, image, seen):
    return _on_line(q, image, seen, "white")


@AUDITS.key("count_identification_localization_black_pieces_column")
@_grid
def black_on_column(q, image, seen):
    return _on_line(q, image, seen, "black")


@AUDITS.key("identify_localization_piece_type", "identify_localization_piece_color")
@_grid
def piece_at(q, image, seen):
    cell = (q["params"]["row"], q["params"]["column"])
    there = [o for o in seen if _view(image, o) == cell]
    if len(there) != 1:
        return IllPosed(f"{len(there)} pieces show on row {cell[0]}, column {cell[1]}")
    if q["key"].endswith("type"):
        return _type_problem(image, there) or Expected(there[0].kind)
    return Expected(there[0].attributes["color"])


def check_board(image: MeasuredImage) -> list[tuple[str, str]]:
    """Piece cells and view cells, the board's readability fields and its projected corners."""
    board = Board(image)
    b = image.legend["extras"]["board"]
    problems = []
    readable = board.grid_problem() is None
    for o in image.objects:
        cell = board.cell_of(o)
        if list(cell) != list(o.attributes["cell"]):
            problems.append((f"objects[{o.id}].attributes.cell", f"{o.attributes['cell']}, it stands on {list(cell)}"))
        if not np.allclose(o.location[:2], board.centre(*cell)[:2], atol=1e-4):
            problems.append((f"objects[{o.id}].location", "not the centre of a cell"))
        if readable and (o.attributes["row"], o.attributes["column"]) != board.view_cell(cell):
            problems.append((f"objects[{o.id}].attributes.row/column",
                             f"({o.attributes['row']}, {o.attributes['column']}), the projection gives "
                             f"{board.view_cell(cell)}"))
    if readable and (b["view_rows"], b["view_columns"]) != board.view_size():
        problems.append(("extras.board.view_rows/view_columns", f"the projection gives {board.view_size()}"))
    azimuth = image.setup.camera.azimuth % 90.0
    if b.get("rows_readable") != (min(azimuth, 90.0 - azimuth) <= ROWS_READABLE_WITHIN):
        problems.append(("extras.board.rows_readable", f"{b.get('rows_readable')} at azimuth "
                                                       f"{image.setup.camera.azimuth}"))
    outer = board.corners()
    in_frame = image.in_frame([outer[0], outer[board.cols], outer[-1 - board.cols], outer[-1]])
    if b.get("in_frame") != in_frame:
        problems.append(("extras.board.in_frame", f"{b.get('in_frame')}, the projection says {in_frame}"))
    recorded = np.array([p[:2] for p in image.legend["landmarks"].get("board_corners", [])])
    projected = image.project(outer)[:, :2]
    if recorded.shape != projected.shape or np.abs(recorded - projected).max() > 0.5:
        problems.append(("landmarks.board_corners", "do not match the projected grid corners"))
    return problems


LEGEND_CHECKS = [check_board]

@AUDITS.key("localize_row_closest_piece", "localize_column_closest_piece")
@_grid
def closest(q, image, seen):
    if len(seen) < 2:
        return IllPosed(f"{len(seen)} pieces show, the question needs 2 or more")
    cells = {o.id: _view(image, o) for o in seen}
    ref = (q["params"]["row"], q["params"]["column"])
    at_ref = [i for i, c in cells.items() if c == ref]
    if len(at_ref) != 1:
        return IllPosed(f"{len(at_ref)} pieces show on row {ref[0]}, column {ref[1]}")
    distance = {i: math.hypot(c[0] - ref[0], c[1] - ref[1]) for i, c in cells.items() if i != at_ref[0]}
    nearest = sorted(distance.values())
    if len(nearest) > 1 and math.isclose(nearest[0], nearest[1]):
        return IllPosed("two pieces are equally close to the piece asked about")
    best = min(distance, key=distance.get)
    return Expected(cells[best][0 if "row" in q["key"] else 1])


@AUDITS.key("count_localization_piece_type_row", "count_localization_piece_type_column")
@_grid
def type_on_line(q, image, seen):
    axis, line = (0, q["params"]["row"]) if q["key"].endswith("row") else (1, q["params"]["column"])
    return _type_problem(image, seen) or Expected(
        sum(o.kind == q["params"]["piece_type"] and _view(image, o)[axis] == line for o in seen))


# The contrast rule (docs/readability.md), from the image file: every question about the pieces
# needs each seen piece to stand out from the board in the rendered image.
guarded(AUDITS, [k for k in AUDITS if k != "count_squares"], lambda q, image, seen: image.unshown(seen))
