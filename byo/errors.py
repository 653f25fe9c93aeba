"""Errors that name the file, the key path and what was expected."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def format_key_path(loc: Iterable[str | int]) -> str:
    """('variables', 'camera.distance', 'levels', 2) -> variables."camera.distance".levels[2]"""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif "." in part:
            out += f'."{part}"' if out else f'"{part}"'
        else:
            out += f".{part}" if out else part
    return out or "<top level>"


MAX_PROBLEMS = 8  # listed in a message; the rest are counted
MAX_LINE = 300  # characters of one problem line


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ConfigError(ValueError):
    """A configuration problem, reported before any work starts, in a message of bounded length."""

    def __init__(self, file: str, problems: Sequence[tuple[str, str]]):
        self.file = file
        self.problems = list(problems)
        lines = [_cut(f"{_cut(file, 120)}: {key}: {expected}", MAX_LINE) for key, expected in self.problems]
        if len(lines) > MAX_PROBLEMS:
            lines = [*lines[:MAX_PROBLEMS], f"... and {len(lines) - MAX_PROBLEMS} more problems"]
        super().__init__("invalid config\n" + "\n".join("  " + line for line in lines))


class RenderError(RuntimeError):
    """A scene could not be rendered as requested (e.g. objects never visible enough)."""
