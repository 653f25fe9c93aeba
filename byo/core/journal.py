"""Append-only files byo writes: a run's predictions journal, a human's answers, the render log.
Each record is one line ending in a newline, appended and fsynced before the writer goes on.

A full disk cannot cut a record: a write that fails is undone (the file is truncated back to
where it was) before the error goes on. A kill -9 in the middle of a write can: the next writer
of the file truncates it back to its last whole line when it starts (`recover`), and says so;
until then every reader skips that last line, and the question it held counts as unanswered.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from byo.core.dataset import FILE_MODE


@dataclass(frozen=True)
class Cut:
    """What `recover` removed: the bytes of a last line that had no newline."""

    path: Path
    removed: int

    def __str__(self) -> str:
        return (f"{self.path}: its last line was cut short (a kill or a crash while it was written): "
                f"{self.removed} bytes removed, the record before it is the last one kept")


def cut_tail(path: Path) -> int:
    """Bytes after the file's last newline (0 when the file ends in one, or is empty or absent)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return 0
    try:
        size = os.fstat(fd).st_size
        position = size
        block = 65536
        while position > 0:
            start = max(0, position - block)
            data = os.pread(fd, position - start, start)
            newline = data.rfind(b"\n")
            if newline >= 0:
                return size - (start + newline + 1)
            position = start
        return size
    finally:
        os.close(fd)


def recover(path: Path) -> Cut | None:
    """Truncate the file to its last whole line; what was removed, or None when it was whole."""
    removed = cut_tail(path)
    if not removed:
        return None
    fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
    try:
        os.ftruncate(fd, os.fstat(fd).st_size - removed)
        os.fsync(fd)
    finally:
        os.close(fd)
    return Cut(Path(path), removed)


def append(path: Path, line: str) -> None:
    """Append one line (ending in a newline) and fsync it, and the directory for a new file: on
    disk when this returns. A link is never followed (OSError). A write that fails (a full disk)
    is undone before the error goes on, so that the file still ends in a whole line."""
    data = line.encode()
    if not data.endswith(b"\n"):
        data += b"\n"
    new = not os.path.lexists(path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    try:
        size = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except OSError as err:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise OSError(err.errno, err.strerror, str(path)) from None
    finally:
        os.close(fd)
    if new:
        sync_dir(Path(path).parent)


class Appender:
    """A journal kept open while a command appends to it (a run's predictions): each line is
    one write, not fsynced (the request cache holds the answers durably); a failed write is
    undone, and named by the journal's path."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)

    def write(self, line: str) -> None:
        data = line.encode() if line.endswith("\n") else (line + "\n").encode()
        size = os.fstat(self.fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view):]
        except OSError as err:
            with contextlib.suppress(OSError):
                os.ftruncate(self.fd, size)
            raise OSError(err.errno, err.strerror, str(self.path)) from None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def sync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
