"""A human study killed in the middle of writing an answer, then started again: every whole answer
is kept, the cut one is cut off (the server says so) and asked again, and `byo score` reads the
run both before the restart (the cut line read as unanswered) and after it."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest
from conftest import ROOT
from human_server import Server, golden_dataset, questions

FAULTS = ROOT / "tests" / "support" / "faults.py"
CUT_AT = 3  # the third answer is cut in half, then the server is killed (SIGKILL)


def answer(server: Server, qid: str, n: int) -> httpx.Response:
    return httpx.post(server.url + "api/answer", json={"annotator": "ann", "id": qid, "cannot_tell": True,
                                                        "seconds": 1.5, "nonce": f"restart-{n:08d}"}, timeout=30)


def state(server: Server) -> dict:
    return httpx.get(server.url + "api/state", params={"annotator": "ann"}, timeout=30).json()


def score(run) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "byo.cli", "score", str(run), "--bootstrap", "0"],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_study_killed_mid_answer_keeps_every_whole_answer_and_asks_the_cut_one_again(tmp_path):
    dataset = golden_dataset(tmp_path)
    total = len(questions(dataset))
    run = dataset / "runs" / "human-ann"
    asked = []
    server = Server(dataset, launcher=(str(FAULTS), "cut", str(CUT_AT), "--"))
    try:
        for n in range(1, CUT_AT + 1):
            q = state(server)["question"]
            asked.append(q["id"])
            if n < CUT_AT:
                assert answer(server, q["id"], n).json()["recorded"] is True
            else:
                try:
                    answer(server, q["id"], n)
                except httpx.HTTPError:
                    pass  # the server died while writing it
        assert server.proc.wait(60) == -9
    finally:
        server.stop()
    data = (run / "predictions.jsonl").read_bytes()
    assert not data.endswith(b"\n") and data.count(b"\n") == CUT_AT - 1  # two whole lines and half of one

    before = score(run)  # the cut line is read as unanswered
    assert before.returncode == 0 and "Traceback" not in before.stderr, before.stderr
    assert f"{CUT_AT - 1} answered" in " ".join(before.stderr.split()), before.stderr

    with Server(dataset) as again:
        said = again.output
        assert "its last line was cut short" in said and "that question is asked again" in said, said
        now = state(again)
        assert now["answered"] == CUT_AT - 1 and now["question"]["id"] == asked[-1]  # asked again
        n = CUT_AT
        while (q := state(again)["question"]) is not None:
            assert answer(again, q["id"], n).json()["recorded"] is True
            n += 1
    rows = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows[:CUT_AT]] == asked and len({r["id"] for r in rows}) == len(rows) == total

    after = score(run)
    assert after.returncode == 0 and "Traceback" not in after.stderr, after.stderr
    scores = json.loads((run / "scores.json").read_text())
    assert scores["run"]["answered"] == total
