"""`byo eval --provider hf`: a tiny randomly initialised transformers VLM (tests/support/hf_tiny.py, built
from configs, nothing downloaded) answers every question end to end, resumes after a kill without
generating a cached answer again, is scored, batches the requests in flight, and says how to
install torch and transformers when they are missing."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from eval_data import make_dataset

from byo.cli import main


@pytest.fixture(scope="module", autouse=True)
def libraries():
    """torch and transformers, imported when these tests run (not at collection)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")

ROOT = Path(__file__).resolve().parents[2]
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "OMP_NUM_THREADS": "1",
           "TOKENIZERS_PARALLELISM": "false"}


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    from hf_tiny import save_tiny_llava

    return save_tiny_llava(tmp_path_factory.mktemp("tiny-llava"))


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    for k, v in OFFLINE.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))


def eval_command(dataset: Path, model: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "byo.cli", "eval", str(dataset), "--provider", "hf", "--model", str(model),
            "--run", "tiny", "--max-tokens", "24", "--device", "cpu", *extra]


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.slow
def test_tiny_model_answers_resumes_after_a_kill_and_is_scored(tiny_model, tmp_path, capsys):
    ds = make_dataset(tmp_path / "ds", 48)
    predictions = ds / "runs/tiny/predictions.jsonl"
    env = {**os.environ, **OFFLINE, "HF_HOME": str(tmp_path / "hf-home")}
    # one question per batch, so that the answers do not depend on what a batch pads them with
    proc = subprocess.Popen(eval_command(ds, tiny_model, "--batch-size", "1"), cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300  # a bound against a hang, not a measurement
    while len(rows(predictions)) < 10 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    _, err = proc.communicate()
    assert proc.returncode == -signal.SIGKILL, err.decode()[-2000:]
    journalled = {r["id"]: r for r in rows(predictions)}
    assert 10 <= len(journalled) < 48, "the kill should land mid-run"

    capsys.readouterr()
    assert main(eval_command(ds, tiny_model, "--batch-size", "1")[3:]) == 0  # resumed (in this process)
    cached = int(re.search(r"(\d+) from the cache", capsys.readouterr().err)[1])
    assert len(journalled) - 1 <= cached <= len(journalled)  # the last may be journalled before its commit
    final = rows(predictions)
    assert [r["id"] for r in final] == [json.loads(x)["id"] for x in (ds / "questions.jsonl").read_text().splitlines()]
    assert all(r["status"] == "ok" and r["response"] for r in final)
    assert all(final_row["response"] == journalled[final_row["id"]]["response"]
               for final_row in final if final_row["id"] in journalled)

    uninterrupted = make_dataset(tmp_path / "reference", 48)
    assert main(eval_command(uninterrupted, tiny_model, "--batch-size", "1")[3:]) == 0
    assert [r["response"] for r in rows(uninterrupted / "runs/tiny/predictions.jsonl")] == [r["response"] for r in final]

    run = ds / "runs/tiny"
    info = json.loads((run / "run.json").read_text())
    assert info["request"]["type"] == "hf" and info["request"]["endpoint"] == "hf:auto" and info["finished"]
    assert main(["score", str(run), "--bootstrap", "0"]) == 0
    scores = json.loads((run / "scores.json").read_text())
    assert scores["run"]["unanswered"] == 0
    overall = next(r for r in scores["tables"]["metrics"] if r["key"] == "*" and r["variant"] == "all"
                   and not r["variable"])
    assert overall["n"] == 48


def test_requests_in_flight_are_generated_in_batches(tiny_model):
    from byo.providers import GenerationParams, Request, create_provider
    from byo.providers.base import ImagePayload

    provider = create_provider("hf", str(tiny_model), GenerationParams(max_tokens=4), connections=8,
                               local={"device": "cpu", "dtype": "float32", "batch_size": 4})
    sizes = []
    generate = provider._generate
    provider._generate = lambda requests: sizes.append(len(requests)) or generate(requests)
    data = _png()

    async def ask_all():
        return await asyncio.gather(*(provider.answer(Request(f"how many cube {i} ?", ImagePayload(data, "image/png")))
                                      for i in range(6)))

    answers = asyncio.run(ask_all())
    assert sizes == [4, 2] and len(answers) == 6
    assert all(a.input_tokens > 16 and 1 <= a.output_tokens <= 4 for a in answers)  # 16 image tokens + the prompt
    assert provider.identity == "hf:float32"


def _png() -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), (10, 120, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_missing_libraries_and_bad_models_exit_2(tiny_model, tmp_path, monkeypatch, capsys):
    ds = make_dataset(tmp_path / "ds", 2)
    assert main(["eval", str(ds), "--provider", "hf", "--model", str(tmp_path / "no-such-model")]) == 2
    assert "could not load" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "transformers", None)
    assert main(["eval", str(ds), "--provider", "hf", "--model", str(tiny_model)]) == 2
    assert "pip install 'byo-render[hf]'" in capsys.readouterr().err
    assert not (ds / "runs/tiny").exists()
