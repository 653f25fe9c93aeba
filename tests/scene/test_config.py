"""Config validation, plans and seeds: no bpy needed."""

from __future__ import annotations

import pytest
from conftest import clevr_config, write_config

from byo.cli import main
from byo.core.errors import ConfigError
from byo.families import load_config
from byo.scene.plan import image_count, jobs, make_job


def test_three_varying_variables_times_n_images(tmp_path, capsys):
    cfg_path = write_config(tmp_path, clevr_config(n_images=5, variables={
        "camera.elevation": {"type": "varying_all", "levels": ["low", "high"]},
        "lighting.intensity": {"type": "varying_all", "levels": ["low", "medium", "high"]},
        "blur.fstop": {"type": "varying_all", "levels": ["none", "low", "medium", 1.4]},
    }))
    cfg = load_config(cfg_path)
    assert image_count(cfg) == 120
    assert len(jobs(cfg)) == 120
    assert main(["plan", str(cfg_path)]) == 0
    out = capsys.readouterr().out
    assert "24 combinations x 5 images = 120 images" in out


def test_product_order_and_random_draws(tmp_path):
    cfg = load_config(write_config(tmp_path, clevr_config(n_images=2, variables={
        "content.count": {"type": "varying_all_range", "min": 3, "max": 5},
        "camera.azimuth": {"type": "varying_among_range", "min": 0.0, "max": 360.0},
        "lighting.intensity": {"type": "varying_random", "choices": ["low", "high"]},
    })))
    planned = jobs(cfg)
    assert [j.levels["content.count"] for j in planned] == [3, 3, 4, 4, 5, 5]
    azimuths = [j.levels["camera.azimuth"] for j in planned]
    assert len(set(azimuths)) == 6 and all(0.0 <= a <= 360.0 for a in azimuths)
    assert {j.levels["lighting.intensity"] for j in planned} <= {"low", "high"}


def test_float_range_needs_step_and_includes_max(tmp_path):
    cfg = load_config(write_config(tmp_path, clevr_config(variables={
        "camera.distance": {"type": "varying_all_range", "min": 1.7, "max": 2.3, "step": 0.3}})))
    assert [j.levels["camera.distance"] for j in jobs(cfg)] == [1.7, 2.0, 2.3]
    with pytest.raises(ConfigError, match="float ranges need a `step`"):
        load_config(write_config(tmp_path, clevr_config(variables={
            "camera.distance": {"type": "varying_all_range", "min": 1.5, "max": 2.5}})))


def test_each_image_seed_depends_only_on_dataset_seed_and_index(tmp_path):
    cfg = load_config(write_config(tmp_path, clevr_config(n_images=4, variables={
        "camera.azimuth": {"type": "varying_among_range", "min": 0.0, "max": 360.0}})))
    planned = jobs(cfg)
    alone = make_job(cfg, 3)
    assert alone == planned[3] and alone.levels == planned[3].levels
    assert len({j.seed for j in planned}) == 4
    other = load_config(write_config(tmp_path, {**clevr_config(n_images=4), "dataset": {
        "name": "tiny", "family": "clevr", "seed": 6, "n_images": 4}}, "other.yaml"))
    assert make_job(other, 3).seed != alone.seed


def _error(tmp_path, data) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(write_config(tmp_path, data))
    return str(info.value)


def test_unknown_key_names_file_and_path(tmp_path):
    msg = _error(tmp_path, clevr_config(camera={"distanse": 3}))
    assert "config.yaml: scene.camera.distanse: unknown key" in msg


def test_wrong_type_names_path_and_expectation(tmp_path):
    msg = _error(tmp_path, clevr_config(render={"samples": "many"}))
    assert "scene.render.samples" in msg and "valid integer" in msg


def test_unknown_preset_lists_the_presets(tmp_path):
    msg = _error(tmp_path, clevr_config(blur={"fstop": "extreme"}))
    assert "scene.blur.fstop: unknown blur preset 'extreme'" in msg
    assert "very_low, low, medium, high, very_high" in msg


def test_bad_variable_level_is_named(tmp_path):
    msg = _error(tmp_path, clevr_config(variables={
        "camera.distance": {"type": "varying_all", "levels": ["low", "huge"]}}))
    assert 'variables."camera.distance".levels[1]' in msg and "huge" in msg


def test_variable_path_must_lead_into_the_scene(tmp_path):
    msg = _error(tmp_path, clevr_config(variables={"camera.distance.x": {"type": "fixed", "value": 1}}))
    assert 'variables."camera.distance.x"' in msg


def test_unknown_family(tmp_path):
    data = clevr_config()
    data["dataset"]["family"] = "checkers"
    assert "dataset.family: unknown family 'checkers'" in _error(tmp_path, data)


def test_n_images_must_agree(tmp_path):
    msg = _error(tmp_path, clevr_config(variables={
        "camera.azimuth": {"type": "varying_all", "levels": [0, 90], "n_images": 3},
        "blur.fstop": {"type": "varying_all", "levels": ["low"], "n_images": 4}}))
    assert "n_images must be the same" in msg


