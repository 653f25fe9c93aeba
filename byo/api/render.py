"""The render stage of the public API: a config's plan, and its images rendered to disk or into
memory."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from byo.families import load_config
from byo.render.executors import Executor
from byo.render.executors.pool import LocalPool, default_workers
from byo.render.messages import RenderResult
from byo.render.runner import RenderReport
from byo.render.runner import render_dataset as _render_dataset
from byo.render.runner import render_images as _render_images
from byo.scene.config import DatasetConfig
from byo.scene.plan import combination, combination_count, image_count, images_per_combination

__all__ = ["DatasetConfig", "Plan", "RenderReport", "RenderResult", "load_config", "plan", "render_dataset",
           "render_images"]

Config = DatasetConfig | dict | str | Path


def _config(config: Config) -> DatasetConfig:
    return config if isinstance(config, DatasetConfig) else load_config(config)


@dataclass(frozen=True)
class Plan:
    """What a config renders: its combinations of levels and the images of each."""

    name: str
    family: str
    combinations: int
    images_per_combination: int
    images: int

    def levels(self, config: Config, index: int) -> dict:
        """The levels of combination `index` (0 <= index < combinations)."""
        return combination(_config(config), index)


def plan(config: Config) -> Plan:
    """The images a config renders, counted without enumerating them."""
    cfg = _config(config)
    return Plan(name=cfg.dataset.name, family=cfg.family.name, combinations=combination_count(cfg),
                images_per_combination=images_per_combination(cfg), images=image_count(cfg))


def render_dataset(config: Config, output: str | Path | None = None, *, workers: int | None = None,
                   executor: Executor | None = None, limit: int | None = None, resume: bool = False,
                   progress: bool = True, **options) -> RenderReport:
    """Render every image of `config` into `output` (default: the config's output_dir, else
    output/NAME); `workers` render processes here unless an `executor` is given. Further options
    as byo.render.runner.render_dataset (shard, max_images, wait...)."""
    executor = executor or LocalPool(workers or default_workers())
    return _render_dataset(config, output, executor=executor, limit=limit, resume=resume,
                           show_progress=progress, **options)


def render_images(config: Config, executor: Executor | None = None) -> list[RenderResult]:
    """Every image of `config`, rendered and returned in memory (image, masks, legend), writing nothing."""
    return _render_images(_config(config), executor)
