"""render.quality presets: a preset supplies the Cycles settings a config does not set itself,
the render applies them, and a wrong preset name is a clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import clevr_config, write_config

from byo.cli import main
from byo.families import load_config
from byo.render.runner import sample_tasks
from byo.scene.plan import jobs
from byo.scene.setup import QUALITY, RenderConfig

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("preset", sorted(QUALITY))
def test_a_preset_supplies_what_the_config_leaves_unset(preset):
    render = RenderConfig(quality=preset)
    for key, value in QUALITY[preset].items():
        assert getattr(render, key) == value


def test_the_default_is_standard_and_explicit_keys_override_the_preset():
    assert RenderConfig().quality == "standard"
    render = RenderConfig.model_validate({"quality": "draft", "samples": 77, "adaptive_threshold": None})
    assert render.samples == 77 and render.adaptive_threshold is None
    assert render.denoise_prefilter == QUALITY["draft"]["denoise_prefilter"]
    # A resolved config written out and read again renders the same.
    assert RenderConfig.model_validate(render.model_dump()) == render


def test_presets_rise_in_samples_and_keep_every_light_path():
    samples = [QUALITY[p]["samples"] for p in ("draft", "standard", "final")]
    assert samples == sorted(samples) and len(set(samples)) == 3
    for preset in QUALITY:  # the measured presets keep the default bounces, clamp and caustics
        render = RenderConfig(quality=preset)
        assert (render.max_bounces, render.clamp_indirect, render.caustics) == (4, 10.0, True)


def test_the_presets_are_the_settings_the_search_chose():
    """bench/quality.py --search chose each preset on its worst scene; the code renders with it."""
    found = json.loads((ROOT / "bench" / "results" / "quality_search.json").read_text())
    assert set(found["chosen"]) == set(QUALITY)
    for preset, settings in found["chosen"].items():
        measured = {**found["unset"], **settings}  # what a setting left out, as the search rendered it
        if measured["adaptive_threshold"] is None:
            del measured["adaptive_min_samples"]  # no adaptive sampling: no floor
        render = RenderConfig(quality=preset)
        assert {key: getattr(render, key) for key in measured} == measured, preset


def test_an_unknown_preset_names_the_key_and_the_choices(tmp_path, capsys):
    path = write_config(tmp_path, clevr_config(render={"quality": "ultra"}))
    assert main(["plan", str(path)]) == 2
    err = capsys.readouterr().err
    assert "render.quality" in err and "draft" in err and "standard" in err and "Traceback" not in err


@pytest.mark.render
@pytest.mark.parametrize("preset", ["draft", "final"])
def test_the_render_applies_the_preset(preset):
    from byo.blender import engine
    from byo.render.job import build_scene

    cfg = load_config(clevr_config(n_images=1, render={"quality": preset, "denoise": "on"}))
    family = cfg.family
    (task,) = sample_tasks(cfg, jobs(cfg), "<config>")
    wanted = QUALITY[preset]
    with engine.own_scene("preset_test") as scene:
        applied, _ = build_scene(task.spec, family, scene, threads=1)
        c = scene.cycles
        assert applied["quality"] == preset
        assert c.samples == wanted["samples"]
        assert c.use_adaptive_sampling == (wanted["adaptive_threshold"] is not None)
        if wanted["adaptive_threshold"] is not None:
            assert c.adaptive_threshold == pytest.approx(wanted["adaptive_threshold"])
            assert c.adaptive_min_samples == wanted["adaptive_min_samples"]
        assert c.denoising_prefilter == wanted["denoise_prefilter"].upper()
        assert c.use_light_tree == wanted["light_tree"]
        assert c.sampling_pattern == {"sobol": "TABULATED_SOBOL", "blue_noise": "BLUE_NOISE"}[wanted["sampling_pattern"]]


@pytest.mark.render
def test_light_path_keys_reach_cycles():
    from byo.blender import engine
    from byo.render.job import build_scene

    keys = {"clamp_indirect": 2.5, "caustics": False, "max_bounces": 3, "diffuse_bounces": 1, "glossy_bounces": 2,
            "light_tree": False, "denoise": "on", "denoise_quality": "balanced"}
    cfg = load_config(clevr_config(n_images=1, render=keys))
    family = cfg.family
    (task,) = sample_tasks(cfg, jobs(cfg), "<config>")
    with engine.own_scene("light_paths_test") as scene:
        build_scene(task.spec, family, scene, threads=1)
        c = scene.cycles
        assert c.sample_clamp_indirect == pytest.approx(2.5)
        assert not c.caustics_reflective and not c.caustics_refractive
        assert (c.max_bounces, c.diffuse_bounces, c.glossy_bounces) == (3, 1, 2)
        assert not c.use_light_tree and c.denoising_quality == "BALANCED"
