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


def dataset_undecidable_for_gpt_4o(tmp_path) -> tuple:
    """A 3-question dataset whose first question `byo questions --for` marked undecidable for
    openai:gpt-4o; with its question rows."""
    ds = make_dataset(tmp_path / "ds", 3)
    path = ds / "questions.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["unreadable_for"] = {"openai:gpt-4o": {"rule": "type", "reason": "a piece is under 20 px tall"}}
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return ds, rows


def test_a_question_marked_undecidable_for_a_model_is_not_asked_of_it(tmp_path, keys):
    ds, rows = dataset_undecidable_for_gpt_4o(tmp_path)
    with FakeVLM() as fake:
        gpt = evaluate_fake(ds, "openai", fake.url + "/v1", model="gpt-4o", run="gpt")
        other = evaluate_fake(ds, "openai", fake.url + "/v1", model="gpt-4.1", run="other")
    assert sorted(r["id"] for r in gpt.rows) == sorted(r["id"] for r in rows[1:])
    assert gpt.undecidable == 1 and gpt.n_questions == 2
    assert len(other.rows) == 3 and other.undecidable == 0


def test_the_score_and_the_report_count_the_questions_left_out_as_undecidable(tmp_path, keys, capsys):
    from byo.cli import main
    from byo.score.report import write_report
    from byo.score.run import load_scores

    ds, rows = dataset_undecidable_for_gpt_4o(tmp_path)
    with FakeVLM() as fake:
        evaluate_fake(ds, "openai", fake.url + "/v1", model="gpt-4o", run="gpt")
        evaluate_fake(ds, "openai", fake.url + "/v1", model="gpt-4.1", run="other")
    run_file = json.loads((ds / "runs/gpt/run.json").read_text())
    assert run_file["undecidable"] == 1 and "openai:gpt-4o" in run_file["received_as"]
    gpt, other = load_scores(ds / "runs/gpt"), load_scores(ds / "runs/other")
    # left out, not unanswered: the run is complete over the questions it was asked
    assert gpt.facts["undecidable"] == 1 and gpt.facts["asked"] == 2 and not gpt.partial
    assert other.facts["undecidable"] == 0 and other.facts["asked"] == 3
    html = write_report([gpt, other], tmp_path / "report.html").read_text()
    assert "undecidable at its size" in html
    cells = [c for c in html.split("<tr>") if "<b>gpt-4o</b>" in c or "<b>gpt-4.1</b>" in c]
    assert len(cells) == 2 and ">1</td>" in cells[0] and ">0</td>" in cells[1]
    assert main(["score", str(ds / "runs/gpt")]) == 0
    said = capsys.readouterr()
    assert "1 questions left out, undecidable at the size gpt-4o receives" in " ".join((said.out + said.err).split())
    assert main(["score", str(ds / "runs/gpt"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["undecidable"] == 1
