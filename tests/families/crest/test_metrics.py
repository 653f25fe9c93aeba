"""KamonBench's metrics as the paper defines them (seed 000, section 4): hand-computed cases,
perfect and constant predictors on every shipped crest config, and training labels taken from
the dataset (its train split, rendered or not)."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from byo.cli import main
from byo.core.dataset import RESOLVED_CONFIG
from byo.families import load_config
from byo.families.base import Answer, ask
from byo.families.crest import metrics as crest
from byo.render.runner import resolved_config
from byo.scene.plan import jobs
from byo.scene.spec import sample_spec
from byo.score.training import training_answers

CONFIGS = sorted((ROOT / "dataset_configs" / "crest").glob("*.yaml"))
KEYS = ("describe_program", "describe_kdl", "describe_english")


def test_an_unparsed_answer_costs_its_whole_target():
    """CER / TER = total edits / total target length; an unparsed (None) or empty answer is the
    empty string, so its edits are the whole target."""
    one = crest.error_rate([None], ["C:01 X:0 M:0008"], "crest_program")
    assert (one["edits"], one["length"], one["value"], one["unparsed"]) == (3, 3, 1.0, 1)
    # by hand: 丸に桔梗 (4 chars) unparsed: 4 edits; 丸に梅 for 丸に桜: 1 edit; total 5 / 7
    rate = crest.error_rate([None, "丸に梅"], ["丸に桔梗", "丸に桜"], "crest_kdl")
    assert (rate["edits"], rate["length"]) == (5, 7) and rate["value"] == pytest.approx(5 / 7)
    # TER: a right code, an unparsed one, one with the wrong motif: (0 + 3 + 1) / (3 + 3 + 2)
    ter = crest.error_rate(["C:01 X:0 M:0008", None, "X:3 M:0025"],
                           ["C:01 X:0 M:0008", "C:07 X:2 M:0006", "X:3 M:0024"], "crest_program")
    assert (ter["edits"], ter["length"]) == (4, 8)


def test_the_papers_normalisation_and_the_lenient_one():
    # KamonBench: whitespace removed, katakana to hiragana, nothing else
    assert crest.exact_match(["丸に ききょう"], ["丸にキキョウ"], "crest_kdl") == [True]
    assert crest.exact_match(["A bellflower in a circle."], ["bellflower in a circle"], "crest_english") == [False]
    assert crest.exact_match(["A bellflower in a circle."], ["bellflower in a circle"], "crest_english",
                             "lenient") == [True]
    # a program needs exactly one X under the paper's rule; the lenient rule reads a missing X as X:0
    assert crest.program_factors("C:01 M:0008") is None
    assert crest.program_factors("C:01 M:0008", "lenient") == crest.Factors(("01",), "0", "0008")
    assert crest.exact_match(["C:01 M:0008"], ["C:01 X:0 M:0008"], "crest_program") == [False]


def test_collapsed_groups_count_only_the_evaluated_contexts():
    # context (01, 0): motifs 8, 6 (one eligible pair); (07, 2): one example, no pair: not evaluated
    gold = ["C:01 X:0 M:0008", "C:01 X:0 M:0006", "C:07 X:2 M:0008", "X:3 M:0001"]
    perfect = crest.motif_sensitivity(gold, gold)
    assert (perfect["groups"], perfect["pairs"], perfect["collapsed_motif_groups"]) == (1, 1, 0.0)
    assert perfect["motif_separation"] == perfect["pair_motif_accuracy"] == 1.0
    constant = crest.motif_sensitivity(["C:01 X:0 M:0008"] * 4, gold)
    assert constant["collapsed_motif_groups"] == 1.0 and constant["motif_separation"] == 0.0


def test_table_two_columns():
    gold = ["C:01 X:0 M:0008", "C:01 X:1 M:0006", "X:3 M:0024", "X:4 M:0025"]
    pred = ["C:01 X:0 M:0008", "C:02 X:1 M:0006", "X:3 M:0024", "X:4 M:0001"]
    f = crest.factor_accuracy(pred, gold)
    assert f["exact_contained"]["value"] == 0.5  # the second has the wrong container
    assert f["motif_contained"]["value"] == 1.0
    assert f["motif_containerless"]["value"] == 0.5


def test_bootstrap_interval_is_seeded_and_brackets_the_share():
    hits = [True] * 30 + [False] * 10
    lo, hi = crest.bootstrap(hits, label="x")
    assert (lo, hi) == crest.bootstrap(hits, label="x")
    assert lo < 0.75 < hi and 0.55 < lo and hi < 0.9
    assert crest.bootstrap([True] * 5, label="x") == (1.0, 1.0)


def _truth_rows(config, limit: int = 300) -> list[dict]:
    """Scored rows of the three description keys of a config's sampled crests, answered right."""
    cfg = load_config(config)
    rows = []
    for job in list(jobs(cfg))[:limit]:
        legend = sample_spec(cfg, job).model_dump(mode="json")
        split = cfg.family.image_split(legend)
        for key in KEYS:
            result = ask(cfg.family.answers[key], legend, key)
            if isinstance(result, Answer):
                rows.append({"key": key, "variant": "all", "answer_type": "crest_" + key.split("_")[1],
                             "answer": result.value, "value": result.value, "status": "ok", "split": split})
    return rows


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.stem)
def test_perfect_and_constant_predictions_on_every_crest_config(config):
    rows = _truth_rows(config)
    if config.stem.startswith("components_"):
        assert not rows  # component images are not described as crests
        return
    for key in KEYS:
        krows = [r for r in rows if r["key"] == key]
        if not krows:
            continue
        train = [r["answer"] for r in krows if r["split"] == "train"]
        for row in crest.measure(krows, train):
            assert row["exact"] == 1.0 and row["error_rate"] == 0.0, (key, row["slice"])
            assert row["exact_lo"] == row["exact_hi"] == 1.0
            if key == "describe_program":
                assert row["container_acc"] in (1.0, None) and row["motif_acc"] == row["modifier_acc"] == 1.0
                assert row["motif_separation"] in (1.0, None) and row["pair_motif_accuracy"] in (1.0, None)
                assert row["collapsed_motif_groups"] in (0.0, None)
                assert (row["collapsed_motif_groups"] is None) == (row["groups"] == 0)
    program = [r for r in rows if r["key"] == "describe_program"]
    constant = [{**r, "value": program[0]["answer"]} for r in program]
    summary = crest.measure(constant, [])[0]
    assert summary["collapsed_motif_groups"] == (1.0 if summary["groups"] else None)
    if summary["groups"]:
        assert summary["motif_separation"] == 0.0


