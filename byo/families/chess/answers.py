"""Answers to the chess questions, from legends. Rows and columns are as the camera sees them."""

from __future__ import annotations

from collections import Counter

from byo.families.api import (
    POSITION_WORDS,
    Answer,
    AnswerTable,
    Problem,
    Skip,
    Unreadable,
    attribute_unreadable,
    blur_px,
    box_size,
    measured_attribute,
    not_shown,
    plural,
    unless,
    view_elevation,
    visible,
)
from byo.families.chess.model import (
    PIECE_TYPES,
    ROWS_READABLE_WITHIN,
    TYPE_READABLE_MAX_BLUR,
    TYPE_READABLE_MAX_ELEVATION,
    TYPE_READABLE_MIN_HEIGHT_PX,
)
from byo.families.chess.squares import squares_unresolved

ANSWERS = AnswerTable()


def _board(legend: dict) -> dict:
    return legend["extras"]["board"]


def board_size(legend: dict) -> dict:
    b = _board(legend)
    return {"rows": b["view_rows"], "columns": b["view_columns"]}


def _grid(legend: dict) -> Skip | None:
    """Rows and columns are asked about only on a board wholly in the frame, seen within
    ROWS_READABLE_WITHIN degrees of a side (nearer the diagonal, no row is "the top one")."""
    b = _board(legend)
    if not b.get("in_frame", True):
        return Skip("the board is partly out of the frame")
    if not b.get("rows_readable", True):
        return Skip(f"rows are not readable: the camera is more than {ROWS_READABLE_WITHIN:g} degrees "
                    "from a board side")
    return None


def _types_unreadable(legend: dict, pieces: list[dict],
                      min_height_px: float = TYPE_READABLE_MIN_HEIGHT_PX) -> Problem | None:
    """The type rule: a piece whose type cannot be read off its silhouette (model.TYPE_READABLE_*;
    `min_height_px` for the calibration bench's candidates); where the render drew each piece as
    every other type (render.counterfactual.attributes: [type]), a piece whose render as another
    type does not differ visibly (the counterfactual check)."""
    if pieces and measured_attribute(pieces, "type"):
        return attribute_unreadable(pieces, "type")
    for o in pieces:
        x, y, z = o["location"]
        if view_elevation(legend, (x, y, z + o["attributes"]["height"] / 2)) > TYPE_READABLE_MAX_ELEVATION:
            return "type", "piece types are not readable from this high a view (their silhouettes look alike)"
        height = box_size(o)[1]
        if height < min_height_px:
            return "type", f"a piece is under {min_height_px:g} px tall: too small to read its type"
        if blur_px(legend, o) > TYPE_READABLE_MAX_BLUR * height:
            return "type", "a piece is too blurred to read its type"
    return None


def shown(fn):
    """Decorate an answer function about the pieces: every visible piece must stand out from the
    board in the rendered image (the contrast rule, docs/readability.md), else it is unreadable."""
    def checked(legend, rng):
        return unless(not_shown(visible(legend)), fn(legend, rng))

    checked.__doc__ = fn.__doc__
    return checked


def _only(legend: dict, n: int) -> list[dict] | Skip:
    pieces = visible(legend)
    return pieces if len(pieces) == n else Skip(f"needs exactly {n} visible piece{'s' if n > 1 else ''}")


def _count(legend: dict, **match) -> int:
    return sum(all(o["attributes"][k] == v for k, v in match.items()) for o in visible(legend))


@ANSWERS.key("count_pieces")
@shown
def count_pieces(legend, rng):
    return Answer(len(visible(legend)))


@ANSWERS.key("count_squares")
def count_squares(legend, rng):
    b = _board(legend)
    if not b.get("in_frame", True):
        return Skip("the board is partly out of the frame")
    return unless(squares_unresolved(legend), Answer(b["rows"] * b["columns"]))


@ANSWERS.key("count_identification_white_pieces")
@shown
def count_white(legend, rng):
    return Answer(_count(legend, color="white"))


@ANSWERS.key("count_identification_black_pieces")
@shown
def count_black(legend, rng):
    return Answer(_count(legend, color="black"))


