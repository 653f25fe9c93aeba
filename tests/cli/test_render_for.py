"""byo render --for MODEL: the size rendered is what those models receive, never above the config's."""

import json
from pathlib import Path

import pytest
from eval_data import FAKE_KEYS, evaluate_fake, make_dataset

from byo.api.rendered_for import config_for, sized_for
from byo.cli import main
from byo.core.errors import ConfigError, InputError
from byo.families import load_config
from byo.providers.image_pipeline import RENDERED_FOR

ROOT = Path(__file__).parents[2]
DISTANCE = ROOT / "dataset_configs" / "byo_eval" / "chess_identification_distance.yaml"


def test_byo_eval_distance_is_rendered_at_the_largest_received_size():
    gpt = sized_for(DISTANCE, ["openai:gpt-4.1"])
    assert gpt.size == (1365, 768) and gpt.record["config"] == [1920, 1080]
    both = sized_for(DISTANCE, ["openai:gpt-4.1", "anthropic:claude-sonnet-4"])
    assert both.size == (1460, 821)  # Claude receives more than GPT-4.1: rendered for Claude
    assert both.record["models"]["openai:gpt-4.1"]["size"] == [1365, 768]
    # what each receives of the render sent at 1460x821: GPT-4.1 its short side at 768 (1365.7 wide), Claude all of it
    assert both.received == {"openai:gpt-4.1": (1366, 768), "anthropic:claude-sonnet-4": (1460, 821)}
    small = sized_for(DISTANCE, ["anthropic:claude-sonnet-4"], resolution="640x360")
    assert small.size == (640, 360)  # never above the config's (or --resolution's) size
    with pytest.raises(ConfigError, match="not published"):
        sized_for(DISTANCE, ["gemini:gemini-2.5-flash"])


def test_the_config_rendered_for_models_records_their_sizes_for_the_legend():
    both = sized_for(DISTANCE, ["openai:gpt-4.1", "anthropic:claude-sonnet-4"])
    cfg = load_config(config_for(DISTANCE, both))
    assert cfg.scene["resolution"] == [1460, 821]
    assert cfg.scene["render"]["counterfactual"]["received"] == {"openai:gpt-4.1": [1366, 768],
                                                                "anthropic:claude-sonnet-4": [1460, 821]}


def test_an_unknown_model_is_refused_in_one_line(capsys):
    assert main(["render", str(DISTANCE), "--for", "nosuch:model", "--limit", "1"]) == 2
    err = capsys.readouterr().err
    assert "--for" in err and "PROVIDER:MODEL" in err and "Traceback" not in err


def test_a_later_model_that_receives_more_is_refused(tmp_path, monkeypatch):
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    ds = make_dataset(tmp_path / "ds", 1, size=(1365, 768))
    (ds / RENDERED_FOR).write_text(json.dumps(sized_for(DISTANCE, ["openai:gpt-4.1"]).record))
    with pytest.raises(InputError, match="anthropic:claude-sonnet-4 receives 1460x821"):
        evaluate_fake(ds, "anthropic", "http://127.0.0.1:9/v1", model="claude-sonnet-4")
    with pytest.raises(InputError, match="not published"):
        evaluate_fake(ds, "openai-compatible", "http://127.0.0.1:9/v1")
    (ds / RENDERED_FOR).write_text(json.dumps({"config": [1920]}))
    with pytest.raises(InputError, match="expected config and rendered"):
        evaluate_fake(ds, "openai", "http://127.0.0.1:9/v1", model="gpt-4.1")
