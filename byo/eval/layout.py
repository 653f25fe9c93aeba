"""Where a run lives: DATASET/runs/NAME/ holds `predictions.jsonl` and `run.json`, and
DATASET/runs/cache.sqlite is the request cache shared by all runs of the dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pydantic_core

from byo.core import journal
from byo.core.dataset import atomic_write_text
from byo.core.errors import ConfigError, InputError
from byo.core.inputs import json_kind, read_bytes, read_json
from byo.core.paths import as_name, inside, safe_name

RUNS = "runs"
MAX_ANSWER_CHARS = 200_000  # characters of an answer kept (a long chain of thought is ~50k tokens)
PREDICTIONS = "predictions.jsonl"
RUN_FILE = "run.json"
CACHE = "cache.sqlite"


def run_name(provider: str, model: str) -> str:
    """The default run name: PROVIDER-MODEL as a safe file name, or PROVIDER alone for a provider
    that is its own model (the blind and oracle references: runs/blind, runs/oracle)."""
    return as_name(provider if model in (None, "", provider) else f"{provider}-{model}")


MAX_REPEATS = 100  # byo eval --repeats: each repeat is a run of its own


def repeat_run_name(name: str, repeat: int) -> str:
    """Repeat 1 of `byo eval --repeats K` is the run NAME itself; repeat r >= 2 is the run NAME.repeat-r."""
    return name if repeat <= 1 else f"{name}.repeat-{repeat}"


def run_path(dataset: Path, name: str, field: str = "run") -> Path:
    """DATASET/runs/NAME; a name that is not a plain file name (`../x`, `a/b`) is refused."""
    return dataset / RUNS / safe_name(name, field, "run name")


def default_cache(dataset: Path) -> Path:
    return dataset / RUNS / CACHE


def cap_answer(text: str | None, max_chars: int | None) -> tuple[str | None, dict | None]:
    """An answer as stored: at most `max_chars` characters, its beginning and its end (where a
    model puts its answer) around a note of what was cut; and the cut, recorded in the row as
    `response_cut` ({"chars": length received, "kept": characters kept}), or None."""
    if text is None or max_chars is None or len(text) <= max_chars:
        return text, None
    note = f"\n[... {len(text) - max_chars:,} characters cut by byo ...]\n"
    head = max(0, (max_chars - len(note)) // 2)
    tail = max(0, max_chars - len(note) - head)
    return text[:head] + note + (text[-tail:] if tail else ""), {"chars": len(text), "kept": head + tail}


def check_same_request(run_dir: Path, request: dict) -> None:
    """A run keeps the request settings it was first made with: resuming must not mix answers."""
    previous = run_dir / RUN_FILE
    if previous.exists():
        before = read_json(previous).get("request")
        if before is not None and not isinstance(before, dict):
            raise InputError(previous, f"expected the run's request settings (an object), got {json_kind(before)}",
                             key="request")
        if before != request:
            changed = ", ".join(k for k, v in request.items() if (before or {}).get(k) != v)
            raise ConfigError(str(previous), [("request", f"this run was made with different settings "
                                               f"({changed} changed); choose another `run`")])


def recorded_path(path: Path, dataset: Path) -> str:
    """A file's path as run.json records it: relative to the dataset when inside it (the run then
    moves with its dataset), else absolute."""
    try:
        return path.resolve().relative_to(dataset.resolve()).as_posix()
    except ValueError:
        return str(path.resolve())


def write_run_file(run_dir: Path, info: dict) -> None:
    atomic_write_text(run_dir / RUN_FILE, json.dumps(info, indent=1) + "\n")


def parse_json(line: str):
    """json.loads, the faster way of pydantic's parser when it takes the line."""
    try:
        return pydantic_core.from_json(line)
    except ValueError:
        return json.loads(line)  # which says what is wrong


def row_problem(row) -> str | None:
    """What keeps a predictions line from being a row byo can score, if anything."""
    if not isinstance(row, dict):
        return f"expected a JSON object, got {json_kind(row)}"
    for key, kinds, expected in ROW_FIELDS:
        if key in row or key in ("id", "status"):
            value = row.get(key)
            if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
                return f"{key}: expected {expected}, got {json_kind(value)}"
    if not row["id"]:
        return "id: expected a question id, got an empty string"
    tokens = row.get("tokens")
    if isinstance(tokens, dict) and any(v is not None and (not isinstance(v, int) or isinstance(v, bool))
                                        for v in tokens.values()):
        return "tokens: expected whole numbers (or null) of tokens"
    return None


