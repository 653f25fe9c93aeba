"""`byo plan --estimate`'s render time (byo.render.estimate): a few images spread over the plan
are rendered once per machine and scene, their CPU seconds scaled to every image; planned again,
nothing renders; another preset is another calibration."""

from __future__ import annotations

import statistics

import pytest
from conftest import clevr_config, write_config

from byo.cli import main
from byo.families import load_config
from byo.render import estimate
from byo.render.estimate import calibration_key, calibration_sample, estimate_render
from byo.scene.plan import selected_jobs


def _config(tmp_path, **render):
    data = clevr_config(n_images=3, variables={"content.count": {"type": "varying_all", "levels": [3, 4]}})
    data["scene"]["render"].update(render)
    return write_config(tmp_path, data, name=f"config{len(render)}.yaml")


def test_the_calibration_images_are_spread_over_the_plan(tmp_path):
    cfg = load_config(_config(tmp_path))  # 2 combinations x 3 images
    limit, shard = calibration_sample(cfg, 2)
    assert [j.index for j in selected_jobs(cfg, limit=limit, shard=shard)] == [1, 4]  # one per combination
    limit, shard = calibration_sample(cfg, 3)
    assert [j.index for j in selected_jobs(cfg, limit=limit, shard=shard)] == [1, 3, 5]
    limit, shard = calibration_sample(cfg, 50)  # more than there are: every image
    assert [j.index for j in selected_jobs(cfg, limit=limit, shard=shard)] == list(range(6))


def test_another_preset_or_machine_is_another_calibration(tmp_path, monkeypatch):
    cfg = load_config(_config(tmp_path))
    draft = load_config(_config(tmp_path, quality="draft", samples=2))
    assert calibration_key(cfg, 2) != calibration_key(draft, 2)
    assert calibration_key(cfg, 2) != calibration_key(cfg, 1)  # threads
    key = calibration_key(cfg, 2)
    monkeypatch.setattr(estimate, "machine", lambda: {"cpu": "another processor", "cpus": 2})
    assert calibration_key(cfg, 2) != key


@pytest.mark.render
def test_a_calibration_renders_once_and_scales_to_every_image(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BYO_CACHE", str(tmp_path / "cache"))
    path = _config(tmp_path)
    cfg = load_config(path)
    first = estimate_render(cfg, images=2, threads=1)
    cal = first.calibration
    assert not cal.cached and cal.indices == [1, 4] and len(cal.cpu_s) == 2 and all(s > 0 for s in cal.cpu_s)
    assert first.images == 6 and first.cpu_s == pytest.approx(6 * statistics.fmean(cal.cpu_s))
    assert first.wall_hours(3) == pytest.approx(first.cpu_hours / 3)
    assert sorted(p.name for p in (cal.dataset / "legends").glob("*.json")) == [
        "tiny_000001.json", "tiny_000004.json"]

    def no_render(*args, **kwargs):
        raise AssertionError("rendered again")

    monkeypatch.setattr(estimate, "render_dataset", no_render)
    again = estimate_render(cfg, images=2, threads=1)
    assert again.calibration.cached and again.calibration.cpu_s == cal.cpu_s
    assert main(["plan", str(path), "--no-sample", "--estimate", "--calibration-images", "2", "--threads", "1",
                 "--workers", "1", "--nodes", "4", "--cores-per-node", "8"]) == 0
    shown = capsys.readouterr().out
    assert "2 calibration images (cached)" in shown and "wall time on 4 nodes" in shown
    assert "questions" in shown and "per image" in shown


def _calibration(cpu_s, wall_s, threads):
    return estimate.Calibration(indices=list(range(len(cpu_s))), cpu_s=cpu_s, wall_s=wall_s, threads=threads,
                                machine={"cpu": "a processor", "cpus": 2}, dataset=None, cached=True)


def test_wall_time_at_the_calibrations_load_scales_by_how_much_it_was_slowed():
    shared = _calibration(cpu_s=[10.0, 20.0], wall_s=[25.0, 50.0], threads=1)  # 75 s of wall for 30 s of CPU
    assert shared.load_factor == pytest.approx(2.5)
    render = estimate.RenderEstimate(images=360, calibration=shared)  # 15 s per image: 1.5 CPU-hours
    assert render.wall_hours(3) == pytest.approx(0.5)
    assert render.wall_hours(3, loaded=True) == pytest.approx(1.25)
    idle = _calibration(cpu_s=[8.0], wall_s=[3.9], threads=2)  # two threads busy: less wall than CPU
    assert idle.load_factor == 1.0
    assert estimate.RenderEstimate(images=360, calibration=idle).wall_hours(2, loaded=True) == pytest.approx(0.4)


@pytest.mark.render
def test_a_config_whose_calibration_images_all_fail_is_one_line_not_a_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BYO_CACHE", str(tmp_path / "cache"))
    data = clevr_config(n_images=2, content={"mode": "random", "count": [3, 3]},
                        render={"samples": 1, "denoise": "off", "min_visible_pixels": 5000})  # more than the frame holds
    path = write_config(tmp_path, data, name="never_visible.yaml")
    # CLEVR's objects are projected before any render: refused at once (byo/scene/floor_check.py)
    assert main(["plan", str(path), "--no-sample", "--estimate", "--calibration-images", "1", "--threads", "1"]) == 2
    assert "visibility floor (5000 px)" in " ".join(capsys.readouterr().err.split())
    # a family that gives no silhouettes is found out by its calibration renders
    data = {"dataset": {"name": "tiny", "family": "chess", "seed": 1, "n_images": 2},
            "scene": {"resolution": [64, 48], "content": {"count": 2},
                      "render": {"samples": 1, "denoise": "off", "min_visible_pixels": 5000}}}
    path = write_config(tmp_path, data, name="never_visible.yaml")
    assert main(["plan", str(path), "--no-sample", "--estimate", "--calibration-images", "1", "--threads", "1"]) == 1
    captured = capsys.readouterr()
    shown = captured.out + captured.err
    error = next(line for line in shown.splitlines() if line.startswith("error:"))
    assert "none of the 1 calibration images of tiny could be rendered" in error
    assert "Traceback" not in shown
    assert not list((tmp_path / "cache").rglob("calibration.json"))  # nothing cached: a fixed config calibrates anew
