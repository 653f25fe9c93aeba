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


MAX_LINE = 300  # characters of one problem line
MAX_MESSAGE = 900  # characters of all of them; further problems are counted, not listed


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ConfigError(ValueError):
    """A configuration problem, reported before any work starts, in a message of bounded length."""

    def __init__(self, file: str, problems: Sequence[tuple[str, str]]):
        self.file = file
        self.problems = list(problems)
        lines: list[str] = []
        for key, expected in self.problems:
            line = _cut(f"{_cut(file, 120)}: {key}: {expected}", MAX_LINE)
            if lines and sum(map(len, lines)) + len(line) > MAX_MESSAGE:
                lines.append(f"... and {len(self.problems) - len(lines)} more problems")
                break
            lines.append(line)
        super().__init__("invalid config\n" + "\n".join("  " + line for line in lines))


class RenderError(RuntimeError):
    """A scene could not be rendered as requested (e.g. objects never visible enough)."""


class FatalRenderError(RenderError):
    """A problem every image would hit (e.g. `render.device: gpu` on a machine without one): the
    run stops at once instead of failing image after image."""
