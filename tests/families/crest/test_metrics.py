"""KamonBench's metrics as the paper defines them (KamonBench, section 4): hand-computed cases,
perfect and constant predictors on every shipped crest config, and training labels taken from
the dataset (its train split, rendered or not)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from conftest import ROOT

from byo.cli import main
from byo.core.dataset import RESOLVED_CONFIG
from byo.families import load_config
from byo.families.base import Answer, ask
from byo.families.crest import metrics as crest
from byo.families.crest.model import CrestContent
from byo.families.crest.motifs import labels, library
from byo.families.crest.motifs.grammar import Crest
from byo.families.crest.motifs.sampling import Sampler
from byo.families.crest.motifs.splits import missing_factor_chance
from byo.render.runner import resolved_config
from byo.scene.plan import jobs
from byo.scene.spec import sample_spec
from byo.score.parse import ParseContext, parse_answer
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
    summary = next(r for r in crest.measure(constant, []) if r["slice"] == "all")
    assert summary["collapsed_motif_groups"] == (1.0 if summary["groups"] else None)
    if summary["groups"]:
        assert summary["motif_separation"] == 0.0


def test_motif_sensitivity_config_has_evaluated_contexts():
    rows = [r for r in _truth_rows(CONFIGS[0].parent / "motif_sensitivity.yaml") if r["key"] == "describe_program"]
    row = next(r for r in crest.measure(rows, []) if r["slice"] == "all")
    assert row["groups"] == 12 and row["collapsed_motif_groups"] == 0.0 and row["motif_separation"] == 1.0


def test_a_test_only_recombination_dataset_has_its_training_labels(tmp_path):
    """recombination.yaml draws only the test part; its training labels are what the same config
    draws with part train (same split seed), 800 images for its 100 at 80/10/10. Every test
    crest's (C, M) pair is absent from training while its container and its motif each occur
    there (KamonBench: "the corresponding container and motif each occur in other training
    composites")."""
    cfg = load_config(CONFIGS[0].parent / "recombination.yaml")
    (tmp_path / RESOLVED_CONFIG).write_text(json.dumps(resolved_config(cfg)))
    train = training_answers(tmp_path, ["describe_program", "recall_motif", "not_a_key"])
    assert set(train) == {"describe_program", "recall_motif"}
    assert len(train["describe_program"]) == len(train["recall_motif"]) == 800
    test = [sample_spec(cfg, j).extras["crest"] for j in jobs(cfg)]
    assert len(test) == 100
    programs = [labels.program(Crest(tuple(c["containers"]), c["modifier"], c["motif"])) for c in test]
    assert all(crest.novel_combinations(programs, train["describe_program"], "cm"))
    trained = [crest.program_factors(t) for t in train["describe_program"]]
    containers, motifs = {f.containers for f in trained}, {f.motif for f in trained}
    missing = [c for c in test if tuple(c["containers"]) not in containers or c["motif"] not in motifs]
    assert not missing, f"{len(missing)} test crests have a container or motif no training crest shows"
    assert not any(crest.unseen_factors(programs, train["describe_program"], "cm"))
    # and not by luck of this seed: the chance that 800 training crests miss a factor value
    sampler = CrestContent.model_validate(resolved_config(cfg)["scene"]["content"]).sampler()
    assert missing_factor_chance(sampler, "cm", 800) < 1e-8
    assert missing_factor_chance(Sampler(), "cm", 800) > 0.5  # over the whole library it would not hold


def test_recombination_slices_take_test_rows_whose_factors_were_trained():
    """Table 4's items: test rows whose combination never occurs in training while each of its
    factor values does. By hand, (C, M) over the training targets {(01, 8), (07, 6)}: (01, 6) is
    novel; (07, 6) seen; (09, 8) has container 09 never trained (an unseen factor, not novel);
    the val row is not a test example."""
    train = ["C:01 X:0 M:8", "C:07 X:3 M:6"]
    rows = [{"key": "describe_program", "variant": "all", "answer_type": "crest_program", "answer": a,
             "value": a, "status": "ok", "split": split}
            for a, split in [("C:01 X:0 M:6", "test"), ("C:07 X:0 M:6", "test"), ("C:09 X:0 M:8", "test"),
                             ("C:01 X:2 M:6", "val")]]
    assert crest.unseen_factors([r["answer"] for r in rows], train, "cm") == [False, False, True, False]
    table = {r["slice"]: r for r in crest.measure(rows, train)}
    assert [r["slice"] for r in crest.measure(rows, train)][:3] == ["split=test", "split=val", "all"]
    assert (table["novel C,M"]["n"], table["seen C,M"]["n"], table["unseen factor C,M"]["n"]) == (1, 1, 1)
    # Acc NIT over test rows only: all three test targets are absent from the training labels
    assert table["all"]["acc_nit_n"] == 3 and table["split=val"]["acc_nit_n"] == 0
    assert table["split=val"]["acc_nit"] is None


# --- adversarial predictors, scored through the parser as a run scores them ------------------------
def _scored(config: str, key: str, reply) -> list[dict]:
    """Rows of `key` on a config's crests, each answered by `reply(legend, truth)` and parsed by
    byo's parser (the real prompt), as `byo score` reads a reply."""
    cfg = load_config(CONFIGS[0].parent / config)
    rows = []
    for job in jobs(cfg):
        legend = sample_spec(cfg, job).model_dump(mode="json")
        result = ask(cfg.family.answers[key], legend, key)
        if not isinstance(result, Answer):
            continue
        answer_type = "crest_" + key.split("_")[1]
        got = parse_answer(reply(legend, result.value), ParseContext(answer_type, "Describe this crest."))
        rows.append({"key": key, "variant": "direct", "answer_type": answer_type, "answer": result.value,
                     "value": got.value, "status": got.status, "split": cfg.family.image_split(legend),
                     "crest": legend["extras"]["crest"]})
    return rows


OUTER = library.container("hirakaku")  # the extra container the adversary draws around every crest


@pytest.mark.parametrize("key", ["describe_kdl", "describe_english", "describe_program"])
def test_an_extra_outer_container_is_wrong_everywhere(key):
    """A predictor that adds an outer container (平角, a square) to every crest: each prediction holds
    the target and more, so by the paper's rule (normalised prediction == normalised target) its
    Acc is 0, Acc NIT 0, and its CER the inserted units over the target units, computed here by
    hand: KDL inserts "平角に" (3 characters) before each target; English appends " in a square"
    (9 characters once whitespace is removed); a program inserts one token, C:<id>."""
    def reply(legend, truth):
        c = legend["extras"]["crest"]
        wrapped = Crest((OUTER.id, *c["containers"]), c["modifier"], c["motif"])
        return {"describe_kdl": labels.kdl, "describe_english": labels.english,
                "describe_program": labels.program}[key](wrapped)

    rows = _scored("composite.yaml", key, reply)
    assert rows and all(r["status"] == "ok" for r in rows)
    if key == "describe_kdl":
        assert all(r["value"] == "平角に" + r["answer"] for r in rows)
        inserted, length = 3 * len(rows), sum(len("".join(r["answer"].split())) for r in rows)
    elif key == "describe_english":
        assert all(r["value"] == r["answer"] + " in a square" for r in rows)
        inserted, length = 9 * len(rows), sum(len("".join(r["answer"].split())) for r in rows)
    else:
        inserted, length = len(rows), sum(len(r["answer"].split()) for r in rows)
    train = [r["answer"] for r in rows if r["split"] == "train"]
    for row in crest.measure(rows, train):
        assert row["exact"] == 0.0 and row["exact_lenient"] == 0.0, row["slice"]
        assert row["acc_nit"] in (0.0, None)
    everything = next(r for r in crest.measure(rows, train) if r["slice"] == "all")
    assert everything["error_rate"] == pytest.approx(inserted / length)
    assert 0.1 < everything["error_rate"] < 0.5  # the paper's rule charges the extra container


@pytest.mark.parametrize("key", ["describe_kdl", "describe_english", "describe_program"])
@pytest.mark.parametrize("frame", ["The crest is {}.", "この家紋は{}です。", "The crest shows {}."])
def test_prose_around_a_label_is_scored_alike_in_every_form(key, frame):
    """One extraction policy for every label form: a reply that frames the right label in prose
    ("The crest is C:01 X:3 M:0008.", "この家紋は丸に桔梗です。", "The crest shows bellflower in a
    circle.") is a prediction that holds the target among other words: Acc 0 by the paper's rule
    (its extra units cost CER / TER), 1 by the lenient reading, which finds the label inside it.
    (A program code in prose was once extracted and scored exact, a KDL or English label not.)"""
    rows = _scored("composite.yaml", key, lambda legend, truth: frame.format(truth))
    row = next(r for r in crest.measure(rows, []) if r["slice"] == "all")
    assert row["n"] == len(rows) > 0 and row["parse_rate"] == 1.0
    assert row["exact"] == 0.0 and row["exact_lenient"] == 1.0 and row["error_rate"] > 0


@pytest.mark.parametrize("key", ["describe_kdl", "describe_english", "describe_program"])
def test_a_marked_answer_and_characters_written_apart_are_the_label_in_every_form(key):
    """The paper: "Before computing string-level metrics, whitespace is removed": a label written
    with its characters apart ("丸 に 桔 梗", "C : 01 X : 3 M : 0008") is the label, and so is the
    part a reply marks as its answer ("Answer: ..."), in every form alike: Acc 1, CER / TER 0."""
    def apart(truth: str) -> str:
        return " ".join("".join(truth.split())) if key != "describe_english" else truth.replace(" ", "  ")

    for reply in (lambda legend, truth: "Answer: " + truth, lambda legend, truth: apart(truth)):
        row = next(r for r in crest.measure(_scored("composite.yaml", key, reply), []) if r["slice"] == "all")
        assert (row["exact"], row["exact_lenient"], row["error_rate"]) == (1.0, 1.0, 0.0)


def test_a_program_written_twice_is_one_code_for_the_lenient_reading():
    """Two codes in one prediction: the same code twice is that code for the lenient reading (the
    paper's rule compares the whole prediction: wrong); two different codes are no reading."""
    target = "C:01 X:3 M:0008"
    assert crest.exact_match([f"{target}, i.e. {target}"], [target], "crest_program", "lenient") == [True]
    assert crest.exact_match([f"{target}, i.e. {target}"], [target], "crest_program") == [False]
    assert crest.exact_match([f"{target} or C:02 X:3 M:0008"], [target], "crest_program", "lenient") == [False]
    assert crest.exact_match(["c:01, x:3, m:0008"], [target], "crest_program", "lenient") == [True]


def test_perfect_constant_and_blind_predictors_through_the_parser():
    """Perfect replies: Acc 1, CER 0. A constant reply (the first test target): Acc = the share of
    test rows with that target. The blind baseline, the most frequent training label: Acc = the
    share of test rows with that label (counted by hand here from the rows)."""
    rows = _scored("composite.yaml", "describe_english", lambda legend, truth: truth)
    test = [r for r in rows if r["split"] == "test"]
    first = crest.measure(rows, [])[0]
    assert first["slice"] == "split=test" and first["n"] == len(test)
    assert (first["exact"], first["error_rate"]) == (1.0, 0.0)
    constant = test[0]["answer"]
    rows = _scored("composite.yaml", "describe_english", lambda legend, truth: constant)
    test = [r for r in rows if r["split"] == "test"]
    assert crest.measure(rows, [])[0]["exact"] == sum(r["answer"] == constant for r in test) / len(test)
    counts = Counter(r["answer"] for r in rows if r["split"] == "train")
    blind = counts.most_common(1)[0][0]
    rows = _scored("composite.yaml", "describe_english", lambda legend, truth: blind)
    test = [r for r in rows if r["split"] == "test"]
    assert crest.measure(rows, [])[0]["exact"] == sum(r["answer"] == blind for r in test) / len(test)


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
