"""Where a run lives: DATASET/runs/NAME/ holds `predictions.jsonl` and `run.json`, and
DATASET/runs/cache.sqlite is the request cache shared by all runs of the dataset."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TextIO

import pydantic_core

from byo.dataset import atomic_write_text
from byo.errors import ConfigError

RUNS = "runs"
PREDICTIONS = "predictions.jsonl"
RUN_FILE = "run.json"
CACHE = "cache.sqlite"


def run_name(provider: str, model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{provider}-{model}").strip("_")


def repeat_run_name(name: str, repeat: int) -> str:
    """Repeat 1 of `byo eval --repeats K` is the run NAME itself; repeat r >= 2 is the run NAME.repeat-r."""
    return name if repeat <= 1 else f"{name}.repeat-{repeat}"


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


def parse_json(line: str):
    """json.loads, the faster way of pydantic's parser when it takes the line."""
    try:
        return pydantic_core.from_json(line)
    except ValueError:
        return json.loads(line)  # which says what is wrong


def read_predictions(path: Path) -> tuple[dict[str, dict], list[tuple[str, str]]]:
    """The rows of a predictions file by id (a journal may hold several rows of one question: the
    last one wins), and its problems as (line, what is wrong). A last line cut short by a crash is
    no problem: its question is simply not answered."""
    rows: dict[str, dict] = {}
    problems = []
    text = path.read_text() if path.is_file() else ""
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = parse_json(line)
        except json.JSONDecodeError as err:
            if number == len(lines) and not text.endswith("\n"):
                break
            problems.append((f"line {number}", f"not valid JSON: {err}"))
            continue
        missing = [k for k in ("id", "status") if not isinstance(row, dict) or k not in row]
        if missing:
            problems.append((f"line {number}", f"missing {', '.join(missing)}"))
            continue
        rows[row["id"]] = row
    return rows, problems


def open_journal(run_dir: Path) -> TextIO:
    """The predictions file, appended to in completion order while the run goes on: rows of an
    earlier, interrupted invocation stay until the run rewrites the file in question order."""
    path = run_dir / PREDICTIONS
    cut = False
    if path.is_file() and path.stat().st_size:
        with path.open("rb") as f:
            f.seek(-1, os.SEEK_END)
            cut = f.read(1) != b"\n"
    journal = path.open("a")
    if cut:
        journal.write("\n")  # after a line cut short by a crash
    return journal


def journal_row(journal: TextIO, row: dict) -> None:
    journal.write(json.dumps(row) + "\n")
    journal.flush()


def write_predictions(run_dir: Path, rows: list[dict]) -> None:
    """The predictions file rewritten at the end, in question order."""
    atomic_write_text(run_dir / PREDICTIONS, "".join(json.dumps(r) + "\n" for r in rows))
