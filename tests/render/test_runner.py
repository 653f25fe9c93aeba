"""Determinism on one machine, as measured and stated in the README: without the denoiser, the
same config and seed render to bit-identical images, instance masks and legends, whatever the
run or the thread count; with OpenImageDenoise, images within one grey level. (Across
processors the promise is a tolerance: tests/render/test_golden.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import clevr_config

from byo.render.executors.inprocess import InProcess
from byo.render.runner import render_images

pytestmark = pytest.mark.render


def _render(denoise: str, threads: int):
    config = clevr_config("det", n_images=3, seed=8, resolution=[96, 72],
                          render={"samples": 8, "denoise": denoise, "adaptive_threshold": 0.01})
    return render_images(config, InProcess(threads=threads))


def _images(denoise: str, threads: int) -> list[np.ndarray]:
    return [r.image.astype(int) for r in _render(denoise, threads)]


def test_without_the_denoiser_renders_are_bit_identical_across_runs_and_threads():
    first, again, one_thread = _render("off", 2), _render("off", 2), _render("off", 1)
    for a, b, c in zip(first, again, one_thread, strict=True):
        assert a.image.dtype == np.uint8
        assert np.array_equal(a.image, b.image) and np.array_equal(a.image, c.image)
        assert np.array_equal(a.instance_ids, b.instance_ids) and np.array_equal(a.instance_ids, c.instance_ids)
        assert a.legend == b.legend == c.legend


def test_with_the_denoiser_images_stay_within_one_grey_level():
    for a, b in zip(_images("on", 2), _images("on", 2), strict=True):
        assert np.abs(a - b).max() <= 1
