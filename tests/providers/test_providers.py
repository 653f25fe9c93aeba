"""Each provider through its real client library, against a fake server on loopback."""

from __future__ import annotations

import base64
import json

import pytest
from eval_data import FAKE_KEYS, answerer, evaluate_fake, make_dataset, truth_by_image
from fake_vlm import FakeVLM

from byo.core.errors import ConfigError
from byo.providers import GenerationParams
from byo.providers.base import parse_retry_after
from byo.providers.keys import redact, redact_all, resolve_key


@pytest.fixture
def keys(monkeypatch):
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)


@pytest.mark.parametrize("provider, route, suffix, api", [
    ("openai", "/v1/chat/completions", "/v1", None),
    ("openai", "/v1/responses", "/v1", "responses"),
    ("groq", "/openai/v1/chat/completions", "", None),
    ("openai-compatible", "/v1/chat/completions", "/v1", None),
    ("ollama", "/api/chat", "", None),
])
def test_every_provider_sends_the_png_and_records_the_raw_answer(tmp_path, keys, provider, route, suffix, api):
    ds = make_dataset(tmp_path / "ds", 5)
    with FakeVLM(answerer(ds)) as fake:  # right, wrong, words, chain-of-thought, refusal
        report = evaluate_fake(ds, provider, fake.url + suffix, api=api,
                     params=GenerationParams(max_tokens=64, seed=None if api else 7, detail="low"))
    assert {s.route for s in fake.log} == {route}
    assert all(s.image_format == "png" for s in fake.log)
    truths = truth_by_image(ds)
    assert {s.image_sha256 for s in fake.log} == set(truths)
    expected = {s.image_sha256: answerer(ds)(s) for s in fake.log}
    assert sorted(r["response"] for r in report.rows) == sorted(expected.values())
    assert any("sorry" in r["response"] for r in report.rows)
    for row in report.rows:
        assert row["status"] == "ok" and row["attempts"] == 1 and row["reference"] is False
        assert row["image"]["format"] == "png" and row["image"]["downscaled"] is False
        assert row["tokens"]["total"] == row["tokens"]["input"] + row["tokens"]["output"] > 0
    assert report.tokens["input"] == fake.billed_tokens()["input"]
    assert report.tokens["output"] == fake.billed_tokens()["output"]


@pytest.mark.parametrize("provider, suffix", [("openai", "/v1"), ("groq", ""), ("ollama", "")])
def test_every_provider_keeps_more_than_its_sdk_pool_in_flight(tmp_path, keys, provider, suffix):
    """The SDKs' pools stop at 100 connections (groq, ollama): a run's concurrency sizes them."""
    ds = make_dataset(tmp_path / "ds", 120)
    with FakeVLM(gate=101) as fake:  # no answer until 101 requests are in flight (or a minute has passed)
        report = evaluate_fake(ds, provider, fake.url + suffix, concurrency=120)
    assert report.statuses == {"ok": 120} and fake.max_in_flight > 100


def test_generation_parameters_reach_each_api(tmp_path, keys):
    ds = make_dataset(tmp_path / "ds", 1)
    params = GenerationParams(temperature=0.0, max_tokens=32, seed=3, detail="high")
    with FakeVLM() as fake:
        evaluate_fake(ds, "openai", fake.url + "/v1", params=params)
        evaluate_fake(ds, "openai", fake.url + "/v1", api="responses", params=params.model_copy(update={"seed": None}),
            run="responses")
        evaluate_fake(ds, "openai-compatible", fake.url + "/v1", params=params)
        evaluate_fake(ds, "ollama", fake.url, params=params)
    chat, responses, compatible, ollama = (s.body for s in fake.log)
    assert chat["temperature"] == 0 and chat["max_completion_tokens"] == 32 and chat["seed"] == 3
    image_part = chat["messages"][0]["content"][1]
    assert image_part["image_url"]["detail"] == "high"
    assert image_part["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")
    assert responses["store"] is False and responses["max_output_tokens"] == 32 and "seed" not in responses
    assert responses["input"][0]["content"][1] == {
        "type": "input_image", "detail": "high", "image_url": image_part["image_url"]["url"]}
    assert compatible["max_tokens"] == 32 and "max_completion_tokens" not in compatible
    assert ollama["options"] == {"temperature": 0.0, "seed": 3, "num_predict": 32}
    assert base64.b64decode(ollama["messages"][0]["images"][0]).startswith(b"\x89PNG")
    assert ollama["stream"] is False


@pytest.mark.parametrize("fault, status", [
    ("429", "rate_limited"), ("500", "server_error"), ("timeout", "timeout"), ("malformed", "malformed"),
    ("reject_image", "rejected"),
])
@pytest.mark.parametrize("provider, suffix", [("openai", "/v1"), ("groq", ""), ("ollama", "")])
def test_failures_map_to_an_explicit_status(tmp_path, keys, provider, suffix, fault, status):
    ds = make_dataset(tmp_path / "ds", 1)
    with FakeVLM(plan=lambda seen, before: fault, hang=0.8) as fake:
        report = evaluate_fake(ds, provider, fake.url + suffix, timeout=0.5, retries=0)
    (row,) = report.rows
    assert row["status"] == status and row["response"] is None and row["tokens"] is None
    assert row["error"] and row["attempts"] == 1


