"""Options every command shares: help that states each default once, `byo render --sample N` (a
stratified smoke render: every combination of levels before any is repeated), and `byo plan --power`
that writes a file only when asked (-o)."""

from __future__ import annotations

import argparse
import json
from collections import Counter

import pytest
import yaml
from conftest import ROOT, clevr_config, write_config

from byo.cli import COMMANDS, build_parser, main
from byo.families import load_config
from byo.scene.plan import combination_count, jobs, selected_jobs, stratified_indices


def subcommands(parser: argparse.ArgumentParser, prefix: str = "byo"):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{prefix} {name}", sub
                yield from subcommands(sub, f"{prefix} {name}")


def test_help_states_each_default_once():
    """No "(default 60) (default: None)": argparse's suffix only where there is a value to show."""
    seen = 0
    every = [(n, p) for command in COMMANDS for n, p in subcommands(build_parser(command))
             if n.split()[1] == command]
    for name, parser in every:
        text = parser.format_help()
        seen += 1
        assert "(default: None)" not in text and "(default: False)" not in text, name
        for action in parser._actions:
            if action.help and action.help != argparse.SUPPRESS:
                said = "(default" in action.help  # its own words, and argparse's "(default: X)" after them
                assert not (said and action.default not in (None, False, argparse.SUPPRESS)), (name, action.help)
    assert seen >= 20


@pytest.mark.parametrize("n_images, variables, splits", [
    (3, {"content.count": {"type": "varying_all", "levels": [3, 6]},
         "camera.azimuth": {"type": "varying_all", "levels": [20, 110, 200]}}, None),
    (2, {"content.count": {"type": "varying_all", "levels": [2, 4, 6, 8]}}, [["train", 3], ["test", 1]]),
])
def test_sample_covers_every_combination_before_repeating_one(tmp_path, n_images, variables, splits):
    data = clevr_config(n_images=n_images, variables=variables)
    if splits:
        data["dataset"]["splits"] = dict(splits)
    cfg = load_config(write_config(tmp_path, data))
    combos = combination_count(cfg)
    every = jobs(cfg)

    def levels(indices):
        return Counter(tuple(sorted(every[i].levels.items())) for i in indices)

    for n in range(1, len(every) + 1):
        chosen = stratified_indices(cfg, n)
        assert len(chosen) == n == len(set(chosen)) and chosen == sorted(chosen)
        counts = levels(chosen)
        if n <= combos:  # no combination twice before each has one
            assert max(counts.values()) == 1, (n, counts)
        else:  # every combination, none more than one image ahead of another
            assert len(counts) == combos and max(counts.values()) - min(counts.values()) <= 1, (n, counts)
        assert stratified_indices(cfg, n) == chosen  # the same images every time
    assert [j.name for j in selected_jobs(cfg, sample=combos)] == [every[i].name for i in stratified_indices(cfg, combos)]
    assert stratified_indices(cfg, len(every) + 5) == list(range(len(every)))  # more than the plan: the whole plan


def test_limit_takes_the_first_images_and_sample_spreads_them(tmp_path):
    cfg = load_config(ROOT / "dataset_configs" / "demo.yaml")
    first = [j.levels for j in selected_jobs(cfg, limit=4)]
    sampled = [j.levels for j in selected_jobs(cfg, sample=4)]
    assert len({tuple(sorted(levels.items())) for levels in sampled}) == 4  # each of the 4 combinations
    assert len({tuple(sorted(levels.items())) for levels in first}) < 4   # --limit: the plan's first ones


def test_render_refuses_limit_and_sample_together(tmp_path, capsys):
    config = write_config(tmp_path, clevr_config())
    with pytest.raises(SystemExit) as stop:
        main(["render", str(config), "--limit", "2", "--sample", "2"])
    assert stop.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_plan_power_writes_nothing_unless_asked(tmp_path, capsys):
    config = write_config(tmp_path, yaml.safe_load((ROOT / "dataset_configs" / "demo.yaml").read_text()))
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["plan", str(config), "--power", "--no-sample"]) == 0
    assert "Power" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no CONFIG.power.json beside the config
    figures = tmp_path / "figures" / "power.json"
    figures.parent.mkdir()
    assert main(["plan", str(config), "--power", "--no-sample", "-o", str(figures), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    written = json.loads(figures.read_text())
    assert written["accuracy"] == printed["power"]["accuracy"] and printed["images"] == 8
    assert main(["plan", str(config), "--no-sample", "-o", str(tmp_path / "x.json")]) == 2
    assert "-o: writes the --power figures: add --power" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()
