"""`byo eval`: resume after a kill, injected failures, the cache, limits, and no key on disk."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import ROOT
from eval_data import answerer, make_dataset
from fake_vlm import FakeVLM

from byo.cli import main
from byo.core.errors import ConfigError
from byo.eval.cache import RequestCache, request_key
from byo.eval.run import EvalSettings, evaluate
from byo.providers import GenerationParams

SENTINEL = "sk-SENTINEL-a1b2c3d4e5f6-never-write-me"
RETRYABLE = {"rate_limited", "server_error", "timeout", "malformed"}


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    return SENTINEL


def settings(dataset: Path, url: str, **kwargs) -> EvalSettings:
    defaults = {"provider": "openai", "model": "fake-vlm", "base_url": url + "/v1", "timeout": 5,
                "backoff_base": 0.01}
    return EvalSettings(dataset=dataset, **{**defaults, **kwargs})


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def without_latency(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "latency_s"} for r in rows]


def cached_keys(dataset: Path) -> set[str]:
    with sqlite3.connect(dataset / "runs" / "cache.sqlite") as db:
        return {k for (k,) in db.execute("SELECT key FROM answers")}


def question_keys(dataset: Path, url: str) -> dict[str, tuple[str, str]]:
    """Cache key -> the (prompt, image sha256) the fake server logs for that question."""
    import hashlib

    out = {}
    for line in (dataset / "questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        sha = hashlib.sha256((dataset / q["image"]).read_bytes()).hexdigest()
        key = request_key(f"openai@{url}/v1", "fake-vlm", q["prompt"], sha, GenerationParams().model_dump())
        out[key] = (q["prompt"], sha)
    return out


def test_killed_run_resumes_without_repeating_completed_requests(tmp_path, key):
    """(a) SIGKILL mid-run, rerun: no completed request is sent again; predictions as uninterrupted."""
    ds = make_dataset(tmp_path / "ds", 40)
    reference = shutil.copytree(ds, tmp_path / "reference")
    with FakeVLM(answerer(ds), latency=0.1) as fake:
        cmd = [sys.executable, "-m", "byo.cli", "eval", str(ds), "--provider", "openai", "--model", "fake-vlm",
               "--base-url", fake.url + "/v1", "--concurrency", "2", "--timeout", "5"]
        proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "OPENAI_API_KEY": key},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while len(fake.answered()) < 12 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL
        before_kill = len(fake.log)

        completed = cached_keys(ds)
        items = question_keys(ds, fake.url)
        assert 10 <= len(completed) < 40, "the kill should land mid-run"  # 2 may have been in flight
        partial = read_rows(ds / "runs" / "openai-fake-vlm" / "predictions.jsonl")
        assert len(partial) >= len(completed) - 2  # rows are journalled as they complete

        resumed = evaluate(settings(ds, fake.url, concurrency=8), show_progress=False)
        rerun = [s.item for s in fake.log[before_kill:]]
        assert not {items[k] for k in completed} & set(rerun), "a completed request was sent again"
        assert sorted(rerun) == sorted(items[k] for k in set(items) - completed)  # each missing one, once
        assert resumed.cached == len(completed) and resumed.requests_sent == 40 - len(completed)

        uninterrupted = evaluate(settings(reference, fake.url, concurrency=8), show_progress=False)

    final = read_rows(ds / "runs" / "openai-fake-vlm" / "predictions.jsonl")
    expected = read_rows(reference / "runs" / "openai-fake-vlm" / "predictions.jsonl")
    assert [r["id"] for r in final] == [r["id"] for r in expected]
    assert without_latency(final) == without_latency(expected)
    assert all(r["status"] == "ok" for r in final)
    assert resumed.tokens == uninterrupted.tokens


def test_injected_failures_end_as_answers_or_explicit_errors(tmp_path, key):
    """(b) 20% of requests fail (429, 500, timeout, malformed): every item ends answered or with an
    error status, nothing is duplicated, and token totals are exact."""
    ds = make_dataset(tmp_path / "ds", 50)
    # the client waits 4 s: an answer the busy test process (server and client share it) is slow to
    # send must not time out and be asked again; a "timeout" fault stalls past it
    with FakeVLM(answerer(ds), fault_rate=0.2, seed=3, hang=4.5) as fake:
        report = evaluate(settings(ds, fake.url, concurrency=8, timeout=4.0, retries=1), show_progress=False)
        outcomes = Counter(s.outcome for s in fake.log)
        assert {"429", "500", "timeout", "malformed"} <= set(outcomes)
        assert 0.12 < sum(outcomes[f] for f in ("429", "500", "timeout", "malformed")) / len(fake.log) < 0.3

        rows = read_rows(ds / "runs" / "openai-fake-vlm" / "predictions.jsonl")
        questions = read_rows(ds / "questions.jsonl")
        assert [r["id"] for r in rows] == [q["id"] for q in questions]  # each once, in order
        ok = [r for r in rows if r["status"] == "ok"]
        failed = [r for r in rows if r["status"] != "ok"]
        assert ok and failed, "with one retry some items should fail twice"
        assert any(r["attempts"] == 2 for r in ok)
        for r in ok:
            assert isinstance(r["response"], str) and r["error"] is None and r["tokens"]["total"] > 0
        for r in failed:
            assert r["status"] in RETRYABLE and r["error"] and r["response"] is None and r["tokens"] is None
            assert r["attempts"] == 2
        answered_items = Counter(s.item for s in fake.answered())
        assert max(answered_items.values()) == 1 and len(answered_items) == len(ok)  # nothing answered twice

        billed = fake.billed_tokens()
        run_file = json.loads((ds / "runs" / "openai-fake-vlm" / "run.json").read_text())
        for name in ("input", "output"):
            assert report.tokens[name] == sum(r["tokens"][name] for r in ok) == billed[name]
            assert run_file["tokens"][name] == billed[name]
        assert run_file["statuses"] == dict(Counter(r["status"] for r in rows))
        assert report.requests_sent == len(fake.log)

        # Resume without faults: only the failed items are asked again; totals stay exact.
        fake.fault_rate = 0.0
        seen_before = len(fake.log)
        resumed = evaluate(settings(ds, fake.url, concurrency=8), show_progress=False)
        retried = [s for s in fake.log[seen_before:]]
        assert len(retried) == len(failed) and all(s.outcome == "ok" for s in retried)
        assert all(r["status"] == "ok" for r in resumed.rows)
        assert resumed.tokens["input"] == fake.billed_tokens()["input"]
        assert resumed.tokens["output"] == fake.billed_tokens()["output"]


def test_no_api_key_in_any_file_written(tmp_path, monkeypatch, capsys):
    """(c) A sentinel key reaches the server but no file the toolkit writes, in any letter case, even
    when the server echoes it back in an error or in an answer, as sent or in lower case."""
    work = tmp_path / "work"
    ds = make_dataset(work / "ds", 6)
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    key_file = secrets / "keys.env"
    key_file.write_text(f"GROQ_API_KEY={SENTINEL}-groq\n")
    providers = work / "providers.yaml"
    providers.write_text("providers:\n  local:\n    type: openai-compatible\n    api_key_env: LOCAL_KEY\n"
                         "    models:\n      fake-vlm: {input_per_million: 1.0, output_per_million: 2.0}\n")
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    monkeypatch.setenv("LOCAL_KEY", SENTINEL + "-local")
    monkeypatch.chdir(work)

    def plan(seen, before):  # one question's first two requests get a 401 quoting the key
        if seen.image_sha256 == first_image and before < 2:
            return ("echo_auth", "echo_auth_lower")[before]
        return None

    def answer(seen):  # one question is answered with the key, lower-cased, in a 200 reply
        return f"Your key is {seen.auth.lower()}" if seen.image_sha256 == second_image else truths(seen)

    import hashlib
    first_image, second_image = (hashlib.sha256((ds / "images" / f"demo_00000{i}.png").read_bytes()).hexdigest()
                                 for i in (0, 1))
    truths = answerer(ds)
    with FakeVLM(answer, plan=plan) as fake:
        base = ["eval", str(ds), "--model", "fake-vlm", "--timeout", "5"]
        assert main([*base, "--provider", "openai", "--base-url", fake.url + "/v1"]) == 1
        assert main([*base, "--provider", "openai", "--base-url", fake.url + "/v1", "--api", "responses",
                     "--run", "responses"]) == 1
        assert main([*base, "--provider", "groq", "--base-url", fake.url, "--key-file", str(key_file)]) == 0
        assert main([*base, "--provider", "local", "--providers", str(providers),
                     "--base-url", fake.url + "/v1"]) == 0
    auths = Counter(s.auth for s in fake.log)
    assert set(auths) == {f"Bearer {SENTINEL}", f"Bearer {SENTINEL}-groq", f"Bearer {SENTINEL}-local"}
    assert {"echo_auth", "echo_auth_lower"} <= {s.outcome for s in fake.log}

    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != key_file]
    assert any(p.name == "predictions.jsonl" for p in written) and any(p.suffix == ".sqlite" for p in written)
    assert any(p.name == "run.json" for p in written)
    for path in written:
        data = path.read_bytes().lower()
        assert SENTINEL.lower().encode() not in data, f"the key was written to {path}"
        assert b"sentinel" not in data, f"part of the key was written to {path}"
    rows = read_rows(ds / "runs" / "openai-fake-vlm" / "predictions.jsonl")
    assert rows[0]["error"] == "HTTP 401: Incorrect API key provided: Bearer [redacted]"
    assert rows[1]["response"] == "Your key is bearer [redacted]"
    responses = read_rows(ds / "runs" / "responses" / "predictions.jsonl")
    assert responses[0]["error"] == "HTTP 401: incorrect api key provided: bearer [redacted]"
    out = capsys.readouterr()
    assert "sentinel" not in (out.out + out.err).lower()


def test_rerun_sends_nothing_and_writes_the_same_predictions(tmp_path, key):
    ds = make_dataset(tmp_path / "ds", 8)
    with FakeVLM(answerer(ds)) as fake:
        first = evaluate(settings(ds, fake.url), show_progress=False)
        path = ds / "runs" / "openai-fake-vlm" / "predictions.jsonl"
        text = path.read_text()
        second = evaluate(settings(ds, fake.url), show_progress=False)
        assert len(fake.log) == 8 and second.requests_sent == 0 and second.cached == 8
        assert path.read_text() == text  # latency and attempts come from the cache
        other = evaluate(settings(ds, fake.url, run="again"), show_progress=False)  # another run name
        assert len(fake.log) == 8 and other.cached == 8
        changed = evaluate(settings(ds, fake.url, run="hot", params=GenerationParams(temperature=0.7)),
                           show_progress=False)
        assert len(fake.log) == 16 and changed.cached == 0  # parameters are part of the key
    assert first.tokens == second.tokens


def test_answers_arriving_together_share_one_commit_off_the_event_loop(tmp_path, monkeypatch):
    """Group commit: the rows queued while a commit syncs go in the next one, and a row whose
    worker was cancelled still lands before the cache closes."""
    batches = []
    write = RequestCache.write

    def slow_write(self, rows, charges=()):
        batches.append(len(rows))
        time.sleep(0.05)  # a slow disk sync
        write(self, rows, charges)

    monkeypatch.setattr(RequestCache, "write", slow_write)

    async def scenario() -> int:
        cache = RequestCache(tmp_path / "cache.sqlite")
        commits = [cache.put(f"key{i}", {"text": str(i)}) for i in range(40)]
        written_while_queuing = len(batches)  # queuing does not wait for the disk
        await asyncio.sleep(0)
        commits.append(cache.put("late", {"text": "late"}))
        commits[-1].cancel()  # a stopped run
        await asyncio.gather(*commits[:-1])
        await cache.close()
        return written_while_queuing

    assert asyncio.run(scenario()) == 0
    assert sum(batches) == 41 and len(batches) <= 3
    with sqlite3.connect(tmp_path / "cache.sqlite") as db:
        assert db.execute("SELECT count(*) FROM answers").fetchone() == (41,)


def test_failures_are_never_cached(tmp_path, key):
    ds = make_dataset(tmp_path / "ds", 4)
    with FakeVLM(answerer(ds), plan=lambda seen, before: "500") as fake:
        report = evaluate(settings(ds, fake.url, retries=2), show_progress=False)
        assert [r["status"] for r in report.rows] == ["server_error"] * 4
        assert [r["attempts"] for r in report.rows] == [3] * 4
        assert cached_keys(ds) == set()
        fake.plan = None
        again = evaluate(settings(ds, fake.url), show_progress=False)
    assert all(r["status"] == "ok" for r in again.rows) and len(cached_keys(ds)) == 4


def test_retry_after_is_honoured(tmp_path, key):
    ds = make_dataset(tmp_path / "ds", 1)
    with FakeVLM(plan=lambda seen, before: "429" if before == 0 else None, retry_after="1") as fake:
        report = evaluate(settings(ds, fake.url, backoff_base=0.001), show_progress=False)
    first, second = fake.log
    assert second.at - first.at >= 0.95
    assert report.rows[0]["status"] == "ok" and report.rows[0]["attempts"] == 2


def test_concurrency_is_bounded_and_rpm_spaces_requests(tmp_path, key):
    ds = make_dataset(tmp_path / "ds", 12)
    with FakeVLM(latency=0.15) as fake:
        evaluate(settings(ds, fake.url, concurrency=4), show_progress=False)
        assert fake.max_in_flight == 4
    with FakeVLM() as fake:
        evaluate(settings(ds, fake.url, concurrency=8, rpm=600, limit=6, run="rpm"), show_progress=False)
    starts = sorted(s.at for s in fake.log)
    assert len(starts) == 6 and starts[-1] - starts[0] >= 0.4  # 600/min: one start per 0.1 s


def test_costs_from_the_providers_file(tmp_path, key):
    ds = make_dataset(tmp_path / "ds", 3)
    providers = tmp_path / "providers.yaml"
    providers.write_text("providers:\n  openai:\n    models:\n"
                         "      fake-vlm: {input_per_million: 2.5, output_per_million: 10}\n")
    with FakeVLM() as fake:
        report = evaluate(settings(ds, fake.url, providers_file=providers), show_progress=False)
    expected = (report.tokens["input"] * 2.5 + report.tokens["output"] * 10) / 1e6
    assert report.cost_usd == pytest.approx(expected)
    assert sum(r["cost_usd"] for r in report.rows) == pytest.approx(expected)
    run_file = json.loads((ds / "runs" / "openai-fake-vlm" / "run.json").read_text())
    assert run_file["cost_usd"] == pytest.approx(expected) and run_file["key_source"] == "environment OPENAI_API_KEY"


def test_bad_inputs_fail_before_any_request(tmp_path, key, capsys, monkeypatch):
    ds = make_dataset(tmp_path / "ds", 3)
    lines = (ds / "questions.jsonl").read_text().splitlines()
    broken = json.loads(lines[1])
    del broken["answer"]
    broken["colour"] = "red"
    lines[1] = json.dumps(broken)
    lines[2] = lines[0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    base = ["eval", str(ds), "--provider", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]
    assert main([*base, "--questions", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: line 2: answer: required key is missing" in err
    assert "line 2: colour: unknown key" in err
    assert "line 3: id: 'demo_000000-count' is already the id of line 1" in err

    providers = tmp_path / "providers.yaml"
    providers.write_text("providers:\n  mine:\n    base_url: http://127.0.0.1:9/v1\n    prices: {}\n")
    assert main(["eval", str(ds), "--provider", "mine", "--model", "m", "--providers", str(providers)]) == 2
    err = capsys.readouterr().err
    assert "providers.mine.prices: unknown key" in err and "providers.mine.type: required" in err

    monkeypatch.delenv("OPENAI_API_KEY")
    assert main(base) == 2
    assert "OPENAI_API_KEY: not set" in capsys.readouterr().err
    assert not (ds / "runs").exists()


def test_a_run_name_keeps_its_settings_and_limit_grows(tmp_path, key):
    ds = make_dataset(tmp_path / "ds", 6)
    with FakeVLM() as fake:
        first = evaluate(settings(ds, fake.url, limit=2), show_progress=False)
        assert len(first.rows) == 2
        grown = evaluate(settings(ds, fake.url), show_progress=False)
        assert grown.cached == 2 and grown.requests_sent == 4 and len(fake.log) == 6
        with pytest.raises(ConfigError, match=r"settings \(parameters changed\); choose another `run`"):
            evaluate(settings(ds, fake.url, params=GenerationParams(seed=1)), show_progress=False)


# --- fail fast on a dead endpoint ------------------------------------------------------------
def closed_port() -> int:
    """A loopback port nobody listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_eval_against_a_closed_port_stops_within_seconds_with_one_message(tmp_path):
    """The real CLI, the real openai client and the default retries and backoff: the circuit breaker
    stops the run in seconds (not ~15 s of backoff per question) with one message saying what to check."""
    ds = make_dataset(tmp_path / "ds", 40)
    port = closed_port()
    result = subprocess.run([sys.executable, "-m", "byo.cli", "eval", str(ds), "--provider", "openai", "--model",
                             "fake-vlm", "--base-url", f"http://127.0.0.1:{port}/v1"], cwd=ROOT,
                            env={**os.environ, "OPENAI_API_KEY": SENTINEL}, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    messages = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    assert len(messages) == 1, result.stderr
    message = messages[0]
    assert f"127.0.0.1:{port}" in message and "connection_error" in message
    assert "check that the server is running" in message and "--base-url" in message
    assert "0 of 40 questions answered" in message and "rerun the same command" in message
    assert len(message) < 1000
    # stopped early: not even one attempt per question (without the breaker: 40 x 5 attempts)
    sent = int(re.search(r"\((\d+) requests sent", message)[1])
    assert sent < 40, message
    # nothing answered: no run folder is left behind (the next invocation starts it afresh)
    assert not (ds / "runs" / "openai-fake-vlm").exists()


@pytest.mark.parametrize("provider, suffix", [("openai", "/v1"), ("groq", ""), ("ollama", ""),
                                              ("openai-compatible", "/v1")])
def test_every_client_stops_on_a_closed_port(tmp_path, key, monkeypatch, provider, suffix):
    monkeypatch.setenv("GROQ_API_KEY", SENTINEL)
    ds = make_dataset(tmp_path / "ds", 12)
    run = settings(ds, "", provider=provider, base_url=f"http://127.0.0.1:{closed_port()}{suffix}",
                   backoff_base=0.3)  # retries last past the breaker's 2 s
    report = evaluate(run, show_progress=False)
    assert report.requests_sent < 12 * (run.retries + 1)  # stopped before spending every retry
    assert report.stopped is not None and report.stopped.reason == "endpoint" and report.stopped.exit_code == 1
    assert "connection_error" in report.stopped.message and "(`base_url`)" in report.stopped.message
    assert all(r["status"] == "connection_error" for r in report.rows) and report.unanswered > 0


@pytest.mark.parametrize("provider, suffix", [("openai", "/v1"), ("ollama", "")])
def test_a_host_that_never_accepts_stops_the_run(tmp_path, key, provider, suffix):
    """A listening socket whose backlog is full never completes a connection (like a firewalled
    host): connect timeouts count as connection failures, so the breaker stops the run."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(0)
        port = server.getsockname()[1]
        filler = [socket.create_connection(("127.0.0.1", port))]  # fills the backlog
        ds = make_dataset(tmp_path / "ds", 12)
        run = settings(ds, "", provider=provider, base_url=f"http://127.0.0.1:{port}{suffix}", timeout=1.0)
        report = evaluate(run, show_progress=False)
        filler[0].close()
    assert report.requests_sent < 12 * (run.retries + 1)  # stopped before spending every retry
    assert report.stopped is not None and "could not connect" in report.stopped.message
    assert report.unanswered > 0


def test_a_refused_key_stops_the_run_and_is_not_quoted(tmp_path, key):
    ds = make_dataset(tmp_path / "ds", 30)
    with FakeVLM(plan=lambda seen, before: "echo_auth_lower") as fake:
        report = evaluate(settings(ds, fake.url, concurrency=2), show_progress=False)
    assert report.stopped.reason == "endpoint" and "check the API key" in report.stopped.message
    assert "sentinel" not in report.stopped.message.lower() and "[redacted]" in report.stopped.message
    assert 5 <= len(fake.log) <= 6  # the breaker trips on the 5th refusal; one more may be in flight
    assert all(r["status"] == "rejected" for r in report.rows)


def test_a_wrong_route_stops_the_run(tmp_path, key):
    ds = make_dataset(tmp_path / "ds", 30)
    with FakeVLM() as fake:  # no /v1: every request goes to /chat/completions, a 404
        report = evaluate(settings(ds, fake.url, base_url=fake.url, concurrency=2), show_progress=False)
    assert report.stopped.reason == "endpoint" and "HTTP 404" in report.stopped.message
    assert "check the URL" in report.stopped.message and len(fake.log) <= 6


def test_a_burst_of_dropped_connections_does_not_stop_the_run(tmp_path, key):
    """Every question's first request loses its connection (a server restarting): more than five
    connection failures in a row, but shorter than the breaker's 2 s, so every retry answers."""
    ds = make_dataset(tmp_path / "ds", 12)
    with FakeVLM(plan=lambda seen, before: "timeout" if before == 0 else None, hang=0.0) as fake:
        report = evaluate(settings(ds, fake.url, concurrency=8), show_progress=False)
    assert report.stopped is None
    assert all(r["status"] == "ok" and r["attempts"] == 2 for r in report.rows)
    assert Counter(s.outcome for s in fake.log) == {"timeout": 12, "ok": 12}


# --- clean stops ---------------------------------------------------------------------------------
def leftovers(root: Path) -> list[Path]:
    """Temporary files: atomic writes' hidden siblings, SQLite's WAL and shared memory."""
    return [p for p in root.rglob("*") if p.name.startswith(".") or p.name.endswith(("-wal", "-shm", ".tmp"))]


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_a_real_eval_cleanly_and_a_rerun_finishes_it(tmp_path, key, sig):
    ds = make_dataset(tmp_path / "ds", 30)
    run = ds / "runs" / "openai-fake-vlm"
    with FakeVLM(answerer(ds, "right"), latency=0.1) as fake:
        cmd = [sys.executable, "-m", "byo.cli", "eval", str(ds), "--provider", "openai", "--model", "fake-vlm",
               "--base-url", fake.url + "/v1", "--concurrency", "2", "--timeout", "5"]
        proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "OPENAI_API_KEY": key},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while len(fake.answered()) < 8 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 128 + sig, err
        assert "Traceback" not in err and "Error" not in err
        name = signal.Signals(sig).name
        lines = [line for line in err.splitlines() if f"stopped by {name}" in line]
        assert len(lines) == 1 and "rerun the same command to resume" in lines[0], err
        assert leftovers(ds) == []

        # Every answer received is kept: in the cache and in the predictions, marked unfinished.
        rows = read_rows(run / "predictions.jsonl")
        completed = cached_keys(ds)
        assert 8 <= len(rows) == len(completed) < 30 and all(r["status"] == "ok" for r in rows)
        assert f"{len(rows)} of 30 questions answered, {30 - len(rows)} left" in lines[0]
        assert len(fake.answered()) - len(rows) <= 2  # at most the requests in flight were lost
        info = json.loads((run / "run.json").read_text())
        assert info["finished"] is False and info["stopped"] == f"stopped by {name}"
        assert info["answered"] == len(rows)

        # Scoring the stopped run says it is partial; --require-complete refuses it.
        assert main(["score", str(run), "--bootstrap", "0", "--require-complete"]) == 2
        assert main(["score", str(run), "--bootstrap", "0"]) == 0
        scores = json.loads((run / "scores.json").read_text())
        assert scores["run"]["partial"] is True and scores["run"]["n_questions"] == len(rows)
        assert scores["run"]["asked"] == 30 and scores["overall"]["n"] == len(rows)

        # The same command again sends only the questions without an answer, once each.
        before = len(fake.log)
        items = question_keys(ds, fake.url)
        resumed = evaluate(settings(ds, fake.url, concurrency=2), show_progress=False)
        rerun = [s.item for s in fake.log[before:]]
    assert sorted(rerun) == sorted(items[k] for k in set(items) - completed)
    assert resumed.stopped is None and resumed.cached == len(rows) and len(resumed.rows) == 30
    assert json.loads((run / "run.json").read_text())["finished"] is True
    assert main(["score", str(run), "--bootstrap", "0", "--require-complete"]) == 0
    assert json.loads((run / "scores.json").read_text())["overall"]["accuracy"] == 1.0
    assert leftovers(ds) == []


def test_a_second_signal_exits_at_once(tmp_path):
    """While the first stop is under way, a second Ctrl-C ends the process at once, without a traceback."""
    script = ("import asyncio\n"
              "from byo.eval.stop import on_signals\n"
              "async def main():\n"
              "    with on_signals(lambda why: print(why.reason, flush=True)):\n"
              "        print('ready', flush=True)\n"
              "        await asyncio.sleep(60)  # a stop that would take long\n"
              "asyncio.run(main())\n")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGINT)
    assert proc.stdout.readline() == "SIGINT\n"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=50)  # the script's own stop would take 60 s
    assert proc.returncode == 130
    assert "second SIGINT: exiting at once" in err and "Traceback" not in err


def test_the_signal_handlers_of_the_caller_are_put_back():
    import asyncio

    from byo.eval.stop import on_signals

    def mine(signum, frame):
        raise AssertionError("not called")

    before = signal.signal(signal.SIGTERM, mine)
    try:
        async def inside():
            with on_signals(lambda why: None):
                assert signal.getsignal(signal.SIGTERM) is not mine
        asyncio.run(inside())
        assert signal.getsignal(signal.SIGTERM) is mine and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGTERM, before)
