"""The report's Cost section: what a run's answers cost per run, question key and level, and what
the run paid against its --max-cost; sums checked by hand."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
import yaml
from eval_data import answerer, make_dataset
from fake_vlm import FakeVLM

from byo.cli import main
from byo.score.cost import cost_by, cost_section


def row(key: str, levels: dict, cost: float | None, tokens: tuple[int, int] | None) -> dict:
    return {"key": key, "levels": levels, "cost_usd": cost,
            "tokens": {"input": tokens[0], "output": tokens[1]} if tokens else None}


def test_costs_are_summed_per_key_and_level():
    rows = [row("count", {"blur": 0}, 0.25, (100, 10)), row("count", {"blur": 2}, 0.5, (200, 20)),
            row("count", {"blur": 2}, None, None),  # a failed request: no cost
            row("color", {"blur": 0}, 1.0, (400, 5))]
    keys, levels = cost_by(rows)
    assert keys == [
        {"key": "count", "n": 3, "priced": 2, "cost_usd": 0.75, "per_question_usd": 0.375, "input_tokens": 300,
         "output_tokens": 30},
        {"key": "color", "n": 1, "priced": 1, "cost_usd": 1.0, "per_question_usd": 1.0, "input_tokens": 400,
         "output_tokens": 5}]
    assert [(lv["key"], lv["variable"], lv["level"], lv["n"], lv["cost_usd"]) for lv in levels] == [
        ("count", "blur", "0", 1, 0.25), ("count", "blur", "2", 2, 0.5), ("color", "blur", "0", 1, 1.0)]
    unpriced = SimpleNamespace(rows=[row("count", {}, None, None)], facts={})
    priced = SimpleNamespace(rows=rows, facts={"spent_usd": 0.5, "max_cost_usd": 2.0, "batch": True})
    section = cost_section([("free", unpriced), ("paid", priced)])
    assert [r["label"] for r in section["runs"]] == ["paid"]  # a run without prices has no cost row
    assert section["runs"][0]["cost_usd"] == 1.75 and section["runs"][0]["spent_usd"] == 0.5
    assert section["runs"][0]["batch"] is True


def test_the_report_shows_each_runs_cost_per_key_and_level(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-cost")
    ds = make_dataset(tmp_path / "ds", 9)
    providers = tmp_path / "providers.yaml"
    providers.write_text(yaml.safe_dump({"providers": {"openai": {"models": {"fake-vlm": {
        "input_per_million": 2.0, "output_per_million": 8.0}}}}}))
    with FakeVLM(answerer(ds)) as fake:
        assert main(["eval", str(ds), "--provider", "openai", "--model", "fake-vlm", "--base-url", fake.url + "/v1",
                     "--providers", str(providers), "--max-cost", "1"]) == 0
    run = ds / "runs" / "openai-fake-vlm"
    predictions = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    questions = {json.loads(q)["id"]: json.loads(q) for q in (ds / "questions.jsonl").read_text().splitlines()}
    by_key = {}
    for p in predictions:
        key = questions[p["id"]]["key"]
        by_key[key] = by_key.get(key, 0.0) + (p["tokens"]["input"] * 2.0 + p["tokens"]["output"] * 8.0) / 1e6
    out = tmp_path / "report.html"
    assert main(["report", str(run), "-o", str(out), "--bootstrap", "50"]) == 0
    html = out.read_text()
    section = html[html.index('<section id="cost">'):html.index('<section id="definitions">')]
    total = sum(by_key.values())
    assert f"<b>{total:.4f}</b>" in section and ">1</td>" in section  # the run's cost, and its cap
    assert json.loads((run / "run.json").read_text())["spent_usd"] == pytest.approx(total)
    for key, cost in by_key.items():
        assert re.search(rf"<td>{re.escape(key)}</td><td class=\"num\">\d+ of \d+</td>\s*<td class=\"num\">"
                         rf"{cost:.4f}</td>", section), key
    assert "<td>content.count</td>" in section
