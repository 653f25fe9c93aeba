"""Every number a config can hold, across the dataset section, the shared setup and every
family's content model, found by walking the pydantic models (a field added later is covered
without editing this file):

- a boolean, a quoted number or (for whole numbers) a float there exits 2 naming the key;
- every whole number has an upper bound, so that no count a user can write renders for hours:
  a huge value exits 2 naming the key, before anything is written."""

from __future__ import annotations

from pathlib import Path
from typing import get_args, get_origin

import pytest
import yaml
from pydantic import BaseModel

from byo.cli import main
from byo.core.errors import format_key_path
from byo.core.schema import _members
from byo.families import family_names, get_family
from byo.scene.config import DatasetSection, SlurmSection
from byo.scene.setup import SetupConfig

HUGE = 10**9
# Whole numbers that need no upper bound of their own, and why.
UNBOUNDED = {
    ("dataset", "seed"): "a seed, any value below 2**63",
    ("dataset", "n_images"): "byo render refuses more than --max-images images before writing anything",
    ("scene", "content", "split", "seed"): "a seed (crest's held-out combinations)",
}
LIST_ITEM = 0  # a path step into the first element of a list of models


def _slots(annotation, depth: int = 0) -> list[tuple[type, str]]:
    """Where a number goes in a field: (int or float, shape), shape "" for the number itself,
    "[n]" for a tuple or list of them ("[2][1]": a list of pairs)."""
    out = []
    for member in _members(annotation):
        if member in (int, float):
            out.append((member, ""))
            continue
        origin, args = get_origin(member), get_args(member)
        if depth > 3 or not args:
            continue
        if origin is tuple and (args[-1] is Ellipsis or all(_slots(a) == _slots(args[0]) for a in args)):
            n = 3 if args[-1] is Ellipsis else len(args)
            out += [(kind, f"[{n}]{shape}") for kind, shape in _slots(args[0], depth + 1)]
        elif origin is list:
            out += [(kind, f"[1]{shape}") for kind, shape in _slots(args[0], depth + 1)]
    return sorted(set(out), key=lambda x: (x[1], x[0].__name__))


def _models(annotation) -> list[tuple[bool, type[BaseModel]]]:
    """Nested models of a field: (inside a list?, model)."""
    out = []
    for member in _members(annotation):
        if isinstance(member, type) and issubclass(member, BaseModel):
            out.append((False, member))
        elif get_origin(member) in (list, dict) and get_args(member):
            inner = get_args(member)[-1]
            out += [(True, m) for m in _members(inner) if isinstance(m, type) and issubclass(m, BaseModel)]
    return out


def numeric_fields(model: type[BaseModel], prefix: tuple, seen: frozenset = frozenset()):
    """(key path, kind, shape) for every place a number goes, reachable from `model`."""
    for name, field in model.model_fields.items():
        path = prefix + (field.alias or name,)
        for kind, shape in _slots(field.annotation):
            yield path, kind, shape
        for in_list, sub in _models(field.annotation):
            if sub not in seen:
                yield from numeric_fields(sub, path + ((LIST_ITEM,) if in_list else ()), seen | {sub})


def all_fields() -> list[tuple[str, tuple, type, str]]:
    out = [("clevr", *f) for f in numeric_fields(DatasetSection, ("dataset",))]
    out += [("clevr", *f) for f in numeric_fields(SlurmSection, ("slurm",))]
    out += [("clevr", *f) for f in numeric_fields(SetupConfig, ("scene",))]
    for family in sorted(family_names()):
        out += [(family, *f) for f in numeric_fields(get_family(family).content_model, ("scene", "content"))]
    return out


def _shaped(value, shape: str):
    """`value` placed in `shape` ("" itself, "[2]" a pair of it, "[1][2]" a list of one pair)."""
    if not shape:
        return value
    n, rest = shape[1:].split("]", 1)
    return [_shaped(value, rest)] * int(n)


