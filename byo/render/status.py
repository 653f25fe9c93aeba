"""`byo status DIR`: what a render directory holds against what was planned, read from the files
and the render log, so it also works while a render is running."""

from __future__ import annotations

import json
import math
import os
import socket
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from byo.core.dataset import RESOLVED_CONFIG, SOURCE_CONFIG, Layout
from byo.core.errors import ConfigError, InputError
from byo.core.locks import LOCK_FILE, busy, entries, holder
from byo.families import load_config
from byo.render import log as renderlog
from byo.scene.plan import Shard, selected_jobs


@dataclass
class Status:
    root: Path
    planned: list[str]
    shard: str | None
    limit: int | None
    sample: int | None = None  # --sample N: a stratified subset of the plan
    done: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # name -> error of its last attempt
    damaged: dict[str, list[str]] = field(default_factory=dict)  # a legend, but files that do not match it
    seconds: list[float] = field(default_factory=list)  # render time of each image the log saw done
    state: str = "no render log"  # running, finished, interrupted, merged


def dataset_config(root: Path):
    """The config a directory was rendered from (its config.yaml), with its family."""
    source = root / SOURCE_CONFIG
    if not (root / RESOLVED_CONFIG).is_file() or not source.is_file():
        if (root / ".byo-merge.json").is_file():
            raise ConfigError(str(root), [("<directory>", "an interrupted byo merge: run the same byo merge again to "
                                           "finish it")])
        lock = root / LOCK_FILE
        who = holder(lock) if lock.is_file() else None
        if who is not None and busy(root):
            raise ConfigError(str(root), [("<directory>", f"a render or merge is starting here ({who}): its config "
                                           "is not written yet; ask again in a moment")])
        if root.is_dir() and (not entries(root) or lock.is_file() and not _said(lock)):
            # a writer's first instant: its folder made, its lock file not yet saying who it is
            raise ConfigError(str(root), [("<directory>", "not a rendered dataset yet: nothing is written here (a "
                                           "render or merge starting here writes its config first); ask again in a "
                                           "moment")])
        raise ConfigError(str(root), [("<directory>", f"not a rendered dataset: no {RESOLVED_CONFIG} "
                                       f"or {SOURCE_CONFIG} in {root}")])
    return load_config(source)


def _said(lock: Path) -> bool:
    """Whether a lock file says who holds it (a writer fills it in just after making it)."""
    try:
        return bool(lock.read_text().strip())
    except OSError:
        return False


def _state(events: list[dict], start: dict) -> str:
    if any(e.get("event") == "end" for e in events[events.index(start):]):
        return "finished"
    if start.get("host") != socket.gethostname():
        return f"running or interrupted (started on {start.get('host')})"  # cannot tell from here
    pid = start.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return "interrupted"  # a log line that does not say which process wrote it
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return "interrupted"
    except PermissionError:
        pass
    return "running"


def dataset_status(root: str | Path, *, check: bool = False) -> Status:
    """Counts against the plan of the latest render in `root`; `check` also compares every file with
    the SHA-256 its legend records (else sizes only)."""
    root = Path(root)
    cfg = dataset_config(root)
    events = renderlog.read(root)
    starts = [e for e in events if e.get("event") in ("start", "merge")]
    last = starts[-1] if starts else {}
    try:
        limit, shard_text, sample = renderlog.selection(root, last)
        shard = Shard.parse(shard_text) if shard_text else None
    except ValueError as err:
        raise InputError(root / renderlog.RENDER_LOG, f"its last start: {err}") from None
    planned = [j.name for j in selected_jobs(cfg, limit=limit, shard=shard, sample=sample)]
    status = Status(root=root, planned=planned, shard=shard_text, limit=limit, sample=sample)
    outcome: dict[str, dict] = {}
    for e in events:
        if e.get("event") == "image" and isinstance(e.get("name"), str):
            outcome[e["name"]] = e
            seconds = e.get("seconds")
            if e.get("status") == "done" and isinstance(seconds, int | float) and math.isfinite(seconds):
                status.seconds.append(float(seconds))
    layout = Layout(root)
    for name in planned:
        found = layout.problems(name, deep=check)
        if not found:
            status.done.append(name)
        elif found != ["no legend"]:
            status.damaged[name] = found
        elif outcome.get(name, {}).get("status") == "failed":
            status.failed[name] = str(outcome[name].get("error", ""))
        else:
            status.missing.append(name)
    if last.get("event") == "start":
        status.state = _state(events, last)
    elif last:
        status.state = "merged"
    return status


def time_per_image(seconds: list[float]) -> dict[str, float]:
    if not seconds:
        return {}
    ordered = sorted(seconds)
    return {"mean": statistics.fmean(ordered), "median": statistics.median(ordered),
            "p95": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], "max": ordered[-1]}


def as_json(status: Status) -> str:
    return json.dumps({
        "directory": str(status.root), "state": status.state, "shard": status.shard, "limit": status.limit,
        "sample": status.sample,
        "planned": len(status.planned), "done": len(status.done), "missing": len(status.missing),
        "failed": len(status.failed), "damaged": len(status.damaged), "failures": status.failed,
        "damage": status.damaged, "seconds_per_image": time_per_image(status.seconds)}, indent=1)
