from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
TINY_RENDER = {"resolution": [64, 48], "render": {"samples": 4, "denoise": "off"}}


def write_config(tmp_path: Path, data: dict, name: str = "config.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def clevr_config(name: str = "tiny", *, seed: int = 5, n_images: int = 1, content=None, variables=None,
                 **scene) -> dict:
    return {
        "dataset": {"name": name, "family": "clevr", "seed": seed, "n_images": n_images},
        "scene": {**TINY_RENDER, **scene, "content": content or {"mode": "random", "count": [3, 5]}},
        "variables": variables or {},
    }


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
