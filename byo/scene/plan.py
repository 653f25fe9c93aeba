"""From a validated config to its images, by arithmetic: image index -> level combination,
repetition and seed. Nothing is listed, so a plan of any size answers at once.

Combinations are numbered as in the Cartesian product of the enumerated variables in config
order, the last variable changing fastest; each is rendered `repetitions` times in a row.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from byo.core.seeding import STREAM_VARIABLES, rng, split_seed
from byo.scene.config import DatasetConfig, VaryingAmongRange, randomized


@dataclass(frozen=True)
class ImageJob:
    index: int
    seed: int
    name: str
    combination: int  # index of the level combination
    repetition: int
    levels: dict[str, Any] = field(hash=False)  # enumerated levels and this image's random draws
    split: str = "test"  # the split the image belongs to (dataset.split, or one of dataset.splits)


def combination_count(cfg: DatasetConfig) -> int:
    return math.prod(var.count() for var in cfg.enumerated().values())


def image_count(cfg: DatasetConfig) -> int:
    if cfg.dataset.splits is not None:
        return combination_count(cfg) * sum(n for _, n in cfg.dataset.split_sizes())
    return combination_count(cfg) * cfg.repetitions


def images_per_combination(cfg: DatasetConfig) -> int:
    """Images of each combination of levels: its repetitions, over every split when there are splits."""
    return sum(n for _, n in cfg.dataset.split_sizes()) if cfg.dataset.splits is not None else cfg.repetitions


def split_of(cfg: DatasetConfig, index: int) -> tuple[str, int, int]:
    """(split, index within the split, its images per combination) of image `index`: the splits
    of `dataset.splits` follow one another, each a block of combinations x its images."""
    if cfg.dataset.splits is None:
        return cfg.dataset.split, index, cfg.repetitions
    combos, offset = combination_count(cfg), 0
    for name, n in cfg.dataset.split_sizes():
        if index < offset + combos * n:
            return name, index - offset, n
        offset += combos * n
    raise IndexError(f"image {index} is past the plan's {offset} images")


def combination(cfg: DatasetConfig, k: int) -> dict[str, Any]:
    """The levels of combination `k`."""
    levels = {}
    for path, var in reversed(cfg.enumerated().items()):
        k, i = divmod(k, var.count())
        levels[path] = var.level(i)
    return dict(reversed(levels.items()))


def draw_random_levels(cfg: DatasetConfig, seed: int) -> dict[str, Any]:
    drawn = {}
    for i, (path, var) in enumerate(cfg.variables.items()):
        if isinstance(var, VaryingAmongRange):
            g = rng(seed, STREAM_VARIABLES, i)
            drawn[path] = (int(g.integers(int(var.min), int(var.max), endpoint=True)) if var.is_integer
                           else round(float(g.uniform(var.min, var.max)), 6))
        elif var.type in ("varying_random", "varying_among"):
            g = rng(seed, STREAM_VARIABLES, i)
            drawn[path] = var.choices[int(g.integers(len(var.choices)))]
    return drawn


RANDOMIZE_STREAM = 1000  # beside each variable's own draw: variable i randomizes from stream 1000 + i


def randomized_levels(cfg: DatasetConfig, levels: dict[str, Any], seed: int) -> dict[str, Any]:
    """The values an image's scene uses: each `randomize` variable's level put uniformly within
    +-randomize_percentage of itself, from the image's seed (the nominal levels stay the image's)."""
    out = dict(levels)
    for i, (path, var) in enumerate(cfg.variables.items()):
        if var.randomize and path in out:
            u = float(rng(seed, STREAM_VARIABLES, RANDOMIZE_STREAM + i).uniform(-1, 1))
            out[path] = randomized(out[path], 1 + u * var.randomize_percentage)
    return out


def image_name(cfg: DatasetConfig, index: int) -> str:
    # CLEVR's engine parses the index from the last `_<int>` of the file name.
    return f"{cfg.dataset.name}_{index:06d}"


def make_job(cfg: DatasetConfig, index: int) -> ImageJob:
    split, local, repetitions = split_of(cfg, index)
    combo_index, repetition = divmod(local, repetitions)
    seed = split_seed(cfg.dataset.seed, split, local)
    levels = {**combination(cfg, combo_index), **draw_random_levels(cfg, seed)}
    ordered = {path: levels[path] for path in cfg.variables}
    if cfg.dataset.split_key is not None:
        ordered[cfg.dataset.split_key] = split
    return ImageJob(index=index, seed=seed, name=image_name(cfg, index), combination=combo_index,
                    repetition=repetition, levels=ordered, split=split)


class Plan(Sequence[ImageJob]):
    """The images of a config (or a slice of them), made on demand."""

    def __init__(self, cfg: DatasetConfig, indices: Sequence[int] | None = None):
        self.cfg = cfg
        self.indices = indices if indices is not None else range(image_count(cfg))

    def __len__(self) -> int:
        return len(self.indices)

    @overload
    def __getitem__(self, i: int) -> ImageJob: ...
    @overload
    def __getitem__(self, i: slice) -> Plan: ...

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Plan(self.cfg, self.indices[i])
        return make_job(self.cfg, self.indices[i])

    def __iter__(self) -> Iterator[ImageJob]:
        return (make_job(self.cfg, index) for index in self.indices)


def jobs(cfg: DatasetConfig) -> Plan:
    return Plan(cfg)


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


def stratified_indices(cfg: DatasetConfig, n: int) -> list[int]:
    """`n` images that cover every combination of levels (of every split) before any is repeated:
    the first image of each combination, then the second of each, and so on; in plan order."""
    combos = combination_count(cfg)
    blocks, offset = [], 0  # (first index, images per combination) of each split
    for _, per in cfg.dataset.split_sizes() if cfg.dataset.splits else [(None, cfg.repetitions)]:
        blocks.append((offset, per))
        offset += combos * per

    def rounds() -> Iterator[int]:
        for repetition in range(max(per for _, per in blocks)):
            for first, per in blocks:
                if repetition < per:
                    yield from (first + c * per + repetition for c in range(combos))

    return sorted(itertools.islice(rounds(), n))


def selected_jobs(cfg: DatasetConfig, *, limit: int | None = None, shard: Shard | None = None,
                  sample: int | None = None) -> Plan:
    """The images a run renders: the first `limit` of the plan (or a stratified `sample` of it:
    `stratified_indices`), then those of `shard`."""
    planned = Plan(cfg, stratified_indices(cfg, sample)) if sample is not None else jobs(cfg)[:limit]
    return planned if shard is None else Plan(cfg, planned.indices[shard.index::shard.count])
