"""Answers of any length: a 10 MB answer is stored cut (its beginning and its end, around a note;
the cut recorded in the prediction), once in the cache and once in the predictions, and scored
from what was kept. Parsing answers made of what trips parsers up (unclosed braces and tags,
thousands of cues, nested \\boxed, digits without end) gives the right status; `make bench`
times them at growing lengths (bench/score_bench.py, "long answers")."""

from __future__ import annotations

import json
import sqlite3

import pytest
from eval_data import make_dataset
from fake_vlm import FakeVLM

from byo.cli import main
from byo.eval.layout import MAX_ANSWER_CHARS, cap_answer
from byo.score.parse import ParseContext, parse_answer

TEN_MB = 10_000_000
REASONING = "Looking at the image I count the cubes and the spheres one by one. "


def long_answer(truth: int) -> str:
    return (REASONING * (TEN_MB // len(REASONING)))[:TEN_MB] + f" So the answer is {truth}."


def test_cap_keeps_the_head_and_the_tail_and_says_what_was_cut():
    text = "A" * 600 + "B" * 600
    kept, cut = cap_answer(text, 300)
    assert len(kept) == 300 and kept.startswith("A") and kept.endswith("B")
    assert "900 characters cut by byo" in kept
    assert cut == {"chars": 1200, "kept": 300 - len(kept.split("\n")[1]) - 2}
    assert cap_answer("short", 300) == ("short", None) and cap_answer(text, None) == (text, None)


def test_a_10_mb_answer_is_stored_cut_and_scored(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-long-answers")
    dataset = make_dataset(tmp_path / "ds", 3)
    truths = {json.loads(line)["image"]: json.loads(line)["answer"]
              for line in (dataset / "questions.jsonl").read_text().splitlines()}
    first = sorted(truths)[0]
    import hashlib

    long_sha = hashlib.sha256((dataset / first).read_bytes()).hexdigest()

    def answer(seen):
        return long_answer(truths[first]) if seen.image_sha256 == long_sha else "4"

    with FakeVLM(answer) as fake:
        base = ["eval", str(dataset), "--provider", "openai", "--model", "m", "--base-url", fake.url + "/v1"]
        assert main([*base, "--run", "capped"]) == 0
        assert main([*base, "--run", "whole", "--max-answer-chars", "0", "--cache", str(tmp_path / "c2.sqlite")]) == 0
    run = dataset / "runs" / "capped"
    rows = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    long_row = next(r for r in rows if r["image"]["path"] == first)
    assert len(long_row["response"]) == MAX_ANSWER_CHARS
    assert long_row["response_cut"] == {"chars": len(long_answer(truths[first])),
                                        "kept": MAX_ANSWER_CHARS - len(long_row["response"].split("\n")[1]) - 2}
    assert long_row["response"].endswith(f"So the answer is {truths[first]}.")
    assert all(r["response_cut"] is None for r in rows if r is not long_row)
    assert (run / "predictions.jsonl").stat().st_size < 2 * MAX_ANSWER_CHARS
    with sqlite3.connect(dataset / "runs" / "cache.sqlite") as db:
        stored = [json.loads(record) for (record,) in db.execute("SELECT record FROM answers")]
    assert max(len(r["text"]) for r in stored) == MAX_ANSWER_CHARS
    assert json.loads((run / "run.json").read_text())["max_answer_chars"] == MAX_ANSWER_CHARS

    assert main(["score", str(run)]) == 0
    parsed = {r["image"]: r for r in map(json.loads, (run / "parsed.jsonl").read_text().splitlines())}
    assert parsed[first]["status"] == "ok" and parsed[first]["correct"]
    whole = [json.loads(line) for line in (dataset / "runs" / "whole" / "predictions.jsonl").read_text().splitlines()]
    assert max(len(r["response"]) for r in whole) == len(long_answer(truths[first]))


def test_imported_answers_are_capped_the_same_way(tmp_path, capsys):
    dataset = make_dataset(tmp_path / "ds", 2)
    qid = json.loads((dataset / "questions.jsonl").read_text().splitlines()[0])["id"]
    file = tmp_path / "answers.jsonl"
    file.write_text(json.dumps({"id": qid, "response": "x" * 5000 + " 3"}) + "\n")
    assert main(["import-predictions", str(file), "--format", "jsonl", "--dataset", str(dataset), "--model", "m",
                 "--max-answer-chars", "1000"]) == 0
    row = json.loads((dataset / "runs" / "jsonl-m" / "predictions.jsonl").read_text())
    assert len(row["response"]) == 1000 and row["response"].endswith(" 3")
    assert row["response_cut"]["chars"] == 5002
    with pytest.raises(SystemExit) as refused:
        main(["import-predictions", str(file), "--format", "jsonl", "--dataset", str(dataset), "--model", "m",
              "--max-answer-chars", "50", "--force"])
    assert refused.value.code == 2
    assert "--max-answer-chars" in capsys.readouterr().err


COT = ParseContext("integer", "First, think step by step. How many objects are there? End with {answer: <answer>}.",
                   "cot")
DIRECT = ParseContext("integer", "How many objects are there in the image?")
N = MAX_ANSWER_CHARS  # what is stored of an answer at most


@pytest.mark.parametrize("text, ctx, status, value", [
    ((REASONING * (N // len(REASONING)))[:N] + " {answer: 7}", COT, "ok", 7),
    ("{" * N, DIRECT, "unparsed", None),
    ('{"answer": ' * (N // 11), DIRECT, "unparsed", None),
    ("{answer: " * (N // 9) + "{answer: 4}", DIRECT, "ok", 4),
    ("<answer>" * (N // 8) + "5</answer>", DIRECT, "ok", 5),
    ("The answer is " * (N // 14), DIRECT, "unparsed", None),
    ("\\boxed{" * (N // 7), DIRECT, "unparsed", None),
    ("7" * N, DIRECT, "unparsed", None),
    ("so " * (N // 3) + "6", COT, "ok", 6),
    ("(" * (N // 2) + "3" + ")" * (N // 2), DIRECT, "ok", 3),
    ("row 1 column 2 " * (N // 15), DIRECT, "unparsed", None),  # a loop: degenerate text is unparsed
], ids=["chain of thought", "braces", "unclosed JSON", "answer braces", "tags", "cues", "boxed", "digits", "so",
        "parentheses", "pairs"])
def test_answers_made_to_trip_the_parser_parse(text, ctx, status, value):
    parsed = parse_answer(text, ctx)
    assert (parsed.status, parsed.value) == (status, value), parsed
