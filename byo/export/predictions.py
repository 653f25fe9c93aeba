"""`byo import-predictions FILE --format lmms-eval|inspect|jsonl --dataset DATASET`: answers that
another harness produced become a byo run, DATASET/runs/NAME/predictions.jsonl and run.json, so
that `byo score` and `byo report` work on them.

- `lmms-eval`: the samples file that `--log_samples` writes (`<date>_samples_<task>.jsonl`) for a
  task exported by `byo export --format lmms-eval`. The question id is in the `byo_*` metric
  records; without them, `doc_id` is the row of the exported dataset and the logged `input`
  must hold that question's prompt. The model comes from the `<date>_results.json` beside it.
- `inspect`: an Inspect log, `.eval` (zip, zstd-compressed entries need the `zstandard`
  package) or `.json`. Sample ids are question ids; the first epoch is taken.
- `jsonl`: one `{"id": ..., "response": ...}` object per line; `status` ("ok" or a failure
  such as "error"), `error`, `model` and `provider` are optional.

Everything is checked before anything is written: every id must be a question of the
dataset, at most once.
"""

from __future__ import annotations

import io
import json
import math
import struct
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from byo import __version__
from byo.core.dataset import atomic_write_text
from byo.core.errors import ARGUMENTS, ConfigError, InputError
from byo.core.inputs import decode, json_kind, read_bytes, read_json, reading
from byo.core.locks import writer_lock
from byo.core.paths import as_name, safe_name
from byo.eval.layout import (
    MAX_ANSWER_CHARS,
    PREDICTIONS,
    RUN_FILE,
    cap_answer,
    check_run_folder,
    recorded_path,
    run_path,
)
from byo.export.source import QUESTIONS, Question, load_questions

FORMATS = ("lmms-eval", "inspect", "jsonl")
MAX_PROBLEMS = 20


@dataclass
class Answer:
    """One answer read from another harness's file, before it is matched to a question."""

    where: str  # "line 3", "sample <id>": for messages
    id: str | None
    response: str | None
    status: str = "ok"
    error: str | None = None
    model: str | None = None
    finish_reason: str | None = None
    refusal: bool = False
    tokens: dict | None = None
    latency_s: float | None = None
    prompt: str | None = None  # the text the harness sent, when it logged it
    doc_index: int | None = None  # lmms-eval's doc_id, when the id is not logged


@dataclass
class Imported:
    answers: list[Answer]
    model: str | None = None
    provider: str = "import"
    info: dict = field(default_factory=dict)


