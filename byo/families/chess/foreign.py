"""BYO-Eval's chess config keys (appendix D.1.5; the public byoeval/BYO-EVAL configs)
and what they are here, for `byo import-config`."""

from __future__ import annotations

from typing import Any

from byo.families.api import ForeignKey

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
    raise ValueError(f"piece set {value!r}: the project's pieces are its staunton or stylised style "
                     "(content.style) or an asset pack (content.piece_set); BYO-Eval's sets are not shipped")


NO_BOARD_SIZE = "the board's size is content.board.square_size x rows / columns"
BYO_EVAL = {
    "chess.count_config": ForeignKey("content.count", _count),
    "chess.type_config": ForeignKey(None, _types),
    "chess.position_config": ForeignKey(None, _position),
    "chess.position_config.spread_level": ForeignKey("content.placement.spread"),
    "chess.position_config.start_point": ForeignKey("content.placement.start"),
    "chess.position_config.uniform": ForeignKey(None, _uniform),
    "chess.board_config.rows": ForeignKey("content.board.rows"),
    "chess.board_config.columns": ForeignKey("content.board.columns"),
    "chess.board_config.row_columns": ForeignKey(None, lambda n: {"content.board.rows": n, "content.board.columns": n}),
    "chess.board_config.length": ForeignKey(None, note=NO_BOARD_SIZE),
    "chess.board_config.width": ForeignKey(None, note=NO_BOARD_SIZE),
    "chess.board_config.thickness": ForeignKey("content.board.thickness"),
    "chess.board_config.location": ForeignKey(None, note="the board stands at the table's centre "
                                                         "(content.board.location: x, y on the table)"),
    "chess.board_config.rotation": ForeignKey(None, note="the board does not turn: turn the camera (camera.azimuth)"),
    "dataset.piece_set": ForeignKey(None, _piece_set),
}
