"""The data of a psychometric curve (byo.score.psychometric): one record per image, its level, its
stratum and its hits, and the dispersion between the images of a level."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class Trials:
    """Per image: its level x, its stratum (the level, or a bin of a many-valued variable), hits k of
    n questions. Fits use the counts per distinct x."""

    x: np.ndarray  # per image
    k: np.ndarray
    n: np.ndarray
    stratum: np.ndarray  # int per image
    levels: np.ndarray  # the distinct x, sorted
    level_of: np.ndarray  # per image: index into levels

    @classmethod
    def from_observations(cls, x: Sequence[float], hit: Sequence[bool], image: Sequence[Hashable],
                          max_strata: int = 30, bins: int = 8) -> Trials:
        """One observation per question; questions of one image must share their x."""
        ids: dict = {}
        idx = np.array([ids.setdefault(im, len(ids)) for im in image])
        x = np.asarray(x, float)
        xs = np.full(len(ids), np.nan)
        xs[idx] = x
        k = np.bincount(idx, weights=np.asarray(hit, float), minlength=len(ids))
        n = np.bincount(idx, minlength=len(ids)).astype(float)
        levels, level_of = np.unique(xs, return_inverse=True)
        if len(levels) <= max_strata:
            stratum = level_of
        else:
            edges = np.unique(np.quantile(xs, np.linspace(0, 1, bins + 1)))
            stratum = np.clip(np.searchsorted(edges, xs, side="right") - 1, 0, len(edges) - 2)
        return cls(x=xs, k=k, n=n, stratum=np.asarray(stratum), levels=levels, level_of=level_of)

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Hits and questions per distinct level."""
        L = len(self.levels)
        return (np.bincount(self.level_of, weights=self.k, minlength=L),
                np.bincount(self.level_of, weights=self.n, minlength=L))

    def strata_of_levels(self) -> np.ndarray:
        out = np.zeros(len(self.levels), dtype=np.int64)
        out[self.level_of] = self.stratum
        return out

    def draws(self, n_boot: int, rng: np.random.Generator) -> np.ndarray:
        """(n_boot, draws) indices of images drawn with replacement within each stratum: m - 1 of a
        stratum's m images (Rao & Wu 1988), whose spread matches the unbiased variance of the
        stratified design (m of m would shrink it by (m - 1) / m)."""
        columns = []
        for s in np.unique(self.stratum):
            members = np.flatnonzero(self.stratum == s)
            size = max(1, len(members) - 1)
            columns.append(members[rng.integers(0, len(members), size=(n_boot, size))])
        return np.concatenate(columns, axis=1)

    def resampled_counts(self, draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Hits and questions per level for each row of `draws`: (n_boot, levels) each."""
        B, L = draws.shape[0], len(self.levels)
        cell = (np.arange(B)[:, None] * L + self.level_of[draws]).ravel()
        k = np.bincount(cell, weights=self.k[draws].ravel(), minlength=B * L).reshape(B, L)
        n = np.bincount(cell, weights=self.n[draws].ravel(), minlength=B * L).reshape(B, L)
        return k, n


def dispersion(trials: Trials) -> tuple[float, int]:
    """Between-image dispersion at equal levels (Pearson, per stratum, over the images with more than
    one question: one yes-or-no answer says nothing of it), at least 1, and its degrees of freedom.
    When no level shows it (every image of a level right, or every one wrong) and every image
    answers all its questions alike (a blind baseline's prompt variants), an image counts once: the
    dispersion is its mean number of questions, with 0 degrees of freedom; otherwise (1, 0)."""
    chi2, df = 0.0, 0
    several = trials.n > 1
    for s in np.unique(trials.stratum):
        m = (trials.stratum == s) & (trials.n > 1)
        if m.sum() < 2:
            continue
        p = trials.k[m].sum() / trials.n[m].sum()
        if 0 < p < 1:  # a stratum all right or all wrong says nothing of the dispersion
            chi2 += float((((trials.k[m] - trials.n[m] * p) ** 2) / (trials.n[m] * p * (1 - p))).sum())
            df += int(m.sum()) - 1
    if df == 0 and several.any() and np.all((trials.k[several] == 0) | (trials.k[several] == trials.n[several])):
        return float(trials.n[several].mean()), 0
    return (max(1.0, chi2 / df) if df > 0 else 1.0), df
