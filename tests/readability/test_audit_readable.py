"""`byo audit` checks presence relative to the scene and hidden-is-not-absent from a dataset's
files with code of its own (byo/audit/readable.py), and prints its per-level table of what
`byo questions` skipped even when nothing was asked."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import write_config

from byo.audit import readable
from byo.cli import main
from byo.core.dataset import Layout
from byo.core.inputs import read_image

pytestmark = pytest.mark.render


def _dark_scene() -> dict:
    """A large grey rubber cone on the grey floor, a red cube and a blue sphere, at lighting x0.05
    and x0.3 (the presets' lowest)."""
    objects = [{"shape": "cone", "color": "gray", "material": "rubber", "size": "large", "position": [0.0, 0.0]},
               {"shape": "cube", "color": "red", "material": "metal", "size": "small", "position": [1.5, -1.2]},
               {"shape": "sphere", "color": "blue", "material": "rubber", "size": "small", "position": [-1.5, 1.2]}]
    return {"dataset": {"name": "dark", "family": "clevr", "seed": 3, "n_images": 1},
            "scene": {"resolution": [128, 96], "render": {"samples": 8, "denoise": "off", "min_visible_pixels": 20},
                      "camera": {"distance": 1.6, "elevation": 45}, "content": {"mode": "objects", "objects": objects}},
            "variables": {"lighting.intensity": {"type": "varying_all", "levels": [0.05, 0.3]}},
            "questions": {"keys": ["count_objects"]}}


def test_in_the_dark_the_audit_sees_the_cone_and_the_count_of_three_audits_ok(tmp_path):
    root = tmp_path / "ds"
    assert main(["render", str(write_config(tmp_path, _dark_scene())), "-o", str(root), "--in-process"]) == 0
    assert main(["questions", str(root)]) == 0
    layout = Layout(root)
    for legend in layout.legends():
        bands = readable.contrast_bands(read_image(layout.image(legend["name"]), "RGB"),
                                        read_image(layout.mask(legend["name"]), "L"),
                                        {o["id"]: [o["id"]] for o in legend["objects"]})
        cone = next(o["id"] for o in legend["objects"] if o["kind"] == "cone")
        assert bands[cone] == "visible"
    assert main(["audit", str(root)]) == 0
    totals = json.loads((root / "audit.json").read_text())["totals"]
    assert totals["ok"] == 2 and totals["wrong"] == 0 and totals["ill_posed"] == 0


def test_a_count_asked_over_a_hidden_piece_audits_ill_posed(tmp_path, capsys):
    config = {"dataset": {"name": "hid", "family": "chess", "seed": 3, "n_images": 1},
              "scene": {"resolution": [96, 72], "render": {"samples": 4, "denoise": "off", "min_visible_pixels": 10,
                                                           "on_hidden": "flag"},
                        "content": {"style": "stylised", "max_rotation": 0, "board": {"rows": 4, "columns": 4},
                                    "colors": ["white", {"name": "red", "rgb": [0.75, 0.12, 0.1]}],
                                    "pieces": [{"type": "king", "color": "white", "cell": [0, 0]},
                                               {"type": "rook", "color": "red", "cell": [3, 1]}]}},
              "variables": {"blur.fstop": {"type": "varying_all", "levels": ["very_high"]}},
              "questions": {"keys": ["count_identification_white_pieces", "count_pieces"]}}
    root = tmp_path / "ds"
    assert main(["render", str(write_config(tmp_path, config)), "-o", str(root), "--in-process"]) == 0
    legend = next(iter(Layout(root).legends()))
    assert main(["questions", str(root)]) == 0
    assert not (root / "questions.jsonl").read_text().strip()  # nothing asked: the table still shows why
    capsys.readouterr()
    assert main(["audit", str(root)]) == 0
    out = capsys.readouterr().out
    assert "Per level" in out and "skipped" in out
    levels = json.loads((root / "audit.json").read_text())["levels"]
    assert levels and all(c["skipped"] > 0 for c in levels)
    assert main(["questions", str(root), "--unreadable", "ask"]) == 0
    assert main(["audit", str(root)]) == 1
    findings = json.loads((root / "audit.json").read_text())["findings"]
    white = [f for f in findings if f["key"] == "count_identification_white_pieces"]
    assert white and white[0]["status"] == "ill_posed", findings
    king = next(o for o in legend["objects"] if o["attributes"]["type"] == "king")
    assert any("hidden" in f["reason"] or "edge of visibility" in f["reason"] for f in white), white
    assert king["visible_pixels"] > 0  # on the board, in the mask: not seen, not absent


def test_hidden_changes_counts_only_answers():
    ones = list(range(3))
    # counting any of them changes a count; a question the extra object makes ill-posed does not
    assert readable.hidden_changes(2, [10, 11], lambda extra: 2 + len(extra), int) == 10
    assert readable.hidden_changes(2, [10], lambda extra: "ill-posed", int) is None
    assert readable.hidden_changes(len(ones), [], lambda extra: 0, int) is None


def test_contrast_bands_hold_across_exposure_and_refuse_a_varied_background():
    yy, xx = np.mgrid[:48, :64]
    mask = (((yy - 24) ** 2 + (xx - 32) ** 2) < 64).astype(np.uint8)
    for light in (0.05, 1.0):
        linear = np.where(mask, 0.6, 1.0) * 0.4 * light
        srgb = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)
        rgb = np.repeat((srgb * 255).round().astype(np.uint8)[..., None], 3, axis=2)
        assert readable.contrast_bands(rgb, mask, {1: [1]}) == {1: "visible"}
    noise = np.random.default_rng(0).normal(150, 60, mask.shape) - 20 * mask
    rgb = np.repeat(np.clip(noise, 0, 255).astype(np.uint8)[..., None], 3, axis=2)
    assert readable.contrast_bands(rgb, mask, {1: [1]}) == {1: "hidden"}
