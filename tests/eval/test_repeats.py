"""`byo eval --repeats K`: each question asked K times through the real client, repeats 2..K never
answered from repeat 1's cache but cached per repeat, and their agreement scored."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections import Counter

import numpy as np
import pytest
from eval_data import make_dataset, truth_by_image
from fake_vlm import FakeVLM

from byo.cli import main
from byo.score.stability import kappa


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-repeats")


def sampling_answerer(root):
    """Right, except on about one ask in three of an item, wrong by one: a model sampling at a temperature."""
    truths, asked, lock = truth_by_image(root), Counter(), threading.Lock()

    def answer(seen) -> str:
        with lock:
            n = asked[seen.item]
            asked[seen.item] += 1
        draw = int(hashlib.sha256(f"{seen.prompt}|{seen.image_sha256}|{n}".encode()).hexdigest(), 16) % 3
        truth = truths[seen.image_sha256]
        return str(truth + 1 if draw == 0 else truth)

    return answer


def eval_args(ds, url, *extra):
    return ["eval", str(ds), "--provider", "openai", "--model", "fake-vlm", "--base-url", url + "/v1",
            "--run", "r", "--timeout", "5", "--temperature", "0.7", *extra]


def test_repeats_are_asked_anew_cached_per_repeat_and_scored(tmp_path, key, capsys):
    ds = make_dataset(tmp_path / "ds", 12)
    with FakeVLM(sampling_answerer(ds)) as fake:
        assert main(eval_args(ds, fake.url, "--repeats", "2", "--limit", "6")) == 0  # interrupted: half the questions
        assert len(fake.log) == 12
        assert main(eval_args(ds, fake.url, "--repeats", "3")) == 0  # resumed, and one more repeat
        assert len(fake.log) == 12 + 2 * 6 + 12  # the rest of repeats 1 and 2, all of repeat 3
        assert main(eval_args(ds, fake.url, "--repeats", "3")) == 0
        assert len(fake.log) == 36  # every repeat is cached
    items = Counter(s.item for s in fake.log)
    assert set(items.values()) == {3}  # each question asked exactly three times
    with sqlite3.connect(ds / "runs" / "cache.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 36
    runs = [ds / "runs" / name for name in ("r", "r.repeat-2", "r.repeat-3")]
    infos = [json.loads((r / "run.json").read_text()) for r in runs]
    assert [(i["repeat"], i["repeats"]) for i in infos] == [(1, 3), (2, 3), (3, 3)]

    assert main(["score", str(runs[0]), "--bootstrap", "0"]) == 0
    scores = json.loads((runs[0] / "scores.json").read_text())
    assert scores["run"]["repeats"] == ["r", "r.repeat-2", "r.repeat-3"]
    table = {r["key"]: r for r in scores["tables"]["stability"]}
    answers = [{p["id"]: p["response"] for p in map(json.loads, (r / "predictions.jsonl").read_text().splitlines())}
               for r in runs]
    ids = list(answers[0])
    alike = np.mean([len({a[i] for a in answers}) == 1 for i in ids])
    overall = table["*"]
    assert overall["n"] == 12 and overall["repeats"] == 3
    assert overall["agreement"] == pytest.approx(alike)
    assert 0 < alike < 1
    truths = {json.loads(line)["id"]: json.loads(line)["answer"]
              for line in (ds / "questions.jsonl").read_text().splitlines()}
    accuracies = [np.mean([int(a[i]) == truths[i] for i in ids]) for a in answers]
    assert overall["accuracy_mean"] == pytest.approx(np.mean(accuracies))
    assert overall["accuracy_sd"] == pytest.approx(np.std(accuracies, ddof=1))
    assert set(table) == {"*", "count.total", "count.cubes"}
    assert "Repeat stability over 3 repeats" in capsys.readouterr().out


def test_fleiss_kappa_by_hand():
    from statsmodels.stats.inter_rater import fleiss_kappa  # here: statsmodels is slow to import

    # Two questions, three repeats: all alike on the first, 2-1 on the second.
    labels = [["3", "3", "3"], ["4", "4", "5"]]
    table = np.array([[3, 0, 0], [0, 2, 1]])
    assert kappa(labels) == pytest.approx(fleiss_kappa(table, method="fleiss"))
    # Fleiss (1971): P_bar = (1 + 1/3) / 2; p = (3, 2, 1) / 6; P_e = (9 + 4 + 1) / 36.
    p_bar, p_e = (1 + 1 / 3) / 2, 14 / 36
    assert kappa(labels) == pytest.approx((p_bar - p_e) / (1 - p_e))
    assert kappa([["3", "3"], ["3", "3"]]) is None


def test_repeats_below_one_are_refused(tmp_path):
    ds = make_dataset(tmp_path / "ds", 2)
    with pytest.raises(SystemExit) as exit_:
        main(eval_args(ds, "http://127.0.0.1:9", "--repeats", "0"))
    assert exit_.value.code == 2
