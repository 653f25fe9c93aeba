"""Below the floor (byo/families/crest/answers.py `names_motif`, byo/scene/outline.py
MIN_RESOLVED_PX): a crest whose motif is 5 px across does not have its motif asked by name; the
container and the arrangement, which read as larger shapes, are still asked. The same crest
family at 96 px asks them all."""

from __future__ import annotations

import json

import pytest
from conftest import write_config

from byo.cli import main
from byo.core.dataset import Layout
from byo.families import get_family
from byo.families.base import Answer, Unreadable, ask
from byo.scene.outline import MIN_RESOLVED_PX

MOTIF_KEYS = {"recall_motif", "identify_motif", "describe_program", "describe_kdl", "describe_english", "crest_choice"}


@pytest.mark.render
def test_a_5_px_motif_is_not_asked_by_name(tmp_path):
    config = {"dataset": {"name": "crest_small", "family": "crest", "seed": 2026, "n_images": 1},
              "scene": {"resolution": [22, 22], "content": {"mode": "composite", "containerless_probability": 0.0}},
              "variables": {"resolution": {"type": "varying_all", "levels": [[22, 22], [96, 96]]}}}
    root = tmp_path / "ds"
    assert main(["render", str(write_config(tmp_path, config)), "-o", str(root), "--in-process"]) == 0
    assert main(["questions", str(root)]) == 0
    layout = Layout(root)
    rows = [json.loads(r) for r in (root / "questions.jsonl").read_text().splitlines()]
    crest = get_family("crest")
    for legend in layout.legends():
        motifs = [o for o in legend["objects"] if o["kind"] == "motif" and o["bbox"]]
        small = min(min(o["bbox"][2] - o["bbox"][0], o["bbox"][3] - o["bbox"][1]) for o in motifs)
        asked = {r["key"] for r in rows if r["image"] == legend["image"]}
        if legend["levels"]["resolution"] == [22, 22]:
            assert small <= 5 < MIN_RESOLVED_PX
            assert not asked & MOTIF_KEYS and {"identify_container", "identify_modifier"} <= asked
            result = ask(crest.answers["identify_motif"], legend, "identify_motif")
            assert isinstance(result, Unreadable) and result.rule == "motif" and f"{small} px across" in result.reason
        else:
            assert small >= MIN_RESOLVED_PX
            assert MOTIF_KEYS - {"describe_program", "describe_kdl", "describe_english", "crest_choice"} <= asked
            assert isinstance(ask(crest.answers["recall_motif"], legend, "recall_motif"), Answer)
