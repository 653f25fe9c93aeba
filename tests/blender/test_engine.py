"""One render per image: the instance ids read from the image's own render (the object index
pass) measure what the separate sharp id render measured, on every shipped config."""

from __future__ import annotations

import pytest
from golden_data import CONFIGS, LIMIT, golden_name, tiny_config

from byo.blender import engine
from byo.families import load_config
from byo.render.job import build_scene
from byo.render.runner import sample_tasks
from byo.scene.measure import measure
from byo.scene.plan import jobs

pytestmark = pytest.mark.render

SIZE = [128, 96]
# A pixel whose centre lies on an edge may go either way between two renders.
MAX_DIFFERENT_PIXELS = 0.002  # of the image


def _both_ways(spec, family):
    with engine.own_scene("single_pass_test") as scene:
        _, built = build_scene(spec, family, scene, threads=2)
        if not engine.one_pass_ids(scene):
            return None
        _, one_pass = engine.render_image_and_ids(scene, built)
        separate = engine.render_instance_ids(scene, built)
    return one_pass, separate


@pytest.mark.parametrize("config", CONFIGS, ids=golden_name)
def test_one_pass_ids_measure_what_the_separate_render_measured(config):
    cfg = load_config(tiny_config(config, SIZE))
    family = cfg.family
    tasks = sample_tasks(cfg, jobs(cfg)[:LIMIT], str(config))
    compared = 0
    for task in tasks:
        spec = task.spec
        both = _both_ways(spec, family)
        if both is None:  # depth of field or Workbench: ids from the separate render, as before
            assert spec.setup.blur.enabled or spec.setup.render.engine == "workbench"
            continue
        one_pass, separate = both
        assert (one_pass != separate).mean() <= MAX_DIFFERENT_PIXELS
        ids, parts = [o.id for o in spec.objects], family.mask_parts(spec)
        new, old = measure(one_pass, ids, parts), measure(separate, ids, parts)
        threshold = spec.setup.min_visible_pixels
        for i in ids:
            a, b = new[i]["visible_pixels"], old[i]["visible_pixels"]
            assert abs(a - b) <= max(1, 0.01 * b), (spec.name, i, a, b)
            assert (a >= threshold) == (b >= threshold), (spec.name, i, a, b, threshold)
        compared += 1
    if compared == 0:
        pytest.skip("every image of this config needs the separate id render (blur or Workbench)")


def test_depth_of_field_and_workbench_take_the_separate_id_render(tmp_path):
    for blur, engine_name in ((True, "cycles"), (False, "workbench"), (False, "cycles")):
        config = {"dataset": {"name": "t", "family": "chess", "seed": 1, "n_images": 1},
                  "scene": {"resolution": [64, 48], "render": {"engine": engine_name, "samples": 1},
                            "blur": {"fstop": "high" if blur else "none"}}}
        cfg = load_config(config)
        family = cfg.family
        (task,) = sample_tasks(cfg, jobs(cfg), "<config>")
        with engine.own_scene("pass_choice") as scene:
            build_scene(task.spec, family, scene, threads=1)
            assert engine.one_pass_ids(scene) == (not blur and engine_name == "cycles")
