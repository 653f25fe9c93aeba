from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
# Visibility is counted in pixels of the image as rendered: CLEVR's 200 px at 320x240, shrunk to 64x48.
TINY_RENDER = {"resolution": [64, 48], "render": {"samples": 4, "denoise": "off", "min_visible_pixels": 8}}


def shrunk_pixels(pixels: int, native: tuple[int, int], resolution) -> int:
    """A visibility threshold of `pixels` at the `native` size, shrunk with the image area to
    `resolution`: a test's small render counts the objects a full-size one would (at least 1)."""
    return max(1, round(pixels * resolution[0] * resolution[1] / (native[0] * native[1])))


# Each family's visibility threshold (pixels of the image as rendered) and the size it was meant for.
NATIVE_VISIBILITY = {"clevr": (200, (320, 240)), "chess": (23, (640, 360)), "poker": (96, (800, 600))}


def small_render(family: str, resolution, **render) -> dict:
    """Render settings for a family's scene shrunk to `resolution`, the threshold shrunk with it."""
    pixels, native = NATIVE_VISIBILITY[family]
    return {"min_visible_pixels": shrunk_pixels(pixels, native, resolution), **render}


def write_config(tmp_path: Path, data: dict, name: str = "config.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def clevr_config(name: str = "tiny", *, seed: int = 5, n_images: int = 1, content=None, variables=None,
                 **scene) -> dict:
    """A small CLEVR config; its visibility threshold is CLEVR's 200 px at 320x240 shrunk to its
    resolution unless `render` gives one."""
    resolution = scene.get("resolution", TINY_RENDER["resolution"])
    render = dict(scene.pop("render")) if "render" in scene else {"samples": 4, "denoise": "off"}
    if isinstance(resolution, list | tuple):
        render.setdefault("min_visible_pixels", shrunk_pixels(200, (320, 240), resolution))
    return {
        "dataset": {"name": name, "family": "clevr", "seed": seed, "n_images": n_images},
        "scene": {**TINY_RENDER, **scene, "render": render, "content": content or {"mode": "random", "count": [3, 5]}},
        "variables": variables or {},
    }


def crest_config(name: str = "crest", *, seed: int = 4, n_images: int = 1, content=None, variables=None,
                 **scene) -> dict:
    return {"dataset": {"name": name, "family": "crest", "seed": seed, "n_images": n_images},
            "scene": {"resolution": [64, 64], **scene, "content": content or {}}, "variables": variables or {}}


@pytest.fixture(autouse=True, scope="session")
def _reports_built_in_one_process():
    """A test worker is one of nproc + 1 (make test-fast): a report forking workers of its own adds
    their start and the figures' way back (a quarter more CPU) and no speed. Reports built in a
    test are built section by section; the forked build is checked against it in
    tests/score/test_report.py, and commands the tests start as processes keep it."""
    from byo.score import report

    report.WORKERS = 1
    yield
    report.WORKERS = None


def pytest_collection_modifyitems(config, items):
    have_bpy = importlib.util.find_spec("bpy") is not None
    for item in items:
        if "render" in item.keywords and not have_bpy:
            item.add_marker(pytest.mark.skip(reason="the bpy wheel is not installed (make install)"))


# What a dataset directory holds that is a record of runs, not part of the dataset.
RUN_RECORDS = ("render_log.jsonl",)


def assert_same_dataset(expected: Path, actual: Path) -> None:
    """Same files; PNGs with the same pixels (renders on one machine are exact), everything else
    (legends, metadata, per-dataset files) byte for byte. No temporary or partial files."""
    import numpy as np
    from PIL import Image

    def files(root: Path) -> list[str]:
        return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                      if p.is_file() and p.name not in RUN_RECORDS)

    assert files(actual) == files(expected)
    assert not [p for p in actual.rglob(".*")], "temporary files left behind"
    for name in files(expected):
        a, b = expected / name, actual / name
        if name.endswith(".png"):
            with Image.open(a) as x, Image.open(b) as y:
                assert np.array_equal(np.asarray(x), np.asarray(y)), name
        else:
            assert a.read_bytes() == b.read_bytes(), name


# --- the render farm's dataset (tests/render/executors/test_executors.py, tests/render/test_merge.py) ------------------
FARM_IMAGES = 12  # room for the latest kill point (after 6) to land before the end, even when fast
FARM_NAME = "farm"


def farm_config(**render) -> dict:
    return clevr_config(FARM_NAME, seed=11, n_images=FARM_IMAGES // 4, content={"mode": "random", "count": [3, 4]},
                        render={"samples": 4, "denoise": "off", **render},
                        variables={"camera.azimuth": {"type": "varying_all", "levels": [0, 90, 180, 270]},
                                   "lighting.intensity": {"type": "varying_random", "choices": ["low", "high"]}})


@pytest.fixture(scope="session")
def farm_config_path(tmp_path_factory) -> Path:
    return write_config(tmp_path_factory.mktemp("farm_config"), farm_config())


@pytest.fixture(scope="session")
def farm_reference(farm_config_path, tmp_path_factory) -> Path:
    """The uninterrupted run every other farm dataset must equal."""
    from byo.cli import main

    out = tmp_path_factory.mktemp("reference") / "out"
    assert main(["render", str(farm_config_path), "-o", str(out), "--in-process"]) == 0
    assert len(list((out / "legends").glob("[!.]*.json"))) == FARM_IMAGES
    return out


def status_of(out: Path, *flags: str) -> dict:
    """`byo status OUT --json` in a process of its own."""
    proc = subprocess.run([sys.executable, "-m", "byo.cli", "status", str(out), "--json", *flags],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)
