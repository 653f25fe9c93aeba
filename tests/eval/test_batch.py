"""`byo eval --batch` through the real openai client against a loopback Batch API
(tests/support/fake_batch.py): a kill between submitting and collecting, or in the middle of an upload or
a batch's creation, submits nothing twice; batches that fail, expire or are cancelled leave their
requests as failures, sent again by the next run; what the cache has is not sent; the batch
price is what a run spends; `byo status RUN` collects."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from eval_data import answerer, evaluate_fake, make_dataset
from fake_batch import FakeBatchAPI

from byo.cli import main

KEY = "sk-test-batch-0123456789"
RUN = Path("runs") / "openai-fake-vlm"
PATIENCE = 300  # seconds a step may take on a loaded machine before the test gives up


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def providers_file(tmp_path: Path, per_batch: int, **prices) -> Path:
    path = tmp_path / "providers.yaml"
    path.write_text(yaml.safe_dump({"providers": {"openai": {"batch_max_requests": per_batch,
                                                             "models": {"fake-vlm": prices}}}}))
    return path


def rows(dataset: Path) -> list[dict]:
    return [json.loads(line) for line in (dataset / RUN / "predictions.jsonl").read_text().splitlines()]


def comparable(rows: list[dict]) -> list[dict]:
    """A row as a live run writes it: a batch's answer has no latency, and names its batch."""
    return [{k: v for k, v in r.items() if k not in ("latency_s", "batch")} for r in rows]


