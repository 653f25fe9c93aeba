"""The render log: one JSON line per event, appended (and flushed to disk) by the process that
writes the dataset. `byo status` reads it, while a render runs or after: what was planned, which
images failed and why, how long each took. It is a record of runs, not part of the dataset."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

RENDER_LOG = "render_log.jsonl"


def append(root: Path, event: dict) -> None:
    line = json.dumps({"time": round(time.time(), 3), "host": socket.gethostname(), "pid": os.getpid(),
                       **event}) + "\n"
    fd = os.open(Path(root) / RENDER_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        os.write(fd, line.encode())  # one write per line: lines of concurrent writers do not mix
        os.fsync(fd)
    finally:
        os.close(fd)


def read(root: Path) -> list[dict]:
    """Every whole event; a last line cut short by a crash is ignored."""
    path = Path(root) / RENDER_LOG
    if not path.is_file():
        return []
    events = []
    for line in path.read_text().splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return events
