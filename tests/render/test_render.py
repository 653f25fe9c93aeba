"""Rendering with the bpy wheel: tiny images so the suite stays fast."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, RUN_RECORDS, clevr_config, write_config
from PIL import Image
from scipy.ndimage import gaussian_filter

from byo.cli import main
from byo.cli.demo import DATASETS
from byo.core.errors import ConfigError
from byo.render.executors.inprocess import InProcess
from byo.render.executors.pool import LocalPool
from byo.render.runner import render_dataset
from byo.scene.measure import read_mask

pytestmark = pytest.mark.render


def pixels(path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


def snapshot(root) -> dict[str, bytes]:
    """The dataset's files (not the run records, such as the render log's timings)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name not in RUN_RECORDS}


@pytest.fixture(scope="module")
def count_dataset(tmp_path_factory):
    """50 images of 3-10 random objects, rendered once for several checks."""
    tmp = tmp_path_factory.mktemp("count")
    cfg = clevr_config("count50", seed=21, n_images=50, content={"mode": "random"},
                       variables={"content.count": {"type": "varying_among_range", "min": 3, "max": 10}},
                       render={"samples": 1, "denoise": "off", "adaptive_threshold": None})
    out = tmp / "out"
    report = render_dataset(str(write_config(tmp, cfg)), str(out), show_progress=False)
    assert not report.failed
    return out


def test_every_object_is_visible_and_left_right_matches_projection(count_dataset):
    legends = [json.loads(p.read_text()) for p in sorted((count_dataset / "legends").glob("*.json"))]
    assert len(legends) == 50
    counts = set()
    for legend in legends:
        mask = read_mask(count_dataset / legend["mask"])
        min_px = legend["setup"]["min_visible_pixels"]
        objects = legend["objects"]
        counts.add(len(objects))
        assert len(objects) == legend["levels"]["content.count"]
        for o in objects:
            assert o["visible_pixels"] >= min_px
            assert o["visible_pixels"] == int((mask == o["id"]).sum())  # measured, not estimated
            x0, y0, x1, y1 = o["bbox"]
            assert (mask[y0:y1, x0:x1] == o["id"]).any() and not (mask[:, :x0] == o["id"]).any()
        rel = legend["extras"]["relationships"]
        for i, j in itertools.permutations(range(len(objects)), 2):
            xi, xj = objects[i]["pixel_coords"][0], objects[j]["pixel_coords"][0]
            assert (j in rel["left"][i]) == (xj < xi) and (j in rel["right"][i]) == (xj > xi)
    assert len(counts) >= 5


def test_blender_projection_agrees_with_the_spec_projection(count_dataset):
    from byo.scene.setup import ResolvedSetup

    for path in sorted((count_dataset / "legends").glob("*.json"))[:10]:
        legend = json.loads(path.read_text())
        projector = ResolvedSetup.model_validate(legend["setup"]).projector()
        ours = projector.project([o["location"] for o in legend["objects"]])
        blender = np.array([o["pixel_coords"] for o in legend["objects"]])
        assert np.allclose(ours[:, :2], blender[:, :2], atol=0.02)


def test_dataset_files(count_dataset):
    rows = [json.loads(line) for line in (count_dataset / "metadata.jsonl").read_text().splitlines()]
    assert [r["index"] for r in rows] == list(range(50))
    for r in rows:
        assert (count_dataset / r["file_name"]).is_file() and r["file_name"].startswith("images/")
    scenes = json.loads((count_dataset / "clevr_scenes.json").read_text())
    assert set(scenes) == {"info", "scenes"} and len(scenes["scenes"]) == 50
    scene = scenes["scenes"][7]
    assert int(scene["image_filename"].rsplit(".", 1)[0].split("_")[-1]) == scene["image_index"] == 7
    assert set(scene) == {"split", "image_index", "image_filename", "objects", "directions", "relationships",
                          "objects_not_visible"}
    assert set(scene["objects"][0]) == {"shape", "size", "material", "color", "3d_coords", "rotation",
                                        "pixel_coords"}
    legend = json.loads((count_dataset / "legends" / "count50_000007.json").read_text())
    scale = legend["extras"]["scale"]
    for obj, ours in zip(scene["objects"], legend["objects"], strict=True):
        assert obj["3d_coords"] == pytest.approx([v / scale for v in ours["location"]], abs=1e-3)
        assert obj["pixel_coords"][2] == pytest.approx(ours["pixel_coords"][2] / scale, abs=1e-3)
    with Image.open(count_dataset / "contact_sheet.png") as sheet:
        assert sheet.width > 400 and sheet.height > 400


