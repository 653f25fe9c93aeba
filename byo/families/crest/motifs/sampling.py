"""The benchmark's crest sampler, its exact support, and factor-controlled grids (pure Python).

Sampling: with probability `containerless_probability` a crest has no container, otherwise
`depth` distinct containers drawn uniformly (outermost first); then a motif drawn uniformly from
the pool; then a modifier drawn uniformly from those the crest allows: a containerless crest
takes one of the three spatial arrangements, a contained one any of the six.

Bottoms-together and heads-together only look different from three-stacked on motifs with a
clear up direction. With `ambiguous="allow"` every motif takes every modifier, so motif and
modifier are independent and uniform (KamonBench's generator), and a crest whose arrangement
cannot be told apart is recorded as ambiguous (its descriptions are not asked). With the
default `ambiguous="exclude"` a motif without an up direction never takes those two
arrangements: the motif is still uniform, and the modifier uniform among the ones its motif
allows (so bottoms- and heads-together are rarer: docs/families/crest.md gives the shares).

Any factor may be fixed instead of drawn; pools restrict what is drawn.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from byo.families.crest.motifs import library
from byo.families.crest.motifs.grammar import ARRANGEMENTS, MODIFIERS, ORIENTED_ONLY, Crest


@dataclass(frozen=True)
class Sampler:
    containers: tuple[str, ...] = tuple(c.id for c in library.CONTAINERS)  # pool (ids)
    motifs: tuple[str, ...] = tuple(m.id for m in library.MOTIFS)  # pool (ids)
    modifiers: tuple[str, ...] = MODIFIERS  # pool
    containerless_probability: float = 0.3
    depth: int = 1  # containers in a contained crest
    ambiguous: str = "exclude"  # "exclude" | "allow"
    fixed_containers: tuple[str, ...] | None = None  # () = containerless
    fixed_modifier: str | None = None
    fixed_motif: str | None = None

    # -- what each step may draw ---------------------------------------------------------
    def _modifier_pool(self) -> tuple[str, ...]:
        return (self.fixed_modifier,) if self.fixed_modifier else self.modifiers

    def _motif_pool(self) -> tuple[str, ...]:
        return (self.fixed_motif,) if self.fixed_motif else self.motifs

    @functools.cache  # noqa: B019 (a sampler is frozen and few are made: its choices are fixed)
    def modifier_choices(self, contained: bool, motif: str | None = None) -> tuple[str, ...]:
        """The modifiers a crest may take: arrangements only without a container, and (ambiguous
        arrangements excluded) bottoms- and heads-together only on an oriented motif. Without
        `motif`: those some motif of the pool allows."""
        pool = self._modifier_pool()
        if not contained:
            pool = tuple(m for m in pool if m in ARRANGEMENTS)
        motifs = self._motif_pool() if motif is None else (motif,)
        return tuple(m for m in pool if any(self._allows(x, m) for x in motifs))

    def _allows(self, motif: str, modifier: str) -> bool:
        return not (self.ambiguous == "exclude" and modifier in ORIENTED_ONLY
                    and not library.MOTIFS_BY_ID[motif].oriented)

    @functools.cache  # noqa: B019
    def motif_choices(self, contained: bool) -> tuple[str, ...]:
        """The motifs drawn (uniformly) for a crest with or without a container: those that take
        at least one of its modifiers."""
        return tuple(m for m in self._motif_pool() if self.modifier_choices(contained, m))

    def branches(self) -> tuple[bool, bool]:
        """Whether a containerless crest, and a contained one, can be drawn at all."""
        if self.fixed_containers is not None:
            fixed = bool(self.fixed_containers)
            return (not fixed and bool(self.motif_choices(False)), fixed and bool(self.motif_choices(True)))
        q = self.containerless_probability
        free = q > 0 and bool(self.motif_choices(False))
        contained = q < 1 and len(self.containers) >= self.depth and bool(self.motif_choices(True))
        return free, contained

    def containerless_weight(self) -> float:
        """Probability of no container, once impossible branches are ruled out (e.g. a modifier
        pool without arrangements makes every crest contained)."""
        free, contained = self.branches()
        if free and contained:
            return self.containerless_probability
        return 1.0 if free else 0.0

    def check(self) -> None:
        """Raise ValueError when nothing can be drawn, saying why."""
        if any(self.branches()):
            return
        if self.fixed_containers is None and len(self.containers) < self.depth:
            raise ValueError(f"nesting depth {self.depth} needs at least {self.depth} containers in the pool")
        raise ValueError(
            f"nothing to draw from modifiers [{', '.join(self._modifier_pool())}]"
            f" and motif {'pool' if not self.fixed_motif else self.fixed_motif}: a containerless crest needs a "
            f"spatial arrangement ({', '.join(ARRANGEMENTS)}), peeking, bean and none need a container, and "
            f"{' and '.join(ORIENTED_ONLY)} need an oriented motif unless ambiguous arrangements are allowed")

    # -- drawing -------------------------------------------------------------------------
    def draw(self, rng: np.random.Generator) -> Crest:
        """One crest: containers, then a uniform motif, then a uniform modifier the motif allows.
        Always the same number of draws per step, whatever is fixed."""
        u = rng.random()
        contained = u >= self.containerless_weight()
        if self.fixed_containers is not None:
            containers = self.fixed_containers
        else:
            picks = rng.permutation(len(self.containers))[: self.depth]
            containers = tuple(self.containers[i] for i in picks) if contained else ()
        motifs = self.motif_choices(bool(containers))
        motif = motifs[int(rng.integers(len(motifs)))]
        mods = self.modifier_choices(bool(containers), motif)
        modifier = mods[int(rng.integers(len(mods)))]
        return Crest(containers, modifier, motif)

    # -- the exact distribution ---------------------------------------------------------
    def support(self) -> dict[Crest, float]:
        return _support(self)


@functools.cache
def _support(s: Sampler) -> dict[Crest, float]:
    out: dict[Crest, float] = {}
    q = s.containerless_weight()
    branches = []
    if s.fixed_containers is not None:
        branches.append((1.0, [s.fixed_containers]))
    else:
        if q > 0:
            branches.append((q, [()]))
        if q < 1:
            branches.append((1 - q, list(itertools.permutations(s.containers, s.depth))))
    for weight, options in branches:
        for containers in options:
            motifs = s.motif_choices(bool(containers))
            for motif in motifs:
                mods = s.modifier_choices(bool(containers), motif)
                p = weight / len(options) / len(motifs) / len(mods)
                for m in mods:
                    crest = Crest(tuple(containers), m, motif)
                    out[crest] = out.get(crest, 0.0) + p
    return out


def grid(containers: list[tuple[str, ...]], modifiers: list[str], motifs: list[str],
         ambiguous: str = "exclude") -> list[Crest]:
    """Factor-controlled grid: every (containers, modifier) context with every motif that the
    grammar allows there. Contexts are (C, R); motifs vary within a context."""
    out = []
    for cs, m in itertools.product(containers, modifiers):
        if not cs and m not in ARRANGEMENTS:
            continue
        for motif in motifs:
            if ambiguous == "exclude" and m in ORIENTED_ONLY and not library.MOTIFS_BY_ID[motif].oriented:
                continue
            out.append(Crest(tuple(cs), m, motif))
    return out
