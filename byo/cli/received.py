"""`byo render --for MODEL` / `byo plan --for MODEL`: render at the largest size any of those
models receives (byo.providers.image_pipeline.render_size), never above the config's."""

from __future__ import annotations

import json
from pathlib import Path

import byo
from byo.core.dataset import atomic_write_text
from byo.core.errors import ConfigError
from byo.providers import pipeline_of
from byo.providers.image_pipeline import RENDERED_FOR, render_size
from byo.scene.config import parse_resolution
from byo.scene.setup import RESOLUTION


def config_resolution(config: str | Path, resolution: str | None = None) -> tuple[int, int]:
    """The config's scene.resolution in pixels (or --resolution's, when given)."""
    given = parse_resolution(resolution) if resolution else byo.load_config(config).scene.get("resolution", "high")
    if isinstance(given, str):
        return RESOLUTION[given]
    return int(given[0]), int(given[1])


def received_render(config: str | Path, models: list[str], *, detail: str | None = None,
                    resolution: str | None = None) -> tuple[tuple[int, int], dict]:
    """The size to render `models` (PROVIDER:MODEL each) and the record the dataset keeps of it."""
    size = config_resolution(config, resolution)
    try:
        render, received = render_size(size, {spec: pipeline_of(spec, detail=detail) for spec in models})
    except ValueError as err:
        raise ConfigError("<command line>", [("--for", str(err))]) from None
    return render, {"config": list(size), "rendered": list(render), "models": received}


def write_record(dataset: Path, record: dict) -> Path:
    path = Path(dataset) / RENDERED_FOR
    atomic_write_text(path, json.dumps(record, indent=1) + "\n")
    return path
