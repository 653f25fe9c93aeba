"""The render job builds into a scene of its own and writes nothing; the one writer writes
files atomically and with ordinary permissions."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest
from conftest import clevr_config

from byo.families import load_config
from byo.render.runner import render_dataset, sample_tasks
from byo.scene.plan import jobs

pytestmark = pytest.mark.render


def test_a_render_job_leaves_the_open_file_as_it_was(tmp_path, monkeypatch):
    import bpy

    from byo.render.job import render_task

    monkeypatch.chdir(tmp_path)
    user_scene = bpy.context.scene
    mesh = bpy.data.meshes.new("users_mesh")
    users_object = bpy.data.objects.new("users_object", mesh)
    user_scene.collection.objects.link(users_object)
    users_object.location = (1.0, 2.0, 3.0)
    counts = {kind: len(getattr(bpy.data, kind)) for kind in ("objects", "meshes", "materials", "scenes",
                                                              "cameras", "lights", "worlds", "images")}
    cfg = load_config(clevr_config(n_images=1))
    (task,) = sample_tasks(cfg, jobs(cfg), "<config>")

    result = render_task(task, threads=2)

    assert result.image.shape == (48, 64, 3) and result.instance_ids.shape == (48, 64)
    assert set(np.unique(result.instance_ids)) - {0} == {o["id"] for o in result.legend["objects"]}
    assert bpy.context.scene == user_scene and users_object.name in user_scene.objects
    assert tuple(users_object.location) == (1.0, 2.0, 3.0)
    assert {kind: len(getattr(bpy.data, kind)) for kind in counts} == counts
    assert list(tmp_path.iterdir()) == []  # the job wrote nothing


def test_output_files_are_0644_under_the_default_umask(tmp_path):
    old = os.umask(0o022)
    try:
        out = tmp_path / "out"
        render_dataset(clevr_config(n_images=1), out, show_progress=False)
    finally:
        os.umask(old)
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) >= 7
    assert {p.relative_to(out).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in files} == {
        p.relative_to(out).as_posix(): 0o644 for p in files}
