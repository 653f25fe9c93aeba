"""From a validated config to the list of images: Cartesian product x repetitions."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from byo.config import DatasetConfig, VaryingAmongRange
from byo.seeding import STREAM_VARIABLES, image_seed, rng


@dataclass(frozen=True)
class ImageJob:
    index: int
    seed: int
    name: str
    combination: int  # index of the level combination
    repetition: int
    levels: dict[str, Any] = field(hash=False)  # enumerated levels and this image's random draws


def combinations(cfg: DatasetConfig) -> list[dict[str, Any]]:
    enumerated = cfg.enumerated()
    keys = list(enumerated)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*enumerated.values())]


def image_count(cfg: DatasetConfig) -> int:
    count = cfg.repetitions
    for levels in cfg.enumerated().values():
        count *= len(levels)
    return count


def draw_random_levels(cfg: DatasetConfig, seed: int) -> dict[str, Any]:
    drawn = {}
    for i, (path, var) in enumerate(cfg.variables.items()):
        if isinstance(var, VaryingAmongRange):
            g = rng(seed, STREAM_VARIABLES, i)
            drawn[path] = (int(g.integers(int(var.min), int(var.max), endpoint=True)) if var.is_integer
                           else round(float(g.uniform(var.min, var.max)), 6))
        elif var.type == "varying_random":
            g = rng(seed, STREAM_VARIABLES, i)
            drawn[path] = var.choices[int(g.integers(len(var.choices)))]
    return drawn


def image_name(cfg: DatasetConfig, index: int) -> str:
    # CLEVR's engine parses the index from the last `_<int>` of the file name.
    return f"{cfg.dataset.name}_{index:06d}"


def make_job(cfg: DatasetConfig, index: int, combos: list[dict[str, Any]] | None = None) -> ImageJob:
    combos = combos if combos is not None else combinations(cfg)
    reps = cfg.repetitions
    combo_index, repetition = divmod(index, reps)
    seed = image_seed(cfg.dataset.seed, index)
    levels = {**combos[combo_index], **draw_random_levels(cfg, seed)}
    ordered = {path: levels[path] for path in cfg.variables}
    return ImageJob(index=index, seed=seed, name=image_name(cfg, index), combination=combo_index,
                    repetition=repetition, levels=ordered)


def jobs(cfg: DatasetConfig) -> list[ImageJob]:
    combos = combinations(cfg)
    return [make_job(cfg, i, combos) for i in range(image_count(cfg))]


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count` (0-based, as Slurm array and Kubernetes indexed-job indices):
    the images whose index is `index` modulo `count`. Shards are disjoint and together complete,
    and an image's content depends on its index only, never on the count."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        try:
            index, count = (int(part) for part in text.split("/"))
        except ValueError:
            raise ValueError(f"expected I/N with whole numbers, e.g. 0/4, not {text!r}") from None
        if count < 1 or not 0 <= index < count:
            raise ValueError(f"expected 0 <= I < N, e.g. 0/4 ... 3/4, not {text!r}")
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, image_index: int) -> bool:
        return image_index % self.count == self.index


def selected_jobs(cfg: DatasetConfig, *, limit: int | None = None, shard: Shard | None = None) -> list[ImageJob]:
    """The images a run renders: the first `limit` of the plan, then those of `shard`."""
    planned = jobs(cfg)[:limit]
    return [j for j in planned if shard is None or shard.holds(j.index)]
