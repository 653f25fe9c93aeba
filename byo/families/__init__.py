"""Scene family plugins. Each has the same small shape (see `base.Family`)."""

from __future__ import annotations

from byo.families.base import Family


def _registry() -> dict[str, Family]:
    from byo.families.chess import CHESS
    from byo.families.clevr import CLEVR
    from byo.families.crest import CREST

    return {f.name: f for f in (CLEVR, CHESS, CREST)}


def get_family(name: str) -> Family:
    families = _registry()
    if name not in families:
        raise KeyError(f"unknown scene family {name!r}; expected one of {', '.join(sorted(families))}")
    return families[name]


def family_names() -> list[str]:
    return sorted(_registry())
