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