def test_loads_as_hugging_face_imagefolder(count_dataset, tmp_path):
    from datasets import load_dataset

    ds = load_dataset("imagefolder", data_dir=str(count_dataset), split="train", cache_dir=str(tmp_path))
    assert len(ds) == 50  # masks and the contact sheet are not taken for samples
    row = ds[7]
    legend = json.loads((count_dataset / row["legend"]).read_text())
    assert row["index"] == legend["index"] == 7
    assert row["image"].size == (legend["width"], legend["height"])
    assert np.array_equal(np.asarray(row["image"].convert("RGB")), pixels(count_dataset / legend["image"]))


def test_full_and_interrupted_runs_are_identical(tmp_path):
    cfg_path = write_config(tmp_path, clevr_config("resume", seed=3, n_images=2, variables={
        "camera.azimuth": {"type": "varying_all", "levels": [0, 120]},
        "camera.distance": {"type": "varying_among_range", "min": 1.1, "max": 1.4}}))
    full, part = tmp_path / "full", tmp_path / "part"
    assert not render_dataset(str(cfg_path), str(full), show_progress=False).failed
    first = render_dataset(str(cfg_path), str(part), limit=1, executor=InProcess(), show_progress=False)
    assert len(first.rendered) == 1
    # A crash mid-image leaves partial files behind: --resume must redo that image.
    name = "resume_000001"
    shutil.copyfile(full / "images" / f"{name}.png", part / "images" / f"{name}.png")
    (part / "masks" / f"{name}.png").write_bytes(b"truncated")
    second = render_dataset(str(cfg_path), str(part), resume=True, executor=LocalPool(2), show_progress=False)
    assert second.skipped == 1 and len(second.rendered) == 3
    a, b = snapshot(full), snapshot(part)
    assert sorted(a) == sorted(b)
    for key in a:
        if key.endswith(".png") and key.startswith(("images/", "masks/")):
            assert np.array_equal(pixels(full / key), pixels(part / key)), key
        else:
            assert a[key] == b[key], key


def test_killed_render_resumes_to_the_same_dataset(tmp_path):
    cfg_path = write_config(tmp_path, clevr_config("killed", seed=4, n_images=6))
    full, killed = tmp_path / "full", tmp_path / "killed"
    render_dataset(str(cfg_path), str(full), executor=InProcess(), show_progress=False)
    proc = subprocess.Popen([sys.executable, "-m", "byo.cli", "render", str(cfg_path), "-o", str(killed)],
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((killed / "legends").glob("[!.]*.json"))) < 2:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its render worker, mid-run
    proc.wait()
    done_before = len(list((killed / "legends").glob("[!.]*.json")))
    assert 2 <= done_before < 6
    report = render_dataset(str(cfg_path), str(killed), resume=True, show_progress=False)
    assert report.skipped == done_before and len(report.rendered) == 6 - done_before
    a, b = snapshot(full), snapshot(killed)
    assert sorted(a) == sorted(b)
    assert all(a[k] == b[k] for k in a if k.startswith("legends/"))


