"""A submitted answer, checked against the question's input and written as the text a model
would have answered, which `byo score` parses like any other: "3", "knight", "knight, pawn",
"upper left", "B", "QH", "QH, 2S", "row 2, column 3". "Cannot tell" is an answer of its own:
the text "cannot tell", flagged as a refusal (the parse status `refusal`)."""

from __future__ import annotations

import math
import unicodedata
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

CANNOT_TELL = "cannot tell"
MAX_NUMBER = 1_000_000
MAX_SECONDS = 24 * 3600.0


class Submitted(BaseModel):
    """The body of POST /api/answer."""

    model_config = ConfigDict(extra="forbid", strict=True)

    annotator: str
    id: str = Field(min_length=1, max_length=500)
    answer: Any = None
    cannot_tell: bool = False
    seconds: float = Field(ge=0, le=MAX_SECONDS)  # time spent on the question with the page visible
    nonce: str = Field(min_length=8, max_length=64)  # the same answer sent again is recognised


class BadAnswer(ValueError):
    """An answer that does not fit the question's input: the message says what was expected."""


def _whole(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadAnswer(f"{what}: expected a whole number, got {_shown(value)}")
    if not 0 <= value <= MAX_NUMBER:
        raise BadAnswer(f"{what}: expected a whole number from 0 to {MAX_NUMBER}, got {value}")
    return value


def _one_of(value: Any, options: list[str], what: str) -> str:
    if not isinstance(value, str) or value not in options:
        raise BadAnswer(f"{what}: expected one of {', '.join(options)}, got {_shown(value)}")
    return value


def _some_of(value: Any, options: list[str], what: str) -> list[str]:
    if not isinstance(value, list) or not value:
        raise BadAnswer(f"{what}: expected a non-empty list of {', '.join(options)}, got {_shown(value)}")
    picked = [_one_of(v, options, what) for v in value]
    if len(set(picked)) != len(picked):
        raise BadAnswer(f"{what}: each option at most once, got {_shown(value)}")
    return [o for o in options if o in picked]  # in the options' order


def _cards(spec: dict) -> list[str]:
    return [rank + suit for suit in spec["suits"] for rank in spec["ranks"]]


def _text(value: Any, limit: int) -> str:
    if not isinstance(value, str):
        raise BadAnswer(f"answer: expected text, got {_shown(value)}")
    text = " ".join(value.split())
    if not text:
        raise BadAnswer("answer: expected some text (or 'cannot tell')")
    if len(text) > limit:
        raise BadAnswer(f"answer: expected at most {limit} characters, got {len(text)}")
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in text):
        raise BadAnswer("answer: control characters are not allowed")
    return text


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def response_text(spec: dict, answer: Any) -> str:
    """The answer as text, or BadAnswer saying what the input expects."""
    kind = spec["kind"]
    if kind == "number":
        return str(_whole(answer, "answer"))
    if kind == "cell":
        if not isinstance(answer, list) or len(answer) != 2:
            raise BadAnswer(f"answer: expected [row, column], got {_shown(answer)}")
        return f"row {_whole(answer[0], 'row')}, column {_whole(answer[1], 'column')}"
    if kind in ("choice", "grid3", "letter"):
        return _one_of(answer, spec["options"], "answer")
    if kind == "multi":
        return ", ".join(_some_of(answer, spec["options"], "answer"))
    if kind == "card":
        return _one_of(answer, _cards(spec), "answer")
    if kind == "cards":
        return ", ".join(_some_of(answer, _cards(spec), "answer"))
    return _text(answer, spec.get("max_length", 2000))


def check_seconds(seconds: float) -> float:
    if not math.isfinite(seconds):
        raise BadAnswer("seconds: expected a finite number")
    return round(seconds, 3)
