"""The counterfactual renders `byo audit` asks for (byo/scene/counterfactual.py): each image's
scene built again from its legend (which holds every field of the spec it was rendered from),
its objects' regions rendered without them and with each other value of the attributes their
family checks, measured against the dataset's own mask, and written as one JSON per image under
DATASET/counterfactuals/ (Layout.counterfactuals) for the audit to read. For a dataset rendered before the check, or to
check a dataset's recorded measurements independently. Imports bpy: the command line loads it by
name (ALTERNATIVES) only when the audit renders."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from byo.blender import engine
from byo.core.dataset import Layout, atomic_write_text
from byo.core.inputs import read_image, read_json, reading
from byo.families import get_family
from byo.render.counterfactuals import measure
from byo.render.job import build_scene
from byo.scene.measure import measure as measure_mask
from byo.scene.spec import SceneObject, SceneSpec


def spec_of(legend: dict) -> SceneSpec:
    """The scene spec a legend was rendered from."""
    data = {k: legend[k] for k in SceneSpec.model_fields if k in legend and k not in ("objects", "tool_version")}
    data["tool_version"] = legend["tool"]["version"]
    data["objects"] = [{k: o[k] for k in SceneObject.model_fields} for o in legend["objects"]]
    return SceneSpec.model_validate(data)


def render_alternatives(dataset: str | Path, names: Sequence[str], *, threads: int | None = None,
                        on_image: Callable[[str], None] | None = None) -> list[Path]:
    """Render and measure the counterfactuals of the images `names` of `dataset`; returns the files
    written (DATASET/counterfactuals/NAME.json: object id -> its measurements)."""
    layout = Layout(dataset)
    threads = threads or len(os.sched_getaffinity(0))
    written = []
    for name in names:
        file = layout.legend(name)
        with reading(file, "a legend"):
            legend = read_json(file)
            spec = spec_of(legend)
            family = get_family(legend["family"])
            mask = read_image(layout.mask(name), "L")
        parts = family.mask_parts(spec)
        measured = measure_mask(mask, [o.id for o in spec.objects], parts)
        with engine.own_scene(f"byo_audit_{name}") as scene:
            _, built = build_scene(spec, family, scene, threads)
            found = measure(spec, family, scene, built, measured)
        path = layout.counterfactuals(name)
        path.parent.mkdir(exist_ok=True)
        atomic_write_text(path, json.dumps({str(k): m.to_json() for k, m in found.items()}, indent=1) + "\n")
        written.append(path)
        if on_image is not None:
            on_image(name)
    return written
