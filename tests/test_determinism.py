"""Determinism, as measured and stated in the README: without the denoiser, images are
bit-identical across runs and thread counts; with OpenImageDenoise, within one grey level."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import clevr_config

from byo.executors.inprocess import InProcess
from byo.runner import render_images

pytestmark = pytest.mark.render


def _images(denoise: str, threads: int) -> list[np.ndarray]:
    config = clevr_config("det", n_images=3, seed=8, resolution=[96, 72],
                          render={"samples": 8, "denoise": denoise, "adaptive_threshold": 0.01})
    return [r.image.astype(int) for r in render_images(config, InProcess(threads=threads))]


def test_without_the_denoiser_images_are_bit_identical_across_runs_and_threads():
    first, again, one_thread = _images("off", 2), _images("off", 2), _images("off", 1)
    for a, b, c in zip(first, again, one_thread, strict=True):
        assert np.array_equal(a, b) and np.array_equal(a, c)


def test_with_the_denoiser_images_stay_within_one_grey_level():
    for a, b in zip(_images("on", 2), _images("on", 2), strict=True):
        assert np.abs(a - b).max() <= 1
