"""Seeds: one per image from the dataset seed and the image's index, streams per purpose.

Every random draw comes from a numpy Generator made here, so an image renders identically
alone, in any order, on any worker.
"""

from __future__ import annotations

import numpy as np

STREAM_VARIABLES = 1
STREAM_SETUP = 2
STREAM_CONTENT = 3
STREAM_PLACEMENT = 4


def image_seed(dataset_seed: int, index: int) -> int:
    seq = np.random.SeedSequence(entropy=dataset_seed, spawn_key=(index,))
    return int(seq.generate_state(1, dtype=np.uint32)[0])


def rng(seed: int, stream: int, *keys: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy=seed, spawn_key=(stream, *keys))))
