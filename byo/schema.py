"""The one strict pydantic base and the one way of turning validation errors into problems
(key path, expectation) for a ConfigError."""

from __future__ import annotations

import reprlib
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError, model_serializer

from byo.errors import format_key_path


class Strict(BaseModel):
    """A model that refuses unknown keys, NaN and infinities."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def srgb(value: tuple[float, ...]) -> tuple[float, float, float]:
    """An sRGB colour: 3 numbers in [0, 1] (a 4th, alpha, is accepted and dropped)."""
    if len(value) not in (3, 4) or not all(0.0 <= c <= 1.0 for c in value):
        raise ValueError("expected an sRGB colour as 3 (or 4, alpha ignored) numbers in [0, 1]")
    return tuple(value[:3])


SRGB = Annotated[tuple[float, ...], AfterValidator(srgb)]

_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxother = 2, 60, 60
_SHOWN.maxlist = _SHOWN.maxdict = _SHOWN.maxtuple = _SHOWN.maxset = 4


def shown(value) -> str:
    """A short repr of what a user wrote, whatever its size (nested, huge or aliased)."""
    return _SHOWN.repr(value)


def left_out_when_none(*names: str):
    """A model serializer (assign it in the class body) that leaves out the fields `names` while
    they are None: a field added later then leaves legends and dumps as they were without it."""

    @model_serializer(mode="wrap")
    def serialize(self, handler):
        data = handler(self)
        for name in names:
            if data.get(name) is None:
                data.pop(name, None)
        return data

    return serialize

_TYPE_NAMES = {"str", "int", "float", "bool", "none", "list", "dict"}
_VARIATION_TAGS = {"fixed", "varying_all", "varying_all_range", "varying_random", "varying_among_range"}


def _is_union_tag(part) -> bool:
    """Pydantic puts union branch names into error locations; they are not keys of the input."""
    if not isinstance(part, str):
        return False
    return (part in _TYPE_NAMES or part in _VARIATION_TAGS or "[" in part or part.startswith("function-")
            or part[:1].isupper())


def validation_problems(err: ValidationError, prefix: tuple = ()) -> list[tuple[str, str]]:
    """One message per key path; for unions, the most specific branch message wins."""
    by_path: dict[str, list[tuple[str, str]]] = {}
    for e in err.errors():
        loc = prefix + tuple(p for p in e["loc"] if not _is_union_tag(p))
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = "unknown key"
        elif e["type"] == "missing":
            msg = "required key is missing"
        elif e["type"] not in ("value_error", "union_tag_invalid") and "input" in e:
            msg = f"{msg} (got {shown(e['input'])})"
        by_path.setdefault(format_key_path(loc), []).append((e["type"], msg))
    problems = []
    for key, found in by_path.items():
        specific = [m for t, m in found if t == "value_error"] or [found[0][1]]
        problems.append((key, specific[0]))
    return problems