# --- readers ------------------------------------------------------------------------------------
def _json_lines(path: Path) -> tuple[list[tuple[int, dict]], list[tuple[str, str]]]:
    data = read_bytes(path)
    if b"\x00" in data:
        raise InputError(path, "a binary file, expected JSON lines")
    rows, problems = [], []
    for number, line in enumerate(decode(data, path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            problems.append((f"line {number}", f"not valid JSON: {err}"))
            continue
        except RecursionError:
            problems.append((f"line {number}", "JSON nested too deeply"))
            continue
        if not isinstance(row, dict):
            problems.append((f"line {number}", "expected a JSON object"))
            continue
        rows.append((number, row))
    return rows, problems


def read_jsonl(path: Path) -> Imported:
    rows, problems = _json_lines(path)
    answers = []
    for number, row in rows:
        missing = [k for k in ("id", "response") if k not in row]
        if missing:
            problems += [(f"line {number}: {k}", "required key is missing") for k in missing]
            continue
        response = row["response"]
        if response is not None and not isinstance(response, str):
            problems.append((f"line {number}: response", f"expected text or null, got {type(response).__name__}"))
            continue
        if not isinstance(row["id"], str | int) or isinstance(row["id"], bool):
            problems.append((f"line {number}: id", f"expected a question id, got {json_kind(row['id'])}"))
            continue
        status = str(row.get("status") or "ok")
        answers.append(Answer(where=f"line {number}", id=str(row["id"]), response=response, status=status,
                              error=_text(row.get("error")), model=_text(row.get("model"))))
    if problems:
        raise ConfigError(str(path), problems[:MAX_PROBLEMS])
    models = {a.model for a in answers if a.model}
    provider = next((str(r["provider"]) for _, r in rows if r.get("provider")), "import")
    return Imported(answers, model=models.pop() if len(models) == 1 else None, provider=provider)


def _text(value) -> str | None:
    """A value another harness logged, as text (None stays None)."""
    return None if value is None else value if isinstance(value, str) else json.dumps(value)


def _count(value) -> int | None:
    """A token count another harness logged: a whole number, else unknown."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _first(value):
    """lmms-eval logs a value per request (and per repeat) in nested lists: the first one."""
    while isinstance(value, list):
        if not value:
            return None
        value = value[0]
    return value


def read_lmms(path: Path) -> Imported:
    rows, problems = _json_lines(path)
    answers = []
    for number, row in rows:
        qid = next((v["id"] for k, v in row.items() if k.startswith("byo_") and isinstance(v, dict) and "id" in v),
                   None)
        if qid is None and (not isinstance(row.get("doc_id"), int) or isinstance(row.get("doc_id"), bool)):
            problems.append((f"line {number}", "no question id: expected a byo_accuracy record with its `id` "
                             "(a task exported by byo) or an integer `doc_id`"))
            continue
        if "filtered_resps" not in row and "resps" not in row:
            problems.append((f"line {number}: filtered_resps", "required key is missing (the model's answer)"))
            continue
        # `resps` is the raw answer; lmms-eval leaves it out when the filters did not change it.
        response = _text(_first(row["resps"] if "resps" in row else row["filtered_resps"]))
        counts = _first(row.get("token_counts"))
        tokens = None
        if isinstance(counts, dict) and ("input_tokens" in counts or "output_tokens" in counts):
            given, made = _count(counts.get("input_tokens")), _count(counts.get("output_tokens"))
            tokens = {"input": given, "output": made, "total": (given or 0) + (made or 0)}
        answers.append(Answer(where=f"line {number}", id=_text(qid), response=response, prompt=_text(row.get("input")),
                              doc_index=row.get("doc_id") if qid is None else None, tokens=tokens))
    if problems:
        raise ConfigError(str(path), problems[:MAX_PROBLEMS])
    model, info = None, {}
    prefix = path.name.split("_samples_")[0]
    results = path.with_name(f"{prefix}_results.json")
    if "_samples_" in path.name and results.is_file():
        doc = read_json(results)
        with reading(results, "an lmms-eval results file"):
            config = doc.get("config") or {}
            model = _text(doc.get("model_name") or config.get("model"))
            if config.get("model_args"):
                model = f"{model} ({_text(config['model_args'])})"
            info = {"results": str(results), "lmms_eval_version": _text(doc.get("lmms_eval_version")),
                    "metrics": doc.get("results")}
    return Imported(answers, model=model, provider="lmms-eval", info=info)


MAX_MEMBER_BYTES = 256 * 1024 * 1024  # an .eval entry inflating past this is refused (a sample's images included)


def _bounded(stream, name: str) -> bytes:
    """At most MAX_MEMBER_BYTES of `stream`, whatever the archive says of its size (an entry that
    inflates without end is refused, not read until memory runs out)."""
    data = stream.read(MAX_MEMBER_BYTES + 1)
    if len(data) > MAX_MEMBER_BYTES:
        raise ValueError(f"{name} inflates past {MAX_MEMBER_BYTES // 2**20} MiB: not a log byo reads")
    return data


def _zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A member's bytes, at most MAX_MEMBER_BYTES; Inspect compresses .eval entries with zstd
    (method 93), which zipfile cannot read by itself."""
    if info.file_size > MAX_MEMBER_BYTES:
        raise ValueError(f"{info.filename} holds {info.file_size:,} bytes, over {MAX_MEMBER_BYTES // 2**20} MiB: "
                         "not a log byo reads")
    if info.compress_type != 93:
        with archive.open(info) as member:
            return _bounded(member, info.filename)
    import zstandard

    raw = archive.fp
    raw.seek(info.header_offset)
    header = raw.read(30)
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    raw.seek(info.header_offset + 30 + name_len + extra_len)
    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw.read(info.compress_size)))
    data = _bounded(reader, info.filename)
    if zlib.crc32(data) != info.CRC:
        raise ValueError(f"{info.filename}: CRC mismatch after zstd decompression")
    return data


