"""`byo eval --structured`: a JSON schema built from each question's answer type goes to the
provider (the real openai client's `response_format` against the loopback fake server; Ollama's
`format`), the reply is read as JSON of that schema and nothing else, the run is cached apart from
the free-form one, and the report sets the two runs side by side."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from fake_vlm import FakeVLM
from score_fixtures import make_dataset

from byo.cli import main
from byo.questions.answer_schema import (
    CARD_CODES,
    NotAnAnswer,
    answer_schema,
    as_structured,
    read_reply,
)
from byo.score.parse.kinds import Domains, context_for
from byo.score.parse.structured import parse_structured

KEY_ENV = {"OPENAI_API_KEY": "sk-test-structured"}


@pytest.mark.parametrize(("answer_type", "good", "bad"), [
    ("integer", 3, "3"),
    ("row", 0, 1.5),
    ("cell", {"row": 1, "column": 2}, [1, 2]),
    ("yes_no", "no", "No"),
    ("multiple_choice", "B", "E"),
    ("position_word", "upper left", "top left"),
    ("card", "10H", "TH"),
    ("card_set", ["AS", "2C"], ["AS", "1C"]),
    ("label", "knight", 7),
    ("label_set", ["rook", "pawn"], "rook"),
    ("crest_program", "C:01 X:0 M:0010", None),
])
def test_each_answer_type_has_a_schema_that_reads_exactly(answer_type, good, bad):
    choices = ["w", "x", "y", "z"] if answer_type == "multiple_choice" else None
    schema = answer_schema(answer_type, choices)
    assert schema["required"] == ["answer"] and schema["additionalProperties"] is False
    assert read_reply(json.dumps({"answer": good}), schema) == good
    for reply in ([json.dumps({"answer": bad})] if bad is not None else []) + [
            "The answer is 3", json.dumps({"answer": good, "confidence": 1}), json.dumps({"reasoning": "x"}), "", None]:
        with pytest.raises(NotAnAnswer):
            read_reply(reply, schema)
    cot = answer_schema(answer_type, choices, reasoning=True)
    assert list(cot["properties"]) == ["reasoning", "answer"] and cot["required"] == ["reasoning", "answer"]
    assert len(CARD_CODES) == 52


def test_labels_are_read_through_the_vocabulary_without_search(tmp_path):
    rows = make_dataset(tmp_path / "ds")
    from byo.questions.load import load_questions

    questions = load_questions(tmp_path / "ds/questions.jsonl", tmp_path / "ds")
    domains = Domains.from_questions(questions)
    q = next(q for q in questions if q.answer_type == "label" and q.preprompt == "neutral")
    ctx = context_for(q, domains)
    assert parse_structured('{"answer": "  Knight "}', ctx).value == "knight"
    assert parse_structured('{"answer": "a knight"}', ctx).value == "a knight"  # no search inside the text
    assert parse_structured('The answer is {"answer": "knight"}', ctx).status == "unparsed"
    assert parse_structured('{"answer": "knight"}', ctx, refusal=True).status == "refusal"
    assert rows


def by_request(rows: list[dict], dataset) -> dict[tuple, dict]:
    """(prompt, image sha256) -> its question: what the fake server sees of a request."""
    return {(q["prompt"], hashlib.sha256((dataset / q["image"]).read_bytes()).hexdigest()): q for q in rows}


def answer_for(questions: dict[tuple, dict], structured_ok: set[str]):
    """The fake model: free-form, a hedge or a plain answer; structured, the truth as JSON of the
    schema it was sent, except for a few replies that break the schema."""
    def answer(seen) -> str:
        q = questions[seen.item]
        fmt = seen.body.get("response_format")
        if fmt is None:
            return "Hard to tell, perhaps 2 or 3." if q["answer_type"] == "integer" else json.dumps(q["answer"])
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        schema = fmt["json_schema"]["schema"]
        assert schema == answer_schema(q["answer_type"], q["choices"], reasoning=q["preprompt"] == "cot")
        if q["id"] not in structured_ok:
            return "I think the answer is " + json.dumps(q["answer"])
        reasoning = {"reasoning": "counted"} if "reasoning" in schema["properties"] else {}
        return json.dumps({**reasoning, "answer": as_structured(q["answer_type"], q["answer"])})
    return answer


@pytest.mark.slow
def test_structured_run_through_the_openai_client_is_read_exactly_and_reported(tmp_path, monkeypatch):
    for k, v in KEY_ENV.items():
        monkeypatch.setenv(k, v)
    rows = make_dataset(tmp_path / "ds")
    ds = tmp_path / "ds"
    rng = random.Random(1)
    ok = {q["id"] for q in rows if rng.random() < 0.9}
    with FakeVLM(answer_for(by_request(rows, ds), ok)) as fake:
        base = ["eval", str(ds), "--provider", "openai-compatible", "--base-url", fake.url + "/v1",
                "--model", "fake-vlm", "--concurrency", "4"]
        assert main(base) == 0
        free_requests = len(fake.log)
        assert main([*base, "--structured"]) == 0
        assert len(fake.log) == 2 * free_requests  # the free-form answers are not served to the structured run
        assert all("response_format" not in s.body for s in fake.log[:free_requests])
    free, structured = ds / "runs/openai-compatible-fake-vlm", ds / "runs/openai-compatible-fake-vlm-structured"
    assert json.loads((structured / "run.json").read_text())["request"]["structured"] is True
    for run in (free, structured):
        assert main(["score", str(run), "--bootstrap", "0"]) == 0
    parsed = {p["id"]: p for p in map(json.loads, (structured / "parsed.jsonl").read_text().splitlines())}
    by_id = {q["id"]: q for q in rows}
    for qid, p in parsed.items():
        if qid in ok:
            assert p["status"] == "ok" and p["correct"] and p["method"] == "structured output", qid
        else:  # JSON after words is not JSON of the schema: never searched for
            assert p["status"] == "unparsed" and not p["correct"], qid
    free_parsed = [json.loads(line) for line in (free / "parsed.jsonl").read_text().splitlines()]
    assert any(p["status"] == "ambiguous" for p in free_parsed if by_id[p["id"]]["answer_type"] == "integer")
    report = tmp_path / "report.html"
    assert main(["report", str(free), str(structured), "-o", str(report), "--bootstrap", "50"]) == 0
    html = report.read_text()
    assert "fake-vlm vs fake-vlm (structured)" in html  # the paired comparison of the two runs


def test_ollama_gets_the_schema_as_format_and_oracle_replies_in_it(tmp_path):
    rows = make_dataset(tmp_path / "ds")
    ds = tmp_path / "ds"
    questions = by_request(rows, ds)

    def answer(seen) -> str:
        q = questions[seen.item]
        assert seen.body["format"] == answer_schema(q["answer_type"], q["choices"], reasoning=q["preprompt"] == "cot")
        return json.dumps({**({"reasoning": ""} if q["preprompt"] == "cot" else {}),
                           "answer": as_structured(q["answer_type"], q["answer"])})

    with FakeVLM(answer) as fake:
        assert main(["eval", str(ds), "--provider", "ollama", "--base-url", fake.url, "--model", "llava",
                     "--structured", "--limit", "30"]) == 0
    run = ds / "runs/ollama-llava-structured"
    assert main(["score", str(run), "--bootstrap", "0"]) == 0
    assert all(json.loads(line)["correct"] for line in (run / "parsed.jsonl").read_text().splitlines())
    assert main(["eval", str(ds), "--provider", "oracle", "--structured"]) == 0
    oracle = ds / "runs/oracle-structured"
    assert main(["score", str(oracle), "--bootstrap", "0"]) == 0
    scores = json.loads((oracle / "scores.json").read_text())
    overall = next(r for r in scores["tables"]["metrics"] if r["key"] == "*" and r["variant"] == "all"
                   and not r["variable"])
    assert overall["accuracy"] == 1.0 and overall["n"] == len(rows)


def test_a_provider_without_schemas_refuses_structured(tmp_path, capsys):
    make_dataset(tmp_path / "ds")
    code = main(["eval", str(tmp_path / "ds"), "--provider", "hf", "--model", str(tmp_path / "none"), "--structured"])
    assert code == 2
    assert "--structured: the hf provider takes no JSON schema" in capsys.readouterr().err
    assert not (tmp_path / "ds/runs").exists()
