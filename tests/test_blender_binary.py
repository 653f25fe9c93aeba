"""Debian's Blender 3.4: the `blender -b -P render.py -- CONFIG` path, asset packs, the legacy add-on
and the screenshot of its panel."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT, clevr_config, crest_config, small_render, write_config

pytestmark = [
    pytest.mark.blender,
    pytest.mark.skipif(shutil.which("blender") is None, reason="no `blender` binary (make install adds it)"),
]


def run_blender(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(["blender", "-b", "--factory-startup", "-P", str(ROOT / "render.py"), "--", *args],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def test_count_config_renders_two_images(tmp_path):
    out = tmp_path / "out"
    proc = run_blender(str(ROOT / "dataset_configs" / "clevr" / "count.yaml"), "--limit", "2", "-o", str(out))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    legends = sorted((out / "legends").glob("*.json"))
    assert [p.stem for p in legends] == ["clevr_count_000000", "clevr_count_000001"]
    for path in legends:
        legend = json.loads(path.read_text())
        assert legend["blender"]["version"].startswith("3.4")
        assert all(o["visible_pixels"] >= legend["setup"]["min_visible_pixels"] for o in legend["objects"])
        assert (out / legend["image"]).is_file()
    assert len((out / "metadata.jsonl").read_text().splitlines()) == 2


def test_blender_and_wheel_measure_the_same_scene(tmp_path):
    pytest.importorskip("bpy")
    from byo.render.runner import render_dataset

    cfg = write_config(tmp_path, clevr_config("same", seed=9))
    proc = run_blender(str(cfg), "-o", str(tmp_path / "b34"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    render_dataset(str(cfg), str(tmp_path / "b50"), show_progress=False)
    a, b = (json.loads((tmp_path / d / "legends" / "same_000000.json").read_text()) for d in ("b34", "b50"))
    assert a["setup"] == b["setup"] and a["extras"] == b["extras"]
    for oa, ob in zip(a["objects"], b["objects"], strict=True):
        assert oa["pixel_coords"] == pytest.approx(ob["pixel_coords"], abs=0.05)
        assert abs(oa["visible_pixels"] - ob["visible_pixels"]) <= max(2, 0.05 * ob["visible_pixels"])


def test_bad_config_exits_non_zero_with_the_message(tmp_path):
    bad = write_config(tmp_path, clevr_config(camera={"distanse": 2}))
    proc = run_blender(str(bad), "-o", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "scene.camera.distanse: unknown key" in proc.stdout + proc.stderr
    assert not (tmp_path / "out").exists()


def test_crest_flat_matches_the_wheel_to_the_pixel_and_3d_renders(tmp_path):
    pytest.importorskip("bpy")
    import numpy as np
    from PIL import Image

    from byo.render.executors.inprocess import InProcess
    from byo.render.runner import render_dataset

    cfg = write_config(tmp_path, crest_config("crest34", resolution=[48, 48], content={"container": "kikko",
                                              "motif": "suzu"}, variables={"content.modifier": {
                                                  "type": "varying_all", "levels": ["peeking", "heads_together"]}}))
    proc = run_blender(str(cfg), "-o", str(tmp_path / "b34"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    render_dataset(str(cfg), str(tmp_path / "b50"), executor=InProcess(), show_progress=False)
    for name in ("crest34_000000", "crest34_000001"):
        a, b = (json.loads((tmp_path / d / "legends" / f"{name}.json").read_text()) for d in ("b34", "b50"))
        assert a["blender"]["version"].startswith("3.4") and a["extras"] == b["extras"]
        assert a["objects"] == b["objects"]
        for key in ("image", "mask"):
            pa, pb = (np.asarray(Image.open(tmp_path / d / a[key])) for d in ("b34", "b50"))
            assert np.array_equal(pa, pb), (name, key)

    solid = write_config(tmp_path, crest_config(
        "crest34_3d", resolution=[48, 36], camera={"projection": "perspective", "distance": 0.75, "elevation": 15,
                                                   "target": [0, 0, 0.15]},
        render={"engine": "cycles", "samples": 2, "denoise": "off"}, table={"enabled": True},
        content={"presentation": "3d", "carrier": {"kind": "lantern"}, "container": "maru"}), "solid.yaml")
    proc = run_blender(str(solid), "-o", str(tmp_path / "solid"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    legend = json.loads((tmp_path / "solid" / "legends" / "crest34_3d_000000.json").read_text())
    assert all(o["visible_pixels"] > 0 for o in legend["objects"])


def test_chess_with_glb_and_blend_piece_sets_renders_like_the_wheel(tmp_path):
    pytest.importorskip("bpy")
    from byo.render.executors.inprocess import InProcess
    from byo.render.runner import render_dataset

    cfg = write_config(tmp_path, {
        "dataset": {"name": "packs34", "family": "chess", "seed": 5},
        "scene": {"resolution": [96, 72], "render": small_render("chess", [96, 72], samples=2, denoise="off"),
                  "camera": {"distance": 0.8, "elevation": 45},
                  "table": {"image": {"pack": "table_textures", "texture": "oak"}},
                  "content": {"count": 4, "board": {"rows": 4, "columns": 4}}},
        "variables": {"content.piece_set": {"type": "varying_all", "levels": ["lowpoly_glb", "boxwood_blend"]}}})
    proc = run_blender(str(cfg), "-o", str(tmp_path / "b34"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    render_dataset(str(cfg), str(tmp_path / "b50"), executor=InProcess(), show_progress=False)
    for name in ("packs34_000000", "packs34_000001"):
        a, b = (json.loads((tmp_path / d / "legends" / f"{name}.json").read_text()) for d in ("b34", "b50"))
        assert a["blender"]["version"].startswith("3.4") and a["setup"] == b["setup"]
        assert a["content"]["piece_set"] == b["content"]["piece_set"]
        for oa, ob in zip(a["objects"], b["objects"], strict=True):
            assert oa["visible_pixels"] > 0
            assert abs(oa["visible_pixels"] - ob["visible_pixels"]) <= max(3, 0.05 * ob["visible_pixels"]), oa["name"]


ADDON_SCRIPT = """
import addon_utils, bpy, json, sys
addon_utils.enable("byo_render", default_set=True)
config, exported = sys.argv[sys.argv.index("--") + 1:]
out = {"panel": hasattr(bpy.types, "BYO_PT_main")}
out["load"] = list(bpy.ops.byo.load_yaml(filepath=config))
out["build"] = list(bpy.ops.byo.build_scene())
out["scenes"] = sorted(s.name for s in bpy.data.scenes)
out["export"] = list(bpy.ops.byo.export_yaml(filepath=exported))
out["preview"] = list(bpy.ops.byo.render_preview())
preview = sys.modules["byo_render.preview"]
(job,) = preview.JOBS.values()
out["preview_exit"] = job.process.wait(timeout=600)
preview.poll()
out["image"] = list(bpy.data.images["BYO preview"].size)
out["legend"] = json.loads(bpy.context.scene.byo.legend_json)["blender"]["version"]
print("RESULT " + json.dumps(out))
"""


def test_the_legacy_add_on_in_blender_34(tmp_path):
    """Installed as a 3.x add-on (bl_info) from a scripts folder, byo found from its folder."""
    import yaml

    addons = tmp_path / "scripts" / "addons"
    addons.mkdir(parents=True)
    (addons / "byo_render").symlink_to(ROOT / "blender_addon")
    config = {"dataset": {"name": "legacy", "family": "chess", "seed": 3},
              "scene": {"resolution": [64, 48], "render": small_render("chess", [64, 48], samples=2, denoise="off"),
                        "content": {"count": 3, "piece_set": "boxwood_blend", "board": {"rows": 4, "columns": 4}}}}
    path = write_config(tmp_path, config)
    env = {**os.environ, "BLENDER_USER_SCRIPTS": str(tmp_path / "scripts"), "BYO_RENDER_PATH": str(ROOT)}
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(["blender", "-b", "--factory-startup", "--python-expr", ADDON_SCRIPT, "--", str(path),
                           str(tmp_path / "exported.yaml")], capture_output=True, text=True, timeout=900,
                          cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert not (tmp_path / "blender.crash.txt").exists() and "Segmentation fault" not in proc.stderr
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
    out = json.loads(line.removeprefix("RESULT "))
    assert out == {"panel": True, "load": ["FINISHED"], "build": ["FINISHED"], "scenes": ["Scene", "legacy"],
                   "export": ["FINISHED"], "preview": ["FINISHED"], "preview_exit": 0, "image": [64, 48],
                   "legend": out["legend"]} and out["legend"].startswith("3.4")
    assert yaml.safe_load((tmp_path / "exported.yaml").read_text()) == config


@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="no Xvfb (make install adds it)")
def test_the_screenshot_script_shows_the_add_on_in_a_blender_window(tmp_path):
    from PIL import Image

    out = tmp_path / "panel.png"
    proc = subprocess.run([sys.executable, str(ROOT / "docs" / "addon_screenshot.py"), str(out)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    with Image.open(out) as im:
        assert im.size == (1600, 1400)
        pixels = np.asarray(im.convert("RGB"), dtype=int)
    assert pixels.std() > 20  # a window with content, not a blank screen


def test_poker_renders_the_same_cards_in_blender_3_4(tmp_path, monkeypatch):
    """Card textures, corner indices (mask parts) and identity_visible in Debian's Blender too."""
    pytest.importorskip("bpy")
    # A cold texture cache: Blender's own process draws the faces (Pillow's FreeType in it).
    monkeypatch.setenv("BYO_CACHE_DIR", str(tmp_path / "cache"))
    from byo.render.executors.inprocess import InProcess
    from byo.render.runner import render_dataset

    cfg = write_config(tmp_path, {
        "dataset": {"name": "poker34", "family": "poker", "seed": 3, "n_images": 1},
        "scene": {"resolution": [480, 360], "render": small_render("poker", [480, 360], samples=2, denoise="off"),
                  "content": {"n_players": 2, "hand": {"count": 2, "spread": 0.6}, "river": {"count": 3},
                              "chips": {"piles_per_player": 1, "table_piles": 1}}}})
    proc = run_blender(str(cfg), "-o", str(tmp_path / "b34"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    render_dataset(str(cfg), str(tmp_path / "b50"), executor=InProcess(), show_progress=False)
    a, b = (json.loads((tmp_path / d / "legends" / "poker34_000000.json").read_text()) for d in ("b34", "b50"))
    assert a["blender"]["version"].startswith("3.4") and a["extras"] == b["extras"]
    assert [p["id"] for p in a["parts"]] == [p["id"] for p in b["parts"]]
    for oa, ob in zip(a["objects"], b["objects"], strict=True):
        assert abs(oa["visible_pixels"] - ob["visible_pixels"]) <= max(3, 0.05 * ob["visible_pixels"])
        if oa["kind"] == "card":
            assert oa["attributes"]["identity_visible"] == ob["attributes"]["identity_visible"], oa["name"]
    assert any(o["attributes"].get("identity_visible") for o in a["objects"])
    assert len(list((tmp_path / "cache").rglob("*.png"))) == 8  # 7 faces and the back
