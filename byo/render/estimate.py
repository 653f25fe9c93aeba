"""Render time before any work (`byo plan --estimate`): a short calibration render of a few of the
config's own images, spread over its combinations, measured in CPU seconds (the worker's own
CPU time, every thread: steady on a busy machine where wall time is not), and scaled to every
image of the config; wall time follows for a number of CPUs.

A calibration is cached per machine and per scene: its key is the machine (processor, CPUs,
Blender) and the calibration images' specs, which hold the render settings (the quality preset
as applied, the resolution) and the content. Planning the same config again, or another config
whose sampled images are the same scenes, renders nothing. The images, masks and legends are
kept with it (under ~/.cache/byo/calibration/, or $BYO_CACHE/calibration/): the questions a
config asks per image are counted on them (byo.eval.estimate).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from byo.core.dataset import atomic_write_text
from byo.core.errors import RenderError
from byo.render.executors.pool import LocalPool
from byo.render.messages import RenderResult
from byo.render.runner import render_dataset, sample_tasks
from byo.scene.config import DatasetConfig
from byo.scene.plan import Shard, image_count, selected_jobs

CALIBRATION_IMAGES = 3
CALIBRATION_FILE = "calibration.json"


def cache_root() -> Path:
    base = os.environ.get("BYO_CACHE") or Path.home() / ".cache" / "byo"
    return Path(base) / "calibration"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _blender() -> str:
    try:
        return f"bpy {metadata.version('bpy')}"
    except metadata.PackageNotFoundError:
        return "bpy not installed"


def machine() -> dict:
    """What a CPU second depends on: the processor, the CPUs this process may use, Blender."""
    return {"cpu": _cpu_model(), "cpus": len(os.sched_getaffinity(0)), "arch": platform.machine(),
            "blender": _blender()}


@dataclass(frozen=True)
class Calibration:
    """A few images of a config rendered and timed: CPU and wall seconds per image."""

    indices: list[int]
    cpu_s: list[float]
    wall_s: list[float]
    threads: int
    machine: dict
    dataset: Path  # the calibration images, masks and legends
    cached: bool  # found in the cache (nothing rendered now)

    @property
    def cpu_s_per_image(self) -> float:
        return statistics.fmean(self.cpu_s)

    @property
    def load_factor(self) -> float:
        """How much longer than its CPU time a render took here (wall x threads / CPU, at least 1):
        about 1 on an idle machine, more where other work shares the CPUs."""
        return max(1.0, sum(self.wall_s) * self.threads / max(sum(self.cpu_s), 1e-9))


def calibration_sample(cfg: DatasetConfig, images: int = CALIBRATION_IMAGES) -> tuple[int, Shard]:
    """The --limit and --shard that select `images` images spread evenly over the plan, each in
    the middle of its stretch (the plan runs combination by combination)."""
    total = image_count(cfg)
    count = max(1, min(images, total))
    stride = total // count
    return stride * count, Shard(stride // 2, stride)


def calibration_key(cfg: DatasetConfig, threads: int, images: int = CALIBRATION_IMAGES) -> str:
    """The machine, the threads and the specs of the calibration images (render settings,
    resolution and content; byo's version left out: it changes no pixel by itself)."""
    limit, shard = calibration_sample(cfg, images)
    tasks = sample_tasks(cfg, selected_jobs(cfg, limit=limit, shard=shard), "<config>")
    specs = [t.spec.model_dump(mode="json", exclude={"tool_version"}) for t in tasks]
    text = json.dumps([machine(), threads, specs], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _read_cached(folder: Path) -> Calibration | None:
    try:
        data = json.loads((folder / CALIBRATION_FILE).read_text())
        return Calibration(indices=data["indices"], cpu_s=data["cpu_s"], wall_s=data["wall_s"],
                           threads=data["threads"], machine=data["machine"], dataset=folder / "dataset", cached=True)
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent or damaged: calibrate again


def calibrate(cfg: DatasetConfig, *, images: int = CALIBRATION_IMAGES, threads: int | None = None,
              refresh: bool = False) -> Calibration:
    """Render `images` images of `cfg` spread over its plan in one worker of `threads` Cycles
    threads (default: every CPU here), unless this machine has rendered the same scenes before."""
    threads = threads or len(os.sched_getaffinity(0))
    folder = cache_root() / calibration_key(cfg, threads, images)
    if not refresh and (found := _read_cached(folder)) is not None:
        return found
    limit, shard = calibration_sample(cfg, images)
    results: list[RenderResult] = []
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".calibrating-", dir=folder.parent))
    try:
        started = time.perf_counter()
        render_dataset(cfg, tmp / "dataset", executor=LocalPool(1, threads=threads), limit=limit, shard=shard,
                       show_progress=False, on_result=results.append)
        if not results:
            raise RenderError(f"the render estimate: none of the {images} calibration images of {cfg.dataset.name} "
                              "could be rendered (the reasons are above): the render would fail the same way; "
                              "fix the config, then plan again")
        record = {"indices": [r.legend["index"] for r in results],
                  "cpu_s": [round(r.phases["cpu"], 3) for r in results],
                  "wall_s": [round(r.seconds, 3) for r in results], "threads": threads, "machine": machine(),
                  "rendered_in_s": round(time.perf_counter() - started, 1)}
        atomic_write_text(tmp / CALIBRATION_FILE, json.dumps(record, indent=1) + "\n")
        shutil.rmtree(folder, ignore_errors=True)  # a damaged earlier one
        os.replace(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # left only when something failed (or another plan won the race)
    return Calibration(indices=record["indices"], cpu_s=record["cpu_s"], wall_s=record["wall_s"], threads=threads,
                       machine=record["machine"], dataset=folder / "dataset", cached=False)


@dataclass(frozen=True)
class RenderEstimate:
    """A config's render time from its calibration."""

    images: int
    calibration: Calibration

    @property
    def cpu_s(self) -> float:
        return self.images * self.calibration.cpu_s_per_image

    @property
    def cpu_hours(self) -> float:
        return self.cpu_s / 3600

    def wall_hours(self, cpus: int, *, loaded: bool = False) -> float:
        """Wall time with `cpus` CPUs rendering all the time (workers x threads, or nodes x cores);
        `loaded`: slowed as much as the calibration was by whatever else ran here meanwhile."""
        return self.cpu_hours / max(1, cpus) * (self.calibration.load_factor if loaded else 1.0)


def estimate_render(cfg: DatasetConfig, **calibration) -> RenderEstimate:
    return RenderEstimate(images=image_count(cfg), calibration=calibrate(cfg, **calibration))
