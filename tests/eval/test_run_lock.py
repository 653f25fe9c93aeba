"""One run, one writer: two `byo eval` processes on one run never both send its questions. The
second one exits 2 naming the first (or waits for it with --wait); a holder killed with kill -9
lets go at once. Also the lock itself: two holders never overlap, and a render directory and an
export output are locked the same way."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import ROOT
from eval_data import make_dataset
from fake_vlm import FakeVLM

from byo.cli import main
from byo.core.locks import LOCK_FILE, Busy, holder, writer_lock

SENTINEL = "sk-LOCKTEST-9f8e7d6c5b4a-never-write-me"
N_QUESTIONS = 12
CONCURRENCY = 4
PATIENCE = 120  # seconds before a test gives up waiting for an event (a failure, not a measurement)


def eval_command(dataset: Path, url: str, run: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "byo.cli", "eval", str(dataset), "--provider", "openai", "--model", "fake-vlm",
            "--base-url", url + "/v1", "--run", run, "--concurrency", str(CONCURRENCY), "--timeout", "300",
            *extra]


def start(command: list[str]) -> subprocess.Popen:
    return subprocess.Popen(command, cwd=ROOT, env={**os.environ, "OPENAI_API_KEY": SENTINEL},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


class Gate:
    """Answers held back until the gate opens: the first writer is surely mid-run meanwhile. The
    very first answer passes: a run sends its first request alone, to read the rate limits its
    reply states (byo.eval.ratelimit), then CONCURRENCY at once."""

    def __init__(self):
        self.open = threading.Event()
        self.lock = threading.Lock()
        self.passed = False

    def answer(self, seen) -> str:
        with self.lock:
            first, self.passed = not self.passed, True
        if not first:
            self.open.wait(PATIENCE)
        return "3"


HELD = CONCURRENCY + 1  # requests seen while the gate is shut: the first, answered, and CONCURRENCY held


@pytest.fixture
def dataset(tmp_path):
    return make_dataset(tmp_path / "ds", N_QUESTIONS)


@pytest.mark.slow
def test_a_second_eval_on_the_same_run_exits_2_naming_the_first(dataset):
    gate = Gate()
    with FakeVLM(gate.answer) as fake:
        first = start(eval_command(dataset, fake.url, "shared"))
        wait_until(lambda: len(fake.log) >= HELD, "the first eval's requests")
        second = subprocess.run(eval_command(dataset, fake.url, "shared"), cwd=ROOT, capture_output=True, text=True,
                                env={**os.environ, "OPENAI_API_KEY": SENTINEL}, timeout=PATIENCE)
        in_flight = len(fake.log)
        gate.open.set()
        out, err = first.communicate(timeout=PATIENCE)
        assert first.returncode == 0, err[-2000:]
        assert second.returncode == 2, second.stderr[-2000:]
        message = second.stderr.strip()
        assert "\n" not in message and "Traceback" not in message
        assert f"pid {first.pid} on " in message and "(byo eval " in message and " since " in message
        assert str(dataset / "runs" / "shared") in message and "--wait" in message
        # Every question asked once: by the first process alone.
        assert in_flight == HELD and len(fake.log) == N_QUESTIONS
        assert len({s.item for s in fake.log}) == N_QUESTIONS
    rows = (dataset / "runs" / "shared" / "predictions.jsonl").read_text().splitlines()
    assert len(rows) == N_QUESTIONS
    assert not (dataset / "runs" / "shared" / LOCK_FILE).exists()  # removed by its holder


@pytest.mark.slow
def test_with_wait_the_second_eval_waits_then_takes_every_answer_from_the_cache(dataset):
    gate = Gate()
    with FakeVLM(gate.answer) as fake:
        first = start(eval_command(dataset, fake.url, "waited"))
        wait_until(lambda: len(fake.log) >= HELD, "the first eval's requests")
        second = start(eval_command(dataset, fake.url, "waited", "--wait"))
        told = second.stderr.readline()  # printed once it finds the run locked
        assert "waiting" in told and f"pid {first.pid}" in told
        gate.open.set()
        assert first.wait(PATIENCE) == 0
        out, err = second.communicate(timeout=PATIENCE)
        assert second.returncode == 0, err[-2000:]
        assert "12 from the cache, 0 requests sent" in err
        assert len(fake.log) == N_QUESTIONS


@pytest.mark.slow
def test_a_writer_killed_with_kill_9_lets_go_of_the_run(dataset):
    gate = Gate()
    with FakeVLM(gate.answer) as fake:
        first = start(eval_command(dataset, fake.url, "killed"))
        wait_until(lambda: len(fake.log) >= HELD, "the first eval's requests")
        in_flight = len(fake.log)
        first.send_signal(signal.SIGKILL)
        first.wait(PATIENCE)
        gate.open.set()
        lock = dataset / "runs" / "killed" / LOCK_FILE
        assert json.loads(lock.read_text())["pid"] == first.pid  # left behind, and no obstacle
        second = subprocess.run(eval_command(dataset, fake.url, "killed"), cwd=ROOT, capture_output=True, text=True,
                                env={**os.environ, "OPENAI_API_KEY": SENTINEL}, timeout=PATIENCE)
        assert second.returncode == 0, second.stderr[-2000:]
        assert len(fake.log) <= N_QUESTIONS + in_flight
    assert not lock.exists()


def test_two_holders_never_overlap(tmp_path):
    """Threads of one process do not share an flock taken through separate opens: each thread
    stands for a process here. Each one takes the lock (waiting), checks nobody else is inside,
    and leaves; the lock file comes and goes between them."""
    directory = tmp_path / "d"
    inside, overlaps, rounds = [], [], 200
    guard = threading.Lock()

    def worker():
        for _ in range(rounds):
            with writer_lock(directory, wait=True):
                with guard:
                    inside.append(1)
                    if len(inside) > 1:
                        overlaps.append(1)
                with guard:
                    inside.pop()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(PATIENCE)
    assert not overlaps
    assert not (directory / LOCK_FILE).exists()


def test_busy_names_the_holder_and_a_failed_command_leaves_no_directory(tmp_path):
    target = tmp_path / "new" / "run"
    with writer_lock(target, what="run") as lock:
        info = json.loads(lock.read_text())
        assert info["pid"] == os.getpid() and info["host"]
        with pytest.raises(Busy, match=rf"the run is being written by pid {os.getpid()} on .* since "), \
                writer_lock(target, what="run"):
            pass
        assert f"pid {os.getpid()}" in holder(lock)
    assert not (tmp_path / "new").exists()


def test_a_locked_render_directory_and_export_output_are_refused(tmp_path, capsys):
    dataset = make_dataset(tmp_path / "ds", 3)
    config = tmp_path / "c.yaml"
    config.write_text("dataset: {name: t, family: clevr, n_images: 1}\n")
    out = tmp_path / "out"
    with writer_lock(out):
        assert main(["render", str(config), "-o", str(out)]) == 2
        assert "the dataset is being written by pid" in capsys.readouterr().err
        assert main(["export", str(dataset), "--format", "vlmevalkit", "-o", str(out)]) == 2
        assert "the export is being written by pid" in capsys.readouterr().err
        assert main(["import-predictions", str(tmp_path / "p.jsonl"), "--format", "jsonl", "--dataset",
                     str(dataset), "--run", "x"]) == 2  # the file is missing: refused before any lock
    assert not out.exists()
