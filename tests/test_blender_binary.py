"""The `blender -b -P render.py -- CONFIG` path, with Debian's Blender 3.4."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from conftest import ROOT, clevr_config, write_config

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
    from byo.runner import render_dataset

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
    from test_crest_spec import crest_config

    from byo.executors.inprocess import InProcess
    from byo.runner import render_dataset

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


def test_poker_renders_the_same_cards_in_blender_3_4(tmp_path, monkeypatch):
    """Card textures, corner indices (mask parts) and identity_visible in Debian's Blender too."""
    pytest.importorskip("bpy")
    # A cold texture cache: Blender's own process draws the faces (Pillow's FreeType in it).
    monkeypatch.setenv("BYO_CACHE_DIR", str(tmp_path / "cache"))
    from byo.executors.inprocess import InProcess
    from byo.runner import render_dataset

    cfg = write_config(tmp_path, {
        "dataset": {"name": "poker34", "family": "poker", "seed": 3, "n_images": 1},
        "scene": {"resolution": [480, 360], "render": {"samples": 2, "denoise": "off"},
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