def _count_of_type(legend: dict, piece: str) -> Answer | Unreadable:
    return unless(_types_unreadable(legend, visible(legend)), Answer(
        _count(legend, type=piece), {"piece_type": piece, "piece_plural": plural(piece)}))


@ANSWERS.key("count_identification_piece_type")
@shown
def count_type(legend, rng):
    """How many pieces of a type drawn among the types on the board (BYO-Eval's draw: "replace X
    with a random piece type from the legend"), so the answer is never 0."""
    present = sorted({o["attributes"]["type"] for o in visible(legend)}, key=PIECE_TYPES.index)
    if not present:
        return Skip("no visible piece")
    return _count_of_type(legend, present[int(rng.integers(len(present)))])


@ANSWERS.key("count_identification_any_piece_type")
@shown
def count_any_type(legend, rng):
    """How many pieces of a type drawn among all six, absent ones too (0 is an answer)."""
    return _count_of_type(legend, PIECE_TYPES[int(rng.integers(len(PIECE_TYPES)))])


def _lone(legend: dict, attribute: str) -> Answer | Skip:
    """An attribute of the one visible piece."""
    pieces = _only(legend, 1)
    if isinstance(pieces, Skip):
        return pieces
    if attribute == "type":
        return unless(_types_unreadable(legend, pieces), Answer(pieces[0]["attributes"][attribute]))
    if attribute in ("row", "column"):
        return _grid(legend) or Answer(pieces[0]["attributes"][attribute])
    return Answer(pieces[0]["attributes"][attribute])


def _between(legend: dict, attribute: str) -> Answer | Skip:
    """How far apart the two visible pieces are in rows or columns."""
    pieces = _only(legend, 2)
    return pieces if isinstance(pieces, Skip) else _grid(legend) or Answer(
        abs(pieces[0]["attributes"][attribute] - pieces[1]["attributes"][attribute]))


@ANSWERS.key("identify_type_one_piece")
@shown
def identify_type(legend, rng):
    return _lone(legend, "type")


@ANSWERS.key("identify_color_one_piece")
@shown
def identify_color(legend, rng):
    return _lone(legend, "color")


@ANSWERS.key("identify_type_several_pieces")
@shown
def identify_types(legend, rng):
    pieces = visible(legend)
    if not pieces:
        return Skip("no visible piece")
    return unless(_types_unreadable(legend, pieces), Answer(sorted({o["attributes"]["type"] for o in pieces})))


@ANSWERS.key("localize_row_one_piece")
@shown
def localize_row(legend, rng):
    return _lone(legend, "row")


@ANSWERS.key("localize_column_one_piece")
@shown
def localize_column(legend, rng):
    return _lone(legend, "column")


def position_word(row: int, column: int, rows: int, columns: int) -> str:
    """Thirds of the board by cell centre: upper / middle / lower and left / middle / right."""
    return POSITION_WORDS[3 * min(2, int(3 * (row + 0.5) / rows)) + min(2, int(3 * (column + 0.5) / columns))]


@ANSWERS.key("localize_position_word_one_piece")
@shown
def localize_word(legend, rng):
    pieces = _only(legend, 1)
    if isinstance(pieces, Skip):
        return pieces
    a, b = pieces[0]["attributes"], _board(legend)
    return _grid(legend) or Answer(position_word(a["row"], a["column"], b["view_rows"], b["view_columns"]))


@ANSWERS.key("localize_rows_between_two_pieces")
@shown
def rows_between(legend, rng):
    return _between(legend, "row")


@ANSWERS.key("localize_columns_between_two_pieces")
@shown
def columns_between(legend, rng):
    return _between(legend, "column")


def _random_line(legend, rng, axis: str) -> int:
    size = _board(legend)["view_rows" if axis == "row" else "view_columns"]
    return int(rng.integers(size))


@ANSWERS.key("count_localization_pieces_on_row")
@shown
def count_on_row(legend, rng):
    row = _random_line(legend, rng, "row")
    return _grid(legend) or Answer(_count(legend, row=row), {"row": row})


