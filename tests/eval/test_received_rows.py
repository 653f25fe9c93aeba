"""What the model receives, in every prediction row; questions it cannot decide there, not asked."""

from __future__ import annotations

import json

import pytest
from eval_data import FAKE_KEYS, evaluate_fake, make_dataset
from fake_vlm import FakeVLM

from byo.providers import GenerationParams


@pytest.fixture
def keys(monkeypatch):
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)


def test_each_row_records_the_received_size_beside_the_sent_one(tmp_path, keys):
    ds = make_dataset(tmp_path / "ds", 2, size=(1920, 1080))
    with FakeVLM() as fake:
        high = evaluate_fake(ds, "openai", fake.url + "/v1", model="gpt-4.1", run="high")
        low = evaluate_fake(ds, "openai", fake.url + "/v1", model="gpt-4.1", run="low",
                            params=GenerationParams(detail="low"))
        unknown = evaluate_fake(ds, "openai-compatible", fake.url + "/v1", run="unknown")
    for row in high.rows:
        assert row["image"]["sent_size"] == [1920, 1080]
        assert row["image"]["received"]["size"] == [1365, 768] and row["image"]["received"]["tokens"] == 1105
        assert "images-vision" in row["image"]["received"]["source"]
    assert {tuple(r["image"]["received"]["size"]) for r in low.rows} == {(512, 288)}
    assert all(r["image"]["received"]["size"] is None and "fake-vlm" in r["image"]["received"]["note"]
               for r in unknown.rows)


def test_a_question_marked_undecidable_for_a_model_is_not_asked_of_it(tmp_path, keys):
    ds = make_dataset(tmp_path / "ds", 3)
    path = ds / "questions.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["unreadable_for"] = {"openai:gpt-4o": {"rule": "type", "reason": "a piece is under 20 px tall"}}
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with FakeVLM() as fake:
        gpt = evaluate_fake(ds, "openai", fake.url + "/v1", model="gpt-4o", run="gpt")
        other = evaluate_fake(ds, "openai", fake.url + "/v1", model="gpt-4.1", run="other")
    assert sorted(r["id"] for r in gpt.rows) == sorted(r["id"] for r in rows[1:])
    assert gpt.undecidable == 1 and gpt.n_questions == 2
    assert len(other.rows) == 3 and other.undecidable == 0
