"""Hypothesis fuzzing of every file a command reads (tests/test_bad_inputs.py fuzzes configs):
legends, questions.jsonl, predictions, run.json, and the logs of other harnesses (lmms-eval
samples, Inspect .json and .eval, plain jsonl). Each file is damaged at random: values replaced
by any JSON value (NaN, huge numbers, deep lists, text), keys deleted or added, the file cut
short, or replaced by random bytes. Every command that reads it exits 0, 1 or 2, never with a
traceback (an exception escaping `main`)."""

from __future__ import annotations

import io
import json
import shutil
import tempfile
import zipfile
from pathlib import Path

import pytest
from conftest import clevr_config, write_config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from byo.cli import main

pytestmark = pytest.mark.render
RUN = "runs/oracle"
FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run_cli(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as stop:
        return stop.code


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    config = write_config(root, clevr_config("fz", seed=11, n_images=2, resolution=[128, 96]), "fz.yaml")
    assert run_cli(["render", str(config), "-o", str(root / "ds"), "--in-process"]) == 0
    assert run_cli(["questions", str(root / "ds")]) == 0
    assert run_cli(["eval", str(root / "ds"), "--provider", "oracle", "--run", "oracle"]) == 0
    return root


# --- damage ---------------------------------------------------------------------------------------
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
              st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
              st.sampled_from(["", "../../etc/passwd", "/etc/passwd", "x" * 5000, "\x00", "images/../../x.png"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8)
mutation = st.tuples(st.integers(min_value=0), st.sampled_from(["replace", "delete", "insert"]), json_values)


def paths(node, here=()) -> list[tuple]:
    out = [here]
    if isinstance(node, dict):
        for k, v in node.items():
            out += paths(v, (*here, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += paths(v, (*here, i))
    return out


def mutate(doc, changes):
    doc = json.loads(json.dumps(doc))
    for pick, how, value in changes:
        found = paths(doc)
        path = found[pick % len(found)]
        if not path:
            doc = value
            continue
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        last = path[-1]
        if how == "delete":
            del parent[last]
        elif how == "insert" and isinstance(parent, dict):
            parent[f"{last}_new"] = value
        elif how == "insert" and isinstance(parent, list):
            parent.insert(last, value)
        else:
            parent[last] = value
    return doc


def damaged(doc) -> st.SearchStrategy[bytes]:
    """A JSON document, damaged: mutated, cut short, or replaced by other bytes."""
    text = json.dumps(doc).encode()
    return st.one_of(
        st.lists(mutation, min_size=1, max_size=3).map(lambda changes: json.dumps(mutate(doc, changes)).encode()),
        st.integers(min_value=0, max_value=max(0, len(text) - 1)).map(lambda n: text[:n]),
        st.binary(max_size=300),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.just(b"[" * 100_000))


def damaged_lines(rows: list) -> st.SearchStrategy[bytes]:
    """JSON lines with one line damaged (or the whole file replaced)."""
    lines = [json.dumps(r).encode() for r in rows]
    one = st.tuples(st.integers(min_value=0, max_value=len(lines) - 1), damaged(rows[0])).map(
        lambda pick: b"\n".join([*lines[: pick[0]], pick[1], *lines[pick[0] + 1:]]) + b"\n")
    mutated = st.tuples(st.integers(min_value=0, max_value=len(rows) - 1), st.lists(mutation, min_size=1, max_size=2)
                        ).map(lambda pick: b"\n".join(json.dumps(mutate(r, pick[1])).encode() if i == pick[0] else line
                                                      for i, (r, line) in enumerate(zip(rows, lines, strict=True))))
    return st.one_of(one, mutated, st.binary(max_size=300))


class Copy:
    """A fresh copy of the world for one example."""

    def __enter__(self) -> Path:
        self.tmp = tempfile.TemporaryDirectory()
        root = Path(self.tmp.name) / "w"
        shutil.copytree(WORLD[0], root)
        return root

    def __exit__(self, *exc) -> None:
        self.tmp.cleanup()


WORLD: list[Path] = []


@pytest.fixture(autouse=True)
def _world(world):
    WORLD[:] = [world]


def exits_cleanly(*argv: str) -> None:
    code = run_cli(list(argv))
    assert code in (0, 1, 2), (argv, code)


def original(name: str):
    return json.loads((WORLD[0] / name).read_text())


def original_lines(name: str) -> list:
    return [json.loads(line) for line in (WORLD[0] / name).read_text().splitlines()]


# --- the files ----------------------------------------------------------------------------------
def legend_name() -> str:
    return sorted(p.name for p in (WORLD[0] / "ds" / "legends").glob("*.json"))[0]


@FUZZ
@given(data=st.data())
def test_fuzzed_legends(data):
    name = legend_name()
    content = data.draw(damaged(original(f"ds/legends/{name}")))
    with Copy() as root:
        (root / "ds" / "legends" / name).write_bytes(content)
        ds = str(root / "ds")
        for argv in (["questions", ds, "-o", str(root / "q.jsonl")], ["audit", ds], ["sheet", "contact", ds],
                     ["status", ds], ["sheet", "crest", ds]):
            exits_cleanly(*argv)


@FUZZ
@given(data=st.data())
def test_fuzzed_questions(data):
    content = data.draw(damaged_lines(original_lines("ds/questions.jsonl")))
    with Copy() as root:
        (root / "ds" / "questions.jsonl").write_bytes(content)
        ds = str(root / "ds")
        (root / "a.jsonl").write_text(json.dumps({"id": "x", "response": "3"}) + "\n")
        for argv in (["eval", ds, "--provider", "oracle", "--run", "again"], ["audit", ds],
                     ["score", f"{ds}/{RUN}", "--bootstrap", "0"],
                     ["export", ds, "--format", "vlmevalkit", "-o", str(root / "out")],
                     ["import-predictions", str(root / "a.jsonl"), "--format", "jsonl", "--dataset", ds]):
            exits_cleanly(*argv)


@FUZZ
@given(data=st.data())
def test_fuzzed_predictions(data):
    content = data.draw(damaged_lines(original_lines(f"ds/{RUN}/predictions.jsonl")))
    with Copy() as root:
        run = root / "ds" / RUN
        (run / "predictions.jsonl").write_bytes(content)
        exits_cleanly("score", str(run), "--bootstrap", "0")
        (run / "scores.json").unlink(missing_ok=True)
        exits_cleanly("report", str(run), "-o", str(root / "r.html"), "--bootstrap", "0")
        exits_cleanly("eval", str(root / "ds"), "--provider", "oracle", "--run", "oracle")


@FUZZ
@given(data=st.data())
def test_fuzzed_run_files(data):
    content = data.draw(damaged(original(f"ds/{RUN}/run.json")))
    with Copy() as root:
        run = root / "ds" / RUN
        (run / "run.json").write_bytes(content)
        exits_cleanly("score", str(run), "--bootstrap", "0")
        exits_cleanly("eval", str(root / "ds"), "--provider", "oracle", "--run", "oracle")


def harness_rows() -> list[dict]:
    ids = [q["id"] for q in original_lines("ds/questions.jsonl")]
    return [{"doc_id": i, "resps": [["3"]], "filtered_resps": ["3"], "input": "x", "byo_accuracy": {"id": qid},
             "token_counts": [{"input_tokens": 5, "output_tokens": 1}]} for i, qid in enumerate(ids)]


@FUZZ
@given(data=st.data())
def test_fuzzed_lmms_eval_and_jsonl_logs(data):
    rows = harness_rows()
    fmt = data.draw(st.sampled_from(["lmms-eval", "jsonl"]))
    if fmt == "jsonl":
        rows = [{"id": r["byo_accuracy"]["id"], "response": "3", "status": "ok", "model": "m"} for r in rows]
    content = data.draw(damaged_lines(rows))
    results = data.draw(st.one_of(st.none(), damaged({"model_name": "m", "config": {"model_args": "x"},
                                                       "results": {}})))
    with Copy() as root:
        log = root / "2025_samples_task.jsonl"
        log.write_bytes(content)
        if results is not None:
            (root / "2025_results.json").write_bytes(results)
        exits_cleanly("import-predictions", str(log), "--format", fmt, "--dataset", str(root / "ds"))


@FUZZ
@given(data=st.data())
def test_fuzzed_inspect_logs(data):
    ids = [q["id"] for q in original_lines("ds/questions.jsonl")]
    header = {"eval": {"task": "t", "model": "m"}, "status": "success",
              "results": {"scores": [{"name": "s", "metrics": {"accuracy": {"value": 1}}}]}}
    sample = {"id": ids[0], "epoch": 1, "output": {"model": "m", "completion": "3", "usage": {"input_tokens": 3},
                                                    "choices": [{"message": {"content": [{"type": "text",
                                                                                          "text": "3"}]}}]}}
    header_bytes = data.draw(st.one_of(st.just(json.dumps(header).encode()), damaged(header)))
    sample_bytes = data.draw(damaged(sample))
    as_zip = data.draw(st.booleans())
    with Copy() as root:
        if as_zip:
            log = root / "log.eval"
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w") as archive:
                archive.writestr("header.json", header_bytes)
                archive.writestr("samples/1_epoch_1.json", sample_bytes)
            log.write_bytes(buffer.getvalue())
        else:
            log = root / "log.json"
            try:
                doc = {**json.loads(header_bytes), "samples": [json.loads(sample_bytes)]}
                log.write_text(json.dumps(doc))
            except (ValueError, TypeError, RecursionError):
                log.write_bytes(header_bytes + sample_bytes)
        exits_cleanly("import-predictions", str(log), "--format", "inspect", "--dataset", str(root / "ds"))
