"""Crest splits: random 80/10/10 per image, and recombination splits that hold out factor
combinations while every single factor still appears in training.

Recombination (KamonBench section 4): the held-out unit is a combination of familiar factors.
- `cm`:  container-motif pairs (C = the containers, outermost first; `()` for none),
- `rm`:  modifier-motif pairs,
- `crm`: whole container-modifier-motif triples.

The held-out sets are built once from the sampler's exact distribution: the combinations are
shuffled with the split seed and assigned to `val`, then `test`, until each holds its share of
the probability mass (10% by default, so about 10% of sampled images), skipping any combination
whose removal would take the last training combination from one of its factor values. So
every container, modifier and motif keeps at least one training combination, and a held-out
combination never occurs in training.

That holds of the distribution. A training set of n crests drawn from it holds every factor value
only if n is large enough for the rarest value: `missing_factor_chance` bounds the chance that
one is missing (KamonBench: "the corresponding container and motif each occur in other training
composites").
"""

from __future__ import annotations

import functools
from collections import defaultdict

import numpy as np

from byo.families.crest.motifs.grammar import Crest
from byo.families.crest.motifs.sampling import Sampler

SCHEMES = {"cm": ("C", "M"), "rm": ("R", "M"), "crm": ("C", "R", "M")}
PARTS = ("train", "val", "test")


def factor_values(crest: Crest) -> dict[str, object]:
    return {"C": crest.containers, "R": crest.modifier, "M": crest.motif}


def combination(crest: Crest, scheme: str) -> tuple:
    values = factor_values(crest)
    return tuple(values[f] for f in SCHEMES[scheme])


def random_part(u: float, fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)) -> str:
    """The split of one image, from a uniform draw u in [0, 1)."""
    if u < fractions[0]:
        return "train"
    return "val" if u < fractions[0] + fractions[1] else "test"


@functools.cache
def held_out(sampler: Sampler, scheme: str, fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
             seed: int = 0) -> dict[tuple, str]:
    """Combination -> "val" or "test" for the held-out combinations of a recombination scheme."""
    factors = SCHEMES[scheme]
    mass: dict[tuple, float] = defaultdict(float)
    for crest, p in sampler.support().items():
        mass[combination(crest, scheme)] += p
    keys = sorted(mass, key=repr)
    train_left: dict[tuple[str, object], int] = defaultdict(int)
    for key in keys:
        for f, v in zip(factors, key, strict=True):
            train_left[(f, v)] += 1
    order = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed))).permutation(len(keys))
    targets = {"val": fractions[1], "test": fractions[2]}
    got = {"val": 0.0, "test": 0.0}
    out: dict[tuple, str] = {}
    for i in order:
        key = keys[i]
        part = next((p for p in ("val", "test") if got[p] < targets[p]), None)
        if part is None:
            break
        pairs = list(zip(factors, key, strict=True))
        if any(train_left[fv] <= 1 for fv in pairs):
            continue  # the last training combination of some factor value: keep it in train
        for fv in pairs:
            train_left[fv] -= 1
        out[key] = part
        got[part] += mass[key]
    return out


def part_of(crest: Crest, sampler: Sampler, scheme: str, fractions=(0.8, 0.1, 0.1), seed: int = 0) -> str:
    return held_out(sampler, scheme, tuple(fractions), seed).get(combination(crest, scheme), "train")


def check_recombination(sampler: Sampler, scheme: str, fractions=(0.8, 0.1, 0.1), seed: int = 0) -> dict:
    """The split's facts, for tests and reports: masses per part and what training covers."""
    assigned = held_out(sampler, scheme, tuple(fractions), seed)
    masses = dict.fromkeys(PARTS, 0.0)
    train_values: dict[str, set] = defaultdict(set)
    all_values: dict[str, set] = defaultdict(set)
    for crest, p in sampler.support().items():
        part = assigned.get(combination(crest, scheme), "train")
        masses[part] += p
        for f, v in factor_values(crest).items():
            all_values[f].add(v)
            if part == "train":
                train_values[f].add(v)
    return {"masses": masses, "held_out": assigned, "train_values": dict(train_values),
            "all_values": dict(all_values)}


def missing_factor_chance(sampler: Sampler, scheme: str, n_train: int, fractions=(0.8, 0.1, 0.1),
                          seed: int = 0) -> float:
    """An upper bound on the chance that `n_train` crests drawn from the split's train part miss
    one of the values its combinations use (a container, modifier or motif): the union bound
    sum over values v of (1 - q_v) ** n_train, q_v the share of training crests with value v."""
    assigned = held_out(sampler, scheme, tuple(fractions), seed)
    mass: dict[tuple[int, object], float] = defaultdict(float)
    total = 0.0
    for crest, p in sampler.support().items():
        key = combination(crest, scheme)
        if key in assigned:
            continue
        total += p
        for i, value in enumerate(key):
            mass[(i, value)] += p
    return min(1.0, sum((1 - m / total) ** n_train for m in mass.values()))
