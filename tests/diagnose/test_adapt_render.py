"""byo adapt end to end at 64x48 (render): a simulated observer on chess counting under blur. The
same seed gives the same trials and the same images; the trials are an ordinary dataset and run
(byo render of its config.yaml renders the same images, byo status, byo score and byo audit read
it); bad settings are named before any work."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import TINY_RENDER
from PIL import Image

from byo.cli import main
from byo.core.errors import ConfigError
from byo.diagnose.adapt import AdaptSettings, Budget, adapt
from byo.providers import GenerationParams

pytestmark = pytest.mark.render

OBSERVER = "levels.blur.fstop,threshold=4,slope=2,lapse=0.02"  # right more often with less blur (a higher f-number)
TRIALS = 8


def chess_config(tmp: Path) -> Path:
    data = {"dataset": {"name": "blurcount", "family": "chess", "seed": 21, "n_images": 1},
            "scene": {**TINY_RENDER, "resolution": [128, 96], "content": {"count": 3}},  # blurred pieces still show
            "variables": {"blur.fstop": {"type": "varying_all", "levels": [2.0, 2.8, 4.0, 5.6, 8.0]},
                          "content.count": {"type": "varying_all", "levels": [2, 3]},  # left out: the base scene's
                          "lighting.intensity": {"type": "varying_random", "choices": ["low", "high"]}}}
    path = tmp / "blurcount.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def run(config: Path, out: Path):
    return adapt(AdaptSettings(config=config, variable="blur.fstop", provider="simulated", model=OBSERVER,
                               key="count_pieces", out=out, budget=Budget(trials=TRIALS)))


@pytest.fixture(scope="module")
def twice(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("adapt")
    config = chess_config(tmp)
    return config, run(config, tmp / "first"), run(config, tmp / "second")


def asked(result) -> list:
    """The trials whose question was asked (the others were skipped as undecidable)."""
    return [t for t in result.trials if not t.skipped]


def pixels(path: Path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im)


def test_the_same_seed_replays_the_trials_and_the_images(twice):
    _, first, second = twice
    assert [(t.image, t.level, t.hits) for t in first.trials] == [(t.image, t.level, t.hits) for t in second.trials]
    # a trial whose question the image cannot decide (a piece at the edge of visibility) is skipped, not answered
    assert len(asked(first)) == TRIALS and first.answers == TRIALS
    assert all(t.skipped and not t.hits for t in first.trials if t not in asked(first))
    assert len({t.level for t in first.trials}) > 2  # the levels move with the answers
    for t in first.trials:
        assert np.array_equal(pixels(first.out_dir / "images" / f"{t.image}.png"),
                              pixels(second.out_dir / "images" / f"{t.image}.png"))
    one, two = (json.loads((r.out_dir / "adapt.json").read_text()) for r in (first, second))
    assert one["trials"] == two["trials"] and one["estimate"] == two["estimate"]
    assert one["stopped"] == f"{TRIALS} trials (the budget)"


def test_the_trials_are_an_ordinary_dataset_and_run(twice, tmp_path):
    _, first, _ = twice
    config = yaml.safe_load((first.out_dir / "config.yaml").read_text())
    assert config["variables"]["blur.fstop"]["levels"] == [t.level for t in first.trials]
    assert "content.count" not in config["variables"]  # the base scene's count
    assert config["variables"]["lighting.intensity"]["type"] == "varying_random"
    # The config renders the trials again, image for image.
    again = tmp_path / "again"
    assert main(["render", str(first.out_dir / "config.yaml"), "-o", str(again), "--in-process"]) == 0
    for t in first.trials:
        assert np.array_equal(pixels(first.out_dir / "images" / f"{t.image}.png"),
                              pixels(again / "images" / f"{t.image}.png"))
        legend = json.loads((first.out_dir / "legends" / f"{t.image}.json").read_text())
        assert legend["levels"]["blur.fstop"] == t.level
    assert main(["status", str(first.out_dir)]) == 0
    assert main(["audit", str(first.out_dir)]) == 0
    assert main(["score", str(first.run_dir)]) == 0
    scored = [json.loads(line) for line in (first.run_dir / "parsed.jsonl").read_text().splitlines()]
    assert [bool(r["correct"]) for r in scored] == [h for t in first.trials for h in t.hits]
    assert (first.out_dir / "adapt.png").stat().st_size > 10_000


def test_the_estimate_is_the_posterior_of_the_answers(twice):
    """adapt.json's estimate is the psi method's after exactly the recorded answers."""
    from byo.diagnose.adaptive import PsiMethod

    _, first, _ = twice
    record = json.loads((first.out_dir / "adapt.json").read_text())
    method = PsiMethod(record["candidate_levels"], chance=record["chance"], direction=record["direction"],
                       lo=record["range"][0], hi=record["range"][1])
    for t in record["trials"]:
        for h in t["hits"]:
            method.update(t["level"], h)
    est = method.estimate()
    assert record["estimate"]["threshold"] == pytest.approx(est.threshold)
    assert record["estimate"]["lo"] == pytest.approx(est.lo)
    assert record["range"] == [2.0, 8.0] and record["ordered"] is False


def test_bad_settings_are_named_before_any_work(tmp_path):
    config = chess_config(tmp_path)
    out = tmp_path / "out"
    cases = [
        (dict(variable="blur.fstop", key="count_piecez"), "count_piecez"),
        (dict(variable="camera.elevation", key="count_pieces"), "give `range` LO HI"),
        (dict(variable="blur.fstop", key="count_pieces", range=(0.5, -1.0)), "expected LO < HI"),
        (dict(variable="content.count", key="count_pieces", range=(1, 500)), "level 500 makes the scene invalid"),
        (dict(variable="blur.fstop", key="count_pieces", provider="blind"), "blind"),
        (dict(variable="blur.fstop", key="count_pieces", model="blur_px,threshold=1"), "simulated observer"),
        (dict(variable="blur.fstop", key="count_pieces", budget=Budget(width=-1.0)), "<arguments>: width: expected a positive number"),
    ]
    for change, says in cases:
        settings = {"config": config, "provider": "simulated", "model": OBSERVER, "out": out, **change}
        with pytest.raises(ConfigError, match=says):
            adapt(AdaptSettings(**settings))
        assert not out.exists()


def test_a_cost_budget_stops_the_run(tmp_path):
    """A priced model (the fake VLM on loopback, always answering 3: right, the scene holds 3 pieces)
    at 1,000 USD per million tokens: the run's ledger sends no request that could pass the budget
    (each estimated at --max-tokens), and the run stops there; each trial's cost is the request's
    tokens at the providers file's price."""
    from fake_vlm import FakeVLM

    config = chess_config(tmp_path)
    with FakeVLM() as fake:
        providers = tmp_path / "providers.yaml"
        providers.write_text(yaml.safe_dump({"providers": {"fake": {
            "type": "openai-compatible", "base_url": f"{fake.url}/v1",
            "models": {"tiny-vlm": {"input_per_million": 1000.0, "output_per_million": 1000.0}}}}}))
        result = adapt(AdaptSettings(config=config, variable="blur.fstop", provider="fake", model="tiny-vlm",
                                     key="count_pieces", out=tmp_path / "out", budget=Budget(cost=0.5, trials=50),
                                     eval={"providers_file": providers,
                                           "params": GenerationParams(max_tokens=16)}))
        billed = [s.tokens for s in fake.log]
    per_answer = [1000.0 * (t["input"] + t["output"]) / 1e6 for t in billed]
    assert result.stopped.startswith("stopped: the next request (about $") and "over `max_cost` $0.5" in result.stopped
    assert result.stopped.endswith(f"the run has spent ${result.cost_usd:.4f} of it")
    assert result.cost_usd == pytest.approx(sum(per_answer))
    assert sum(per_answer) <= 0.5 < sum(per_answer) + 2 * per_answer[-1]  # stopped before passing it
    assert all(h for t in result.trials for h in t.hits) and len(asked(result)) == len(billed)