def _inspect_log(path: Path) -> tuple[dict, Iterator[dict]]:
    """(header, samples) of an Inspect log in either format. The samples come one at a time, and
    only the fields byo keeps stay in memory: a log whose samples hold megabytes of images (their
    messages and events) is read in the memory of one sample."""
    if zipfile.is_zipfile(path):
        archive = zipfile.ZipFile(path)
        infos = {i.filename: i for i in archive.infolist()}
        if "header.json" in infos:
            header = json.loads(_zip_member(archive, infos["header.json"]))
        else:  # a log still being written: the journal's start record
            header = json.loads(_zip_member(archive, infos["_journal/start.json"]))

        def samples() -> Iterator[dict]:
            with archive:
                for name, info in infos.items():
                    if name.startswith("samples/") and name.endswith(".json"):
                        yield _kept(json.loads(_zip_member(archive, info)))

        return header, samples()
    return _json_log(path.read_text())


SAMPLE_FIELDS = ("id", "epoch", "output", "error", "total_time")  # what byo reads of a sample


def _kept(sample) -> dict:
    """The fields of a sample byo reads (its messages, events and attachments dropped at once)."""
    if not isinstance(sample, dict):
        raise TypeError(f"a sample is {type(sample).__name__}, expected an object")
    output = sample.get("output")
    if isinstance(output, dict):
        choices = output.get("choices")
        output = {k: output.get(k) for k in ("completion", "model", "usage") if k in output} | (
            {"choices": choices[:1]} if isinstance(choices, list) else {})
    return {k: sample[k] for k in SAMPLE_FIELDS if k in sample and k != "output"} | (
        {"output": output} if "output" in sample else {})


def _json_log(text: str) -> tuple[dict, Iterator[dict]]:
    """An Inspect .json log: the top-level object decoded key by key, its `samples` one at a time."""
    decoder = json.JSONDecoder()
    header: dict = {}
    samples: list[dict] = []
    i = _space(text, 0)
    if text[i:i + 1] != "{":
        raise ValueError("expected a JSON object")
    i = _space(text, i + 1)
    while text[i:i + 1] != "}":
        key, i = decoder.raw_decode(text, i)
        i = _space(text, i)
        if text[i:i + 1] != ":" or not isinstance(key, str):
            raise ValueError(f"expected ':' after a key at character {i}")
        i = _space(text, i + 1)
        if key == "samples" and text[i:i + 1] == "[":
            i = _space(text, i + 1)
            while text[i:i + 1] != "]":
                sample, i = decoder.raw_decode(text, i)
                samples.append(_kept(sample))
                i = _space(text, i)
                if text[i:i + 1] == ",":
                    i = _space(text, i + 1)
                elif text[i:i + 1] != "]":
                    raise ValueError(f"expected ',' or ']' at character {i}")
            i += 1
        else:
            header[key], i = decoder.raw_decode(text, i)
        i = _space(text, i)
        if text[i:i + 1] == ",":
            i = _space(text, i + 1)
        elif text[i:i + 1] != "}":
            raise ValueError(f"expected ',' or '}}' at character {i}")
    return header, iter(samples)


def _space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _message_text(message: dict) -> str | None:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(_text(part.get("text")) or "" for part in content if part.get("type") == "text")
    return content


def read_inspect(path: Path) -> Imported:
    try:
        header, samples = _inspect_log(path)
        if not isinstance(header, dict) or not isinstance(header.get("eval"), dict):
            raise ConfigError(str(path), [("eval", "required key is missing: expected an Inspect log")])
        with reading(path, "an Inspect log"):
            return _inspect_answers(header, samples)
    except ImportError as err:
        raise ConfigError(str(path), [("<file>", f"reading this Inspect log needs {err.name} (pip install "
                                       "'byo-render[export]')")]) from None
    except MemoryError:
        raise ConfigError(str(path), [("<file>", "too large to read in this machine's memory: not a log byo "
                                                 "reads")]) from None
    except (KeyError, ValueError, TypeError, AttributeError, OSError, EOFError, RecursionError, zlib.error,
            zipfile.BadZipFile, zipfile.LargeZipFile) as err:
        if isinstance(err, ConfigError):
            raise
        raise ConfigError(str(path), [("<file>", f"not an Inspect log (.eval or .json): {str(err)[:200]}")]) from None


