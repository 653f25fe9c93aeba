"""Outputs stay what they were: every config renders (tiny, first images) to the recorded
legends, masks and images. See golden_data.py for how they are recorded."""

from __future__ import annotations

import numpy as np
import pytest
from golden_data import CONFIGS, GOLDEN, comparable_legend, golden_name, render_tiny
from PIL import Image

from byo.measure import read_mask

pytestmark = pytest.mark.render

# Goldens are rendered without the denoiser, and then Cycles is bit-identical from run to run
# and whatever the thread count (tests/test_determinism.py): images, masks and legends are exact.
IMAGE_TOLERANCE = 0


def _pixels(path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im, dtype=np.int16)


@pytest.mark.parametrize("config", CONFIGS, ids=golden_name)
def test_renders_match_the_goldens(config, tmp_path):
    out = render_tiny(config, tmp_path)
    golden = GOLDEN / golden_name(config)
    recorded = sorted(p.name for p in (golden / "legends").glob("*.json"))
    assert sorted(p.name for p in (out / "legends").glob("*.json")) == recorded
    for name in recorded:
        assert comparable_legend(out / "legends" / name) == comparable_legend(golden / "legends" / name), name
    for png in sorted((golden / "masks").glob("*.png")):
        assert np.array_equal(read_mask(out / "masks" / png.name), read_mask(png)), png.name
    for png in sorted((golden / "images").glob("*.png")):
        diff = np.abs(_pixels(out / "images" / png.name) - _pixels(png))
        assert diff.max() <= IMAGE_TOLERANCE, f"{png.name}: max difference {diff.max()} grey levels"
