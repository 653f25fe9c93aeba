"""The counterfactual renders of one image (byo/scene/counterfactual.py says what they measure
and decide): for every object the mask shows, its region rendered as the image shows it, without
it, and with each other value of the attributes its family checks by rendering (the family's
`alternatives`, built by its builder module's `build_objects`). Called by the render job on the
scene it has just rendered, and by `byo audit` (`--alternatives`) on a scene rebuilt from a
dataset's legend (`spec_of`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from byo.blender import engine, regions
from byo.families.base import Family
from byo.scene import counterfactual
from byo.scene.camera import defocus_diameter_px
from byo.scene.spec import SceneObject, SceneSpec


def checked_attributes(spec: SceneSpec, family: Family) -> tuple[str, ...]:
    chosen = spec.setup.render.counterfactual.attributes
    return tuple(chosen) if chosen is not None else family.rendered_attributes


def blur_diameter_px(spec: SceneSpec, obj: SceneObject) -> float:
    setup = spec.setup
    if not setup.blur.enabled:
        return 0.0
    depth = float(setup.projector().project([obj.location])[0][2])
    cam = setup.camera
    return float(defocus_diameter_px(depth, focal_length=cam.focal_length, sensor_width=cam.sensor_width,
                                     fstop=setup.blur.fstop, focus_distance=setup.blur.focus_distance,
                                     resolution=setup.resolution))


# (object id, attribute or PRESENCE, the value or None, the truth's render, the other render)
Keep = Callable[[int, str, str | None, np.ndarray, np.ndarray], None]


def measure(spec: SceneSpec, family: Family, scene, built: dict[int, list], measured: dict[int, dict],
            attributes: Sequence[str] | None = None, keep: Keep | None = None) -> dict[int, counterfactual.Measured]:
    """Object id -> what its counterfactual renders measured, for every object of `spec` the mask
    shows (`measured`: the mask's pixels and box per id, parts included). `built`: mask id ->
    the Blender objects of the scene as rendered. `attributes`: those to vary (default: the
    config's, else the family's); `keep`: handed every pair of renders compared (the calibration
    bench keeps them)."""
    settings = spec.setup.render.counterfactual
    wanted = tuple(attributes) if attributes is not None else checked_attributes(spec, family)
    build_objects = getattr(family.module(family.builder), "build_objects", None) if wanted else None
    parts: dict[int, list[int]] = {}
    for part, owner in family.mask_parts(spec).items():
        parts.setdefault(owner, []).append(part)
    out = {}
    with regions.region_renders(scene, settings.samples, settings.denoise):
        for o in spec.objects:
            if not measured[o.id]["visible_pixels"]:
                continue
            own = [b for i in (o.id, *parts.get(o.id, ())) for b in built.get(i, [])]
            variants = {}
            if build_objects is not None:
                for attribute, values in family.alternatives(spec, o).items():
                    if attribute in wanted:
                        variants[attribute] = {v: build_objects(spec, [alt], scene)[alt.id] for v, alt in values.items()}
            out[o.id] = _one_object(spec, scene, o, own, variants, measured[o.id], keep)
    return out


def _one_object(spec: SceneSpec, scene, o: SceneObject, own: list, variants: dict[str, dict[str, list]],
                seen: dict, keep: Keep | None) -> counterfactual.Measured:
    """One object's renders: its region as rendered, without it, and as each variant (built,
    hidden until its turn, removed after)."""
    made = [b for values in variants.values() for objs in values.values() for b in objs]
    for b in made:
        b.hide_render = True
    box = counterfactual.region([tuple(seen["bbox"]), regions.projected_box(scene, own + made)],
                                blur_diameter_px(spec, o), spec.setup.resolution)
    truth = regions.render_region(scene, box)

    def compared(attribute: str, value: str | None, top: int = counterfactual.TOP_PIXELS) -> float:
        other = regions.render_region(scene, box)
        if keep is not None:
            keep(o.id, attribute, value, truth, other)
        return counterfactual.difference(truth, other, top)

    found: dict[str, dict[str, float]] = {}
    with regions.hidden(own):
        presence = compared(counterfactual.PRESENCE, None, counterfactual.presence_rank(seen["visible_pixels"]))
        for attribute, values in variants.items():
            for value, objs in values.items():
                for b in objs:
                    b.hide_render = False
                found.setdefault(attribute, {})[value] = compared(attribute, value)
                for b in objs:
                    b.hide_render = True
    regions.remove(made)
    return counterfactual.Measured(seen["visible_pixels"], presence, found)


def timed_measure(*args, **kwargs) -> tuple[dict[int, counterfactual.Measured], float, float]:
    """`measure`, with its wall-clock seconds and the engine's share of them."""
    started, engine_before = time.perf_counter(), engine.engine_seconds()
    out = measure(*args, **kwargs)
    return out, time.perf_counter() - started, engine.engine_seconds() - engine_before