def wait_for(condition, what: str, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"byo exited ({proc.returncode}) before {what}: {proc.stderr.read()[-3000:]}")
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def ledger(dataset: Path) -> dict:
    try:
        return json.loads((dataset / RUN / "batches.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {"parts": []}


def byo_batch(dataset: Path, url: str, providers: Path, *flags: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "byo.cli", "eval", str(dataset), "--provider", "openai",
                             "--model", "fake-vlm", "--base-url", url + "/v1", "--providers", str(providers),
                             "--batch", "--batch-poll", "0.05", "--timeout", "30", *flags],
                            cwd=ROOT, env={**os.environ, "OPENAI_API_KEY": KEY},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_a_kill_between_submit_and_collect_submits_nothing_twice(tmp_path, key):
    """500 questions in batches of 200; byo is killed (SIGKILL) once its 3 batches are submitted
    and it is polling them; the rerun polls and collects the same batches: every request was
    submitted once and run once (the server counts), all 500 are answered, and the predictions
    are a live run's against the same server."""
    ds = make_dataset(tmp_path / "ds", 500)
    reference = shutil.copytree(ds, tmp_path / "reference")
    hold = threading.Event()  # batches stay in progress until it is set
    providers = providers_file(tmp_path, 200)
    with FakeBatchAPI(answerer(ds), hold=hold) as fake:
        proc = byo_batch(ds, fake.url, providers)
        wait_for(lambda: [p["state"] for p in ledger(ds)["parts"]] == ["submitted"] * 3
                 and all(b["status"] == "in_progress" for b in fake.batches), "3 batches submitted and polled", proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait(PATIENCE)
        assert proc.returncode == -signal.SIGKILL
        assert len(fake.batches) == 3 and not fake.log, "nothing ran before the kill"
        assert [b["request_counts"]["total"] for b in fake.batches] == [200, 200, 100]

        hold.set()
        report = evaluate_fake(ds, "openai", fake.url + "/v1", batch=True, batch_poll=0.01,
                               providers_file=providers)
        assert len(fake.batches) == 3, "a batch was created again"
        assert len(fake.submitted) == 500 and set(fake.submitted.values()) == {1}
        ran = Counter(s.item for s in fake.log)
        assert len(ran) == 500 and set(ran.values()) == {1}
        assert report.statuses == {"ok": 500} and report.requests_sent == 0 and report.stopped is None

        live = evaluate_fake(reference, "openai", fake.url + "/v1", concurrency=16)
        assert live.statuses == {"ok": 500} and len(fake.log) == 1000  # the live run asked all 500 itself
    assert comparable(rows(ds)) == comparable(rows(reference))
    assert {r["batch"] for r in rows(ds)} == {b["id"] for b in fake.batches}
    run = json.loads((ds / RUN / "run.json").read_text())
    assert run["finished"] is True and run["batch"] is True and run["answered"] == 500
    assert [b["state"] for b in run["batches"]] == ["collected"] * 3


@pytest.mark.parametrize("call", ["upload", "create"])
def test_a_kill_during_an_upload_or_a_creation_is_found_again(tmp_path, key, call):
    """The server makes the first file (or batch) and then holds its reply until byo is killed:
    byo never learned its id. The rerun finds it by the part's token (the file's name, the
    batch's metadata), so no file is uploaded and no batch created twice."""
    ds = make_dataset(tmp_path / "ds", 30)
    stall = threading.Event()
    providers = providers_file(tmp_path, 10)
    with FakeBatchAPI(answerer(ds), stall={call: stall}) as fake:
        proc = byo_batch(ds, fake.url, providers)
        made = (lambda: fake.files) if call == "upload" else (lambda: fake.batches)
        wait_for(lambda: len(made()) == 1, f"the first {call} to reach the server", proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait(PATIENCE)
        stall.set()
        state = ledger(ds)["parts"][0]
        assert state["state"] == ("uploading" if call == "upload" else "creating")
        assert state["file_id" if call == "upload" else "batch_id"] is None  # the kill came before the reply
        fake.stall = {}
        report = evaluate_fake(ds, "openai", fake.url + "/v1", batch=True, batch_poll=0.01, providers_file=providers)
    assert report.statuses == {"ok": 30}
    uploads = [f for f in fake.files.values() if f["purpose"] == "batch"]
    assert len(uploads) == 3 and len(fake.batches) == 3
    assert len(fake.submitted) == 30 and set(fake.submitted.values()) == {1}
    assert {b["input_file_id"] for b in fake.batches} == {f["id"] for f in uploads}


def test_failed_expired_and_cancelled_batches_leave_failures_that_the_next_run_sends_again(tmp_path, key):
    """Four batches of 5: the first completes, its first request a 500 in the error file; the
    second expires with 2 answered (partial output) and 3 `batch_expired`; the third fails
    validation; the fourth is cancelled with 2 answered. The failures are rows with their status,
    never cached; the next run submits exactly them again, and then every question is answered."""
    ds = make_dataset(tmp_path / "ds", 20)
    endings = {0: "completed", 1: "expired", 2: "failed", 3: "cancelled"}
    first = {}

    def plan(seen, before):  # the first request the server runs fails, once
        first.setdefault("item", seen.item)
        return "500" if seen.item == first["item"] and before == 0 else None

    providers = providers_file(tmp_path, 5)
    with FakeBatchAPI(answerer(ds), ending=lambda i: endings.get(i, "completed"), partial=2, plan=plan) as fake:
        report = evaluate_fake(ds, "openai", fake.url + "/v1", batch=True, batch_poll=0.01, providers_file=providers)
        assert [b["status"] for b in fake.batches] == ["completed", "expired", "failed", "cancelled"]
        assert fake.batches[1]["output_file_id"] and fake.batches[1]["error_file_id"]  # partial output
        assert Counter(r["status"] for r in report.rows) == {"ok": 4 + 2 + 2, "server_error": 1, "timeout": 3 + 3,
                                                            "rejected": 5}
        assert {r["error"] for r in report.rows if r["error"]} == {
            "HTTP 500: The server had an error",
            "the batch expired (its 24 h window) before this request ran",
            "the batch was cancelled before this request ran",
            "the batch failed (token_limit_exceeded: Enqueued token limit reached for the model)"}
        assert report.stopped is None
        failed_keys = {k for p in ledger(ds)["parts"] for k in p["failures"]}
        assert len(failed_keys) == 12

        endings.clear()
        again = evaluate_fake(ds, "openai", fake.url + "/v1", batch=True, batch_poll=0.01, providers_file=providers)
    assert again.statuses == {"ok": 20} and again.requests_sent == 12 and again.cached == 8
    assert {k for k, n in fake.submitted.items() if n == 2} == failed_keys
    assert set(fake.submitted.values()) == {1, 2}


def test_a_500_in_a_batch_is_a_server_error_row(tmp_path, key):
    ds = make_dataset(tmp_path / "ds", 6)
    first = {}

    def plan(seen, before):
        first.setdefault("item", seen.item)
        return "500" if seen.item == first["item"] and before == 0 else None

    with FakeBatchAPI(answerer(ds), plan=plan) as fake:
        report = evaluate_fake(ds, "openai", fake.url + "/v1", batch=True, batch_poll=0.01)
        assert Counter(r["status"] for r in report.rows) == {"ok": 5, "server_error": 1}
        assert [r["error"] for r in report.rows if r["error"]] == ["HTTP 500: The server had an error"]
        again = evaluate_fake(ds, "openai", fake.url + "/v1", batch=True, batch_poll=0.01)
    assert again.statuses == {"ok": 6} and again.requests_sent == 1 and len(fake.batches) == 2


def test_what_the_cache_has_is_not_sent_and_the_batch_price_is_spent(tmp_path, key):
    """10 of 20 questions answered live first; the batch run sends the other 10 only. The batch
    answers are priced at half the live price (the providers file gives none for batches), and
    --max-cost counts them at that price: a cap reached at planning submits no more, a higher cap
    submits the rest."""
    ds = make_dataset(tmp_path / "ds", 20)
    prices = {"input_per_million": 1000.0, "output_per_million": 4000.0}
    providers = providers_file(tmp_path, 100, **prices)
    with FakeBatchAPI(answerer(ds)) as fake:
        live = evaluate_fake(ds, "openai", fake.url + "/v1", providers_file=providers, limit=10)
        assert live.statuses == {"ok": 10}
        capped = evaluate_fake(ds, "openai", fake.url + "/v1", providers_file=providers, batch=True, batch_poll=0.01,
                               max_cost=live.spent_usd + 0.3)
        assert capped.stopped is not None and capped.stopped.reason == "budget"
        first_batch = set(fake.submitted)
        assert 0 < len(first_batch) < 10 and capped.cached == 10
        report = evaluate_fake(ds, "openai", fake.url + "/v1", providers_file=providers, batch=True, batch_poll=0.01,
                               max_cost=100.0)
        ran = Counter(s.item for s in fake.log)
    assert len(ran) == 20 and set(ran.values()) == {1}  # 10 live, 10 in batches
    assert report.statuses == {"ok": 20} and report.cached == 10 + len(first_batch)
    assert len(fake.submitted) == 10 and set(fake.submitted.values()) == {1}
    batch_rows = [r for r in report.rows if "batch" in r]
    assert len(batch_rows) == 10
    for r in report.rows:
        price = 0.5 if "batch" in r else 1.0
        assert r["cost_usd"] == pytest.approx(price * (r["tokens"]["input"] * 1000 + r["tokens"]["output"] * 4000) / 1e6)
    run = json.loads((ds / RUN / "run.json").read_text())
    assert run["spent_usd"] == pytest.approx(sum(r["cost_usd"] for r in report.rows))
    assert run["batch_price"] == {"input_per_million": 500.0, "output_per_million": 2000.0,
                                  "batch_input_per_million": None, "batch_output_per_million": None,
                                  "image_tokens": None}


def test_byo_status_collects_a_run_submitted_without_waiting(tmp_path, key, capsys):
    ds = make_dataset(tmp_path / "ds", 12)
    providers = providers_file(tmp_path, 5)
    hold = threading.Event()
    with FakeBatchAPI(answerer(ds), hold=hold) as fake:
        base = ["eval", str(ds), "--provider", "openai", "--model", "fake-vlm", "--base-url", fake.url + "/v1",
                "--providers", str(providers), "--batch"]
        assert main([*base, "--no-wait"]) == 0
        assert "12 requests wait in 3 batches at the provider" in capsys.readouterr().err
        assert len(fake.batches) == 3 and not (ds / RUN / "predictions.jsonl").read_text()
        assert main(["status", str(ds / RUN)]) == 0
        printed = capsys.readouterr().out
        assert "0 of 12 questions answered" in printed and "in_progress" in printed
        hold.set()
        for _ in range(3):  # each poll moves the fake's batches one step: to finalizing, completed
            assert main(["status", str(ds / RUN)]) == 0
        capsys.readouterr()
        assert main(["status", str(ds / RUN), "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
    assert summary["answered"] == 12 and summary["finished"] is True
    assert [b["state"] for b in summary["batches"]] == ["collected"] * 3
    assert len(rows(ds)) == 12 and len(fake.submitted) == 12 and set(fake.submitted.values()) == {1}


def test_batch_is_refused_where_no_batch_api_is_known(tmp_path, key, capsys, monkeypatch):
    ds = make_dataset(tmp_path / "ds", 2)
    monkeypatch.setenv("GROQ_API_KEY", "gsk-test")
    assert main(["eval", str(ds), "--provider", "groq", "--model", "m", "--batch"]) == 2
    assert "--batch: the groq provider has no batch API through byo" in capsys.readouterr().err


def test_a_batch_collected_again_after_a_kill_is_neither_replaced_nor_charged_twice(tmp_path, key):
    """A kill after a batch's answers are durable but before its part is marked collected leaves
    the part `submitted` (made here by writing the ledger back as the kill leaves it): the rerun
    collects the batch again and finds its answers already there, charged once."""
    ds = make_dataset(tmp_path / "ds", 8)
    providers = providers_file(tmp_path, 100, input_per_million=1000.0, output_per_million=4000.0)
    with FakeBatchAPI(answerer(ds)) as fake:
        first = evaluate_fake(ds, "openai", fake.url + "/v1", batch=True, batch_poll=0.01, providers_file=providers)
        state = ledger(ds)
        state["parts"][0].update(state="submitted", failures={})
        (ds / RUN / "batches.json").write_text(json.dumps(state))
        again = evaluate_fake(ds, "openai", fake.url + "/v1", batch=True, batch_poll=0.01, providers_file=providers)
    assert first.statuses == again.statuses == {"ok": 8} and len(fake.batches) == 1 and len(fake.log) == 8
    assert again.spent_usd == pytest.approx(first.spent_usd) and again.tokens_new == {}
    assert comparable(rows(ds)) == comparable(first.rows) and ledger(ds)["parts"][0]["state"] == "collected"


def test_a_damaged_ledger_is_named_and_nothing_is_sent(tmp_path, key, capsys):
    ds = make_dataset(tmp_path / "ds", 3)
    (ds / RUN).mkdir(parents=True)
    (ds / RUN / "batches.json").write_text('{"parts": "lost"}')
    with FakeBatchAPI(answerer(ds)) as fake:
        assert main(["eval", str(ds), "--provider", "openai", "--model", "fake-vlm", "--base-url", fake.url + "/v1",
                     "--batch"]) == 2
    err = capsys.readouterr().err
    assert f"{ds / RUN / 'batches.json'}" in err and "parts" in err and "expected the run's batches" in err
    assert not fake.files and not fake.batches and not fake.log


def test_azure_batches_go_to_its_routes_with_the_deployment_as_model(tmp_path, monkeypatch):
    """Azure OpenAI's batches: /openai/files and /openai/batches with the api-version, each line's
    url `/chat/completions` and its model the deployment; the key in the api-key header."""
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)
    ds = make_dataset(tmp_path / "ds", 6)
    with FakeBatchAPI(answerer(ds)) as fake:
        report = evaluate_fake(ds, "azure", fake.url, model="gpt-4o", deployment="global-batch",
                               api_version="2024-10-21", batch=True, batch_poll=0.01)
    assert report.statuses == {"ok": 6} and len(fake.batches) == 1
    lines = [json.loads(line) for line in next(iter(fake.files.values()))["data"].splitlines()]
    assert {(line["url"], line["body"]["model"]) for line in lines} == {("/chat/completions", "global-batch")}
    assert fake.batches[0]["endpoint"] == "/chat/completions" and fake.batches[0]["_auth"] == KEY
    assert {r["model"] for r in report.rows} == {"gpt-4o"}
    assert fake.calls and all(c.split()[1].startswith("/openai/") and "api-version=2024-10-21" in c
                              for c in fake.calls), fake.calls


def test_a_cap_holds_in_batch_mode_and_the_stop_line_states_the_recorded_spend(tmp_path, key):
    """Answers far longer than the first guess of an answer's length (2,000 tokens, no --max-tokens):
    with a cap, the first batch holds one request, whose usage corrects the estimates before the
    rest are planned; so the spend at the batch price stays within the cap, and the stop line states
    the spend run.json records. A higher cap then sends the rest, none twice."""
    ds = make_dataset(tmp_path / "ds", 12)
    providers = providers_file(tmp_path, 100, input_per_million=1000.0, output_per_million=4000.0)
    long_answer = " ".join(["three"] * 2000)
    cap = 10.0

    def billed(seen) -> float:  # at the batch price: half the live one
        return sum(s.tokens["input"] * 500.0 + s.tokens["output"] * 2000.0 for s in seen) / 1e6

    with FakeBatchAPI(lambda seen: long_answer) as fake:
        capped = evaluate_fake(ds, "openai", fake.url + "/v1", providers_file=providers, batch=True, batch_poll=0.01,
                               max_cost=cap)
        spent = billed(fake.log)
        assert 0 < len(fake.log) < 12 and spent <= cap, f"{len(fake.log)} requests cost ${spent:.2f}"
        assert [b["request_counts"]["total"] for b in fake.batches][0] == 1  # the first batch goes alone
        run = json.loads((ds / RUN / "run.json").read_text())
        assert run["spent_usd"] == pytest.approx(spent) and capped.spent_usd == pytest.approx(spent)
        assert capped.stopped.reason == "budget" and capped.stopped.message.endswith(
            f"the run has spent ${spent:.4f} of it")
        assert run["stopped"] == capped.stopped.message

        report = evaluate_fake(ds, "openai", fake.url + "/v1", providers_file=providers, batch=True, batch_poll=0.01,
                               max_cost=1000.0)
    assert report.statuses == {"ok": 12} and report.stopped is None
    assert len(fake.submitted) == 12 and set(fake.submitted.values()) == {1}
    assert report.spent_usd == pytest.approx(billed(fake.log))
