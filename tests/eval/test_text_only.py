"""The text-only baseline (`byo eval --text-only`): a real language model, through the real client
library against a server on loopback that takes text alone, is asked every question without its
image, after the sentence saying so; it is cached apart from the image run, named apart, scored as
usual, and refused for providers that are not language models behind an API."""

from __future__ import annotations

import json

import pytest
from fake_vlm import FakeVLM
from retrieval_data import make_retrieval_dataset

from byo.cli import main
from byo.eval.requests import TEXT_ONLY_PREFACE


def picks_first_option(seen) -> str:
    return "A"


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_questions_go_without_their_images_and_are_scored(provider, tmp_path, monkeypatch):
    ds = make_retrieval_dataset(tmp_path / "ds", 8)
    with FakeVLM(picks_first_option, text_only=True) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        base = f"{fake.url}/v1" if provider == "openai" else fake.url
        assert main(["eval", str(ds), "--provider", provider, "--model", "llm", "--base-url", base,
                     "--text-only"]) == 0
        seen = fake.answered()
    assert len(seen) == 8 and all(s.image_sha256 is None for s in seen)  # no image was sent
    assert all(s.prompt.startswith(TEXT_ONLY_PREFACE) and "Which caption" in s.prompt for s in seen)
    run = ds / "runs" / f"{provider}-llm-text-only"
    info = json.loads((run / "run.json").read_text())
    assert info["request"]["text_only"] is True
    rows = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    assert all(r["image"] is None and r["response"] == "A" for r in rows)
    assert main(["score", str(run)]) == 0
    parsed = [json.loads(line) for line in (run / "parsed.jsonl").read_text().splitlines()]
    truth_is_a = sum(q["answer"] == "A" for q in map(json.loads, (ds / "questions.jsonl").read_text().splitlines()))
    assert sum(r["correct"] for r in parsed) == truth_is_a
    table = json.loads((run / "scores.json").read_text())["tables"]["retrieval"]
    overall = next(t for t in table if t["variant"] == "all")
    assert not overall["ranked"] and overall["recall_at_1"] == pytest.approx(truth_is_a / 8)


def test_an_image_run_and_a_text_only_run_do_not_share_answers(tmp_path, monkeypatch):
    ds = make_retrieval_dataset(tmp_path / "ds", 3)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeVLM(picks_first_option) as vlm:
        assert main(["eval", str(ds), "--provider", "openai", "--model", "m", "--base-url", f"{vlm.url}/v1"]) == 0
        assert len(vlm.answered()) == 3 and all(s.image_sha256 for s in vlm.answered())
    with FakeVLM(picks_first_option, text_only=True) as llm:
        assert main(["eval", str(ds), "--provider", "openai", "--model", "m", "--base-url", f"{llm.url}/v1",
                     "--text-only"]) == 0
        assert len(llm.answered()) == 3  # asked anew: the cached answers saw the images


@pytest.mark.parametrize("provider", ["oracle", "blind", "rank-blind"])
def test_text_only_needs_a_language_model(provider, tmp_path, capsys):
    ds = make_retrieval_dataset(tmp_path / "ds", 2)
    assert main(["eval", str(ds), "--provider", provider, "--text-only"]) == 2
    assert "--text-only" in capsys.readouterr().err
