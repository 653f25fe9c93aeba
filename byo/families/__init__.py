"""Scene families, found through the `byo.families` entry point group: each entry names a
family's `FAMILY` object (see `base.Family`), so a package of its own can add a family."""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from byo.core.errors import ConfigError
from byo.core.schema import shown
from byo.families.base import Family, Sheet
from byo.scene.config import DatasetConfig, check_scene, read_config

GROUP = "byo.families"


@cache
def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def reload() -> None:
    """Look for installed families again (after installing one in this process)."""
    _entry_points.cache_clear()
    get_family.cache_clear()


def family_names() -> list[str]:
    return sorted(_entry_points())


@cache
def get_family(name: str) -> Family:
    found = _entry_points()
    if name not in found:
        raise KeyError(f"unknown family {shown(name)}; expected one of {', '.join(family_names())}")
    family = found[name].load()
    if not isinstance(family, Family) or family.name != name:
        raise TypeError(f"entry point {found[name].value!r} of {GROUP} is not the Family named {name!r}")
    return family


def sheets() -> list[Sheet]:
    """The sheets every installed family draws (`byo sheet KIND`), in the order of the families."""
    declared = [(name, sheet) for name in family_names() for sheet in get_family(name).sheets]
    owner: dict[str, str] = {}
    for name, sheet in declared:
        if owner.setdefault(sheet.kind, name) != name:
            raise TypeError(f"families {owner[sheet.kind]!r} and {name!r} both declare the sheet {sheet.kind!r}")
    return [sheet for _, sheet in declared]


def load_config(source: str | Path | dict, file: str | None = None) -> DatasetConfig:
    """A dataset config (a YAML file, or data named `file` in errors) checked against its family,
    which it carries (`cfg.family`)."""
    file = file or (str(source) if not isinstance(source, dict) else "<config>")
    cfg = read_config(source, file)
    try:
        family = get_family(cfg.dataset.family)
    except KeyError as err:
        raise ConfigError(file, [("dataset.family", str(err.args[0]))]) from None
    check_scene(cfg.with_family(family), file)
    return cfg