def _inspect_answers(header: dict, samples: Iterator[dict]) -> Imported:
    by_epoch: dict = {}
    for s in samples:
        by_epoch.setdefault(s.get("epoch", 1), []).append(_inspect_answer(s))
    epochs = sorted(by_epoch)
    answers = sorted(by_epoch[epochs[0]], key=lambda a: a.id) if epochs else []
    info = {"task": header["eval"].get("task"), "log_status": header.get("status"), "epochs": len(epochs),
            "epoch": epochs[0] if epochs else None}
    scores = (header.get("results") or {}).get("scores") or []
    if scores:
        info["metrics"] = {s["name"]: {k: m.get("value") for k, m in s.get("metrics", {}).items()} for s in scores}
    return Imported(answers, model=_text(header["eval"].get("model")), provider="inspect", info=info)


def _inspect_answer(s: dict) -> Answer:
    output = s.get("output") or {}
    choices = output.get("choices") or []
    response = output.get("completion") or (_message_text(choices[0]["message"]) if choices else None)
    stop = choices[0].get("stop_reason") if choices else None
    usage = output.get("usage") or {}
    error = s.get("error")
    latency = s.get("total_time")
    return Answer(
        where=f"sample {_text(s.get('id'))!r}", id=str(s.get("id")), response=_text(response),
        status="error" if error else "ok",
        error=_text(error.get("message") if isinstance(error, dict) else error) if error else None,
        model=_text(output.get("model")), finish_reason=_text(stop), refusal=stop == "content_filter",
        tokens={"input": _count(usage.get("input_tokens")), "output": _count(usage.get("output_tokens")),
                "total": _count(usage.get("total_tokens"))} if usage else None,
        latency_s=latency if isinstance(latency, int | float) and not isinstance(latency, bool)
        and math.isfinite(latency) else None)


READERS = {"jsonl": read_jsonl, "lmms-eval": read_lmms, "inspect": read_inspect}


# --- matching and writing ---------------------------------------------------------------------
def _match(imported: Imported, questions: list[Question], file: str, questions_file: Path) -> list[tuple[Question, Answer]]:
    by_id = {q.id: q for q in questions}
    problems: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    pairs = []
    for a in imported.answers:
        if a.id is None:  # lmms-eval without byo's records: doc_id is the row of the exported dataset
            if not 0 <= a.doc_index < len(questions):
                problems.append((f"{a.where}: doc_id", f"{a.doc_index} is not a row of {questions_file} "
                                 f"(expected 0 to {len(questions) - 1})"))
                continue
            q = questions[a.doc_index]
            if a.prompt is not None and q.prompt not in a.prompt:
                problems.append((f"{a.where}: input", f"does not hold the prompt of row {a.doc_index} "
                                 f"({q.id!r}): expected a log of the task exported from this dataset"))
                continue
            a.id = q.id
        q = by_id.get(a.id)
        if q is None:
            problems.append((f"{a.where}: id", f"{a.id!r} is not a question id of {questions_file}; expected ids "
                             f"such as {questions[0].id!r}"))
        elif a.id in seen:
            problems.append((f"{a.where}: id", f"{a.id!r} was already answered ({seen[a.id]}); expected each "
                             "question at most once"))
        else:
            seen[a.id] = a.where
            pairs.append((q, a))
        if len(problems) >= MAX_PROBLEMS:
            problems.append(("...", "stopped after 20 problems"))
            break
    if problems:
        raise ConfigError(file, problems)
    if not pairs:
        raise ConfigError(file, [("<file>", "no answers: expected one per question of " + str(questions_file))])
    order = {q.id: i for i, q in enumerate(questions)}
    return sorted(pairs, key=lambda p: order[p[0].id])


