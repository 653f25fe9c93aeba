"""Round trips through the real harnesses, each in the virtualenv `make harness` builds under
.venv-harness/ (they need numpy 2, which bpy 5.0.1 does not allow):

- lmms-eval's task loader builds the exported task, and its `process_results` scores right and
  wrong answers; its CLI runs the task with its `dummy` model, and the samples log, imported with
  `byo import-predictions`, scores in `byo score` as lmms-eval scored it.
- Inspect evaluates the exported task with its mock model to the end; the log, imported, scores
  in `byo score` as Inspect's own scorer did, sample by sample.

Offline: the datasets are local and the harnesses are told so (HF_*_OFFLINE)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from score_fixtures import make_dataset

from byo.cli import main
from byo.providers.reference import answer_text

pytestmark = pytest.mark.harness

HARNESS = ROOT / ".venv-harness"
SCRIPTS = ROOT / "tests" / "harness"
TASK = "byo_fake"


def harness_python(name: str) -> Path:
    python = HARNESS / name / "bin" / "python"
    if not (HARNESS / name / ".installed").is_file():
        message = f"the {name} harness virtualenv is missing: `make harness` builds {HARNESS / name}"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI builds it, so there the test must run
        pytest.skip(message)
    return python


def run_in(name: str, args: list[str], tmp_path: Path, timeout: int = 300, cwd: Path | None = None
           ) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf-home"), "INSPECT_LOG_DIR": str(tmp_path / "inspect-logs"),
           "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run([str(harness_python(name)), *args], capture_output=True, text=True, env=env,
                            timeout=timeout, cwd=cwd or tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return result


@pytest.fixture
def exported(tmp_path):
    data = tmp_path / "data"
    questions = make_dataset(data)
    for fmt in ("lmms-eval", "inspect"):
        assert main(["export", str(data), "--format", fmt, "-o", str(tmp_path / fmt), "--task", TASK]) == 0
    return data, questions


def scored(run: Path) -> tuple[dict, dict]:
    assert main(["score", str(run), "--bootstrap", "0"]) == 0
    parsed = {p["id"]: p for p in map(json.loads, (run / "parsed.jsonl").read_text().splitlines())}
    return parsed, json.loads((run / "scores.json").read_text())


def test_lmms_eval_task_loader_and_process_results(exported, tmp_path):
    data, questions = exported
    harness_python("lmms")
    pick = {}
    for i, q in enumerate(questions):
        pick.setdefault(q["answer_type"], (i, q))
    checks = []  # (doc index, response, right?)
    i, q = pick["integer"]
    checks += [(i, f"There are {q['answer']} pieces.", True), (i, str(q["answer"] + 1), False)]
    i, q = pick["multiple_choice"]
    wrong = next(c for c in "ABCD" if c != q["answer"])
    checks += [(i, f"The answer is ({q['answer']}).", True), (i, wrong, False)]
    i, q = pick["label"]
    checks += [(i, f"It is a {q['answer']}.", True), (i, "I cannot tell.", False)]
    i, q = pick["label_set"]
    checks += [(i, ", ".join(q["answer"]), True)]
    answers = json.dumps([[i, response] for i, response, _ in checks])
    out = run_in("lmms", [str(SCRIPTS / "lmms_task.py"), str(tmp_path / "lmms-eval"), TASK, answers], tmp_path)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["all_tasks"] == [TASK]
    assert result["ids"] == [q["id"] for q in questions]  # the exported dataset, in question order
    assert result["text"] == questions[0]["prompt"] and result["target"] == answer_text(questions[0]["answer"])
    assert result["visual"] == [[240, 180]]
    assert result["metrics"] == ["byo_accuracy", "byo_nmae", "byo_parse_rate"]
    for (i, response, right), record in zip(checks, result["records"], strict=True):
        assert record["id"] == questions[i]["id"]
        assert record["correct"] is right, (questions[i]["answer_type"], response, record)
    assert result["records"][1]["status"] == "ok" and result["records"][1]["nmae"] > 0
    assert result["records"][5]["status"] == "refusal"


def test_lmms_eval_cli_log_imports_and_scores_as_lmms_eval_did(exported, tmp_path):
    data, questions = exported
    logs = tmp_path / "lmms-logs"
    run = run_in("lmms", ["-m", "lmms_eval", "--model", "dummy", "--model_args", "response=2", "--tasks", TASK,
                          "--include_path", str(tmp_path / "lmms-eval"), "--output_path", str(logs), "--log_samples",
                          "--verbosity", "WARNING"], tmp_path)
    samples = next(logs.rglob(f"*_samples_{TASK}.jsonl"), None)
    assert samples is not None, "lmms-eval wrote no sample log (it exits 0 on errors):\n" + run.stderr[-3000:]
    results = json.loads(next(logs.rglob("*_results.json")).read_text())["results"][TASK]
    logged = {r["byo_accuracy"]["id"]: r["byo_accuracy"] for r in map(json.loads, samples.read_text().splitlines())}
    assert main(["import-predictions", str(samples), "--format", "lmms-eval", "--dataset", str(data)]) == 0
    runs = [p for p in (data / "runs").iterdir() if p.is_dir()]
    assert len(runs) == 1 and runs[0].name.startswith("lmms-eval-dummy")
    parsed, scores = scored(runs[0])
    assert set(parsed) == {q["id"] for q in questions} and all(p["response"] == "2" for p in parsed.values())
    for qid, record in logged.items():
        assert parsed[qid]["correct"] == record["correct"] and parsed[qid]["status"] == record["status"], qid
    right = sum(p["correct"] for p in parsed.values())
    assert 0 < right < len(parsed)  # "2" is right for some questions only
    assert scores["overall"]["accuracy"] == pytest.approx(results["byo_accuracy,none"])
    assert scores["overall"]["parse_rate"] == pytest.approx(results["byo_parse_rate,none"])


def test_inspect_mock_model_log_imports_and_scores_as_inspect_did(exported, tmp_path):
    data, questions = exported
    # from the task's folder, as the README says (Inspect 0.3.285 cannot glob an absolute task path)
    out = run_in("inspect", [str(SCRIPTS / "inspect_mock.py"), "task.py", str(tmp_path / "inspect-logs")],
                 tmp_path, cwd=tmp_path / "inspect")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["status"] == "success" and len(result["samples"]) == len(questions)
    log = Path(result["location"])
    assert log.suffix == ".eval"
    assert main(["import-predictions", str(log), "--format", "inspect", "--dataset", str(data),
                 "--run", "inspect-mock"]) == 0
    parsed, scores = scored(data / "runs" / "inspect-mock")
    assert set(parsed) == set(result["samples"])
    for qid, sample in result["samples"].items():
        assert parsed[qid]["response"] == sample["answer"]
        assert parsed[qid]["correct"] == (sample["value"] == "C"), qid
    values = [s["value"] for s in result["samples"].values()]
    assert "C" in values and "I" in values
    assert scores["overall"]["accuracy"] == pytest.approx(result["metrics"]["accuracy"])
    assert scores["overall"]["parse_rate"] == pytest.approx(result["metrics"]["parse_rate"])
    assert scores["run"]["model"] == "mockllm/model"


@pytest.mark.skipif(sys.platform != "linux", reason="the harness virtualenvs are built on Linux")
def test_harness_virtualenvs_hold_no_bpy_and_numpy_2():
    for name in ("lmms", "inspect"):
        python = harness_python(name)
        out = subprocess.run([str(python), "-c", "import importlib.util, numpy; "
                              "print(numpy.__version__, importlib.util.find_spec('bpy') is None)"],
                             capture_output=True, text=True, timeout=120)
        version, no_bpy = out.stdout.split()
        assert int(version.split(".")[0]) >= 2 and no_bpy == "True", name