def test_motif_sensitivity_config_has_evaluated_contexts():
    rows = [r for r in _truth_rows(CONFIGS[0].parent / "motif_sensitivity.yaml") if r["key"] == "describe_program"]
    row = crest.measure(rows, [])[0]
    assert row["groups"] == 12 and row["collapsed_motif_groups"] == 0.0 and row["motif_separation"] == 1.0


def test_a_test_only_recombination_dataset_has_its_training_labels(tmp_path):
    """recombination.yaml draws only the test part; its training labels are what the same config
    draws with part train (same split seed), 800 images for its 100 at 80/10/10."""
    cfg = load_config(CONFIGS[0].parent / "recombination.yaml")
    (tmp_path / RESOLVED_CONFIG).write_text(json.dumps(resolved_config(cfg)))
    train = training_answers(tmp_path, ["describe_program", "recall_motif", "not_a_key"])
    assert set(train) == {"describe_program", "recall_motif"}
    assert len(train["describe_program"]) == len(train["recall_motif"]) == 800
    test = [sample_spec(cfg, j).extras["program"] for j in list(jobs(cfg))[:50]]
    novel = crest.novel_combinations(test, train["describe_program"], "cm")
    assert all(novel)  # every test crest's (C, M) pair is absent from training


@pytest.mark.render
def test_score_of_a_test_only_recombination_run_reports_acc_nit_and_novel_slices(tmp_path, capsys):
    config = tmp_path / "rec.yaml"
    text = (CONFIGS[0].parent / "recombination.yaml").read_text().replace("[256, 256]", "[48, 48]")
    config.write_text(text)
    ds = tmp_path / "ds"
    assert main(["render", str(config), "-o", str(ds), "--limit", "4", "--in-process"]) == 0
    assert main(["questions", str(ds), "--keys", "describe_program"]) == 0
    assert main(["eval", str(ds), "--provider", "oracle"]) == 0
    assert main(["score", str(ds / "runs" / "oracle")]) == 0
    table = json.loads((ds / "runs" / "oracle" / "scores.json").read_text())["tables"]["crest"]
    rows = {r["slice"]: r for r in table if r["variant"] == "all"}
    assert rows["all"]["acc_nit"] == 1.0 and rows["all"]["train_labels"] == 800
    assert rows["novel C,M"]["n"] == 4 and "novel C,X,M" in rows
    assert all(r["normalisation"] == "kamonbench" for r in table)
