"""Names that become file names, and paths read from files, kept inside the directory they belong
to: `--run ../../x` must not write outside DATASET/runs, and a legend, question or run file must not
lead a command to a file outside its dataset."""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from byo.core.errors import ARGUMENTS, InputError

MAX_NAME = 120
_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_UNSAFE_RUN = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str, field: str, what: str = "name") -> str:
    """`name` when it is a plain file name (letters, digits, '.', '_', '-'; not starting with '.'
    or '-'); else an error naming the argument `field` it was given as."""
    if not isinstance(name, str) or not _SAFE.fullmatch(name) or len(name) > MAX_NAME:
        shown = repr(name)[:60]
        raise InputError(ARGUMENTS, f"{shown} is not a safe {what}: expected up to {MAX_NAME} letters, "
                         "digits, '.', '_' or '-', not starting with '.' or '-'", key=field)
    return name


def as_name(text: str) -> str:
    """`text` turned into a safe file name: other characters become '_' (for names byo makes)."""
    name = _UNSAFE_RUN.sub("_", text).strip("._-")[:MAX_NAME]
    return name or "unnamed"


def inside(root: Path, relative: str) -> Path | None:
    """root/relative when `relative` is a relative path that stays inside `root` (symbolic links
    followed); None when it would lead outside."""
    path = PurePosixPath(relative)
    if not relative or path.is_absolute() or ".." in path.parts or "\x00" in relative:
        return None
    full = Path(root) / path
    try:
        resolved, base = full.resolve(), Path(root).resolve()
    except (OSError, RuntimeError):  # a loop of links
        return None
    return full if resolved == base or base in resolved.parents else None


def relative_url(target: Path, page_dir: Path) -> str:
    """The address of `target` relative to a page in `page_dir`, percent-encoded, so that a page
    works whatever its file names hold ('#', '?', '%', spaces, non-ASCII)."""
    return quote(Path(os.path.relpath(target, page_dir)).as_posix(), safe="/")
