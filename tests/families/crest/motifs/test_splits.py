"""The crest sampler, factor grids and splits: pure Python."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from byo.families.crest.motifs import library
from byo.families.crest.motifs.grammar import ORIENTED_ONLY
from byo.families.crest.motifs.sampling import Sampler, grid
from byo.families.crest.motifs.splits import (
    SCHEMES,
    check_recombination,
    combination,
    held_out,
    part_of,
    random_part,
)


def test_sampler_draws_the_motif_uniformly():
    """Containerless with probability 0.3; then a uniform motif; then a uniform modifier among those
    the motif allows: 27 of the 170 motifs have an up direction and take all six modifiers in a
    container (all three arrangements without), the other 143 take four (one). By hand:
    P(none | contained) = (27/170)/6 + (143/170)/4, P(heads-together | contained) = (27/170)/6,
    P(three stacked | containerless) = (27/170)/3 + 143/170."""
    s = Sampler()
    support = s.support()
    assert sum(support.values()) == pytest.approx(1.0)
    assert sum(p for c, p in support.items() if not c.containers) == pytest.approx(0.3)
    oriented = sum(m.oriented for m in library.MOTIFS)
    assert (oriented, len(library.MOTIFS)) == (27, 170)
    share = lambda m: (oriented / 170) / m  # noqa: E731  (an oriented motif's share of one of its m modifiers)
    motif = collections.Counter()
    contained, free = collections.Counter(), collections.Counter()
    for c, p in support.items():
        motif[c.motif] += p
        (contained if c.containers else free)[c.modifier] += p
    assert all(p == pytest.approx(1 / 170) for p in motif.values()) and len(motif) == 170
    for modifier in ("none", "peeking", "bean", "three_stacked"):
        assert contained[modifier] / 0.7 == pytest.approx(share(6) + (143 / 170) / 4)
    for modifier in ORIENTED_ONLY:
        assert contained[modifier] / 0.7 == pytest.approx(share(6))
        assert free[modifier] / 0.3 == pytest.approx(share(3))
    assert free["three_stacked"] / 0.3 == pytest.approx(share(3) + 143 / 170)
    assert not any(c.ambiguous for c in support)  # unoriented motifs never take bottoms/heads-together
    g = np.random.default_rng(1)
    crests = [s.draw(g) for _ in range(6000)]
    assert abs(sum(not c.containers for c in crests) / len(crests) - 0.3) < 0.03
    drawn = collections.Counter(library.MOTIFS_BY_ID[c.motif].oriented for c in crests)
    assert abs(drawn[True] / len(crests) - 27 / 170) < 0.02  # not the 52% of a uniform modifier first
    assert len({c.containers for c in crests if c.containers}) == len(library.CONTAINERS)


def test_allowing_ambiguous_arrangements_gives_the_papers_independent_uniform_draws():
    """KamonBench's generator: modifier and motif independent and uniform; 36.5% of crests are then
    ambiguous: 0.7 * 2/6 * 143/170 + 0.3 * 2/3 * 143/170."""
    support = Sampler(ambiguous="allow").support()
    for c, p in support.items():
        assert p == pytest.approx((0.3 / 3 if not c.containers else 0.7 / 22 / 6) / 170)
    ambiguous = sum(p for c, p in support.items() if c.ambiguous)
    assert ambiguous == pytest.approx(0.7 * 2 / 6 * 143 / 170 + 0.3 * 2 / 3 * 143 / 170)
    g = np.random.default_rng(1)
    assert any(c.ambiguous for c in (Sampler(ambiguous="allow").draw(g) for _ in range(300)))


def test_fixed_factors_and_impossible_requests():
    kikyo = library.motif("kikyo").id
    s = Sampler(fixed_containers=("01",), fixed_motif=kikyo)
    assert set(s.modifier_choices(True)) == {"none", "peeking", "bean", "three_stacked"}  # kikyo is unoriented
    assert len(s.support()) == 4
    with pytest.raises(ValueError, match="oriented motif"):
        Sampler(fixed_containers=(), fixed_modifier="heads_together", fixed_motif=kikyo).check()
    with pytest.raises(ValueError, match="bean and none need a container"):
        Sampler(modifiers=("bean",), containerless_probability=1.0).check()
    assert Sampler(modifiers=("bean",)).containerless_weight() == 0.0  # no arrangement: always contained
    deep = Sampler(depth=2).draw(np.random.default_rng(0))
    assert len(deep.containers) in (0, 2)


def test_factor_grid_fixes_the_context_and_varies_the_motif():
    motifs = [library.motif(k).id for k in ("ogi", "kikyo", "suzu")]
    crests = grid([("01",), ()], ["none", "heads_together"], motifs)
    contexts = collections.defaultdict(set)
    for c in crests:
        contexts[(c.containers, c.modifier)].add(c.motif)
    assert contexts == {(("01",), "none"): set(motifs), (("01",), "heads_together"): {motifs[0], motifs[2]},
                        ((), "heads_together"): {motifs[0], motifs[2]}}


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_recombination_split_holds_out_combinations_not_factors(scheme):
    s = Sampler()
    facts = check_recombination(s, scheme)
    assert facts["masses"]["val"] == pytest.approx(0.1, abs=0.01)
    assert facts["masses"]["test"] == pytest.approx(0.1, abs=0.01)
    assert facts["train_values"] == facts["all_values"]  # every single factor is still in training
    train_keys = {combination(c, scheme) for c in s.support() if part_of(c, s, scheme) == "train"}
    held = facts["held_out"]
    assert held and not train_keys & set(held)  # held-out combinations never occur in training
    assert set(held.values()) == {"val", "test"}
    assert held_out(s, scheme, seed=1) != held  # the split seed picks other combinations
    assert held_out(s, scheme) == held  # and is deterministic


def test_small_pools_still_keep_every_factor_in_training():
    s = Sampler(containers=("01", "02"), motifs=tuple(library.motif(k).id for k in ("ogi", "kikyo", "suzu")))
    for scheme in SCHEMES:
        facts = check_recombination(s, scheme)
        assert facts["train_values"] == facts["all_values"], scheme


def test_random_part_fractions():
    g = np.random.default_rng(3)
    parts = collections.Counter(random_part(u) for u in g.random(20000))
    assert abs(parts["train"] / 20000 - 0.8) < 0.01 and abs(parts["test"] / 20000 - 0.1) < 0.01
