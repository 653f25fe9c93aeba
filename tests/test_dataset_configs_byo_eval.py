"""dataset_configs/byo_eval/: one config per task of BYO-Eval's Table 1 (seed 002) at the paper's
levels and sample sizes. Each plans at full size, renders tiny (its first images), gets its
questions in the paper's prompt set and scores 100% with the oracle; its README maps every config
to the paper's figures and tables. (Each also audits clean: tests/audit/test_run.py covers every
shipped config.)"""

from __future__ import annotations

import csv
import re

import pytest
from golden_data import ROOT, golden_name, render_tiny

from byo.cli import main
from byo.families import load_config
from byo.scene.plan import image_count

pytestmark = pytest.mark.render
FOLDER = ROOT / "dataset_configs" / "byo_eval"
CONFIGS = sorted(FOLDER.glob("*.yaml"))
# Sample sizes the paper states (Figure 5, Tables 2-3, appendix B), as images planned.
PAPER_SIZES = {"chess_count": 21 * 40, "chess_count_blur": 200, "chess_identification": 50,
               "chess_identification_distance": 140, "chess_localization_4x4": 50,
               "chess_relative_localization_4x4": 50, "chess_relative_localization_8x8": 50,
               "poker_count": 14 * 15, "poker_count_blur": 50, "poker_localization_3x3": 50}


def test_every_config_is_in_the_readme_table():
    readme = (FOLDER / "README.md").read_text()
    listed = set(re.findall(r"\[`([a-z0-9_]+)\.yaml`\]", readme))
    assert listed == {c.stem for c in CONFIGS}


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.stem)
def test_plans_at_the_papers_size(config, capsys):
    assert main(["plan", str(config), "--max-rows", "1"]) == 0
    if config.stem in PAPER_SIZES:
        assert image_count(load_config(config)) == PAPER_SIZES[config.stem]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.stem)
def test_renders_tiny_and_scores_100_percent_with_the_oracle(config, tmp_path):
    out = render_tiny(config, tmp_path)
    assert main(["questions", str(out), "--prompts", "byo-eval", "--preprompts", "neutral,debiased,helpful",
                 "--instructions", "declarative,fill_blank"]) == 0
    assert main(["eval", str(out), "--provider", "oracle", "--run", "oracle"]) == 0
    run = out / "runs" / "oracle"
    assert main(["score", str(run), "--bootstrap", "0"]) == 0
    with open(run / "metrics.csv", newline="") as f:
        overall = next(r for r in csv.DictReader(f) if r["key"] == "*" and r["variant"] == "all" and not r["variable"])
    assert int(overall["n"]) > 0 and float(overall["accuracy"]) == 1.0, golden_name(config)
