"""One writer per directory: the process that writes a run (`byo eval`, `byo import-predictions`),
a dataset (`byo render`, also with --resume or --shard) or an export holds an OS file lock on it.

The lock is `flock` on DIRECTORY/.byo.lock, which also says who holds it (process id, host,
command, since when). The operating system releases it when the process ends, however it ends
(kill -9 too), so a lock is never stale; the file of a killed holder is left behind and says
nothing (the next writer takes the lock and writes itself into it). A second writer exits 2
naming the holder, or waits for it with --wait. The holder removes the file when it is done,
before it lets go of the lock, and a waiter checks that the file it locked is still the one in
place, so that two processes can never both hold the lock of one directory.

flock works across processes on one machine, and on network file systems that pass it on (NFS
v4 and most cluster file systems do); two hosts writing one directory over a file system that
does not are not protected.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shlex
import socket
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from byo.core.errors import InputError
from byo.core.urls import redact_urls

LOCK_FILE = ".byo.lock"


class Busy(InputError):
    """Another process writes the directory."""


def command_line() -> str:
    """This process's command, as the lock file records it (URLs redacted: a key can hide there)."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"
    argv = ["byo" if name in ("byo", "__main__.py") else name, *sys.argv[1:]]  # python -m byo(.cli)
    return redact_urls(shlex.join(argv))[:500]


def holder(path: Path) -> str:
    """Who holds the lock, as its file says: 'pid 123 on HOST since 2025-... (byo eval ...)'."""
    try:
        info = json.loads(path.read_text())
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info["since"]))
        command = info["command"] if len(info["command"]) <= 90 else info["command"][:87] + "..."
        return f"pid {info['pid']} on {info['host']} since {since} ({command})"
    except (OSError, ValueError, KeyError, TypeError, OverflowError):
        return "another process (which has not said who it is yet)"


def busy(directory: Path) -> bool:
    """Whether the process its lock file names is alive on this host (a look only: the lock itself
    is not touched, so that a writer starting meanwhile is never refused because of it)."""
    try:
        info = json.loads((Path(directory) / LOCK_FILE).read_text())
        pid, host = info["pid"], info["host"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if host != socket.gethostname() or not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        return True
    return True


def entries(directory: Path) -> list[Path]:
    """What a directory holds apart from its lock file."""
    return [p for p in directory.iterdir() if p.name != LOCK_FILE] if directory.is_dir() else []


def _created(directory: Path) -> list[Path]:
    """The directories `mkdir(parents=True)` would create, deepest first."""
    missing = []
    for d in (directory, *directory.parents):
        if d.exists():
            break
        missing.append(d)
    return missing


@contextlib.contextmanager
def writer_lock(directory: str | Path, *, what: str = "directory", wait: bool = False,
                on_wait: Callable[[str], None] | None = None, wait_flag: str | None = None) -> Iterator[Path]:
    """Hold the lock of `directory` (created if need be) for the block. Held by another process:
    Busy, or with `wait` block until it is free (`on_wait(holder)` is told once). `wait_flag`:
    the caller's argument that waits, as "`wait`" (named in the refusal; a caller without one
    names none). Directories created here are removed again when the block leaves them empty (a
    command that failed before writing anything leaves nothing behind)."""
    directory = Path(directory)
    created = _created(directory)
    path = directory / LOCK_FILE
    told = False
    try:
        while True:
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except FileExistsError:  # made, then removed by a leaving holder between mkdir's two looks
                if directory.exists() and not directory.is_dir():
                    raise
                continue
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except FileNotFoundError:  # the directory, left empty by a holder, was just removed
                continue
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    who = holder(path)
                    if not wait:
                        hint = f", or pass {wait_flag} to wait for it" if wait_flag else ""
                        raise Busy(directory, f"the {what} is being written by {who}; wait until it "
                                              f"ends{hint}") from None
                    if on_wait is not None and not told:
                        on_wait(who)
                        told = True
                    fcntl.flock(fd, fcntl.LOCK_EX)
                # The holder before us may have removed the file between our open and our lock.
                try:
                    ours = os.fstat(fd).st_ino == os.stat(path).st_ino
                except FileNotFoundError:
                    ours = False
            except BaseException:
                os.close(fd)
                raise
            if ours:
                break
            os.close(fd)
        try:
            info = {"pid": os.getpid(), "host": socket.gethostname(), "command": command_line(), "since": time.time()}
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
            yield path
        finally:
            with contextlib.suppress(OSError):
                path.unlink()  # while we still hold it: a waiter then sees that its file is gone
            os.close(fd)
    finally:
        for d in created:
            with contextlib.suppress(OSError):
                d.rmdir()  # only when empty
