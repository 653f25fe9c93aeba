"""Seeds: one per image from the dataset seed and the image's index, streams per purpose.

Every random draw comes from a numpy Generator made here, so an image renders identically
alone, in any order, on any worker.
"""

from __future__ import annotations

import zlib

import numpy as np

STREAM_VARIABLES = 1
STREAM_SETUP = 2
STREAM_CONTENT = 3
STREAM_PLACEMENT = 4
STREAM_RESTART = 5


def image_seed(dataset_seed: int, index: int) -> int:
    seq = np.random.SeedSequence(entropy=dataset_seed, spawn_key=(index,))
    return int(seq.generate_state(1, dtype=np.uint32)[0])


DEFAULT_SPLIT = "test"


def split_seed(dataset_seed: int, split: str, index: int) -> int:
    """The seed of image `index` of one split. Every split but the default draws from a stream of
    its own (the dataset seed and a hash of the split's name), so two splits of a dataset never
    share a scene; the default split keeps the dataset seed's plain stream (image_seed)."""
    if split == DEFAULT_SPLIT:
        return image_seed(dataset_seed, index)
    seq = np.random.SeedSequence(entropy=(dataset_seed, zlib.crc32(split.encode())), spawn_key=(index,))
    return int(seq.generate_state(1, dtype=np.uint32)[0])


def rng(seed: int, stream: int, *keys: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy=seed, spawn_key=(stream, *keys))))


def restart_seed(seed: int, restart: int) -> int:
    """The seed a scene is drawn again from on its `restart`-th restart (1, 2, ...): derived from
    the image's seed alone, so a restarted image is the same on every worker."""
    seq = np.random.SeedSequence(entropy=seed, spawn_key=(STREAM_RESTART, restart))
    return int(seq.generate_state(1, dtype=np.uint32)[0])
