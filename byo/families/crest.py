"""Crest (kamon) scenes after KamonBench: a container, a modifier and a motif, with KDL,
segmented Japanese, English and program-code labels.

The crest itself is pure geometry (byo.crest); this plugin draws one per image and shows it
in one of two presentations of the same spec:

- `flat`: the crest alone, seen by an orthographic camera from above, two colours on white,
  Workbench with flat lighting and no anti-aliasing: fast and exact to the pixel;
- `3d`: the crest printed on a plaque, banner or lantern standing on the table, lit and seen
  through the shared camera, lighting and blur setup.

Objects are the drawn parts: each container band (outermost first) then each motif copy. Their
`location` is the world centre of the part, `scale` its half-width in metres and `rotation`
its turn in the crest plane (degrees, counter-clockwise). The mask measures what is visible of
each (a peeking motif is cut to the container's interior before it is drawn).
"""

from __future__ import annotations

import json
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from byo.crest import carriers, library
from byo.crest.grammar import MODIFIERS, Crest, Layer, component_layers, layers
from byo.crest.labels import component_labels
from byo.crest.labels import labels as crest_labels
from byo.crest.sampling import Sampler
from byo.crest.splits import part_of, random_part
from byo.dataset import atomic_write_text
from byo.setup import ResolvedSetup
from byo.spec import PlacementError, SceneObject

