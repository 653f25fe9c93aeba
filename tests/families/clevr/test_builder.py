"""Auto-Comp renders: the Minimal condition's white background, the Contextual set, the audit of
position relations and the paired sheet, on a tiny render."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import small_render, write_config
from PIL import Image

from byo.cli import main
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
    for r in rows:
        n = r["params"]["n"]
        expected = {("autocomp_swap", 2): 2, ("autocomp_swap", 3): 6,
                    ("autocomp_confusion", 2): 4, ("autocomp_confusion", 3): 108}[(r["key"], n)]
        assert len(r["retrieval"]["captions"]) == expected
        assert r["chance"] == pytest.approx(1 / min(expected, 26))
        assert r["params"]["presented"] == (f"all {expected} captions" if expected <= 26 else f"26 of {expected} captions")
    assert main(["eval", str(position), "--provider", "oracle", "--run", "oracle"]) == 0
    assert main(["score", str(position / "runs" / "oracle")]) == 0
    scores = json.loads((position / "runs" / "oracle" / "scores.json").read_text())
    table = scores["tables"]["autocomp"]
    assert table and all(r["accuracy"] == 1.0 for r in table)
    assert {(r["n_objects"], r["condition"]) for r in table} == {(2, "minimal"), (2, "contextual"),
                                                                 (3, "minimal"), (3, "contextual")}


def test_the_paired_sheet_shows_both_conditions_of_each_concept(position):
    assert main(["sheet", "autocomp-pairs", str(position)]) == 0
    with Image.open(position / "autocomp_pairs.png") as sheet:
        assert sheet.width >= 4 * 240
