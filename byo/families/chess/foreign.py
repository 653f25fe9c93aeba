"""BYO-Eval's chess config keys (appendix D.1.5; the public byoeval/BYO-EVAL configs)
and what they are here, for `byo import-config`."""

from __future__ import annotations

import ast
from typing import Any

from byo.families.api import ForeignKey, MissingAsset

PIECES = ("pawn", "rook", "knight", "bishop", "queen", "king")


# The authors' count and type presets (chess/config/advanced_models.py): a preset count is that
# many pieces exactly, a type preset that many distinct types.
AUTHORS_COUNT = {"low": 5, "medium": 10, "high": 18}
AUTHORS_N_TYPES = {"low": 2, "medium": 4, "high": 6}


def _preset_count(value: Any) -> int:
    if isinstance(value, str) and value.lower() in AUTHORS_COUNT:
        return AUTHORS_COUNT[value.lower()]
    raise ValueError(f"count preset {value!r}: expected low, medium or high")


def _count(value: Any) -> dict[str, Any]:
    """A number of pieces, a preset (the authors' 5, 10 or 18 pieces), or PieceCountModel's
    {type: fixed|preset|range, value, randomization, randomization_percentage}."""
    if isinstance(value, bool):
        raise ValueError(f"expected a number of pieces or a preset (low, medium, high), got {value!r}")
    if isinstance(value, int):
        return {"content.count": value}
    if isinstance(value, str):
        return {"content.count": _preset_count(value)}
    if not isinstance(value, dict):
        raise ValueError(f"expected a number of pieces or a preset (low, medium, high), got {value!r}")
    kind = value.get("type", "preset")
    given = value.get("value", value.get("preset", value.get("count")))
    if kind == "preset":
        n = _preset_count(given)
    elif kind == "fixed":
        if isinstance(given, bool) or not isinstance(given, int):
            raise ValueError(f"count value {given!r}: expected a number of pieces")
        n = given
    elif kind == "range":
        low, high = given if isinstance(given, list | tuple) and len(given) == 2 else (value.get("min"), value.get("max"))
        low, high = (_preset_count(b) if isinstance(b, str) else b for b in (low, high))
        return {"content.count": [low, high]}
    else:
        raise ValueError(f"count type {kind!r}: expected fixed, preset or range (per-type counts, explicit and "
                         "range_by_type, have no counterpart: name each piece under content.pieces)")
    if value.get("randomization", False):  # the authors' +-int(n x percentage), at least one piece
        spread = int(n * value.get("randomization_percentage", 0.2))
        return {"content.count": [max(1, n - spread), n + spread]}
    return {"content.count": n}


def _types(value: Any) -> dict[str, Any]:
    """As the authors' generator reads a type: a number of random types (random_n), a piece type
    or a preset (a string, any case: "Pawn"), a list of types (explicit), or {spec_type, value}."""
    if isinstance(value, dict):
        kind = value.get("spec_type")
        given = value.get("value") or value.get("preset") or value.get("n_types") or value.get("types")
        if kind in ("random_n", "explicit", "preset"):
            return _types(given)
        raise ValueError(f"type spec {kind!r}: expected random_n, explicit or preset")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return {"content.n_types": value}
    if isinstance(value, str):
        name = value.lower()
        if name in PIECES:
            return {"content.types": [name]}
        if name in AUTHORS_N_TYPES:
            return {"content.n_types": AUTHORS_N_TYPES[name]}
    if isinstance(value, list) and value and all(isinstance(v, str) and v.lower() in PIECES for v in value):
        return {"content.types": [v.lower() for v in value]}
    raise ValueError(f"expected a number of types, a piece type ({', '.join(PIECES)}), a preset (low, medium, "
                     f"high) or a list of types, got {value!r}")


def _position(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"expected {{type: spread, value, start_point}}, got {value!r}")
    if value.get("type") != "spread":
        raise ValueError(f"position type {value.get('type')!r}: only spread has a counterpart")
    return {"content.placement.spread": value.get("value"), "content.placement.start": value.get("start_point")}


