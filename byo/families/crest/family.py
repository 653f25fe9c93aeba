"""Crest (kamon) scenes after KamonBench: a container, a modifier and a motif, with KDL,
segmented Japanese, English and program-code labels.

The crest itself is pure geometry (byo.families.crest.motifs); this plugin draws one per image and shows it
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
import math
from typing import Any

import numpy as np

from byo.families.api import (
    NO_BLUR,
    Family,
    PlacementError,
    QualityPreset,
    ResolvedSetup,
    SceneObject,
    atomic_write_text,
    unseen,
)
from byo.families.crest import concentration
from byo.families.crest.answers import ANSWERS
from byo.families.crest.metrics import SCORING
from byo.families.crest.model import CrestContent, colors, layer_offset, record
from byo.families.crest.motifs import carriers, library
from byo.families.crest.motifs.grammar import Crest, Layer, component_layers, layers
from byo.families.crest.motifs.labels import component_labels
from byo.families.crest.motifs.labels import labels as crest_labels
from byo.families.crest.motifs.splits import part_of, random_part
from byo.families.crest.sheet import SHEETS
from byo.families.crest.vocab import VOCABULARY

# The labels of the empty container image paired with a containerless composite.
NO_CONTAINER = {"kdl": "", "analysis": [], "reading": "", "romaji": "", "english": "no container", "program": ""}


class CrestFamily(Family):
    name = "crest"
    content_model = CrestContent
    template_file = "crest.yaml"
    answers = ANSWERS
    design_keys = ("mode", "presentation", "container", "modifier", "motif", "containerless_probability",
                   "nesting_depth", "carrier.kind", "size")
    audit = "audit"
    sheets = SHEETS
    answer_types = SCORING
    tables = (concentration.TABLE,)  # KamonBench Table 13, over any run's program answers
    vocabulary = VOCABULARY  # every motif's and container's names: open recall over the whole inventory
    # The standard preset of a 3D crest (Cycles): 12 samples, no adaptive stopping, the denoiser's
    # albedo and normal guides prefiltered accurately. On the busiest 3D crest it gives 49.2 dB and
    # SSIM 0.9956 at 320x240, 51.0 / 0.9968 at 640x360 and 52.7 / 0.9970 at 1920x1080, where the
    # shared standard's unfiltered guides miss SSIM 0.995 at 640x360 (0.9929) and even at 256
    # samples at 1920x1080 reach only 0.9950 (bench/family_presets.py, docs/speed.md). Flat crests
    # render with Workbench, which takes none of these keys.
    quality_presets = {"standard": [QualityPreset({"samples": 12, "adaptive_threshold": None,
                                                   "denoise_prefilter": "accurate"})]}
    object_kinds = ("container", "motif")  # the layers of a crest
    explain_factors = (NO_BLUR,)  # byo explain: each alone, in a failed image's scene
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
        if content.mode != "composite" and content.paired:
            return self._paired(content, sampler, draw)
        if content.mode != "composite":
            table = library.MOTIFS if content.mode == "motif" else library.CONTAINERS
            pool = sampler.motifs if content.mode == "motif" else sampler.containers
            fixed = sampler.fixed_motif if content.mode == "motif" else (sampler.fixed_containers or (None,))[0]
            ref = fixed or pool[int(draw.integers(len(pool)))]
            component = next(c for c in table if c.id == ref)
            part = random_part(draw.random(), content.split.fractions) if scheme == "random" else "train"
            return record(component=component), component_layers(component), component_labels(component), part
        crest, part = self._composite(content, sampler, draw)
        return record(crest), layers(crest), crest_labels(crest), part

    @staticmethod
    def _composite(content: CrestContent, sampler, draw: np.random.Generator) -> tuple[Crest, str]:
        scheme = content.split.scheme
        for _ in range(100_000):
            crest = sampler.draw(draw)
            if scheme == "random":
                part = random_part(draw.random(), content.split.fractions)
            else:
                part = part_of(crest, sampler, scheme, content.split.fractions, content.split.seed)
            if content.split.part in ("all", part):
                return crest, part
        raise PlacementError(f"split part {content.split.part!r} of scheme {scheme!r} holds none of the crests "
                             "these factors allow")

    def _paired(self, content: CrestContent, sampler, draw: np.random.Generator) -> tuple[dict, list, dict, str]:
        """A component image paired with its composite, as KamonBench bundles them ("one isolated
        motif per composite and one container per contained composite", in the composite's split):
        the same draws as the composite mode of this config, so image i shows the motif (or the
        outermost container) of composite image i of the config with the same seed. A containerless
        composite has no container: its container image is the empty canvas, labelled so."""
        crest, part = self._composite(content, sampler, draw)
        if content.mode == "motif":
            component = library.MOTIFS_BY_ID[crest.motif]
        else:
            component = library.CONTAINERS_BY_ID[crest.containers[0]] if crest.containers else None
        pair = crest_labels(crest)["program"]
        if component is None:
            return ({"kind": "container", "component": None, "paired_with": pair}, [], NO_CONTAINER, part)
        return ({**record(component=component), "paired_with": pair}, component_layers(component),
                component_labels(component), part)

    def sample(self, content: CrestContent, setup: ResolvedSetup, *, draw: np.random.Generator,
               place: np.random.Generator) -> tuple[list[SceneObject], dict[str, Any]]:
        if (content.presentation == "3d" and setup.camera.projection == "orthographic"
                and setup.render.engine == "workbench"):
            raise PlacementError("presentation '3d' still has the flat defaults (orthographic camera, Workbench): "
                                 "set scene.camera.projection: perspective and scene.render.engine: cycles, as "
                                 "dataset_configs/crest/composite_3d.yaml does")
        rec, parts, labels, part = self.draw(content, draw)
        kind = "flat" if content.presentation == "flat" else content.carrier.kind
        surface_rgb, ink = colors(content)
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

    def caption(self, legend: dict[str, Any]) -> str:
        """The crest's label, unless a part of it does not show (then the label would name it)."""
        if unseen(legend):
            return f"{legend['extras']['crest']['kind']}: {len(unseen(legend))} part(s) not visible"
        return legend["extras"]["label"]

    def training_config(self, config: dict[str, Any]) -> dict[str, Any]:
        """A recombination config that draws one part (say `part: test`) has its training split in
        the same config with `part: train` (same split seed, so the same held-out combinations),
        with as many images as the split's fractions give the training part. Any other config's
        training images are its own images with split train."""
        content = ((config.get("scene") or {}).get("content") or {})
        split = content.get("split") or {}
        part = split.get("part", "all")
        if split.get("scheme", "random") == "random" or part in ("all", "train"):
            return config
        fractions = split.get("fractions", (0.8, 0.1, 0.1))
        share = fractions[("train", "val", "test").index(part)]
        n = int(config["dataset"].get("n_images", 1))
        n_train = max(1, math.ceil(n * fractions[0] / share)) if share > 0 else n
        return {**config, "dataset": {**config["dataset"], "n_images": n_train, "split": "train"},
                "scene": {**config["scene"], "content": {**content, "split": {**split, "part": "train"}}}}

    def image_split(self, legend: dict[str, Any]) -> str:
        """Each crest image draws its own KamonBench split (train, val, test)."""
        return str(legend["extras"].get("split") or legend["split"])

    def legend_lines(self, legend: dict[str, Any]) -> list[str]:
        e = legend["extras"]
        lines = [f"program: {e['program']}", f"KDL: {e['kdl']}  ({e['reading']})",
                 f"analysis: {' | '.join(e['analysis'])}", f"English: {e['english']}",
                 f"split: {e['split']} ({e['split_scheme']}); presentation {e['presentation']} "
                 f"on {e['carrier']['kind']}"]
        if e.get("arrangement_ambiguous"):
            lines.append("note: this motif has no clear up direction, so the arrangement looks like three-stacked")
        if e["crest"].get("paired_with") is not None:
            lines.append(f"paired with the composite {e['crest']['paired_with']} (same image index and seed)")
        return lines

