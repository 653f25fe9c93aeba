"""Visibility before rendering (byo/scene/floor_check.py): `byo plan` projects each object's
silhouette from the spec and refuses, before any render, the images that cannot meet the
visibility floor, with a fix it computed; a scene that cannot be placed is drawn again from a
derived seed, recorded in its legend."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import write_config
from visibility_data import DISTANCES, fixed_distance, newcomer, refused

from byo.cli import main
from byo.core.seeding import restart_seed
from byo.families import get_family, load_config
from byo.scene import floor_check
from byo.scene.camera import Projector
from byo.scene.plan import jobs
from byo.scene.spec import SceneObject, placed_spec, sample_spec
from byo.scene.visibility import reach


def test_plan_refuses_before_rendering_with_a_camera_distance_that_works(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    path = write_config(tmp_path, newcomer())
    err = refused(path, capsys)
    first = err.splitlines()[0]
    assert first.startswith(f"error: {path}: variables.camera.distance: expected camera.distance at most ")
    assert "images cannot show every object on the visibility floor (112 px)" in first
    assert "scene.render.min_visible_pixels: 112 px, CLEVR's 200 px at 320x240 scaled to 240x180" in err
    distance = fixed_distance(err)
    assert 0.5 < distance < min(DISTANCES)  # the camera comes closer than every level asked
    # byo render refuses it the same way, before any work
    assert fixed_distance(refused(path, capsys, "render")) == distance
    assert not (tmp_path / "out").exists()
    # the fix, applied: plan passes, and every object covers the floor wherever it stands in view
    cfg = load_config(newcomer([distance]))
    for job in jobs(cfg):
        spec = placed_spec(cfg, job)
        assert all(r.worst >= spec.setup.min_visible_pixels for r in floor_check.object_reaches(cfg, spec))
    assert main(["plan", str(write_config(tmp_path, newcomer([distance]), "fixed.yaml"))]) == 0


def test_the_refused_images_are_those_whose_objects_cannot_reach_the_floor(tmp_path):
    cfg = load_config(newcomer())
    tasks = [(job, placed_spec(cfg, job)) for job in jobs(cfg)]
    short = {u.job.index for u in floor_check.unmet(cfg, tasks)}
    for job, spec in tasks:
        best = min(r.best for r in floor_check.object_reaches(cfg, spec))
        assert (job.index in short) == (best < spec.setup.min_visible_pixels)
        if job.levels["camera.distance"] >= 2.0:  # a small object shows at most about 80 px of the 112
            assert (job.index in short) == any(o.attributes["size"] == "small" for o in spec.objects)
    assert short and len(short) < len(tasks)  # the 1 m images can


def test_a_floor_in_pixels_is_also_offered_a_resolution(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    path = write_config(tmp_path, newcomer([3.5], [2], min_visible_pixels=112))
    err = refused(path, capsys)
    width, height = map(int, re.search(r"resolution at least (\d+)x(\d+)", err).groups())
    assert width / height == pytest.approx(240 / 180, rel=0.01) and width > 240
    # at that size the same floor is met wherever the objects stand
    data = newcomer([3.5], [2], min_visible_pixels=112)
    data["scene"]["resolution"] = [width, height]
    assert main(["plan", str(write_config(tmp_path, data, "bigger.yaml"))]) == 0


def test_objects_kept_and_flagged_are_not_refused(tmp_path):
    assert main(["plan", str(write_config(tmp_path, newcomer(on_hidden="flag")))]) == 0


@pytest.mark.slow
def test_a_scene_that_cannot_be_placed_is_refused_with_a_count_that_places(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    path = write_config(tmp_path, newcomer([0.25], [8]))
    err = refused(path, capsys)
    assert f"{path}: scene.content: image 0 (content.count=8, camera.distance=0.25): expected content.count at most" in err
    n = int(re.search(r"content\.count at most (\d+)", err).group(1))
    assert 1 <= n < 8
    assert main(["plan", str(write_config(tmp_path, newcomer([0.25], [n]), "fewer.yaml"))]) == 0


def test_a_restarted_scene_is_drawn_from_a_derived_seed_and_says_so():
    cfg = load_config(newcomer([1.0], [5]))
    job = jobs(cfg)[0]
    first, again = sample_spec(cfg, job, 0, restart=2), sample_spec(cfg, job, 0, restart=2)
    assert first == again  # the same on every worker
    assert first.restart == {"number": 2, "seed": restart_seed(job.seed, 2)} and first.seed == job.seed
    own = sample_spec(cfg, job)
    assert own.restart is None and "restart" not in own.model_dump()  # legends without restarts as they were
    assert [o.location for o in own.objects] != [o.location for o in first.objects]
    assert own.setup == first.setup  # the camera, lights and table are the image's own


def test_a_spheres_silhouette_is_the_pinhole_disc():
    """A sphere of radius r straight ahead at D metres covers pi (f r / D)^2 pixels, f the focal
    length in pixels (the sensor width spanning the image width); its hull of points a little less."""

    clevr = get_family("clevr")
    ball = SceneObject(id=1, name="ball", kind="sphere", attributes={}, location=(0.0, 0.0, 0.0), rotation=0.0,
                       scale=0.05)
    projector = Projector(location=(0.0, -2.0, 0.0), target=(0.0, 0.0, 0.0), azimuth=0.0, focal_length=35.0,
                          sensor_width=36.0, resolution=(240, 180))
    r = reach(projector, clevr.silhouette(None, ball), np.zeros((1, 3)), "ball")
    focal_px = 35.0 / 36.0 * 240
    disc = np.pi * (focal_px * 0.05 / 2.0) ** 2
    assert r.best == r.worst and 0.97 * disc <= r.best <= 1.01 * disc
    # twice as far, a quarter of the pixels; behind the camera, none
    assert reach(projector, clevr.silhouette(None, ball), np.array([[0.0, 2.0, 0.0]]), "ball").best == \
        pytest.approx(r.best / 4, rel=0.01)
    assert reach(projector, clevr.silhouette(None, ball), np.array([[0.0, -3.0, 0.0]]), "ball").best == 0