def test_non_empty_output_needs_resume_and_bad_configs_touch_nothing(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("precious")
    ok = write_config(tmp_path, clevr_config())
    with pytest.raises(ConfigError, match=r"not empty \(it holds keep.txt\); pass `resume`"):
        render_dataset(str(ok), str(out), show_progress=False)
    bad = write_config(tmp_path, clevr_config(content={"mode": "random", "count": 12, "sizes": ["large"]}),
                       "bad.yaml")
    assert main(["render", str(bad), "-o", str(out), "--resume"]) == 2
    assert main(["render", str(bad), "-o", str(tmp_path / "fresh")]) == 2
    assert [p.name for p in out.iterdir()] == ["keep.txt"] and not (tmp_path / "fresh").exists()


@pytest.mark.parametrize("folder", ["short", "a_long_folder_name_" * 6])
def test_placement_that_cannot_be_seen_fails_before_rendering(tmp_path, folder):
    # The camera looks at a far corner: the preflight cannot place objects in view. However long
    # the config's path, the message names the key and the image before it is cut.
    cfg = clevr_config(camera={"target": [5.0, 5.0, 0.0], "distance": 0.5})
    (tmp_path / folder).mkdir()
    with pytest.raises(ConfigError, match=r"scene\.content: image 0: could not place"):
        render_dataset(str(write_config(tmp_path / folder, cfg)), str(tmp_path / "out"), show_progress=False)
    assert not (tmp_path / "out").exists()


def test_workbench_engine_and_table_textures(tmp_path):
    """Texture entropy must reach the pixels (a defect of the original: it never did)."""
    spreads = {}
    for texture in ("low", "medium", "high"):
        cfg = clevr_config(f"table_{texture}", seed=1, resolution=[128, 96],
                           camera={"distance": 1.0, "elevation": 60.0},
                           render={"samples": 16, "denoise": "auto"},
                           table={"enabled": True, "shape": "circular", "length": 1.6, "texture": texture,
                                  "color": "light_wood"},
                           content={"mode": "objects", "objects": [{"shape": "cube", "color": "red"}]})
        out = tmp_path / texture
        assert not render_dataset(str(write_config(tmp_path, cfg, f"{texture}.yaml")), str(out),
                                  executor=InProcess(), show_progress=False).failed
        gray = pixels(out / "images" / f"table_{texture}_000000.png").astype(float).mean(axis=2)
        mask = read_mask(out / "masks" / f"table_{texture}_000000.png")
        # Texture detail: what is left between a light and a heavy blur (sampling noise and
        # the lighting gradient both fall outside that band).
        detail = gaussian_filter(gray, 1.0) - gaussian_filter(gray, 5.0)
        spreads[texture] = detail[16:80, 16:112][mask[16:80, 16:112] == 0].std()
    assert spreads["low"] < spreads["medium"] < spreads["high"], spreads

    cfg = clevr_config("wb", render={"engine": "workbench"})
    out = tmp_path / "wb"
    assert not render_dataset(str(write_config(tmp_path, cfg, "wb.yaml")), str(out), executor=InProcess(),
                              show_progress=False).failed
    legend = json.loads((out / "legends" / "wb_000000.json").read_text())
    assert legend["blender"]["engine"] == "workbench" and pixels(out / legend["image"]).std() > 5


def test_orthographic_camera_and_flat_workbench(tmp_path):
    """Flat lighting, no anti-aliasing and no dither: each object shows exactly its own colour."""
    cfg = clevr_config("flat", seed=8, resolution=[96, 64], background={"color": [1, 1, 1], "strength": 1},
                       floor={"enabled": False},
                       camera={"projection": "orthographic", "ortho_scale": 0.8, "elevation": 90, "azimuth": 30},
                       render={"engine": "workbench", "workbench_lighting": "flat", "workbench_aa": "off",
                               "dither": 0.0},
                       content={"mode": "objects", "objects": [
                           {"shape": "cube", "color": "red", "position": [-1.5, 0.0]},
                           {"shape": "sphere", "color": "blue", "position": [1.5, 0.5]}]})
    out = tmp_path / "out"
    assert not render_dataset(str(write_config(tmp_path, cfg)), str(out), executor=InProcess(),
                              show_progress=False).failed
    legend = json.loads((out / "legends" / "flat_000000.json").read_text())
    colors = {tuple(c) for c in pixels(out / legend["image"]).reshape(-1, 3)}
    assert colors == {(255, 255, 255), (173, 35, 35), (42, 75, 215)}
    from byo.scene.setup import ResolvedSetup

    ours = ResolvedSetup.model_validate(legend["setup"]).projector().project([o["location"] for o in legend["objects"]])
    assert np.allclose(ours[:, :2], [o["pixel_coords"][:2] for o in legend["objects"]], atol=0.02)


def test_blur_reaches_the_pixels(tmp_path):
    sharpness = {}
    for fstop in ("none", "very_high"):
        cfg = clevr_config(f"blur_{fstop}", seed=2, resolution=[128, 96], blur={"fstop": fstop},
                           camera={"distance": 0.8}, render={"samples": 16, "denoise": "auto"},
                           content={"mode": "objects", "objects": [
                               {"shape": "cube", "color": "yellow", "position": [2.5, -2.5]},
                               {"shape": "cube", "color": "blue", "position": [-2.5, 2.5]}]})
        out = tmp_path / fstop
        render_dataset(str(write_config(tmp_path, cfg, f"{fstop}.yaml")), str(out), executor=InProcess(),
                       show_progress=False)
        gray = pixels(out / "images" / f"blur_{fstop}_000000.png").astype(float).mean(axis=2)
        legend = json.loads((out / "legends" / f"blur_{fstop}_000000.json").read_text())
        assert legend["setup"]["blur"]["enabled"] == (fstop != "none")
        # Focus is on the scene centre: the near and the far object are both out of focus.
        edges = np.diff(gray, axis=1)[:-1, :] ** 2 + np.diff(gray, axis=0)[:, :-1] ** 2  # gradient energy
        boxes = [o["bbox"] for o in legend["objects"]]
        sharpness[fstop] = sum(edges[y0:y1, x0:x1].mean() for x0, y0, x1, y1 in boxes)
    assert sharpness["very_high"] < 0.6 * sharpness["none"], sharpness


def test_demo_configs_plan(capsys):
    assert main(["plan", str(ROOT / "dataset_configs" / "demo.yaml")]) == 0
    assert "= 8 images" in capsys.readouterr().out
    assert main(["plan", str(ROOT / "dataset_configs" / "demo_poker.yaml")]) == 0
    assert "(poker): 2 combinations x 2 images = 4 images" in capsys.readouterr().out
    assert {Path(c).stem for c in DATASETS.values()} == {"demo", "demo_poker"}