# key, JSON types it may have (None: null), in words
ROW_FIELDS = (("id", (str,), "a question id (text)"), ("status", (str,), "a status (text)"),
              ("response", (str, type(None)), "the answer as text, or null"),
              ("refusal", (bool, type(None)), "true or false"),
              ("tokens", (dict, type(None)), "an object of token counts, or null"),
              ("model", (str, type(None)), "the model's name (text), or null"),
              ("provider", (str, type(None)), "the provider's name (text), or null"),
              ("error", (str, type(None)), "an error message (text), or null"))


def read_predictions(path: Path) -> tuple[dict[str, dict], list[tuple[str | None, str]]]:
    """The rows of a predictions file by id (a journal may hold several rows of one question: the
    last one wins), and its problems as (line, what is wrong). A last line cut short by a crash is
    no problem: its question is simply not answered. A binary file is one problem."""
    rows: dict[str, dict] = {}
    problems = []
    data = read_bytes(path) if path.exists() else b""
    if b"\x00" in data:
        return {}, [(None, "a binary file, expected JSON lines")]
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        cut = number == len(lines)  # no newline after it: cut short by a crash
        try:
            row = parse_json(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            if cut:
                break
            what = "not UTF-8 text" if isinstance(err, UnicodeDecodeError) else f"not valid JSON: {err}"
            problems.append((f"line {number}", what))
            continue
        except RecursionError:
            problems.append((f"line {number}", "JSON nested too deeply"))
            continue
        problem = row_problem(row)
        if problem:
            problems.append((f"line {number}", problem))
            continue
        rows[row["id"]] = row
    return rows, problems


def lost_answers(earlier: dict[str, dict], questions: list, path: Path) -> None:
    """Refuse (naming how many) when rewriting the run would lose answers of an earlier invocation:
    rows of questions the question file no longer holds, or asks in other words (`byo questions`
    was run again since)."""
    prompts = {q.id: q.prompt for q in questions}
    gone = [i for i, row in earlier.items() if i not in prompts]
    reworded = [i for i, row in earlier.items() if i in prompts and row.get("prompt") not in (None, prompts[i])]
    if gone or reworded:
        what = " and ".join(part for part in (f"{len(gone)} to questions the question file no longer holds" if gone
                                              else "", f"{len(reworded)} to questions it now words otherwise"
                                              if reworded else "") if part)
        raise ConfigError(str(path), [("<run>", f"{len(gone) + len(reworded)} answers of this run would be lost: "
                                       f"{what} (was byo questions run again?); choose another `run` for the "
                                       f"new questions, or move this run away")])


def remove_unanswered_run(run_dir: Path) -> None:
    """A new run that failed or was stopped before any answer leaves nothing behind: its run file
    and its (empty) predictions are removed, and the run folder with them once empty (the writer
    lock removes the folders it created). A predictions file holding any row is kept, as is every
    other file."""
    predictions = run_dir / PREDICTIONS
    rows, problems = read_predictions(predictions) if predictions.is_file() else ({}, [])
    if rows or problems:
        return
    for name in (PREDICTIONS, RUN_FILE):
        (run_dir / name).unlink(missing_ok=True)


def check_run_folder(run_dir: Path, dataset: Path) -> None:
    """A run folder must be a folder inside the dataset, its files no links leading out of it
    (byo.core.paths: nothing read or written outside a dataset through a link)."""
    if run_dir.name == CACHE or (run_dir.exists() and not run_dir.is_dir()):
        raise ConfigError(str(run_dir), [("`run`", "is a file (the request cache?), not a run folder: choose "
                                          "another `run`")])
    relative = f"{RUNS}/{run_dir.name}"
    for name in ("", PREDICTIONS, RUN_FILE):
        if inside(dataset, f"{relative}/{name}".rstrip("/")) is None:
            raise ConfigError(str(run_dir / name), [("`run`", "leads outside the dataset through a symbolic link; "
                                                     "byo reads and writes nothing through such a link")])


def open_journal(run_dir: Path, say=None) -> journal.Appender:
    """The predictions file, appended to in completion order while the run goes on: rows of an
    earlier, interrupted invocation stay until the run rewrites the file in question order. A
    last line cut short by a kill is cut off first (`say` is told)."""
    path = run_dir / PREDICTIONS
    cut = journal.recover(path)
    if cut is not None and say is not None:
        say(f"{cut}; that question is asked again")
    return journal.Appender(path)


def journal_row(appender: journal.Appender, row: dict) -> None:
    appender.write(json.dumps(row) + "\n")


def write_predictions(run_dir: Path, rows: list[dict]) -> None:
    """The predictions file rewritten at the end, in question order."""
    atomic_write_text(run_dir / PREDICTIONS, "".join(json.dumps(r) + "\n" for r in rows))