def _uniform(value: Any) -> dict[str, Any]:
    if value is not True:
        raise ValueError("only uniform: true (pieces anywhere on the board) has a counterpart")
    return {"content.placement.spread": "high"}


def _piece_set(value: Any) -> dict[str, Any]:
    if value in (None, "default"):
        return {}
    if isinstance(value, str):
        raise MissingAsset(f"piece set {value!r} is a .blend asset of BYO-Eval's repository (blend_files/chess/), "
                           "not shipped here: the project's staunton pieces stand in; to render it, make a chess_set "
                           "asset pack of it (docs/assets.md) and set content.piece_set")
    raise ValueError(f"expected a piece set's name, got {value!r}")


def _rgb(value: Any) -> list[float]:
    """'(0.1, 0.4, 0.15, 1.0)' or a list: RGB(A) in 0..1 -> an RGB triple."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise ValueError(f"expected an RGB(A) colour, got {value!r}") from None
    if not (isinstance(value, list | tuple) and len(value) in (3, 4)
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)):
        raise ValueError(f"expected an RGB(A) colour, got {value!r}")
    return [float(v) for v in value[:3]]


def _location(value: Any) -> list[float]:
    """The board's (x, y, z) in the authors' world: x and y on the table, turned into this
    project's axes (their camera at horizontal angle 0 stands on +x, here at azimuth 0 on -y)."""
    if not (isinstance(value, list | tuple) and len(value) in (2, 3)
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)):
        raise ValueError(f"expected (x, y, z), got {value!r}")
    return [float(value[1]) + 0.0, -float(value[0]) + 0.0]


PIECE_KEYS = {"type", "position", "location", "color", "colour"}


def _piece(value: Any, k: int) -> dict[str, Any]:
    """One of BYO-Eval's explicit pieces ({type, position or location: [row, column], color: RGBA})."""
    if not isinstance(value, dict):
        raise ValueError(f"pieces[{k}]: expected {{type, position, color}}, got {value!r}")
    other = sorted(set(value) - PIECE_KEYS)
    if other:
        raise ValueError(f"pieces[{k}]: {', '.join(other)}: no counterpart for one piece (every piece's size is "
                         "content.scale x its square, its turn content.max_rotation)")
    kind = str(value.get("type", "")).lower()
    if kind not in PIECES:
        raise ValueError(f"pieces[{k}].type: {value.get('type')!r}, expected one of {', '.join(PIECES)}")
    piece: dict[str, Any] = {"type": kind}
    cell = value.get("position", value.get("location"))
    if cell is not None:
        if not (isinstance(cell, list | tuple) and len(cell) == 2 and all(isinstance(c, int) for c in cell)):
            raise ValueError(f"pieces[{k}].position: expected [row, column], got {cell!r}")
        piece["cell"] = list(cell)
    color = value.get("color", value.get("colour"))
    if isinstance(color, str) and color.lower() in ("white", "black"):
        piece["color"] = color.lower()
    elif color is not None:
        rgb = _rgb(color)
        piece["color"] = {"name": "white" if sum(rgb) / 3 >= 0.5 else "black", "rgb": rgb}
    return piece