def test_twelve_large_objects_fail_in_plan(tmp_path):
    msg = _error(tmp_path, clevr_config(content={"mode": "random", "count": 12, "sizes": ["large"]}))
    assert "scene.content" in msg and "12 large objects cannot fit" in msg


def test_plan_samples_every_scene_and_reports_impossible_placements(tmp_path, capsys):
    # Valid keys, but the camera looks far away from where objects may stand.
    cfg_path = write_config(tmp_path, clevr_config(camera={"target": [5.0, 5.0, 0.0], "distance": 0.5}))
    assert main(["plan", str(cfg_path)]) == 2
    assert "scene.content: image 0: could not place" in capsys.readouterr().err
    assert main(["plan", str(cfg_path), "--no-sample"]) == 0


@pytest.mark.parametrize(("family", "content", "key"), [
    ("chess", {"colors": ["white", {"name": "ivory", "rgb": [1.2, 1, 0.9]}]}, "scene.content.colors[1].rgb"),
    ("clevr", {"colors": ["red", {"name": "teal", "rgb": [0, 2, 2]}]}, "scene.content.colors[1].rgb"),
    ("poker", {"chips": {"colors": ["red", {"name": "gold", "rgb": [1, 0.8, -0.1]}]}},
     "scene.content.chips.colors[1].rgb"),
])
def test_a_color_of_ones_own_is_checked_alike_in_every_family(family, content, key):
    """One ColorDef (byo.core.schema) for every family: an sRGB value of 3 numbers in [0, 1]."""
    with pytest.raises(ConfigError) as err:
        load_config({"dataset": {"name": "c", "family": family}, "scene": {"content": content}})
    assert key in str(err.value) and "sRGB colour as 3" in str(err.value)


# --- BYO-Eval's varying_among and per-variable randomization (appendix D.1.5-D.1.6) ----------------
def _paper_variations() -> dict:
    return {"dataset": {"name": "r", "family": "chess", "seed": 9, "n_images": 20}, "variables": {
        "camera.distance": {"type": "varying_all", "levels": [2.0, 3.0], "randomize": True,
                            "randomize_percentage": 0.1},
        "content.count": {"type": "varying_among", "levels": [1, 3, 5]}}}


def test_varying_among_draws_one_of_its_levels_per_image():
    cfg = load_config(_paper_variations())
    assert image_count(cfg) == 40  # a random variable adds no combination
    drawn = [job.levels["content.count"] for job in jobs(cfg)]
    assert set(drawn) == {1, 3, 5}
    assert drawn == [job.levels["content.count"] for job in jobs(load_config(_paper_variations()))]


def test_a_randomized_variable_keeps_its_level_and_varies_its_value_within_the_percentage():
    from byo.scene.spec import sample_spec

    cfg = load_config(_paper_variations())
    used = {}
    for job in jobs(cfg):
        level = job.levels["camera.distance"]
        assert level in (2.0, 3.0)  # per-level scores group by the level asked for
        used.setdefault(level, []).append(sample_spec(cfg, job).setup.camera.distance)
    for level, values in used.items():
        assert all(level * 0.9 - 1e-9 <= v <= level * 1.1 + 1e-9 for v in values)
        assert len(set(values)) == len(values)  # each image its own draw
        assert max(values) - min(values) > 0.05 * level  # spread over the range, not one side of it
    again = [sample_spec(cfg, job).setup.camera.distance for job in jobs(load_config(_paper_variations()))]
    assert again == [v for level in (2.0, 3.0) for v in used[level]]


@pytest.mark.parametrize("variation, problem", [
    ({"type": "varying_all", "levels": ["low", "high"], "randomize": True}, "randomize needs numeric levels"),
    ({"type": "fixed", "value": 2.0, "randomize": 1}, "valid boolean"),
    ({"type": "fixed", "value": 2.0, "randomize": True, "randomize_percentage": 2}, "less than or equal to 1"),
    ({"type": "varying_among", "levels": []}, "at least 1"),
])
def test_bad_randomization_is_named(variation, problem, tmp_path, capsys):
    path = write_config(tmp_path, {"dataset": {"name": "r", "family": "chess"}, "variables": {"camera.distance": variation}})
    assert main(["plan", str(path)]) == 2
    err = capsys.readouterr().err
    assert "camera.distance" in err and problem in err


def test_a_randomized_level_is_validated_at_both_ends(tmp_path, capsys):
    # A camera 1 m away +-100% reaches 0 m at one end: refused before any render.
    path = write_config(tmp_path, {"dataset": {"name": "r", "family": "chess"}, "variables": {
        "camera.distance": {"type": "varying_all", "levels": [1.0, 2.0], "randomize": True, "randomize_percentage": 1}}})
    assert main(["plan", str(path)]) == 2
    assert "randomized by -1" in capsys.readouterr().err
