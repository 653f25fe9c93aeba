"""Reading the files a command reads, checked: a file that is missing, binary, cut short or not
what was expected becomes an `InputError` naming it and saying what is wrong (exit 2), never a
traceback. Commands read legends, masks, images, questions, predictions, run files and logs of
other harnesses through these helpers."""

from __future__ import annotations

import contextlib
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from byo.core.errors import ConfigError, InputError


def read_bytes(path: str | Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(path, "file not found") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory, expected a file") from None
    except OSError as err:
        raise InputError(path, f"cannot be read ({err.strerror or err})") from None


def decode(data: bytes, path: str | Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(path, f"not UTF-8 text (byte {err.start} of {len(data)}): a binary or damaged file") from None


def read_text(path: str | Path) -> str:
    return decode(read_bytes(path), path)


def json_kind(value: Any) -> str:
    """What a JSON value is, in words: for messages."""
    if isinstance(value, bool):
        return "true/false"
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__)


def parse_json(text: str, path: str | Path, where: str | None = None) -> Any:
    """json.loads, its failure an InputError naming the file (and `where`, e.g. "line 3")."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(path, f"not valid JSON ({err.msg} at line {err.lineno} column {err.colno})"
                         if where is None else f"not valid JSON ({err.msg} at column {err.colno})", where) from None
    except RecursionError:
        raise InputError(path, "JSON nested too deeply", where) from None


def read_json(path: str | Path, expected: type | tuple[type, ...] | None = dict) -> Any:
    """The JSON value of a file; `expected` its type (a JSON object unless told otherwise)."""
    value = parse_json(read_text(path), path)
    if expected is not None and not isinstance(value, expected):
        raise InputError(path, f"expected {json_kind(expected())}, got {json_kind(value)}")
    return value


def read_image(path: str | Path, mode: str | None = None) -> np.ndarray:
    """An image's pixels (converted to `mode`); a missing, empty, truncated or non-image file is an
    InputError naming it."""
    data = read_bytes(path)
    if not data:
        raise InputError(path, "empty file (0 bytes), expected an image")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                im.load()
                return np.asarray(im.convert(mode) if mode else im)
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombWarning, Image.DecompressionBombError) as err:
        raise InputError(path, f"not a readable image ({err})") from None


DATA_ERRORS = (KeyError, TypeError, ValueError, IndexError, AttributeError, ZeroDivisionError, OverflowError)


@contextlib.contextmanager
def reading(path: str | Path, what: str = "a file byo wrote") -> Iterator[None]:
    """Errors of using what `path` holds (a key missing, a value of the wrong type) become an
    InputError naming the file: for code that reads nested data (legends, logs) field by field."""
    try:
        yield
    except ConfigError:
        raise
    except DATA_ERRORS as err:
        detail = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
        raise InputError(path, f"not {what} this version can read ({detail[:200]})") from None
