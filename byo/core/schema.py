"""The one strict pydantic base and the one way of turning validation errors into problems
(key path, expectation) for a ConfigError."""

from __future__ import annotations

import reprlib
import types
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    ValidationError,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from byo.core.errors import format_key_path


class Strict(BaseModel):
    """A model that refuses unknown keys, NaN and infinities, and numbers a user did not mean:
    pydantic's lax mode reads `true` as 1, `"16"` as 16 and `16.0` as 16; here a number field
    takes a number, and a whole-number field a whole number written as one (see `lax_number`)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _no_lax_numbers(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key, annotation in _number_fields(cls):
                problem = lax_number(data[key], annotation) if key in data else None
                if problem:
                    raise keyed_error(key, problem)
        return data


_FIELDS: dict[type, list[tuple[str, Any]]] = {}


def _number_fields(model: type[BaseModel]) -> list[tuple[str, Any]]:
    """(key, annotation) of each field of `model`, read once per model class."""
    fields = _FIELDS.get(model)
    if fields is None:
        fields = _FIELDS[model] = [(f.alias or name, f.annotation) for name, f in model.model_fields.items()]
    return fields


KEYED = "keyed_problem"


def keyed_error(key: str, problem: str) -> PydanticCustomError:
    """An error a model validator raises about one of its keys (a cross-field check blaming
    `key`): validation_problems names the key in the error's location."""
    return PydanticCustomError(KEYED, "{problem}", {"problem": problem, "key": key})


def _members(annotation) -> list:
    """The alternatives of a (possibly Optional / Annotated) annotation."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) in (Union, types.UnionType):
        return [m for arg in get_args(annotation) for m in _members(arg)]
    return [annotation]


def _admits(members: list, kind: type) -> bool:
    """Whether some alternative takes a value of `kind` as it is (bool, str or float)."""
    return any(member is Any or member is object or member is kind for member in members)


@dataclass(frozen=True)
class _NumberPlan:
    """What lax_number needs to know of one annotation, worked out once: whether it wants a
    number, which literals it allows, which plain kinds it admits, and its container alternatives
    as (kind, argument annotations)."""

    numeric: bool
    whole_only: bool  # int but not float
    literals: frozenset
    admits: frozenset  # of bool, str, float
    containers: tuple[tuple[str, tuple], ...]


_PLANS: dict[int, tuple[Any, _NumberPlan]] = {}  # id(annotation) -> (annotation, its plan)


def _plan(annotation) -> _NumberPlan:
    entry = _PLANS.get(id(annotation))
    if entry is not None and entry[0] is annotation:
        return entry[1]
    members = _members(annotation)
    numeric = [m for m in members if m in (int, float)]
    containers = []
    for member in members:
        origin, args = get_origin(member), get_args(member)
        if origin in (list, set, frozenset) and args:
            containers.append(("items", (args[0],)))
        elif origin is tuple and args:
            containers.append(("repeated" if len(args) == 2 and args[1] is Ellipsis else "fixed", args))
        elif origin is dict and len(args) == 2:
            containers.append(("values", (args[1],)))
    plan = _NumberPlan(
        numeric=bool(numeric), whole_only=int in numeric and float not in numeric,
        literals=frozenset(v for m in members if get_origin(m) is Literal for v in get_args(m)),
        admits=frozenset(kind for kind in (bool, str, float) if _admits(members, kind)),
        containers=tuple(containers))
    _PLANS[id(annotation)] = (annotation, plan)  # the annotation is kept, so its id is not reused
    return plan


def lax_number(value: Any, annotation, depth: int = 0) -> str | None:
    """What is wrong with `value` where `annotation` expects a number, or None. Decided:
    a boolean is never a number (`samples: true` is a mistake, not 1 sample); a quoted number is
    not a number (YAML reads `"16"` as text); a float is not a whole number (`count: 5.0`);
    an int is a fine float. Lists, tuples and mappings are checked element by element; nested
    models check their own fields."""
    if depth > 8 or not isinstance(value, bool | str | float | list | tuple | dict):
        return None
    plan = _plan(annotation)
    if isinstance(value, bool):
        if plan.numeric and value not in plan.literals and bool not in plan.admits:
            return f"expected a number, got the boolean {str(value).lower()}"
        return None
    if isinstance(value, str):
        if plan.numeric and value not in plan.literals and str not in plan.admits and _is_number_text(value):
            return f"expected a number, got the text {shown(value)} (write it without quotes)"
        return None
    if isinstance(value, float):
        if plan.whole_only and float not in plan.admits:
            return f"expected a whole number, got {shown(value)}"
        return None
    verdicts = []  # for each alternative shaped like `value`: its first problem, or None
    for kind, args in plan.containers:
        if kind == "values":
            if not isinstance(value, dict):
                continue
            found = [lax_number(v, args[0], depth + 1) for v in value.values()]
        elif not isinstance(value, list | tuple):
            continue
        elif kind == "fixed":
            found = [lax_number(v, k, depth + 1) for v, k in zip(value, args, strict=False)]
        else:  # items, repeated
            found = [lax_number(v, args[0], depth + 1) for v in value]
        verdicts.append(next((f for f in found if f), None))
    if verdicts and all(verdicts):  # no alternative takes it as written
        return verdicts[0] if verdicts[0].endswith("(in a list)") else f"{verdicts[0]} (in a list)"
    return None


def _is_number_text(text: str) -> bool:
    try:
        float(text.strip().replace("_", ""))
    except ValueError:
        return False
    return len(text) < 60


def srgb(value: tuple[float, ...]) -> tuple[float, float, float]:
    """An sRGB colour: 3 numbers in [0, 1] (a 4th, alpha, is accepted and dropped)."""
    if len(value) not in (3, 4) or not all(0.0 <= c <= 1.0 for c in value):
        raise ValueError("expected an sRGB colour as 3 (or 4, alpha ignored) numbers in [0, 1]")
    return tuple(value[:3])


SRGB = Annotated[tuple[float, ...], AfterValidator(srgb)]


class ColorDef(Strict):
    """A colour of a user's own: the name questions and answers use, and its sRGB value."""

    name: str
    rgb: SRGB


def color_name(color: str | ColorDef) -> str:
    """A colour's name, whether it is named or defined."""
    return color if isinstance(color, str) else color.name


def custom_rgb(colors: Iterable[str | ColorDef], name: str) -> tuple[float, float, float] | None:
    """The sRGB value that one of `colors` defines for `name`, or None when none does."""
    return next((c.rgb for c in colors if isinstance(c, ColorDef) and c.name == name), None)

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
_VARIATION_TAGS = {"fixed", "varying_all", "varying_all_range", "varying_random", "varying_among", "varying_among_range"}


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
        if e["type"] == KEYED:  # a dotted key: a path below the model
            loc, msg = loc + tuple(e["ctx"]["key"].split(".")), e["ctx"]["problem"]
        if e["type"] == "extra_forbidden":
            msg = "unknown key"
        elif e["type"] == "missing":
            msg = "required key is missing"
        elif e["type"] not in ("value_error", "union_tag_invalid", KEYED) and "input" in e:
            msg = f"{msg} (got {shown(e['input'])})"
        by_path.setdefault(format_key_path(loc), []).append((e["type"], msg))
    problems = []
    for key, found in by_path.items():
        specific = [m for t, m in found if t in ("value_error", KEYED)] or [found[0][1]]
        problems.append((key, specific[0]))
    return problems
