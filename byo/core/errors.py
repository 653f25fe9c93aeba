"""Errors that name the file, the key path and what was expected."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path


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


class Note(UserWarning):
    """Something a user should read once, in one line, that stops nothing (a preset under its old
    name): the command line prints it as "note: ..."."""


MAX_LINE = 300  # characters of one problem line
MAX_MESSAGE = 900  # characters of all of them; further problems are counted, not listed


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


# The `file` of a problem with the arguments a function was given: its keys are the arguments'
# names (the API's fields, `concurrency`), and a field named inside a message is written in
# backquotes. The command line prints them as its own flags (byo.cli.fields).
ARGUMENTS = "<arguments>"


class ConfigError(ValueError):
    """A problem with what a command was given (a config, its arguments, a file it reads), reported
    before any work starts, in a message of bounded length. Its first line stands alone: the file,
    the key and what was expected; further problems follow, one per line. Below the command line a
    problem names the API's fields, never a flag: `ConfigError(ARGUMENTS, [("concurrency", ...)])`,
    and "`max_cost`" inside a message or as the key of a problem of another file."""

    def __init__(self, file: str, problems: Sequence[tuple[str | None, str]]):
        self.file = file
        self.problems = list(problems)
        lines: list[str] = []
        for key, expected in self.problems:
            where = f"{_cut(file, 120)}: {key}" if key else _cut(file, 120)
            line = _cut(one_line(f"{where}: {expected}"), MAX_LINE)
            if lines and sum(map(len, lines)) + len(line) > MAX_MESSAGE:
                lines.append(f"... and {len(self.problems) - len(lines)} more problems")
                break
            lines.append(line)
        super().__init__("\n  ".join(lines))


def one_line(text: str) -> str:
    """`text` with its line breaks and other control characters shown as spaces."""
    return "".join(" " if not c.isprintable() else c for c in text)


class InputError(ConfigError):
    """A file a command reads is missing, damaged or not what was expected: `FILE: what is wrong`."""

    def __init__(self, file: str | Path, problem: str, key: str | None = None):
        super().__init__(str(file), [(key, problem)])


class RenderError(RuntimeError):
    """A scene could not be rendered as requested (e.g. objects never visible enough)."""


class FatalRenderError(RenderError):
    """A problem every image would hit (e.g. `render.device: gpu` on a machine without one): the
    run stops at once instead of failing image after image."""
