"""Crest content: what a user writes under `scene.content`, and the crest record that the
legend keeps and the builder redraws."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from byo.families.api import SRGB, Strict
from byo.families.crest.motifs import carriers, library
from byo.families.crest.motifs.grammar import MODIFIERS, Crest, Layer, component_layers, layers
from byo.families.crest.motifs.sampling import Sampler

LAYER_GAP = 0.002  # crest half-widths between stacked layers (containers drawn over motifs)
SURFACE_GAP = 0.006  # crest half-widths between a 3D carrier's surface and the print
Modifier = Literal["none", "peeking", "bean", "three_stacked", "bottoms_together", "heads_together"]


def _check_refs(lookup, refs) -> None:
    for ref in refs:
        try:
            lookup(ref)
        except KeyError as err:
            raise ValueError(err.args[0]) from None


class CarrierConfig(Strict):
    kind: Literal["plaque", "banner", "lantern"] = "plaque"
    color: SRGB | None = None  # default per kind
    roughness: float = Field(0.6, ge=0, le=1)


class SplitConfig(Strict):
    scheme: Literal["random", "cm", "rm", "crm"] = "random"
    part: Literal["all", "train", "val", "test"] = "all"  # recombination schemes: draw only this part
    fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)
    seed: int = Field(0, ge=0)  # which combinations are held out (shared by a split's configs)

    @model_validator(mode="after")
    def _check(self):
        if abs(sum(self.fractions) - 1.0) > 1e-9 or min(self.fractions) < 0:
            raise ValueError("split fractions must be three non-negative numbers summing to 1")
        if self.scheme == "random" and self.part != "all":
            raise ValueError("a random split assigns each image at random (recorded in its legend); "
                             "use part: all, or a recombination scheme (cm, rm, crm) to draw one part")
        return self


class CrestContent(Strict):
    mode: Literal["composite", "motif", "container"] = "composite"  # motif/container: component images
    # Component images only: each shows the motif (or outermost container) of the composite that
    # this config in composite mode draws for the same image, in its split (KamonBench's bundling).
    paired: bool = False
    presentation: Literal["flat", "3d"] = "flat"
    # Fixed factors (None: drawn). container: a reference, a list (outermost first) or "none".
    container: str | list[str] | None = None
    modifier: Modifier | None = None
    motif: str | None = None
    # Pools the draws come from (references: key, id, Japanese or English name).
    containers: list[str] | None = None
    motifs: list[str] | None = None
    modifiers: list[Modifier] = list(MODIFIERS)
    containerless_probability: float = Field(0.3, ge=0, le=1)
    nesting_depth: int = Field(1, ge=1, le=3)
    ambiguous_arrangements: Literal["exclude", "allow"] = "exclude"
    split: SplitConfig = SplitConfig()
    size: float = Field(0.1, gt=0)  # metres: half-width of the crest canvas
    ink: SRGB | None = None  # default black (flat) or per carrier (3d)
    carrier: CarrierConfig = CarrierConfig()

    @field_validator("container")
    @classmethod
    def _container(cls, v):
        if v is None or v == "none":
            return v
        refs = [v] if isinstance(v, str) else v
        if not refs:
            raise ValueError('expected a container, a list of containers (outermost first) or "none"')
        _check_refs(library.container, refs)
        return v

    @field_validator("motif")
    @classmethod
    def _motif(cls, v):
        if v is not None:
            _check_refs(library.motif, [v])
        return v

    @field_validator("containers", "motifs")
    @classmethod
    def _pool(cls, v, info):
        if v is not None:
            if not v:
                raise ValueError("a pool needs at least one entry")
            _check_refs(library.container if info.field_name == "containers" else library.motif, v)
        return v

    @model_validator(mode="after")
    def _check(self):
        try:
            self.sampler().check()
        except ValueError as err:
            raise ValueError(str(err)) from None
        if self.mode != "composite" and self.split.part != "all" and not self.paired:
            raise ValueError("component images (mode motif or container) have no split part to draw, "
                             "unless paired with their composites (paired: true)")
        if self.paired and self.mode == "composite":
            raise ValueError("paired: true is for component images (mode motif or container), paired with the "
                             "composites the same config draws in mode composite")
        if self.split.scheme != "random" and self.nesting_depth > 2:
            raise ValueError("recombination splits enumerate every combination; use nesting_depth <= 2")
        return self

    def sampler(self) -> Sampler:
        fixed = None
        if self.container == "none":
            fixed = ()
        elif self.container is not None:
            refs = [self.container] if isinstance(self.container, str) else self.container
            fixed = tuple(library.container(r).id for r in refs)
        return Sampler(
            containers=tuple(library.container(r).id for r in self.containers) if self.containers
            else tuple(c.id for c in library.CONTAINERS),
            motifs=tuple(library.motif(r).id for r in self.motifs) if self.motifs
            else tuple(m.id for m in library.MOTIFS),
            modifiers=tuple(self.modifiers), containerless_probability=self.containerless_probability,
            depth=self.nesting_depth, ambiguous=self.ambiguous_arrangements, fixed_containers=fixed,
            fixed_modifier=self.modifier, fixed_motif=library.motif(self.motif).id if self.motif else None)


def record(crest: Crest | None = None, component: library.Component | None = None) -> dict:
    """What the builder needs to redraw the crest (in the legend's extras)."""
    if crest is not None:
        return {"kind": "composite", **crest.factors()}
    return {"kind": component.kind, "component": component.id}


def layers_from_record(rec: dict) -> list[Layer]:
    if rec["kind"] == "composite":
        return layers(Crest(tuple(rec["containers"]), rec["modifier"], rec["motif"]))
    if rec["component"] is None:
        return []  # the empty container image paired with a containerless composite
    table = library.MOTIFS_BY_ID if rec["kind"] == "motif" else library.CONTAINERS_BY_ID
    return component_layers(table[rec["component"]])


def layer_offset(level: float, kind: str, size: float) -> float:
    """Metres between the carrier surface (or the flat ground) and a layer of the print."""
    return size * (LAYER_GAP * level + (0.0 if kind == "flat" else SURFACE_GAP))


def colors(content: CrestContent) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """(surface, ink) sRGB; the flat surface is the background."""
    if content.presentation == "flat":
        return (1.0, 1.0, 1.0), content.ink or (0.0, 0.0, 0.0)
    surface, ink = carriers.DEFAULT_COLORS[content.carrier.kind]
    return content.carrier.color or surface, content.ink or ink
