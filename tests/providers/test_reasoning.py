"""Reasoning models through the real openai client against the loopback fake server: their
thinking (`<think>` blocks, `reasoning_content`, `reasoning`) is stored apart from the answer and
never parsed; OpenAI's reasoning models get `max_completion_tokens` and `reasoning_effort` and no
temperature, known by name or learnt from the server's 400."""

from __future__ import annotations

import json

import pytest
from eval_data import FAKE_KEYS, evaluate_fake, make_dataset, truth_by_image
from fake_vlm import FakeVLM

from byo.providers import GenerationParams
from byo.providers.reasoning import is_reasoning_model, split_reasoning
from byo.score.run import score_run

# Numbers the parser would take if it read the reasoning: none of them is a true count (2 to 6).
THOUGHT = ("Let me count. At first I see 9 objects, then 11 in the back row... wait, 8 of them are shadows? "
           "Counting again: 1, 2, 7. Hmm, maybe 12 in total. Let me look once more before answering.")
SHAPES = {
    "think block": lambda t: {"content": f"<think>{THOUGHT}</think> The answer is {t}"},
    "reasoning_content": lambda t: {"content": f"The answer is {t}", "reasoning_content": THOUGHT,
                                    "reasoning_tokens": 37},
    "reasoning field": lambda t: {"content": f"{t}", "reasoning": THOUGHT, "reasoning_tokens": 37},
    "block opened in the prompt": lambda t: {"content": f"{THOUGHT}\n</think>\n\nThe answer is {t}."},
}
REFUSE = {"max_tokens": "Unsupported parameter: 'max_tokens' is not supported with this model. "
                        "Use 'max_completion_tokens' instead.",
          "temperature": "Unsupported value: 'temperature' does not support 0.0 with this model. "
                         "Only the default (1) value is supported."}


@pytest.fixture
def keys(monkeypatch):
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)


def replies(ds, shape: str):
    truths = truth_by_image(ds)
    return lambda seen: SHAPES[shape](truths[seen.image_sha256])


@pytest.mark.parametrize("shape", SHAPES)
def test_reasoning_is_stored_apart_and_the_run_scores_every_answer(tmp_path, keys, shape):
    ds = make_dataset(tmp_path / "ds", 6)
    with FakeVLM(replies(ds, shape)) as fake:
        report = evaluate_fake(ds, "openai-compatible", fake.url + "/v1", params=GenerationParams(max_tokens=512))
    assert report.statuses == {"ok": 6}
    for row in report.rows:
        assert THOUGHT in row["reasoning"], row  # stored whole, beside the answer
        assert THOUGHT not in row["response"] and "think>" not in row["response"]
        if "reasoning_tokens" in SHAPES[shape](3):
            assert row["tokens"]["reasoning"] == 37
    scores, _ = score_run(report.run_dir, n_boot=10)
    assert scores.overall["accuracy"] == 1.0 and scores.overall["parse_rate"] == 1.0
    parsed = [json.loads(line) for line in (report.run_dir / "parsed.jsonl").read_text().splitlines()]
    assert all(r["status"] == "ok" and r["correct"] and THOUGHT not in r["response"] for r in parsed)


def test_a_reasoning_model_known_by_name_gets_the_parameters_it_takes(tmp_path, keys):
    ds = make_dataset(tmp_path / "ds", 3)
    params = GenerationParams(max_tokens=2000, reasoning_effort="low")
    with FakeVLM(replies(ds, "reasoning_content"), refuse=REFUSE) as fake:
        report = evaluate_fake(ds, "openai", fake.url + "/v1", model="o4-mini", params=params)
    assert report.statuses == {"ok": 3} and len(fake.log) == 3  # nothing refused, nothing sent twice
    for seen in fake.log:
        assert seen.body["max_completion_tokens"] == 2000 and seen.body["reasoning_effort"] == "low"
        assert "temperature" not in seen.body and "max_tokens" not in seen.body
    assert all(r["parameters"]["reasoning_effort"] == "low" for r in report.rows)


def test_an_unknown_reasoning_model_is_learnt_from_the_servers_400(tmp_path, keys):
    ds = make_dataset(tmp_path / "ds", 4)
    with FakeVLM(replies(ds, "think block"), refuse=REFUSE) as fake:
        report = evaluate_fake(ds, "openai-compatible", fake.url + "/v1", model="house-reasoner-2",
                               params=GenerationParams(max_tokens=300), concurrency=1)
    assert report.statuses == {"ok": 4} and all(r["attempts"] == 1 for r in report.rows)
    refused = [s for s in fake.log if s.outcome.startswith("refused")]
    assert len(refused) == 1 and len(fake.log) == 5  # the first request once more, then the parameters it takes
    for seen in fake.log[1:]:
        assert seen.body["max_completion_tokens"] == 300 and "temperature" not in seen.body
        assert "max_tokens" not in seen.body


def test_a_chat_model_keeps_its_parameters_and_another_400_is_no_lesson(tmp_path, keys):
    ds = make_dataset(tmp_path / "ds", 2)
    with FakeVLM(plan=lambda seen, before: "reject_image") as fake:
        report = evaluate_fake(ds, "openai", fake.url + "/v1", model="gpt-4o", retries=0)
    assert report.statuses == {"rejected": 2} and len(fake.log) == 2
    assert all(s.body["temperature"] == 0 and "reasoning_effort" not in s.body for s in fake.log)
    assert all("reasoning" not in r for r in report.rows)


def test_reasoning_model_names():
    for name in ("o1", "o1-mini", "o3-pro", "o4-mini-2025-04-16", "gpt-5", "gpt-5-mini", "openai/o3",
                 "codex-mini-latest"):
        assert is_reasoning_model(name), name
    for name in ("gpt-4o", "gpt-4.1-mini", "gpt-5-chat-latest", "olmo-2", "Qwen/QwQ-32B", "omni-moderation"):
        assert not is_reasoning_model(name), name


@pytest.mark.parametrize("text, answer, thought", [
    ("<think>2 or 3?</think>The cube count is 4.", "The cube count is 4.", "2 or 3?"),
    ("I weighed 5 against 6.</think> Final: 6", "Final: 6", "I weighed 5 against 6."),
    ("<think>7 pieces, maybe 8, the board is", "", "7 pieces, maybe 8, the board is"),
    ("No reasoning here: 3", "No reasoning here: 3", None),
    ("<thinking>first 1</thinking>Two. <think>then 2</think>", "Two.", "first 1\n\nthen 2"),
])
def test_splitting_thinking_from_the_answer(text, answer, thought):
    assert split_reasoning(text) == (answer, thought)
