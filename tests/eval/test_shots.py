"""`byo eval --shots K`: K solved examples before each question, in every chat provider's
multi-image format, recorded by the loopback server; never the image under test; cached."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
from eval_data import FAKE_KEYS, evaluate_fake, make_dataset
from fake_vlm import FakeVLM

from byo.cli import main
from byo.core.errors import ConfigError
from byo.eval.shots import answer_text


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)


def questions(ds) -> dict[str, dict]:
    return {q["id"]: q for q in map(json.loads, (ds / "questions.jsonl").read_text().splitlines())}


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("provider, suffix, api", [
    ("openai", "/v1", None), ("openai", "/v1", "responses"), ("groq", "", None),
    ("openai-compatible", "/v1", None), ("ollama", "", None)])
def test_three_shots_send_four_images_never_the_test_image_and_rerun_from_cache(tmp_path, provider, suffix, api):
    ds = make_dataset(tmp_path / "ds", 12)
    qs = questions(ds)
    with FakeVLM() as fake:
        report = evaluate_fake(ds, provider, fake.url + suffix, api=api, shots=3)
        first = list(fake.answered())
        assert len(first) == 12
        for seen in first:
            assert len(seen.images) == 4  # three examples, then the question's image
            assert seen.images[-1] == seen.image_sha256
            assert seen.image_sha256 not in seen.images[:3]
        for row in report.rows:
            q = qs[row["id"]]
            assert len(row["shots"]) == 3 and row["id"] not in row["shots"]
            assert all(qs[s]["key"] == q["key"] and qs[s]["image"] != q["image"] for s in row["shots"])
            # the server saw exactly these examples' images, in this order
            seen = next(s for s in first if s.image_sha256 == sha(ds / q["image"]))
            assert seen.images[:3] == [sha(ds / qs[s]["image"]) for s in row["shots"]]
            assert row["tokens"]["input"] >= 4 * 85  # the fake bills each image
        assert report.run_dir.name.endswith("-3shot")
        again = evaluate_fake(ds, provider, fake.url + suffix, api=api, shots=3)
        assert len(fake.answered()) == 12  # nothing sent again
    assert again.cached == 12 and again.requests_sent == 0
    assert [r["shots"] for r in again.rows] == [r["shots"] for r in report.rows]


def test_the_examples_answer_in_the_assistant_turns_and_enter_the_cache_key(tmp_path):
    ds = make_dataset(tmp_path / "ds", 12)
    qs = questions(ds)
    with FakeVLM() as fake:
        report = evaluate_fake(ds, "openai", fake.url + "/v1", shots=2, shots_seed=1)
        body = fake.answered()[0].body
        messages = body["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
        row = next(r for r in report.rows if r["prompt"] == messages[-1]["content"][0]["text"]
                   and sha(ds / qs[r["id"]]["image"]) == fake.answered()[0].image_sha256)
        assert [m["content"] for m in messages[1::2][:2]] == [answer_text(qs[s]["answer"]) for s in row["shots"]]
        # other examples (another seed) are another request; zero-shot is another request too
        other = evaluate_fake(ds, "openai", fake.url + "/v1", shots=2, shots_seed=2, run="seed2")
        zero = evaluate_fake(ds, "openai", fake.url + "/v1")
    assert other.cached == 0 and zero.cached == 0
    assert [r["shots"] for r in other.rows] != [r["shots"] for r in report.rows]
    assert "shots" not in zero.rows[0]


def test_shots_from_a_named_split_or_another_dataset(tmp_path):
    ds = make_dataset(tmp_path / "ds", 12)
    lines = [json.loads(x) for x in (ds / "questions.jsonl").read_text().splitlines()]
    for i, q in enumerate(lines):  # images 0..5 train, 6..11 test
        q["params"] = {"split": "train" if i < 6 else "test"}
    (ds / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in lines))
    train = {q["id"] for q in lines if q["params"]["split"] == "train"}
    other = make_dataset(tmp_path / "other", 12, name="other")
    with FakeVLM() as fake:
        report = evaluate_fake(ds, "openai", fake.url + "/v1", shots=1, shots_from="train")
        assert all(set(r["shots"]) <= train for r in report.rows)
        elsewhere = evaluate_fake(ds, "openai", fake.url + "/v1", shots=2, shots_from=str(other), run="other")
    assert all(s.startswith("other_") for r in elsewhere.rows for s in r["shots"])


def test_bad_shot_requests_fail_before_any_request(tmp_path, capsys):
    ds = make_dataset(tmp_path / "ds", 4)
    with pytest.raises(ConfigError, match="<arguments>: shots: 5 examples"):
        evaluate_fake(ds, "openai", "http://127.0.0.1:9/v1", shots=5)  # 4 images: at most 3 others per question
    with pytest.raises(ConfigError, match="shots_from"):
        evaluate_fake(ds, "openai", "http://127.0.0.1:9/v1", shots=1, shots_from=str(tmp_path / "nowhere"))
    with pytest.raises(ConfigError, match="sends no examples"):
        evaluate_fake(ds, "oracle", None, model=None, shots=1)
    shutil.rmtree(ds / "runs", ignore_errors=True)
    assert main(["eval", str(ds), "--provider", "openai", "--model", "m", "--shots", "2", "--structured",
                 "--base-url", "http://127.0.0.1:9/v1"]) == 2
    assert "--shots" in capsys.readouterr().err
