"""Every level of every scene option changes the image: the levels of bench/observability.py,
rendered small (docs/observability.md has the full-size figures)."""

from __future__ import annotations

import pytest
from conftest import small_render
from observability import OPTIONS, differences, render_levels

from byo.core.errors import ConfigError
from byo.families import load_config

pytestmark = pytest.mark.render

SMALL = {"resolution": [96, 54], "render": small_render("chess", [96, 54], samples=4, denoise="off")}
MIN_DIFFERENCE = 1.0  # grey levels, mean over the image


@pytest.mark.parametrize("option", OPTIONS, ids=lambda o: f"{o[0]}-{o[1]}")
def test_each_level_changes_the_image(option):
    key, _, levels = option
    diffs = differences(render_levels(option, SMALL))
    assert all(d >= MIN_DIFFERENCE for d in diffs), dict(zip(levels[1:], diffs, strict=True))


def test_the_weakest_blur_blurs():
    """Turning depth of field on changes Cycles' sampling, hence the noise, whatever the blur; so
    the weakest preset (f/9) is compared with a pinhole-like f/1000 that samples the same way."""
    pinhole, weakest = differences(render_levels(("blur.fstop", "chess", [1000.0, 500.0, "very_low"]), SMALL))
    assert pinhole < 0.2 and weakest >= MIN_DIFFERENCE


def test_options_workbench_cannot_show_are_config_errors():
    scene = {"render": {"engine": "workbench"}, "lighting": {"intensity": "high"}, "blur": {"fstop": "low"},
             "table": {"texture": "high"}}
    with pytest.raises(ConfigError, match=r"lighting.intensity, blur.fstop, table.texture: no effect under"):
        load_config({"dataset": {"name": "w", "family": "chess"}, "scene": scene})
