"""Scene specs: plain, serializable descriptions of one image's scene. Pure Python, no bpy."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from byo import __version__
from byo.core.errors import ConfigError
from byo.core.seeding import STREAM_CONTENT, STREAM_PLACEMENT, STREAM_SETUP, rng
from byo.scene.config import DatasetConfig, scene_for_levels, validate_scene
from byo.scene.plan import ImageJob, randomized_levels
from byo.scene.setup import ResolvedSetup, resolve_setup


class SceneObject(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int  # 1-based; the object's index in the segmentation mask
    name: str
    kind: str  # family-specific shape or piece type
    attributes: dict[str, Any]
    location: tuple[float, float, float]  # world metres; the object's centre
    rotation: float  # degrees about the vertical axis
    scale: float  # metres; meaning depends on the family (e.g. half-extent)


class SceneSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tool_version: str = __version__
    family: str
    dataset: str
    split: str
    index: int
    name: str
    seed: int
    attempt: int
    levels: dict[str, Any]
    setup: ResolvedSetup
    content: dict[str, Any]  # the family content config as validated
    objects: list[SceneObject]
    extras: dict[str, Any] = {}  # family-specific ground truth (labels, relations...)


class PlacementError(RuntimeError):
    """Raised by a family when its content cannot be placed under the constraints."""


def sample_spec(cfg: DatasetConfig, job: ImageJob, attempt: int = 0, file: str = "<config>") -> SceneSpec:
    """The scene of `job` in a config loaded with its family, placed for the `attempt`-th time."""
    family = cfg.family
    scene = scene_for_levels(cfg, randomized_levels(cfg, job.levels, job.seed))
    setup_cfg, content, problems = validate_scene(scene, family)
    if problems:  # unreachable for a config that passed load_config, kept as a guard
        raise ConfigError(file, problems)
    setup = resolve_setup(setup_cfg, rng(job.seed, STREAM_SETUP))
    # What is in the scene never depends on the attempt; only where it stands does.
    objects, extras = family.sample(content, setup, draw=rng(job.seed, STREAM_CONTENT),
                                    place=rng(job.seed, STREAM_PLACEMENT, attempt))
    return SceneSpec(
        family=family.name, dataset=cfg.dataset.name, split=job.split, index=job.index,
        name=job.name, seed=job.seed, attempt=attempt, levels=job.levels, setup=setup,
        content=content.model_dump(mode="json"), objects=objects, extras=extras,
    )
