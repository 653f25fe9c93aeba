"""A provider is one module and one registration line: its class says its key and base-URL variables
and its capabilities, and `byo eval --help`, `byo doctor`, the missing-key error and a run read them
from there. The new provider here speaks OpenAI's chat completions; its run goes through the real
openai client to a fake server on loopback."""

from __future__ import annotations

import json

import pytest
from eval_data import make_dataset
from fake_vlm import FakeVLM

from byo.cli import doctor, main
from byo.providers import PROVIDERS

MODULE = '''
from byo.providers.openai_api import OpenAICompatible


class Acme(OpenAICompatible):
    """Acme's vision API: OpenAI's chat completions behind Acme's own key and endpoint variables."""

    type = "acme"
    key_env = "ACME_API_KEY"
    key_required = True
    base_url_env = "ACME_BASE_URL"
    base_url_required = None
    text_only = True
    few_shot = False
'''


@pytest.fixture
def acme(tmp_path, monkeypatch):
    """The module, and its one line in PROVIDERS."""
    (tmp_path / "acme_provider.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(PROVIDERS.where, "acme", "acme_provider:Acme")
    monkeypatch.delenv("ACME_API_KEY", raising=False)
    monkeypatch.delenv("ACME_BASE_URL", raising=False)


def test_the_help_lists_the_new_provider_and_its_capabilities(acme, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "2000")  # one line per option: no break inside "openai-compatible"
    with pytest.raises(SystemExit) as done:
        main(["eval", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "a chat model's provider: openai, groq, ollama, openai-compatible, azure, anthropic, gemini, hf, acme " in text
    assert "acme ACME_API_KEY" in text and "acme ACME_BASE_URL" in text  # --key-env's and --base-url's defaults
    assert "(openai, groq, ollama, openai-compatible, azure, anthropic, gemini, acme) each question" in text  # --text-only
    assert "few-shot prompts (openai, groq, ollama, openai-compatible, azure, anthropic, gemini):" in text  # not acme


def test_doctor_tells_whether_its_key_is_set(acme, monkeypatch, capsys):
    monkeypatch.setattr(doctor, "_probed", lambda refresh: ({"wheel": "-", "devices": "-", "debian": "-"}, None))
    assert main(["doctor", "--json"]) == 0
    assert "ACME_API_KEY not set" in json.loads(capsys.readouterr().out)["provider keys"]
    monkeypatch.setenv("ACME_API_KEY", "sk-acme")
    assert main(["doctor", "--json"]) == 0
    assert "ACME_API_KEY set" in json.loads(capsys.readouterr().out)["provider keys"]


def test_a_run_without_its_key_is_refused_naming_its_variable(acme, tmp_path, capsys):
    ds = make_dataset(tmp_path / "ds", 2)
    assert main(["eval", str(ds), "--provider", "acme", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]) == 2
    assert "ACME_API_KEY: not set: the acme provider needs an API key" in " ".join(capsys.readouterr().err.split())
    assert not (ds / "runs" / "acme-m").exists()


def test_a_run_asks_its_endpoint_with_its_key(acme, tmp_path, monkeypatch):
    ds = make_dataset(tmp_path / "ds", 3)
    with FakeVLM(lambda seen: "3") as fake:
        monkeypatch.setenv("ACME_API_KEY", "sk-acme-test")
        monkeypatch.setenv("ACME_BASE_URL", f"{fake.url}/v1")  # its base-URL variable, read by byo
        assert main(["eval", str(ds), "--provider", "acme", "--model", "vision-1", "-q"]) == 0
        seen = fake.answered()
    assert len(seen) == 3 and {s.auth for s in seen} == {"Bearer sk-acme-test"} and all(s.image_sha256 for s in seen)
    run = ds / "runs" / "acme-vision-1"
    info = json.loads((run / "run.json").read_text())
    assert info["request"]["type"] == "acme" and info["request"]["endpoint"] == f"acme@{fake.url}/v1"
    assert info["key_source"] == "environment ACME_API_KEY"
    rows = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    assert [r["response"] for r in rows] == ["3", "3", "3"]