@ANSWERS.key("count_localization_pieces_on_column")
@shown
def count_on_column(legend, rng):
    column = _random_line(legend, rng, "column")
    return _grid(legend) or Answer(_count(legend, column=column), {"column": column})


def _occupied(legend, rng) -> dict | Skip:
    pieces = visible(legend)
    if not pieces:
        return Skip("no visible piece")
    cells = Counter((o["attributes"]["row"], o["attributes"]["column"]) for o in pieces)
    assert max(cells.values()) == 1, "two pieces share a cell"
    return pieces[int(rng.integers(len(pieces)))]


def _at(legend: dict, rng, attribute: str) -> Answer | Skip:
    """An attribute of the piece on a cell drawn among the occupied ones; the cell is the parameter."""
    piece = _occupied(legend, rng)
    if isinstance(piece, Skip):
        return piece
    a = piece["attributes"]
    answer = _grid(legend) or Answer(a[attribute], {"row": a["row"], "column": a["column"]})
    return unless(_types_unreadable(legend, [piece]), answer) if attribute == "type" else answer


@ANSWERS.key("identify_localization_piece_type")
@shown
def type_at(legend, rng):
    return _at(legend, rng, "type")


@ANSWERS.key("identify_localization_piece_color")
@shown
def color_at(legend, rng):
    return _at(legend, rng, "color")


@ANSWERS.key("count_identification_localization_white_pieces_row")
@shown
def white_on_row(legend, rng):
    row = _random_line(legend, rng, "row")
    return _grid(legend) or Answer(_count(legend, color="white", row=row), {"row": row})


@ANSWERS.key("count_identification_localization_black_pieces_column")
@shown
def black_on_column(legend, rng):
    column = _random_line(legend, rng, "column")
    return _grid(legend) or Answer(_count(legend, color="black", column=column), {"column": column})


def _closest(legend: dict, rng, axis: str) -> Answer | Skip:
    """The row or column of the piece closest (on the grid, sqrt(dr^2 + dc^2) cells) to a piece
    drawn among the visible ones, whose cell is the parameter (BYO-Eval's
    localize_row_closest_piece: "on which row is the closest piece to the piece at position X,Y?")."""
    pieces = visible(legend)
    if len(pieces) < 2:
        return Skip("needs at least 2 visible pieces")
    unreadable = _grid(legend)
    if unreadable:
        return unreadable
    ref = pieces[int(rng.integers(len(pieces)))]["attributes"]
    others = [o["attributes"] for o in pieces if o["attributes"] is not ref]
    distance = {id(a): (a["row"] - ref["row"]) ** 2 + (a["column"] - ref["column"]) ** 2 for a in others}
    nearest = min(distance.values())
    closest = [a for a in others if distance[id(a)] == nearest]
    if len(closest) > 1:
        return Skip("two pieces are equally close to the piece asked about")
    return Answer(closest[0][axis], {"row": ref["row"], "column": ref["column"]})


@ANSWERS.key("localize_row_closest_piece")
@shown
def row_of_closest(legend, rng):
    return _closest(legend, rng, "row")


@ANSWERS.key("localize_column_closest_piece")
@shown
def column_of_closest(legend, rng):
    return _closest(legend, rng, "column")


def _type_on_line(legend: dict, rng, axis: str) -> Answer | Skip:
    """How many pieces of a drawn type stand on a drawn row or column (absent types too: 0)."""
    piece = PIECE_TYPES[int(rng.integers(len(PIECE_TYPES)))]
    line = _random_line(legend, rng, axis)
    return _grid(legend) or unless(_types_unreadable(legend, visible(legend)), Answer(
        _count(legend, type=piece, **{axis: line}), {"piece_type": piece, "piece_plural": plural(piece), axis: line}))


@ANSWERS.key("count_localization_piece_type_row")
@shown
def type_on_row(legend, rng):
    return _type_on_line(legend, rng, "row")


@ANSWERS.key("count_localization_piece_type_column")
@shown
def type_on_column(legend, rng):
    return _type_on_line(legend, rng, "column")
