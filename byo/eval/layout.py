"""Where a run lives: DATASET/runs/NAME/ holds `predictions.jsonl` and `run.json`, and
DATASET/runs/cache.sqlite is the request cache shared by all runs of the dataset."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TextIO

from byo.dataset import atomic_write_text
from byo.errors import ConfigError

RUNS = "runs"
PREDICTIONS = "predictions.jsonl"
RUN_FILE = "run.json"
CACHE = "cache.sqlite"


def run_name(provider: str, model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{provider}-{model}").strip("_")


def run_path(dataset: Path, name: str) -> Path:
    return dataset / RUNS / name


def default_cache(dataset: Path) -> Path:
    return dataset / RUNS / CACHE


def check_same_request(run_dir: Path, request: dict) -> None:
    """A run keeps the request settings it was first made with: resuming must not mix answers."""
    previous = run_dir / RUN_FILE
    if previous.is_file():
        before = json.loads(previous.read_text()).get("request")
        if before != request:
            changed = ", ".join(k for k, v in request.items() if (before or {}).get(k) != v)
            raise ConfigError(str(previous), [("request", f"this run was made with different settings "
                                               f"({changed} changed); choose another --run NAME")])


def write_run_file(run_dir: Path, info: dict) -> None:
    atomic_write_text(run_dir / RUN_FILE, json.dumps(info, indent=1) + "\n")


def open_journal(run_dir: Path) -> TextIO:
    """The predictions file, written in completion order while the run goes on."""
    return (run_dir / PREDICTIONS).open("w")


def journal_row(journal: TextIO, row: dict) -> None:
    journal.write(json.dumps(row) + "\n")
    journal.flush()


def write_predictions(run_dir: Path, rows: list[dict]) -> None:
    """The predictions file rewritten at the end, in question order."""
    atomic_write_text(run_dir / PREDICTIONS, "".join(json.dumps(r) + "\n" for r in rows))
