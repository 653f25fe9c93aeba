"""What executors move: a task to render one image, and what the render returns. Plain,
picklable data; no bpy."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from byo.scene.config import DatasetConfig
from byo.scene.plan import ImageJob
from byo.scene.spec import SceneSpec


@dataclass(frozen=True)
class RenderTask:
    config: DatasetConfig  # validated; used again only when a scene must be placed anew
    job: ImageJob
    spec: SceneSpec  # the first placement, sampled before any work started

    @property
    def name(self) -> str:
        return self.job.name


@dataclass(frozen=True)
class RenderResult:
    name: str
    image: np.ndarray  # (height, width, 3) uint8, sRGB
    instance_ids: np.ndarray  # (height, width) uint8: each pixel's object id, 0 for none
    legend: dict  # the spec plus what the render measured
    legend_text: str  # the same, for people
    attempts: int
    seconds: float
    rss_mb: float
    worker: str = ""  # where it was rendered: host:pid, or the Ray node
    # Seconds per phase: build, render (the engine and reading its pixels), measure (and the
    # legend), cleanup; engine: the part of render spent inside the engine itself; cpu: the CPU
    # time of the whole job in its process, every thread (wall time on a busy machine is not).
    phases: dict[str, float] = field(default_factory=dict)
    passes: dict[str, np.ndarray] = field(default_factory=dict)  # render.passes: kind -> array
    engine_log: list[str] = field(default_factory=list)  # what Blender printed meanwhile: for the render log
