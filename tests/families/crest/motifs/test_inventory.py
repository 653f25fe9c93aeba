"""The inventory: at least 150 named motifs and the drawable container shapes, every pair of
each measured distinct on its silhouette as the flat render draws it (the shape sampled at
pixel centres), by the stated threshold library.DISTINCT."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from byo.families.crest.motifs import library
from byo.families.crest.motifs.raster import rasterize

SIZE, EXTENT = 128, 1.05


def silhouettes(components) -> np.ndarray:
    return np.array([rasterize(c.geometry(), SIZE, EXTENT).ravel() for c in components])


def disk_pixels(r: float) -> float:
    return math.pi * r * r / (2 * EXTENT) ** 2 * SIZE * SIZE


@pytest.mark.parametrize("table, radius, threshold", [
    (library.MOTIFS, library.MOTIF_RADIUS, library.DISTINCT),
    (library.CONTAINERS, 1.0, library.DISTINCT_CONTAINERS)], ids=["motifs", "containers"])
def test_every_pair_is_distinct_on_its_silhouette(table, radius, threshold):
    masks = silhouettes(table)
    ink = masks.astype(np.int32)
    # pixels that differ = |A| + |B| - 2 |A and B|
    differ = ink.sum(1)[:, None] + ink.sum(1)[None, :] - 2 * (ink @ ink.T)
    share = differ / disk_pixels(radius)
    np.fill_diagonal(share, np.inf)
    i, j = np.unravel_index(np.argmin(share), share.shape)
    assert share[i, j] >= threshold, (table[i].key, table[j].key, share[i, j])


def test_the_inventory_is_large_and_named():
    assert len(library.MOTIFS) >= 150
    assert len(library.CONTAINERS) >= 22
    for c in itertools.chain(library.MOTIFS, library.CONTAINERS):
        assert c.ja and c.reading and c.romaji and c.en and c.en_plural
        assert all("\u3040" <= ch <= "\u309f" or ch == "ー" for ch in c.reading), c.reading
    # every style variant is named after its base, as real crests are
    for m in library.MOTIFS:
        if m.style != "plain":
            base = library.MOTIFS_BY_KEY[m.base]
            assert m.ja.endswith(base.ja) and base.en in m.en


def test_published_ids_never_move():
    """New motifs and containers are appended: the first 53 motifs and 16 containers keep their
    ids and keys, so old program codes and configs keep their meaning."""
    assert [m.id for m in library.MOTIFS[:43]] == [f"{k:04d}" for k in range(1, 44)]
    assert [m.key for m in library.MOTIFS[43:53]] == [
        "kage-mitsudomoe", "kage-ume", "kage-kikyo", "nakakage-kikyo", "kage-yamagata", "kage-choji",
        "ishimochi-kikyo", "ishimochi-hanabishi", "ishimochi-ogi", "ishimochi-hoju"]
    assert [c.id for c in library.CONTAINERS[:16]] == [f"{k:02d}" for k in range(1, 17)]
