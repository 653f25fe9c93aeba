"""The crest grammar (KamonBench appendix A.2) and its layout in the [-1, 1] canvas.

    kamon         := CONTAINER complex-motif | spatial-arrangement MOTIF
    complex-motif := [modifier] MOTIF | CONTAINER complex-motif
    modifier      := spatial-arrangement (three-stacked, bottoms-together, heads-together)
                   | modification (bean, peeking)

A crest is therefore (containers, modifier, motif): zero or more containers, outermost first;
one modifier (`none` only inside a container; a containerless crest always uses a spatial
arrangement; bean and peeking need a container to be small in or to peek from); one motif.

Layout (the benchmark's constants): each container level shrinks what it holds by 0.75. In the
innermost container's frame, a plain motif has scale 0.75, a bean one 0.25, a peeking one 0.75
centred at (0, -0.25) and clipped to the container's interior; a stack puts three copies of
scale 0.4 at 90, 210 and 330 degrees (the whole stack scaled by 0.75 inside a container),
turned by (angle - 90) for bottoms-together and (angle + 90) for heads-together.
"""

from __future__ import annotations

from dataclasses import dataclass

from shapely.geometry.base import BaseGeometry

from byo.families.crest.motifs import library
from byo.families.crest.motifs.geometry import Geom, clean, move, rotate, scale, union
from byo.families.crest.motifs.library import Component

MODIFIERS = ("none", "peeking", "bean", "three_stacked", "bottoms_together", "heads_together")
ARRANGEMENTS = ("three_stacked", "bottoms_together", "heads_together")
MODIFICATIONS = ("peeking", "bean")
ORIENTED_ONLY = ("bottoms_together", "heads_together")  # identical to three-stacked for unoriented motifs
X_CODE = {m: i for i, m in enumerate(MODIFIERS)}  # program code X:<k>

CONTAINED_SCALE = 0.75
BEAN_SCALE = 0.25
PEEK_SCALE, PEEK_CENTRE = 0.75, (0.0, -0.25)
STACK_SCALE = 0.4
STACK_ANGLES = (90.0, 210.0, 330.0)
STACK_CENTRES = {
    "three_stacked": ((0.0, 0.50), (-0.44, -0.29), (0.44, -0.29)),
    "bottoms_together": ((0.0, 0.50), (-0.42, -0.27), (0.42, -0.27)),
    "heads_together": ((0.0, 0.42), (-0.35, -0.17), (0.35, -0.17)),
}
STACK_TURN = {"three_stacked": None, "bottoms_together": -90.0, "heads_together": 90.0}


class GrammarError(ValueError):
    """Factors that the crest grammar does not allow, or a label that does not parse."""


@dataclass(frozen=True)
class Crest:
    containers: tuple[str, ...]  # container ids, outermost first; () for a containerless crest
    modifier: str
    motif: str  # motif id

    def __post_init__(self):
        object.__setattr__(self, "containers", tuple(self.containers))
        if self.modifier not in MODIFIERS:
            raise GrammarError(f"unknown modifier {self.modifier!r}; expected one of {', '.join(MODIFIERS)}")
        if not self.containers and self.modifier not in ARRANGEMENTS:
            raise GrammarError(f"a containerless crest needs a spatial arrangement ({', '.join(ARRANGEMENTS)}), "
                               f"not {self.modifier!r}")
        for c in self.containers:
            if c not in library.CONTAINERS_BY_ID:
                raise GrammarError(f"unknown container id {c!r}")
        if self.motif not in library.MOTIFS_BY_ID:
            raise GrammarError(f"unknown motif id {self.motif!r}")

    @property
    def motif_component(self) -> Component:
        return library.MOTIFS_BY_ID[self.motif]

    @property
    def container_components(self) -> list[Component]:
        return [library.CONTAINERS_BY_ID[c] for c in self.containers]

    @property
    def ambiguous(self) -> bool:
        """Bottoms- or heads-together on a motif without a clear up direction."""
        return self.modifier in ORIENTED_ONLY and not self.motif_component.oriented

    def factors(self) -> dict:
        return {"containers": list(self.containers), "modifier": self.modifier, "x": X_CODE[self.modifier],
                "motif": self.motif}

    @classmethod
    def from_factors(cls, factors: dict) -> Crest:
        return cls(tuple(factors["containers"]), factors["modifier"], factors["motif"])


@dataclass(frozen=True)
class Placement:
    """Canvas transform of a component: turn by `rotation` degrees (counter-clockwise) about the
    component's own centre, scale by `scale`, then move the centre to (x, y)."""

    x: float = 0.0
    y: float = 0.0
    scale: float = 1.0
    rotation: float = 0.0

    def apply(self, g: BaseGeometry) -> Geom:
        g = rotate(g, self.rotation) if self.rotation else g
        return move(scale(g, self.scale), self.x, self.y)

    def as_dict(self) -> dict:
        return {"x": round(self.x, 6), "y": round(self.y, 6), "scale": round(self.scale, 6),
                "rotation": round(self.rotation % 360.0, 6)}


@dataclass(frozen=True)
class Layer:
    """One drawn part of a crest: a container band or one motif copy, in canvas coordinates."""

    role: str  # "container" | "motif"
    component: Component
    copy: int  # 0-based: container nesting level, or motif copy
    placement: Placement
    clip: BaseGeometry | None  # peeking: the motif is cut to this region
    level: float  # drawing order, higher on top: motif copies 0, 0.25, 0.5; containers 1, 2, ...

    def geometry(self) -> Geom:
        g = self.placement.apply(self.component.geometry())
        return clean(g.intersection(self.clip)) if self.clip is not None else g


def container_placements(n: int) -> list[Placement]:
    return [Placement(scale=CONTAINED_SCALE**k) for k in range(n)]


def motif_placements(crest: Crest) -> list[Placement]:
    depth = len(crest.containers)
    frame = CONTAINED_SCALE ** (depth - 1) if depth else 1.0  # the innermost container's scale
    m = crest.modifier
    if m == "none":
        return [Placement(scale=frame * CONTAINED_SCALE)]
    if m == "bean":
        return [Placement(scale=frame * BEAN_SCALE)]
    if m == "peeking":
        return [Placement(frame * PEEK_CENTRE[0], frame * PEEK_CENTRE[1], frame * PEEK_SCALE)]
    stack = frame * (CONTAINED_SCALE if depth else 1.0)
    out = []
    for angle, (cx, cy) in zip(STACK_ANGLES, STACK_CENTRES[m], strict=True):
        turn = STACK_TURN[m]
        out.append(Placement(stack * cx, stack * cy, stack * STACK_SCALE, 0.0 if turn is None else angle + turn))
    return out


def layers(crest: Crest) -> list[Layer]:
    """Containers (outermost first) then motif copies, as drawn."""
    out = []
    frames = container_placements(len(crest.containers))
    for k, (c, p) in enumerate(zip(crest.container_components, frames, strict=True)):
        out.append(Layer("container", c, k, p, None, level=1 + k))
    clip = None
    if crest.modifier == "peeking":
        inner = crest.container_components[-1]
        clip = frames[-1].apply(inner.interior())
    for k, p in enumerate(motif_placements(crest)):
        out.append(Layer("motif", crest.motif_component, k, p, clip, level=k / 4))
    return out


def component_layers(component: Component) -> list[Layer]:
    """An isolated motif or container, at full canvas scale."""
    return [Layer(component.kind, component, 0, Placement(), None, level=0)]


def crest_geometry(parts: list[Layer]) -> Geom:
    """Everything drawn, as one shape (all parts share the ink colour)."""
    return union(*(layer.geometry() for layer in parts))
