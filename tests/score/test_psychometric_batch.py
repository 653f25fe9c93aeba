"""Curves fitted in one batch (byo.score.psychometric.analyse_batch, as breaking_point_tables fits
the curves of one level set and link) get exactly what each gets fitted alone."""

from __future__ import annotations

import numpy as np
import pytest

from byo.score import psychometric as psy


def observers(rng, levels: np.ndarray, count: int) -> list[psy.Trials]:
    """Rising, falling, flat and stepped observers, 2 to 4 images a level and 1 to 3 questions an
    image (prompt variants: a dispersion between images to estimate)."""
    out = []
    for i in range(count):
        kind = i % 4
        t = rng.uniform(levels[1], levels[-2])
        if kind == 0:
            p = 0.2 + 0.75 * special_expit(3 * (levels - t))
        elif kind == 1:
            p = 0.2 + 0.75 * special_expit(-3 * (levels - t))
        elif kind == 2:
            p = np.full(len(levels), rng.uniform(0.3, 0.9))
        else:
            p = np.where(levels > t, 0.98, 0.2)
        x, hits, images = [], [], []
        for level, pl in zip(levels, p, strict=True):
            for image in range(rng.integers(2, 5)):
                for _ in range(rng.integers(1, 4)):
                    x.append(float(level))
                    hits.append(bool(rng.random() < pl))
                    images.append((float(level), image))
        out.append(psy.Trials.from_observations(x, hits, images))
    return out


def special_expit(z):
    return 1 / (1 + np.exp(-z))


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        a[key] == b[key] or (isinstance(a[key], float) and np.isnan(a[key]) and np.isnan(b[key])) for key in a)


@pytest.mark.parametrize("link", psy.LINKS)
def test_a_batch_fits_each_curve_as_it_is_fitted_alone(link):
    rng = np.random.default_rng(57)
    levels = np.array([1.0, 2.0, 3.0, 4.0, 6.0])
    batch = observers(rng, levels, 12)
    chances = [0.0, 0.25, 0.5, 1 / 6] * 3  # one guess rate per curve
    together = psy.analyse_batch(batch, chances, link=link)
    alone = [psy.analyse(t, c, link=link) for t, c in zip(batch, chances, strict=True)]
    assert all(same(a, b) for a, b in zip(alone, together, strict=True))
    assert {row["verdict"] for row in alone} >= {psy.VERDICT_BREAKS, psy.VERDICT_NOT}  # the batch mixes outcomes
    assert len({row["chance"] for row in together}) == 4


def test_a_batch_needs_one_level_set():
    rng = np.random.default_rng(1)
    batch = observers(rng, np.array([1.0, 2.0, 3.0]), 1) + observers(rng, np.array([1.0, 2.0, 4.0]), 1)
    with pytest.raises(ValueError, match="same tested levels"):
        psy.analyse_batch(batch, 0.25)