def test_an_image_the_provider_rejects_is_an_error_not_a_text_only_request(tmp_path, keys):
    ds = make_dataset(tmp_path / "ds", 3)
    with FakeVLM(plan=lambda seen, before: "reject_image") as fake:
        report = evaluate_fake(ds, "openai", fake.url + "/v1", retries=3)
    assert [r["status"] for r in report.rows] == ["rejected"] * 3
    assert "does not support image" in report.rows[0]["error"]
    assert len(fake.log) == 3  # not retried, and never resent without the image
    assert all(s.image_format == "png" for s in fake.log)


def test_reference_providers_are_labelled_and_send_nothing(tmp_path):
    ds = make_dataset(tmp_path / "ds", 10)
    questions = [json.loads(line) for line in (ds / "questions.jsonl").read_text().splitlines()]
    oracle = evaluate_fake(ds, "oracle", None, model=None)
    assert [r["response"] for r in oracle.rows] == [str(q["answer"]) for q in questions]
    blind = evaluate_fake(ds, "blind", None, model=None)
    by_key: dict[str, list] = {}
    for q in questions:
        by_key.setdefault(q["key"], []).append(q["answer"])
    for q, row in zip(questions, blind.rows, strict=True):
        answers = by_key[q["key"]]
        assert answers.count(int(row["response"])) == max(answers.count(a) for a in answers)
        assert row["reference"] is True and row["image"] is None and row["tokens"]["total"] == 0
    assert blind.requests_sent == oracle.requests_sent == 0
    assert not (ds / "runs" / "cache.sqlite").exists()


def test_images_over_the_limit_fail_unless_downscaling_is_requested(tmp_path, keys):
    ds = make_dataset(tmp_path / "ds", 2, size=(64, 48))
    providers = tmp_path / "providers.yaml"
    providers.write_text("providers:\n  tight:\n    type: openai-compatible\n    max_image_pixels: 1000\n")
    with FakeVLM() as fake:
        url = fake.url + "/v1"
        refused = evaluate_fake(ds, "tight", url, providers_file=providers, run="refused")
        assert not fake.log
        sent = evaluate_fake(ds, "tight", url, providers_file=providers, run="sent", max_side=8)
    assert [r["status"] for r in refused.rows] == ["image_too_large"] * 2
    assert "pass `max_side` to downscale" in refused.rows[0]["error"]  # a row keeps the field
    row = sent.rows[0]
    assert row["status"] == "ok"
    assert row["image"]["size"] == [64, 48] and row["image"]["sent_size"] == [8, 6]
    assert row["image"]["downscaled"] is True and row["image"]["format"] == "png"
    assert all(s.image_format == "png" for s in fake.log)


def test_keys_come_from_the_environment_or_a_named_file(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY: not set"):
        resolve_key("openai")
    alone = tmp_path / "key"
    alone.write_text("sk-alone\n")
    assert resolve_key("openai", key_file=alone) == ("sk-alone", f"file {alone}")
    dotenv = tmp_path / ".env"
    dotenv.write_text("# keys\nGROQ_API_KEY=gsk-groq\nexport OPENAI_API_KEY='sk-file'\n")
    assert resolve_key("openai", key_file=dotenv)[0] == "sk-file"
    assert resolve_key("groq", key_file=dotenv)[0] == "gsk-groq"
    with pytest.raises(ConfigError) as err:
        resolve_key("openai", key_env="OTHER_KEY", key_file=dotenv)
    assert "OTHER_KEY=KEY" in str(err.value) and "gsk-groq" not in str(err.value)
    monkeypatch.setenv("MY_KEY", "sk-env")
    assert resolve_key("openai-compatible", key_env="MY_KEY") == ("sk-env", "environment MY_KEY")
    assert resolve_key("openai-compatible") == (None, "none")
    assert redact("Incorrect API key provided: sk-env.", ["sk-env", None]) == \
        "Incorrect API key provided: [redacted]."


def test_redaction_finds_a_key_in_any_spelling():
    key = "sk-Proj/AbC+123=="
    text = f"sent {key}; echoed {key.lower()} and {key.upper()}; in a URL ?key=sk-Proj%2FAbC%2B123%3D%3D"
    assert redact(text, [key]) == "sent [redacted]; echoed [redacted] and [redacted]; in a URL ?key=[redacted]"
    row = {"response": f"Key: {key.swapcase()}", "tokens": {"total": 3}, "parts": [key.lower(), None]}
    assert redact_all(row, [None, key]) == {"response": "Key: [redacted]", "tokens": {"total": 3},
                                            "parts": ["[redacted]", None]}
    assert redact("no-key", ["no"]) == "no-key"  # too short to be a key


def test_retry_after_forms():
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # in the past
    assert parse_retry_after({}) is None
