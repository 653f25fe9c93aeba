"""BYO-Eval's chess config keys (seed 002, appendix D.1.5; the public byoeval/BYO-EVAL configs)
and what they are here, for `byo import-config`."""

from __future__ import annotations

import ast
from typing import Any

from byo.families.api import ForeignKey, MissingAsset

PIECES = ("pawn", "rook", "knight", "bishop", "queen", "king")


def _count(value: Any) -> Any:
    """An int, a preset name, or BYO-Eval's {type: fixed|preset|range, value...}."""
    if isinstance(value, dict):
        kind = value.get("type")
        if kind in ("fixed", "preset"):
            return _count(value.get("value"))
        if kind == "range":
            return [value.get("min"), value.get("max")]
        raise ValueError(f"count type {kind!r}: expected fixed, preset or range")
    if isinstance(value, int | str) and not isinstance(value, bool):
        return value
    raise ValueError(f"expected a number of pieces or a preset (low, medium, high), got {value!r}")


def _types(value: Any) -> dict[str, Any]:
    """A number of random types (`n_types`), a type, a list of types, or {spec_type, value}."""
    if isinstance(value, dict):
        if value.get("spec_type") == "random_n":
            return _types(value.get("value"))
        if value.get("spec_type") == "explicit":
            return _types(value.get("types") or value.get("value"))
        raise ValueError(f"type spec {value.get('spec_type')!r}: expected random_n or explicit (the type presets "
                         "have no counterpart)")
    if isinstance(value, int) and not isinstance(value, bool):
        return {"content.n_types": value}
    if isinstance(value, str) and value in PIECES:
        return {"content.types": [value]}
    if isinstance(value, list) and all(v in PIECES for v in value):
        return {"content.types": list(value)}
    raise ValueError(f"expected a number of types, a piece type or a list of them, got {value!r}")


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
    """The board's (x, y, z) in the world: x and y on the table (z is the table's top here)."""
    if not (isinstance(value, list | tuple) and len(value) in (2, 3)):
        raise ValueError(f"expected (x, y, z), got {value!r}")
    return [float(value[0]), float(value[1])]


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
        f"{prefix}length": ForeignKey("content.board.length"),
        f"{prefix}width": ForeignKey("content.board.width"),
        f"{prefix}border_width": ForeignKey("content.board.border"),
        f"{prefix}thickness": ForeignKey("content.board.thickness"),
        f"{prefix}location": ForeignKey("content.board.location", _location),
        f"{prefix}random_pattern": ForeignKey("content.board.random_pattern"),
        f"{prefix}pattern_seed": ForeignKey(None, note="patterns are drawn from dataset.seed"),
        f"{prefix}board_material.color": ForeignKey("content.board.frame_color", _rgb),
        f"{prefix}white_material.color": ForeignKey("content.board.light_color", _rgb),
        f"{prefix}black_material.color": ForeignKey("content.board.dark_color", _rgb),
        f"{prefix}board_material.roughness": ForeignKey(None, note=NO_ROUGHNESS),
        f"{prefix}white_material.roughness": ForeignKey(None, note=NO_ROUGHNESS),
        f"{prefix}black_material.roughness": ForeignKey(None, note=NO_ROUGHNESS),
        f"{prefix}rotation": ForeignKey(None, note="the board does not turn: turn the camera (camera.azimuth)"),
    }


NO_ROUGHNESS = "the board's materials have fixed roughness"
BYO_EVAL = {
    "chess.count_config": ForeignKey("content.count", _count),
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
