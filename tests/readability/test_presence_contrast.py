"""Presence relative to the scene (byo/scene/evidence.py `weber`, `standout`; byo/families/base.py
`contrast_band`): an object counts as seen when it stands out from its local background in the
image as rendered, by a ratio of linear luminances that holds across exposure, whatever the scene's
brightness. A colour difference (the counterfactual presence, ΔE00) shrinks with the light: a large
grey rubber cone on the grey floor at lighting x0.05 measured 4 ΔE00 and was left out of every count."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import write_config

from byo.cli import main
from byo.core.dataset import Layout
from byo.families.base import contrast_band
from byo.questions.generate import generate, with_evidence
from byo.scene import counterfactual as cf
from byo.scene import evidence

LIGHTS = [0.05, 0.3]  # far below the presets' lowest (very_low: x0.3), and that lowest


def _scene(light_levels: list[float]) -> dict:
    objects = [{"shape": "cone", "color": "gray", "material": "rubber", "size": "large", "position": [0.0, 0.0]},
               {"shape": "cube", "color": "red", "material": "metal", "size": "small", "position": [1.5, -1.2]},
               {"shape": "sphere", "color": "blue", "material": "rubber", "size": "small", "position": [-1.5, 1.2]}]
    return {"dataset": {"name": "dark", "family": "clevr", "seed": 3, "n_images": 1},
            "scene": {"resolution": [128, 96], "render": {"samples": 8, "denoise": "off", "min_visible_pixels": 20},
                      "camera": {"distance": 1.6, "elevation": 45},
                      "content": {"mode": "objects", "objects": objects}},
            "variables": {"lighting.intensity": {"type": "varying_all", "levels": light_levels}},
            "questions": {"keys": ["count_objects"]}}


def _disc_image(scale: float) -> tuple[np.ndarray, np.ndarray]:
    """A grey floor with a darker disc (40% less light), the whole image's light times `scale`."""
    yy, xx = np.mgrid[:48, :64]
    mask = (((yy - 24) ** 2 + (xx - 32) ** 2) < 64).astype(np.uint8)
    linear = np.where(mask, 0.6, 1.0) * 0.4 * scale
    srgb = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)
    rgb = np.repeat((np.clip(srgb, 0, 1) * 255).round().astype(np.uint8)[..., None], 3, axis=2)
    return rgb, mask


def test_weber_contrast_holds_across_exposure_where_grey_levels_do_not():
    found = {s: evidence.measure_objects(*_disc_image(s), {1: [1]})[1] for s in (0.03, 0.3, 1.0)}
    webers = [e.weber for e in found.values()]
    assert max(webers) - min(webers) < 0.05 and all(w == pytest.approx(-0.4, abs=0.04) for w in webers)  # 8-bit steps
    assert found[0.03].contrast < evidence.SHOW_CONTRAST  # the grey-level rule misses it in the dark
    assert all(contrast_band(e.to_json()) == "visible" for e in found.values())


def test_a_faint_step_on_a_varied_background_does_not_stand_out():
    rgb, mask = _disc_image(1.0)
    noisy = np.random.default_rng(0).normal(0, 60, rgb.shape[:2])[..., None]
    rgb = np.clip(rgb.astype(float) * 0 + 150 + noisy - 20 * mask[..., None], 0, 255).astype(np.uint8)
    e = evidence.measure_objects(rgb, mask, {1: [1]})[1]
    assert e.standout < evidence.HIDDEN_STANDOUT and contrast_band(e.to_json()) == "hidden"


@pytest.mark.render
def test_in_the_dark_a_plainly_visible_cone_counts(tmp_path):
    root = tmp_path / "ds"
    assert main(["render", str(write_config(tmp_path, _scene(LIGHTS))), "-o", str(root), "--in-process"]) == 0
    layout = Layout(root)
    generate(root)
    asked = {json.loads(q)["image"]: json.loads(q)["answer"] for q in (root / "questions.jsonl").read_text().splitlines()}
    for legend in layout.legends():
        cone = next(o for o in legend["objects"] if o["kind"] == "cone")
        assert not cf.visible(cf.measured(cone).presence)  # its removal is a small colour difference...
        seen = with_evidence(layout, legend)
        cone = next(o for o in seen["objects"] if o["kind"] == "cone")
        assert cone["rendered"]["weber"] < -evidence.PRESENT_WEBER  # ...but it is plainly darker than the floor
        assert cone["visibility"] == "visible", cone["rendered"]
        assert asked[legend["image"]] == 3