FIELDS = all_fields()


def _config_with(family: str, path: tuple, value) -> dict:
    config: dict = {"dataset": {"name": "numbers", "family": family}}
    node = config
    for step, following in zip(path[:-1], path[1:], strict=True):
        if step == LIST_ITEM:
            continue
        node = node.setdefault(step, [{}] if following == LIST_ITEM else {})
        if isinstance(node, list):
            node = node[0]
    node[path[-1]] = value
    return config


def _refused(config: dict, tmp_path: Path, capsys) -> tuple[int, str, bool]:
    file = tmp_path / "config.yaml"
    file.write_text(yaml.safe_dump(config))
    out = tmp_path / "out"
    code = main(["render", str(file), "-o", str(out), "--in-process", "--limit", "1"])
    return code, capsys.readouterr().err, out.exists()


def _key(path: tuple) -> str:
    return format_key_path(path)


def _id(case) -> str:
    family, path, kind, shape = case
    return f"{family}:{'.'.join(str(p) for p in path)}{shape}:{kind.__name__}"


def test_the_walk_finds_the_fields_the_issue_names():
    found = {(family, path, shape) for family, path, _, shape in FIELDS}
    assert ("clevr", ("scene", "render", "samples"), "") in found
    assert ("poker", ("scene", "content", "chips", "per_pile"), "") in found
    assert ("poker", ("scene", "content", "chips", "per_pile"), "[2]") in found
    assert ("chess", ("scene", "content", "pieces", LIST_ITEM, "cell"), "[2]") in found
    assert ("clevr", ("scene", "resolution"), "[2]") in found
    assert len(FIELDS) > 100


@pytest.mark.parametrize("case", FIELDS, ids=_id)
def test_a_boolean_in_a_number_field_is_refused_naming_the_key(case, tmp_path, capsys):
    family, path, _, shape = case
    code, err, wrote = _refused(_config_with(family, path, _shaped(True, shape)), tmp_path, capsys)
    assert code == 2, err
    assert "Traceback" not in err and not wrote
    line = next((ln for ln in err.splitlines() if _key(path) in ln), "")
    assert "boolean" in line, f"{_key(path)} not named with the reason in:\n{err}"


@pytest.mark.parametrize("case", FIELDS, ids=_id)
def test_a_quoted_number_is_refused_naming_the_key(case, tmp_path, capsys):
    family, path, _, shape = case
    code, err, wrote = _refused(_config_with(family, path, _shaped("3", shape)), tmp_path, capsys)
    assert code == 2, err
    assert "Traceback" not in err and not wrote
    assert _key(path) in err, err


# A whole number in a field that takes no float (`count: int | tuple[int, int]`, not `x: float`).
WHOLE = [case for case in FIELDS if case[2] is int
         and (case[0], case[1], float, case[3]) not in {(f, p, k, s) for f, p, k, s in FIELDS}]


@pytest.mark.parametrize("case", WHOLE, ids=_id)
def test_a_float_in_a_whole_number_field_is_refused_naming_the_key(case, tmp_path, capsys):
    family, path, _, shape = case
    code, err, wrote = _refused(_config_with(family, path, _shaped(2.5, shape)), tmp_path, capsys)
    assert code == 2 and not wrote and _key(path) in err, err


@pytest.mark.parametrize("case", [c for c in WHOLE if c[1] not in UNBOUNDED], ids=_id)
def test_every_whole_number_has_an_upper_bound(case, tmp_path, capsys):
    family, path, _, shape = case
    code, err, wrote = _refused(_config_with(family, path, _shaped(HUGE, shape)), tmp_path, capsys)
    assert code == 2, f"{_key(path)} = {HUGE} was accepted"
    assert "Traceback" not in err and not wrote
    assert _key(path) in err, err


def test_the_exempt_fields_exist():
    paths = {path for _, path, _, _ in FIELDS}
    assert set(UNBOUNDED) <= paths