LAYER_GAP = 0.002  # crest half-widths between stacked layers (containers drawn over motifs)
SURFACE_GAP = 0.006  # crest half-widths between a 3D carrier's surface and the print
Modifier = Literal["none", "peeking", "bean", "three_stacked", "bottoms_together", "heads_together"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _rgb(v):
    if v is not None and (len(v) != 3 or not all(0.0 <= c <= 1.0 for c in v)):
        raise ValueError("expected an sRGB colour as 3 numbers in [0, 1]")
    return v


def _check_refs(lookup, refs) -> None:
    for ref in refs:
        try:
            lookup(ref)
        except KeyError as err:
            raise ValueError(err.args[0]) from None


class CarrierConfig(Strict):
    kind: Literal["plaque", "banner", "lantern"] = "plaque"
    color: tuple[float, float, float] | None = None  # sRGB; default per kind
    roughness: float = Field(0.6, ge=0, le=1)

    @field_validator("color")
    @classmethod
    def _color(cls, v):
        return _rgb(v)


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
    ink: tuple[float, float, float] | None = None  # sRGB; default black (flat) or per carrier (3d)
    carrier: CarrierConfig = CarrierConfig()

    @field_validator("ink")
    @classmethod
    def _ink(cls, v):
        return _rgb(v)

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
        if self.mode != "composite" and self.split.part != "all":
            raise ValueError("component images (mode motif or container) have no split part to draw")
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
    table = library.MOTIFS_BY_ID if rec["kind"] == "motif" else library.CONTAINERS_BY_ID
    return component_layers(table[rec["component"]])


def layer_offset(level: float, kind: str, size: float) -> float:
    """Metres between the carrier surface (or the flat ground) and a layer of the print."""
    return size * (LAYER_GAP * level + (0.0 if kind == "flat" else SURFACE_GAP))


def colours(content: CrestContent) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """(surface, ink) sRGB; the flat surface is the background."""
    if content.presentation == "flat":
        return (1.0, 1.0, 1.0), content.ink or (0.0, 0.0, 0.0)
    surface, ink = carriers.DEFAULT_COLORS[content.carrier.kind]
    return content.carrier.color or surface, content.ink or ink


class CrestFamily:
    name = "crest"
    content_model = CrestContent
    builder = "byo.render.builders.crest"
    default_scene: dict[str, Any] = {
        # Flat: the crest (half-width content.size = 0.1 m) from straight above, orthographic,
        # 2.2 half-widths across the frame; two colours, no lighting, no anti-aliasing.
        "camera": {"projection": "orthographic", "ortho_scale": 0.22, "distance": 1.0, "elevation": 90.0,
                   "azimuth": 0.0},
        "table": {"enabled": False},
        "floor": {"enabled": False},
        "background": {"color": [1.0, 1.0, 1.0], "strength": 1.0},
        "resolution": [256, 256],
        # Placement is fixed by the layout, so a part too small to show is flagged, not re-placed.
        "render": {"engine": "workbench", "workbench_lighting": "flat", "workbench_aa": "off", "dither": 0.0,
                   "min_visible_pixels": 1, "on_hidden": "flag", "max_visibility_attempts": 1},
    }

    def draw(self, content: CrestContent, draw: np.random.Generator) -> tuple[dict, list[Layer], dict, str]:
        """(record, layers, labels, split) of one image."""
        sampler = content.sampler()
        scheme = content.split.scheme
        if content.mode != "composite":
            table = library.MOTIFS if content.mode == "motif" else library.CONTAINERS
            pool = sampler.motifs if content.mode == "motif" else sampler.containers
            fixed = sampler.fixed_motif if content.mode == "motif" else (sampler.fixed_containers or (None,))[0]
            ref = fixed or pool[int(draw.integers(len(pool)))]
            component = next(c for c in table if c.id == ref)
            part = random_part(draw.random(), content.split.fractions) if scheme == "random" else "train"
            return record(component=component), component_layers(component), component_labels(component), part
        for _ in range(100_000):
            crest = sampler.draw(draw)
            if scheme == "random":
                part = random_part(draw.random(), content.split.fractions)
            else:
                part = part_of(crest, sampler, scheme, content.split.fractions, content.split.seed)
            if content.split.part in ("all", part):
                return record(crest), layers(crest), crest_labels(crest), part
        raise PlacementError(f"split part {content.split.part!r} of scheme {scheme!r} holds none of the crests "
                             "these factors allow")

    def sample(self, content: CrestContent, setup: ResolvedSetup, *, draw: np.random.Generator,
               place: np.random.Generator) -> tuple[list[SceneObject], dict[str, Any]]:
        if (content.presentation == "3d" and setup.camera.projection == "orthographic"
                and setup.render.engine == "workbench"):
            raise PlacementError("presentation '3d' still has the flat defaults (orthographic camera, Workbench): "
                                 "set scene.camera.projection: perspective and scene.render.engine: cycles, as "
                                 "dataset_configs/crest/composite_3d.yaml does")
        rec, parts, labels, part = self.draw(content, draw)
        kind = "flat" if content.presentation == "flat" else content.carrier.kind
        surface_rgb, ink = colours(content)
        s = content.size
        objects = []
        for i, layer in enumerate(parts):
            p = layer.placement
            loc = carriers.surface(kind, s, [(p.x, p.y)], layer_offset(layer.level, kind, s))[0]
            c = layer.component
            objects.append(SceneObject(
                id=i + 1, name=f"{layer.role}_{c.key}_{layer.copy + 1}", kind=layer.role,
                attributes={"component": c.token, "key": c.key, "ja": c.ja, "en": c.en, "copy": layer.copy,
                            "canvas": p.as_dict(), "clipped": layer.clip is not None, "level": layer.level,
                            "ink": list(ink)},
                location=tuple(round(float(x), 6) for x in loc), rotation=round(p.rotation % 360.0, 4),
                scale=round(s * p.scale, 6)))
        motif = parts[-1].component if rec["kind"] != "container" else None
        extras = {
            "crest": rec,
            **labels,
            "label": labels["english"],
            "split": part,
            "split_scheme": content.split.scheme,
            "oriented": bool(motif.oriented) if motif else None,
            "arrangement_ambiguous": rec["kind"] == "composite" and Crest(
                tuple(rec["containers"]), rec["modifier"], rec["motif"]).ambiguous,
            "presentation": content.presentation,
            "carrier": {"kind": kind, "surface": list(surface_rgb), "ink": list(ink)},
            "size": s,
        }
        return objects, extras

    def landmarks(self, spec) -> dict:
        """The crest canvas's corners (top-left, top-right, bottom-right, bottom-left) and
        centre on its carrier: where the crest is in the image, whatever the view."""
        e = spec.extras
        points = carriers.surface(e["carrier"]["kind"], e["size"], [(-1, 1), (1, 1), (1, -1), (-1, -1), (0, 0)])
        rounded = [tuple(round(float(x), 6) for x in p) for p in points]
        return {"canvas_corners": rounded[:4], "canvas_centre": rounded[4:]}

    def export(self, layout, legends: list[dict]) -> dict:
        rows = []
        for lg in legends:
            e = lg["extras"]
            rows.append({"file_name": lg["image"], "name": lg["name"], "index": lg["index"], "kind": e["crest"]["kind"],
                         "program": e["program"], "kdl": e["kdl"], "analysis": e["analysis"], "english": e["english"],
                         "reading": e["reading"], "crest": e["crest"], "split": e["split"]})
        path = layout.root / "crest_labels.jsonl"
        atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        return {"crest_labels": path}

    def legend_lines(self, legend: dict[str, Any]) -> list[str]:
        e = legend["extras"]
        lines = [f"program: {e['program']}", f"KDL: {e['kdl']}  ({e['reading']})",
                 f"analysis: {' | '.join(e['analysis'])}", f"English: {e['english']}",
                 f"split: {e['split']} ({e['split_scheme']}); presentation {e['presentation']} "
                 f"on {e['carrier']['kind']}"]
        if e.get("arrangement_ambiguous"):
            lines.append("note: this motif has no clear up direction, so the arrangement looks like three-stacked")
        return lines


CREST = CrestFamily()
