"""`byo plan --estimate`'s questions, calls and cost (byo.eval.estimate): OpenAI's image rule at
its documented examples, the arithmetic of a priced API model computed by hand, nothing billed
for a reference, and an in-process transformers model whose estimated tokens and cost are those
its real run records."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest
from eval_data import make_dataset

from byo.cli import main
from byo.core.errors import ConfigError
from byo.eval.estimate import QuestionEstimate, estimate_model, tile_tokens
from byo.providers.catalog import Catalog, ModelEntry
from byo.questions.load import load_questions

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("size", "tokens"), [
    ((1024, 1024), 765),   # OpenAI's example: 768x768 after the shorter side to 768, 4 tiles
    ((2048, 4096), 1105),  # OpenAI's example: 1024x2048, then 768x1536, 6 tiles
    ((320, 240), 255),     # one tile: nothing scaled up
    ((1920, 1080), 1105),  # 1365x768: 3 x 2 tiles
])
def test_openai_tile_rule_at_its_documented_examples(size, tokens):
    assert tile_tokens(*size) == tokens


def _questions(tmp_path: Path, n: int) -> tuple[Path, list]:
    dataset = make_dataset(tmp_path / "ds", n, size=(640, 360))
    return dataset, load_questions(dataset / "questions.jsonl", dataset)


def test_a_priced_api_model_costs_what_the_hand_count_says(tmp_path):
    dataset, sample = _questions(tmp_path, 4)
    questions = QuestionEstimate(images=100, sampled_images=2, sample=sample, by_key=Counter())
    assert questions.per_image == 2 and questions.total == 200
    catalog = Catalog.model_validate({"providers": {"openai": {"models": {
        "gpt-x": {"input_per_million": 2.0, "output_per_million": 8.0}}}}})
    found = estimate_model("openai:gpt-x", questions, dataset, catalog=catalog, repeats=3)
    # 600 calls; each: the prompt's characters / 4, rounded up, and a 640x360 image = 1 x 2 tiles after
    # its shorter side stays (360 < 768): 85 + 170 * 2 * 1 = 425 tokens; 10 output tokens (neutral preprompt)
    prompt = len(sample[0].prompt)
    per_call = math.ceil(prompt / 4) + 85 + 170 * 2
    assert found.calls == 600
    assert found.input_tokens == 600 * per_call and found.output_tokens == 600 * 10
    assert found.cost_usd == pytest.approx((600 * per_call * 2.0 + 6000 * 8.0) / 1e6)
    assert any("10 tokens" in a for a in found.assumptions)


def test_the_price_files_image_tokens_replace_the_tile_rule(tmp_path):
    dataset, sample = _questions(tmp_path, 2)
    questions = QuestionEstimate(images=2, sampled_images=2, sample=sample)
    catalog = Catalog.model_validate({"providers": {"groq": {"models": {
        "m": {"input_per_million": 1.0, "output_per_million": 1.0, "image_tokens": 1000}}}}})
    found = estimate_model("groq:m", questions, dataset, catalog=catalog, answer_tokens=7)
    assert found.input_tokens == 2 * (math.ceil(len(sample[0].prompt) / 4) + 1000) and found.output_tokens == 14
    assert any("image_tokens" in a for a in found.assumptions) and any("7 tokens" in a for a in found.assumptions)


def test_a_reference_is_billed_nothing_and_an_unpriced_model_has_no_cost(tmp_path):
    dataset, sample = _questions(tmp_path, 2)
    questions = QuestionEstimate(images=10, sampled_images=2, sample=sample)
    blind = estimate_model("blind", questions, dataset)
    assert blind.calls == 10 and blind.input_tokens is None and blind.cost_usd is None
    unpriced = estimate_model("openai:gpt-unknown", questions, dataset)
    assert unpriced.input_tokens > 0 and unpriced.cost_usd is None
    with pytest.raises(ConfigError, match="unknown provider"):
        estimate_model("nosuch:model", questions, dataset)


def test_an_unknown_provider_is_refused_before_any_render(tmp_path, capsys):
    config = ROOT / "dataset_configs" / "demo.yaml"
    assert main(["plan", str(config), "--no-sample", "--estimate", "--model", "nosuch:model"]) == 2
    err = capsys.readouterr().err
    assert "nosuch" in err and "Traceback" not in err


@pytest.mark.slow
def test_an_hf_models_estimate_is_its_recorded_usage(tmp_path, monkeypatch):
    """The tiny transformers VLM of tests/hf_tiny.py answers every question; the estimate of its input
    tokens (its processor's count) is what the run records, and the cost is the price file's prices
    applied to the recorded usage, within 5% (the answers may end before --max-tokens)."""
    pytest.importorskip("torch")
    from hf_tiny import save_tiny_llava

    model = save_tiny_llava(tmp_path / "tiny")
    dataset, sample = _questions(tmp_path, 6)
    (tmp_path / "providers.yaml").write_text(json.dumps({"providers": {"hf": {"models": {
        str(model): {"input_per_million": 3.0, "output_per_million": 15.0}}}}}))
    for k, v in {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf-home")}.items():
        monkeypatch.setenv(k, v)
    assert main(["eval", str(dataset), "--provider", "hf", "--model", str(model), "--run", "tiny", "--max-tokens", "6",
                 "--device", "cpu", "--providers", str(tmp_path / "providers.yaml")]) == 0
    run = json.loads((dataset / "runs" / "tiny" / "run.json").read_text())
    catalog = Catalog.model_validate(json.loads((tmp_path / "providers.yaml").read_text()))
    found = estimate_model(f"hf:{model}", QuestionEstimate(images=6, sampled_images=6, sample=sample), dataset,
                           catalog=catalog, answer_tokens=6)
    assert found.calls == run["answered"] == 6
    assert found.input_tokens == run["tokens"]["input"]
    assert run["tokens"]["output"] <= found.output_tokens
    recorded = ModelEntry(input_per_million=3.0, output_per_million=15.0).cost(run["tokens"]["input"],
                                                                               run["tokens"]["output"])
    assert recorded == pytest.approx(run["cost_usd"])
    assert abs(found.cost_usd - recorded) / recorded < 0.05