def _pieces(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise ValueError(f"expected a list of pieces, got {value!r}")
    return [_piece(v, k) for k, v in enumerate(value)]


def _board(prefix: str) -> dict[str, ForeignKey]:
    """BoardModel's keys (appendix D.1.4) under `prefix` (a dataset config's `chess.board_config.`,
    appendix A.1's scene `board.`)."""
    return {
        f"{prefix}rows": ForeignKey("content.board.rows"),
        f"{prefix}columns": ForeignKey("content.board.columns"),
        f"{prefix}row_columns": ForeignKey(None, lambda n: {"content.board.rows": n, "content.board.columns": n}),
        f"{prefix}length": ForeignKey(SQUARES_LENGTH, note=SQUARES),
        f"{prefix}width": ForeignKey(SQUARES_WIDTH, note=SQUARES),
        f"{prefix}border_width": ForeignKey(BORDER, note="the frame's width beyond the squares, both sides together"),
        f"{prefix}thickness": ForeignKey("content.board.thickness"),
        f"{prefix}location": ForeignKey("content.board.location", _location, note=LOCATION),
        f"{prefix}random_pattern": ForeignKey("content.board.random_pattern"),
        f"{prefix}pattern_seed": ForeignKey(None, changes="a random pattern is drawn from dataset.seed here"),
        f"{prefix}board_material.color": ForeignKey("content.board.frame_color", _rgb),
        f"{prefix}white_material.color": ForeignKey("content.board.light_color", _rgb),
        f"{prefix}black_material.color": ForeignKey("content.board.dark_color", _rgb),
        f"{prefix}board_material.roughness": ForeignKey(None, changes=NO_ROUGHNESS),
        f"{prefix}white_material.roughness": ForeignKey(None, changes=NO_ROUGHNESS),
        f"{prefix}black_material.roughness": ForeignKey(None, changes=NO_ROUGHNESS),
        f"{prefix}rotation": ForeignKey(None, changes="no effect in the authors' code either (BoardModel reads no "
                                        "rotation, chess/config/models.py): the board does not turn; camera.azimuth "
                                        "turns the view"),
    }


LOCATION = ("x, y in this project's axes (the authors' x is -y here); z: the board lies on the table top here "
            "(the authors' stands at z above the floor, its table top at table.height)")
# The authors' board (chess/board.py): `length` and `width` are the squares' extent, the frame
# `border_width` wider (BoardModel's default 0.2 m); resolved by `finish` once both are known.
SQUARES_LENGTH, SQUARES_WIDTH, BORDER = ("content.board.length@squares", "content.board.width@squares",
                                         "content.board.border@frame")
SQUARES = "the squares' extent; the frame is border_width wider (chess/board.py)"
AUTHORS_BORDER = 0.2  # BoardModel.border_width


NO_ROUGHNESS = "the board's materials have fixed roughness here: a look only"
INERT_COUNT = ("no effect in the authors' code: it reads count_config.type and value only "
               "(chess/generate_img_from_yaml.py), which chess.count_config sets: the scene keeps that count")
BYO_EVAL = {
    "chess.count_config": ForeignKey(None, _count),
    "chess.count_config.spec_type": ForeignKey(None, changes=INERT_COUNT),
    "chess.count_config.counts": ForeignKey(None, changes=INERT_COUNT),
    "chess.type_config": ForeignKey(None, _types),
    "chess.position_config": ForeignKey(None, _position),
    "chess.position_config.spread_level": ForeignKey("content.placement.spread"),
    "chess.position_config.start_point": ForeignKey("content.placement.start"),
    "chess.position_config.uniform": ForeignKey(None, _uniform),
    **_board("chess.board_config."),
    **_board("board."),  # appendix A.1's scene
    "pieces": ForeignKey("content.pieces", _pieces),  # appendix A.1's explicit pieces
    "dataset.piece_set": ForeignKey(None, _piece_set),
}


def finish(values: dict[str, Any], variables: dict[str, dict]) -> list[tuple[str, Any, str]]:
    """The authors' board sizes as this project's: their squares span `length` x `width` and the
    frame adds `border_width` (0.2 m unless given); here the outer size includes a border each side."""
    squares = {path: values.pop(key) for key, path in ((SQUARES_LENGTH, "content.board.length"),
                                                       (SQUARES_WIDTH, "content.board.width")) if key in values}
    frame = values.pop(BORDER, None)
    if not squares and frame is None:
        return []
    frame = AUTHORS_BORDER if frame is None else float(frame)
    out: list[tuple[str, Any, str]] = []
    values["content.board.border"] = round(frame / 2, 6)
    out.append(("content.board.border", round(frame / 2, 6), f"half the authors' {frame:g} m frame each side"))
    for path, size in squares.items():
        values[path] = round(float(size) + frame, 6)
        out.append((path, values[path], f"the authors' {size:g} m of squares and their {frame:g} m frame"))
    return out
