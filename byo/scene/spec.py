"""Scene specs: plain, serializable descriptions of one image's scene. Pure Python, no bpy."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from byo import __version__
from byo.core.errors import ConfigError
from byo.core.schema import left_out_when_none
from byo.core.seeding import STREAM_CONTENT, STREAM_PLACEMENT, STREAM_SETUP, restart_seed, rng
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
    # A scene drawn again (what is in it and where) because the image's own draw could not be
    # placed: {"number": k, "seed": the seed derived for it}; None for the image's own draw.
    restart: dict[str, int] | None = None

    _serialize = left_out_when_none("restart")  # legends of scenes never restarted stay as they were


class PlacementError(RuntimeError):
    """Raised by a family when its content cannot be placed under the constraints."""


# A scene that cannot be placed (its placements all fail, or its objects stay below the
# visibility floor after render.max_visibility_attempts placements) is drawn again from a seed
# derived from the image's, at most this many times: CLEVR's generator starts a scene over.
MAX_RESTARTS = 10


def sample_spec(cfg: DatasetConfig, job: ImageJob, attempt: int = 0, file: str = "<config>",
                restart: int = 0) -> SceneSpec:
    """The scene of `job` in a config loaded with its family, placed for the `attempt`-th time;
    `restart` > 0: what is in it and where drawn again from the seed derived for that restart
    (the camera, lights and table are the image's own, as CLEVR's restarts keep its camera)."""
    family = cfg.family
    scene = scene_for_levels(cfg, randomized_levels(cfg, job.levels, job.seed))
    setup_cfg, content, problems = validate_scene(scene, family)
    if problems:  # unreachable for a config that passed load_config, kept as a guard
        raise ConfigError(file, problems)
    setup = resolve_setup(setup_cfg, rng(job.seed, STREAM_SETUP))
    drawn = restart_seed(job.seed, restart) if restart else job.seed
    # What is in the scene never depends on the attempt; only where it stands does.
    objects, extras = family.sample(content, setup, draw=rng(drawn, STREAM_CONTENT),
                                    place=rng(drawn, STREAM_PLACEMENT, attempt))
    return SceneSpec(
        family=family.name, dataset=cfg.dataset.name, split=job.split, index=job.index,
        name=job.name, seed=job.seed, attempt=attempt, levels=job.levels, setup=setup,
        content=content.model_dump(mode="json"), objects=objects, extras=extras,
        restart={"number": restart, "seed": drawn} if restart else None,
    )


def placed_spec(cfg: DatasetConfig, job: ImageJob, file: str = "<config>", restart: int = 0,
                restarts: int = MAX_RESTARTS) -> SceneSpec:
    """The first scene of `job` that places, from restart `restart` on; PlacementError (the last
    restart's) when none up to restart `restarts` does."""
    while True:
        try:
            return sample_spec(cfg, job, 0, file, restart)
        except PlacementError as err:
            if restart >= restarts:
                raise PlacementError(f"{err} (the scene drawn again {restarts} times)") from None
            restart += 1