def prediction_row(q: Question, a: Answer, provider: str, model: str,
                   max_chars: int | None = MAX_ANSWER_CHARS) -> dict:
    """The row `byo eval` writes for one question (same keys), from an imported answer."""
    response, cut = cap_answer(a.response, max_chars)
    return {"id": q.id, "provider": provider, "model": model, "reference": False, "prompt": q.prompt,
            "response": response, "response_cut": cut, "status": a.status, "error": a.error,
            "finish_reason": a.finish_reason,
            "refusal": a.refusal, "tokens": a.tokens, "cost_usd": None, "latency_s": a.latency_s, "attempts": 1,
            "parameters": {}, "image": {"path": q.image}}


def interrupted_import(run_dir: Path, request: dict) -> bool:
    """Whether the run is an import of the same kind that was stopped before it finished."""
    try:
        info = json.loads((run_dir / RUN_FILE).read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(info, dict) and info.get("request") == request and info.get("finished") is False


def run_name(fmt: str, model: str) -> str:
    return as_name(f"{fmt}-{model}")


@dataclass
class ImportReport:
    run_dir: Path
    rows: list[dict]
    statuses: Counter
    unanswered: int


def import_predictions(file: str | Path, fmt: str, dataset: str | Path, *, run: str | None = None,
                       model: str | None = None, force: bool = False, max_answer_chars: int | None = MAX_ANSWER_CHARS,
                       wait: bool = False, on_wait: Callable[[str], None] | None = None) -> ImportReport:
    file, dataset = Path(file), Path(dataset)
    if fmt not in FORMATS:
        raise ConfigError(ARGUMENTS, [("format", f"unknown format {fmt!r}; expected one of "
                                     + ", ".join(FORMATS))])
    if run is not None:
        safe_name(run, "run", "run name")
    if not file.is_file():
        raise ConfigError(str(file), [("<file>", f"file not found: expected a {fmt} predictions file")])
    if not dataset.is_dir():
        raise ConfigError(str(dataset), [("`dataset`", "not a directory: expected the dataset the answers are for")])
    questions_path = dataset / QUESTIONS
    if not questions_path.is_file():
        raise ConfigError(str(questions_path), [("<file>", "file not found: expected the dataset's question file "
                                                 "(byo questions)")])
    questions = load_questions(questions_path, dataset)
    imported = READERS[fmt](file)
    pairs = _match(imported, questions, str(file), questions_path)
    model = model or imported.model or "unknown"
    run_dir = run_path(dataset, run if run is not None else run_name(fmt, model))
    rows = [prediction_row(q, a, imported.provider, model, max_answer_chars) for q, a in pairs]
    statuses = Counter(r["status"] for r in rows)
    tokens: dict = {}
    for r in rows:
        for k, v in (r["tokens"] or {}).items():
            if v is not None:
                tokens[k] = tokens.get(k, 0) + v
    info = {"request": {"provider": imported.provider, "type": "import", "model": model},
            "byo_version": __version__, "reference": False, "questions": recorded_path(questions_path, dataset),
            "n_questions": len(questions), "imported": {"format": fmt, "file": str(file.resolve()), **imported.info},
            "max_answer_chars": max_answer_chars, "finished": True, "statuses": dict(sorted(statuses.items())),
            "tokens": tokens}
    check_run_folder(run_dir, dataset)
    with writer_lock(run_dir, what="run", wait=wait, on_wait=on_wait, wait_flag="`wait`"):
        if (run_dir / PREDICTIONS).exists() and not force and not interrupted_import(run_dir, info["request"]):
            raise ConfigError(str(run_dir), [("`run`", f"already holds {PREDICTIONS}; choose another `run` or "
                                              "pass `force` to replace it")])
        # run.json first, unfinished: an import killed before the end is then replaced by the next
        atomic_write_text(run_dir / RUN_FILE, json.dumps({**info, "finished": False}, indent=1,
                                                         ensure_ascii=False) + "\n")
        atomic_write_text(run_dir / PREDICTIONS, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        atomic_write_text(run_dir / RUN_FILE, json.dumps(info, indent=1, ensure_ascii=False) + "\n")
    return ImportReport(run_dir=run_dir, rows=rows, statuses=statuses, unanswered=len(questions) - len(rows))
