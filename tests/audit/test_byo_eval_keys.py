"""BYO-Eval's keys added for issue 26 (closest piece's row / column, typed counts per row /
column, the poker grid cell's number): asked, audited clean from the masks, and a wrong answer
is caught."""

from __future__ import annotations

import json

import pytest
from conftest import small_render, write_config

from byo.audit.run import audit_dataset
from byo.cli import main
from byo.render.runner import render_dataset

pytestmark = pytest.mark.render
CHESS_KEYS = ["localize_row_closest_piece", "localize_column_closest_piece", "count_localization_piece_type_row",
              "count_localization_piece_type_column"]
CONFIGS = {
    # Pieces tall enough to read their type (20 px) at 640x360.
    "chess": ({"dataset": {"name": "keys", "family": "chess", "seed": 6, "n_images": 3},
               "scene": {"resolution": [640, 360], "render": {"samples": 2, "denoise": "off", "on_hidden": "flag"},
                         "content": {"count": [3, 5]}}}, CHESS_KEYS),
    "poker": ({"dataset": {"name": "cells", "family": "poker", "seed": 7, "n_images": 3},
               "scene": {"resolution": [400, 300], "render": small_render("poker", [400, 300], samples=4, denoise="off"),
                         "camera": {"distance": 0.8, "elevation": 75},
                         "content": {"mode": "grid", "grid": {"count": 2}}}}, ["localize_card_on_grid_cell"]),
}


@pytest.mark.parametrize("family", CONFIGS)
def test_the_new_keys_are_asked_and_audited(family, tmp_path):
    config, keys = CONFIGS[family]
    out = tmp_path / family
    assert not render_dataset(str(write_config(tmp_path, config, f"{family}.yaml")), str(out),
                              show_progress=False).failed
    assert main(["questions", str(out), "--keys", ",".join(keys)]) == 0
    rows = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert {r["key"] for r in rows} == set(keys)  # every key asked of some image
    report = audit_dataset(out, show_progress=False)
    assert not report.failed
    audit = json.loads((out / "audit.json").read_text())
    assert audit["totals"]["ok"] == len(rows) and audit["totals"]["wrong"] == 0
    # One answer off by one is caught.
    rows[0]["answer"] += 1
    (out / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["audit", str(out)]) == 1
    assert json.loads((out / "audit.json").read_text())["totals"]["wrong"] == 1
