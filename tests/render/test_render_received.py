"""byo render --for MODEL: the legends record what each model receives, the counterfactual check is
measured at each received size, and byo questions --for decides on that."""

from __future__ import annotations

import json

import pytest
import yaml
from golden_data import ROOT, tiny_config

import byo
from byo.cli import main
from byo.providers.image_pipeline import RENDERED_FOR
from byo.scene import counterfactual as cf

pytestmark = pytest.mark.render
DISTANCE = ROOT / "dataset_configs" / "byo_eval" / "chess_identification_distance.yaml"
LOW, CLAUDE = "openai:gpt-4o", "anthropic:claude-sonnet-4"  # at detail low: 512 x 512; Claude: all of 640x360


def test_rendered_for_two_models_the_legend_records_their_sizes_and_the_check_at_each(tmp_path):
    config = tmp_path / "distance.yaml"
    config.write_text(yaml.safe_dump(tiny_config(DISTANCE, [640, 360])))
    out = tmp_path / "ds"
    assert main(["render", str(config), "-o", str(out), "--limit", "1", "--in-process", "--quiet",
                 "--for", LOW, "--for", CLAUDE, "--detail", "low"]) == 0
    (legend,) = [json.loads(p.read_text()) for p in (out / "legends").glob("*.json")]
    assert (legend["width"], legend["height"]) == (640, 360)  # Claude receives it whole
    assert legend["setup"]["render"]["counterfactual"]["received"] == {LOW: [512, 288], CLAUDE: [640, 360]}
    assert json.loads((out / RENDERED_FOR).read_text())["rendered"] == [640, 360]
    (piece,) = legend["objects"]
    check = cf.measured(piece)
    at = check.received[LOW]  # measured again at GPT-4o's 512x288 only (Claude's is the image's own)
    assert set(check.received) == {LOW} and at.size == (512, 288)
    assert at.area == round(check.area * 0.8 * 0.8) and 0 < at.presence
    # without --for, decided for the models it was rendered for, at their detail (rendered_for.json)
    asked = byo.write_questions(out, keys=["identify_type_one_piece"], unreadable="flag", out=tmp_path / "q.jsonl")
    received = asked.summary.received
    assert received[LOW]["received"] == [512, 288] and received[LOW]["counterfactual"] == "received"
    assert "counterfactual" not in received[CLAUDE]  # received whole: nothing decided again
