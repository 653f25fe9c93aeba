"""A family's own settings of a quality preset by image size (Family.quality_presets): applied
over the shared preset from its `from_pixels` up, below it the shared preset, and any key the
config sets itself still wins."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from pydantic import BaseModel

from byo.families.api import HD_PIXELS, QualityPreset
from byo.scene.config import validate_scene
from byo.scene.setup import QUALITY, ResolvedSetup, resolve_setup


class NoContent(BaseModel):
    pass


HD_STANDARD = {"samples": 32, "adaptive_threshold": 0.05}
TOY = SimpleNamespace(name="toy", default_scene={}, content_model=NoContent,
                      quality_presets={"standard": [QualityPreset(HD_STANDARD, from_pixels=HD_PIXELS)]})
PLAIN = SimpleNamespace(name="plain", default_scene={}, content_model=NoContent, quality_presets={})


def _render(family, resolution, **render):
    setup, _, problems = validate_scene({"resolution": resolution, "render": render}, family)
    assert problems == []
    return setup.render


def test_below_its_first_step_the_shared_preset_applies():
    render = _render(TOY, [640, 360])
    assert (render.samples, render.adaptive_threshold) == (QUALITY["standard"]["samples"],
                                                           QUALITY["standard"]["adaptive_threshold"])


@pytest.mark.parametrize("resolution", [[1920, 1080], "high", [2560, 1440]])
def test_from_full_hd_up_the_familys_step_applies_over_the_shared_preset(resolution):
    render = _render(TOY, resolution)
    assert (render.samples, render.adaptive_threshold) == (32, 0.05)
    assert render.sampling_pattern == QUALITY["standard"]["sampling_pattern"]  # the keys the step leaves: shared


def test_a_key_the_config_sets_wins_over_the_familys_step():
    render = _render(TOY, [1920, 1080], samples=100)
    assert (render.samples, render.adaptive_threshold) == (100, 0.05)


def test_another_preset_or_another_family_keeps_the_shared_settings():
    draft = _render(TOY, [1920, 1080], quality="draft")
    assert (draft.samples, draft.adaptive_threshold) == (QUALITY["draft"]["samples"], None)
    plain = _render(PLAIN, [1920, 1080])
    assert plain.samples == QUALITY["standard"]["samples"]


def test_the_familys_step_survives_the_setup_being_resolved_and_sent_to_a_worker():
    """pydantic runs RenderConfig's preset validator again when the instance is handed to another
    model (ResolvedSetup): the family's step must not fall back to the shared preset there."""
    setup, _, _ = validate_scene({"resolution": [1920, 1080]}, TOY)
    resolved = resolve_setup(setup, np.random.default_rng(0))
    assert (resolved.render.samples, resolved.render.adaptive_threshold) == (32, 0.05)
    again = ResolvedSetup.model_validate_json(resolved.model_dump_json())  # as a render worker reads it
    assert (again.render.samples, again.render.adaptive_threshold) == (32, 0.05)
    assert again == resolved  # read back from its JSON, the same setup (the settings as applied included)


def test_a_key_the_config_sets_survives_the_round_trip_beside_the_familys_step():
    setup, _, _ = validate_scene({"resolution": [1920, 1080], "render": {"samples": 100}}, TOY)
    resolved = resolve_setup(setup, np.random.default_rng(0))
    again = ResolvedSetup.model_validate_json(resolved.model_dump_json())
    assert again == resolved and (again.render.samples, again.render.adaptive_threshold) == (100, 0.05)
