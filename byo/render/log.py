"""The render log: one JSON line per event, appended (and flushed to disk) by the process that
writes the dataset. `byo status` reads it, while a render runs or after: what was planned, which
images failed and why, how long each took. It is a record of renders, not part of the dataset."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

from byo.core import journal

RENDER_LOG = "render_log.jsonl"


def append(root: Path, event: dict) -> None:
    """One event, appended whole and fsynced (byo.core.journal: a failed write is undone; one
    write per line, so lines of concurrent writers do not mix)."""
    line = json.dumps({"time": round(time.time(), 3), "host": socket.gethostname(), "pid": os.getpid(),
                       **event}) + "\n"
    journal.append(Path(root) / RENDER_LOG, line)


def recover(root: Path) -> None:
    """Cut off a last line cut short by a kill (the writer of the dataset, when it starts)."""
    journal.recover(Path(root) / RENDER_LOG)


def read(root: Path) -> list[dict]:
    """Every whole event; a line cut short by a crash (or otherwise damaged) is left out."""
    path = Path(root) / RENDER_LOG
    if not path.is_file():
        return []
    events = []
    for line in path.read_bytes().splitlines():
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):  # UnicodeDecodeError too
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def selection(root: Path, event: dict) -> tuple[int | None, str | None, int | None]:
    """The --limit, --shard and --sample a start (or merge) event records, checked: (limit, shard
    text, sample). Raises ValueError saying what is wrong."""
    limit, shard, sample = event.get("limit"), event.get("shard"), event.get("sample")
    for name, value in (("limit", limit), ("sample", sample)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise ValueError(f"{name}: expected a whole number >= 1 or null, got {str(value)[:40]!r}")
    if shard is not None and not isinstance(shard, str):
        raise ValueError(f"shard: expected I/N, got {str(shard)[:40]!r}")
    return limit, shard, sample
