"""Azure OpenAI, and Anthropic and Gemini through their OpenAI-compatible endpoints: each through
the real openai client against a loopback server shaped like its API (route, key header, query,
usage), its key read from its own variable."""

from __future__ import annotations

import json

import pytest
from eval_data import answerer, evaluate_fake, make_dataset, truth_by_image
from fake_vlm import IMAGE_TOKENS, THOUGHT_TOKENS, FakeVLM

from byo.core.errors import ConfigError
from byo.eval.resolve import Evaluation
from byo.eval.settings import EvalSettings
from byo.providers import GenerationParams
from byo.providers.anthropic_compat import ANTHROPIC_BASE_URL, DEFAULT_MAX_TOKENS
from byo.providers.gemini_compat import GEMINI_BASE_URL

KEY = "sk-hosted-test-0123456789"
CASES = {  # provider -> (the base URL's path, the route asked, the key's variable)
    "azure": ("", "/openai/deployments/vision-prod/chat/completions", "AZURE_OPENAI_API_KEY"),
    "anthropic": ("/v1/", "/v1/chat/completions", "ANTHROPIC_API_KEY"),
    "gemini": ("/v1beta/openai/", "/v1beta/openai/chat/completions", "GEMINI_API_KEY"),
}


@pytest.mark.parametrize("provider", list(CASES))
def test_each_hosted_provider_answers_a_server_shaped_like_its_api(tmp_path, monkeypatch, provider):
    suffix, route, variable = CASES[provider]
    for other in ("OPENAI_API_KEY", *(v for _, _, v in CASES.values())):
        monkeypatch.delenv(other, raising=False)
    monkeypatch.setenv(variable, KEY)
    ds = make_dataset(tmp_path / "ds", 5)
    azure = {"deployment": "vision-prod", "api_version": "2024-10-21"} if provider == "azure" else {}
    with FakeVLM(answerer(ds)) as fake:
        report = evaluate_fake(ds, provider, fake.url + suffix, model="the-model",
                               params=GenerationParams(detail="low", seed=3), **azure)
    assert report.statuses == {"ok": 5}
    assert {s.route for s in fake.log} == {route}
    assert {s.image_sha256 for s in fake.log} == set(truth_by_image(ds))
    for seen in fake.log:
        if provider == "azure":  # the key in api-key, the version in the query, the deployment as the model
            assert seen.headers["api-key"] == KEY and "authorization" not in seen.headers
            assert seen.query == "api-version=2024-10-21" and seen.body["model"] == "vision-prod"
        else:
            assert seen.headers["authorization"] == f"Bearer {KEY}" and seen.body["model"] == "the-model"
        assert seen.body["messages"][0]["content"][1]["image_url"]["detail"] == "low"
    bodies = [s.body for s in fake.log]
    if provider == "anthropic":  # the Messages API needs a maximum output
        assert {b["max_tokens"] for b in bodies} == {DEFAULT_MAX_TOKENS}
    else:
        assert all("max_tokens" not in b and "max_completion_tokens" not in b for b in bodies)
    for row in report.rows:
        assert row["model"] == "the-model" and row["provider"] == provider
        visible = row["tokens"]["output"] - (THOUGHT_TOKENS if provider == "gemini" else 0)
        assert visible == len(row["response"].split())
        assert row["tokens"]["input"] == len(row["prompt"].split()) + IMAGE_TOKENS
        if provider == "gemini":  # thought tokens, in total_tokens only, read as reasoning and billed as output
            assert row["tokens"]["reasoning"] == THOUGHT_TOKENS
        else:
            assert "reasoning" not in row["tokens"]
    assert report.tokens["output"] == fake.billed_tokens()["output"]
    run = json.loads((report.run_dir / "run.json").read_text())
    assert run["key_source"] == f"environment {variable}"
    assert run["request"]["endpoint"] == (f"azure@{fake.url}/deployments/vision-prod" if provider == "azure"
                                          else f"{provider}@{fake.url}{suffix}")


def test_hosted_providers_check_their_settings_before_any_request(tmp_path, monkeypatch):
    ds = make_dataset(tmp_path / "ds", 1)
    for _, _, variable in CASES.values():
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    for provider, (_, _, variable) in CASES.items():
        with pytest.raises(ConfigError, match=f"{variable}: not set"):
            Evaluation(EvalSettings(dataset=ds, provider=provider, model="m", base_url="http://127.0.0.1:9"))
        monkeypatch.setenv(variable, KEY)
    with pytest.raises(ConfigError, match="<arguments>: base_url: required for azure"):
        Evaluation(EvalSettings(dataset=ds, provider="azure", model="m"))
    with pytest.raises(ConfigError, match="<arguments>: structured: the anthropic provider takes no JSON schema"):
        Evaluation(EvalSettings(dataset=ds, provider="anthropic", model="m", structured=True))
    anthropic = Evaluation(EvalSettings(dataset=ds, provider="anthropic", model="m")).provider
    gemini = Evaluation(EvalSettings(dataset=ds, provider="gemini", model="m", structured=True)).provider
    assert anthropic.base_url == ANTHROPIC_BASE_URL and gemini.base_url == GEMINI_BASE_URL
    assert (anthropic.limits.max_bytes, anthropic.limits.max_pixels) == (5 * 1024 * 1024, 8000 * 8000)
    assert gemini.limits.max_bytes == 15 * 1024 * 1024
