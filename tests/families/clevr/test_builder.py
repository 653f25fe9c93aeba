"""Auto-Comp renders: the Minimal condition's white background, the Contextual set, the audit of
position relations and the paired sheet, on a tiny render."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import small_render, write_config
from PIL import Image

from byo.cli import main
from byo.core.dataset import RESOLVED_CONFIG
from byo.families.api import option_index
from byo.scene.measure import read_mask

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def position(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("autocomp")
    data = yaml.safe_load((ROOT / "dataset_configs/autocomp/position.yaml").read_text())
    data["scene"].update(resolution=[128, 96], render=small_render("clevr", [128, 96], samples=4, denoise="off"))
    data["variables"]["content.concept"]["max"] = 1  # 2 N x 2 concepts x 2 conditions
    out = tmp / "ds"
    assert main(["render", str(write_config(tmp, data)), "-o", str(out), "--in-process"]) == 0
    assert main(["questions", str(out), "--keys", "autocomp_swap,autocomp_confusion"]) == 0
    return out


def legends(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((out / "legends").glob("*.json"))]


def test_minimal_is_on_white_and_contextual_in_a_set(position):
    """Auto-Comp's background check: at least 70% of the pixels off the objects at grey 190 or
    more on a Minimal image; a Contextual image of the same concept is not on white."""
    found = {}
    for legend in legends(position):
        a = legend["extras"]["autocomp"]
        grey = np.asarray(Image.open(position / legend["image"]).convert("L"))
        background = read_mask(position / "masks" / f"{legend['name']}.png") == 0
        white = float((grey[background] >= 190).mean())
        found[(a["n"], a["concept"], a["condition"])] = white
        assert [o["kind"] for o in legend["objects"]] == [o["shape"] for o in a["objects"]]
    for (n, concept, condition), white in found.items():
        if condition == "minimal":
            assert white >= 0.7
            assert found[(n, concept, "contextual")] < 0.7  # the set fails the background check


def test_position_answers_pass_the_audit_and_the_oracle(position):
    assert main(["audit", str(position)]) == 0
    totals = json.loads((position / "audit.json").read_text())["totals"]
    assert totals["wrong"] == 0 and totals["ill_posed"] == 0 and totals["ok"] >= 8
    rows = [json.loads(line) for line in (position / "questions.jsonl").read_text().splitlines()]
    shown = 50  # Auto-Comp's blind LLM saw the truth and 49 negatives for N = 3 (Table 9: chance 2.0%)
    for r in rows:
        n = r["params"]["n"]
        expected = {("autocomp_swap", 2): 2, ("autocomp_swap", 3): 6,
                    ("autocomp_confusion", 2): 4, ("autocomp_confusion", 3): 108}[(r["key"], n)]
        assert len(r["retrieval"]["captions"]) == expected
        assert r["chance"] == pytest.approx(1 / min(expected, shown))
        assert r["params"]["presented"] == (f"all {expected} captions" if expected <= shown
                                            else f"{shown} of {expected} captions")
    assert main(["eval", str(position), "--provider", "oracle", "--run", "oracle"]) == 0
    assert main(["score", str(position / "runs" / "oracle")]) == 0
    scores = json.loads((position / "runs" / "oracle" / "scores.json").read_text())
    table = scores["tables"]["autocomp"]
    assert table and all(r["accuracy"] == 1.0 for r in table)
    # every cell asked (at elevation 12 a cylinder may read as a square: its questions are not asked)
    asked = {(r["params"]["n"], r["levels"]["content.condition"]) for r in rows}
    assert {(r["n_objects"], r["condition"]) for r in table} == asked and len(asked) >= 3


def test_the_options_a_chat_model_is_shown_are_a_question_setting(position, tmp_path):
    """--options N (or the config's questions.options) caps the lettered options; the candidate
    set an image-text model ranks stays whole. N = 3 position Confusion, 108 candidates: 26
    shown, chance 1/26; 108 shown, chance 1/108 (the letters run A to DD)."""
    for given, shown in (("26", 26), ("200", 108)):
        out = tmp_path / f"q{given}.jsonl"
        assert main(["questions", str(position), "--keys", "autocomp_confusion", "--options", given, "-o", str(out),
                     "--unreadable", "ask"]) == 0  # the options are the subject, not readability
        rows = [json.loads(line) for line in out.read_text().splitlines() if '"n": 3' in line]
        assert rows and all(len(r["choices"]) == shown and r["chance"] == pytest.approx(1 / shown) for r in rows)
        assert all(len(r["retrieval"]["captions"]) == 108 for r in rows)
        assert all(r["params"]["presented"] == (f"{shown} of 108 captions" if shown < 108 else "all 108 captions")
                   for r in rows)
    assert max(option_index(r["answer"]) for r in rows) > 25 and "(DD) " in rows[0]["prompt"]
    assert main(["questions", str(position), "--options", "1", "-o", str(tmp_path / "x.jsonl")]) == 2
    copy = tmp_path / "copy"
    shutil.copytree(position, copy)
    resolved = json.loads((copy / RESOLVED_CONFIG).read_text())
    (copy / RESOLVED_CONFIG).write_text(json.dumps({**resolved, "questions": {"options": 10}}))
    assert main(["questions", str(copy), "--keys", "autocomp_confusion"]) == 0
    rows = [json.loads(line) for line in (copy / "questions.jsonl").read_text().splitlines()]
    assert {len(r["choices"]) for r in rows if r["params"]["n"] == 3} == {10}
    (copy / RESOLVED_CONFIG).write_text(json.dumps({**resolved, "questions": {"options": "many"}}))
    assert main(["questions", str(copy)]) == 2


def test_a_ranking_models_errors_are_broken_down(position):
    """byo eval with the blind ranker (every caption equally similar), then byo score: its top is a
    tie of the truth and every distractor, each tied caption 1 / k of the prediction (a uniformly
    random tie-break's expectation, docs/scoring.md's tie policy): each kind of distractor takes
    its share of the candidates, none "unparsed", and the truth's 1 / k is no error."""
    assert main(["eval", str(position), "--provider", "rank-blind", "--run", "blind"]) == 0
    assert main(["score", str(position / "runs" / "blind")]) == 0
    table = json.loads((position / "runs" / "blind" / "scores.json").read_text())["tables"]["distractors"]
    found = {(r["key"], r["slice"], r["distractor"]): r["of_predictions"] for r in table if r["variant"] == "all"}
    questions = [json.loads(line) for line in (position / "questions.jsonl").read_text().splitlines()]
    want: dict = {}
    for q in questions:
        if q["key"] not in ("autocomp_swap", "autocomp_confusion") or q["preprompt"] != questions[0]["preprompt"] \
                or q["instruction"] != questions[0]["instruction"]:
            continue
        slice_ = f"N={q['params']['n']} {q['params']['condition']}"
        for tag in q["retrieval"]["tags"]:
            if tag != "truth":
                cell = want.setdefault((q["key"], slice_), {})
                cell[tag] = cell.get(tag, 0) + 1 / len(q["retrieval"]["tags"])
    assert want and "unparsed" not in {d for _, _, d in found}
    for (key, slice_), shares in want.items():
        n = sum(1 for q in questions if q["key"] == key and q["preprompt"] == questions[0]["preprompt"]
                and q["instruction"] == questions[0]["instruction"]
                and f"N={q['params']['n']} {q['params']['condition']}" == slice_)
        for tag, share in shares.items():
            assert found[(key, slice_, tag)] == pytest.approx(share / n), (key, slice_, tag)


def test_the_paired_sheet_shows_both_conditions_of_each_concept(position):
    assert main(["sheet", "autocomp-pairs", str(position)]) == 0
    with Image.open(position / "autocomp_pairs.png") as sheet:
        assert sheet.width >= 4 * 240
