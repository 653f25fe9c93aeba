"""A run whose every question was asked flagged as unreadable (questions.unreadable: flag) scores
apart under its key tagged [unreadable]: `byo score` says that no question was readable, and ends
without a traceback."""

from __future__ import annotations

import json

from count_data import make_count_dataset, write_run

from byo.cli import main

FLAG = {"rule": "contrast", "reason": "white piece (object 1) does not stand out"}


def test_a_run_of_flagged_questions_only_scores_with_a_table_that_says_so(tmp_path, capsys):
    questions = [{**q, "unreadable": FLAG} for q in make_count_dataset(tmp_path)[:8]]
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    run = write_run(tmp_path, questions, "flagged", "oracle", lambda q: str(q["answer"]))
    assert main(["score", str(run), "--bootstrap", "0"]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert "no readable question" in " ".join(captured.out.split())
    assert "count_pieces [unreadable]" in " ".join(captured.out.split())  # the flagged questions' own row
    scores = json.loads((run / "scores.json").read_text())
    assert scores["overall"]["n"] == 0 and scores["overall"]["accuracy"] is None
    assert main(["score", str(run), "--bootstrap", "0", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["key"] for r in doc["metrics"]] == ["count_pieces [unreadable]"]
