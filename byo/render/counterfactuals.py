"""The counterfactual renders of one image (byo/scene/counterfactual.py says what they measure
and decide): for every object the mask shows, its region rendered as the image shows it, without
it, and with each other value of the attributes its family checks by rendering (the family's
`alternatives`, built by its builder module's `build_objects`). Called by the render job on the
scene it has just rendered, and by `byo audit` (`--alternatives`) on a scene rebuilt from a
dataset's legend (`spec_of`)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

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


@dataclass
class _Planned:
    """One object's part of the check: its Blender objects, and its changes in the order they are
    rendered (presence first), each with the objects drawn instead and the region it is compared
    on (the object's box in the mask and as projected, with the change's own, widened by the blur
    disc); `box`, the union of those regions."""

    obj: SceneObject
    own: list
    changes: list[tuple[str, str | None, list, counterfactual.Box]]
    seen: dict
    blur: float  # the blur disc's diameter at the object, pixels

    @property
    def box(self) -> counterfactual.Box:
        return counterfactual.union([c[3] for c in self.changes])


def _plan(spec: SceneSpec, family: Family, scene, built: dict[int, list], measured: dict[int, dict],
          wanted: tuple[str, ...]) -> tuple[list[_Planned], list]:
    """Every object's changes, and the Blender objects built for them (hidden)."""
    build_objects = getattr(family.module(family.builder), "build_objects", None) if wanted else None
    parts: dict[int, list[int]] = {}
    for part, owner in family.mask_parts(spec).items():
        parts.setdefault(owner, []).append(part)
    shown = [o for o in spec.objects if measured[o.id]["visible_pixels"]]
    # Every alternative of every object built in one call (numbered apart), so that they share
    # their materials (a material of its own each would be a shader more for every render).
    wanted_values = [(o, attribute, v, alt) for o in shown if build_objects is not None
                     for attribute, values in family.alternatives(spec, o).items() if attribute in wanted
                     for v, alt in values.items()]
    made = build_objects(spec, [alt.model_copy(update={"id": k}) for k, (*_, alt) in enumerate(wanted_values)],
                         scene) if wanted_values else {}
    for objs in made.values():
        for b in objs:
            b.hide_render = True
    planned = []
    for o in shown:
        own = [b for i in (o.id, *parts.get(o.id, ())) for b in built.get(i, [])]
        drawn: list[tuple[str, str | None, list]] = [(counterfactual.PRESENCE, None, [])]
        drawn += [(attribute, v, made[k]) for k, (x, attribute, v, _) in enumerate(wanted_values) if x is o]
        blur, seen = blur_diameter_px(spec, o), tuple(measured[o.id]["bbox"])
        changes = []
        for attribute, value, objs in drawn:
            box = counterfactual.region([seen, regions.projected_box(scene, own + objs)], blur, spec.setup.resolution)
            if box is not None:
                changes.append((attribute, value, objs, box))
        if changes:
            planned.append(_Planned(o, own, changes, measured[o.id], blur))
    return planned, [b for objs in made.values() for b in objs]


def _shared_truth(planned: list[_Planned], batches: list[list[int]]) -> list[list[list[int]]]:
    """The batches whose truth is rendered at once: all of them when the union of every region
    stays within counterfactual.groups' budget, else each on its own."""
    boxes = [p.box for batch in batches for p in (planned[k] for k in batch)]
    return [batches] if batches and counterfactual.within_budget(boxes) else [[b] for b in batches]


# One change of one planned object: (its index in the plan, the change's index in its `changes`).
Change = tuple[int, int]


def _render_changes(scene, planned: list[_Planned], batches: list[list[int]],
                    todo: set[Change]) -> dict[Change, tuple[np.ndarray, np.ndarray]]:
    """The changes `todo`, each as (the truth's render, the changed render) of its own region, with
    the settings of the enclosing `regions.region_renders`: within a batch, the objects' k-th
    changes share one render; the truth is rendered once for every batch within budget."""
    wanted = [[k for k in batch if any((k, step) in todo for step in range(len(planned[k].changes)))]
              for batch in batches]
    wanted = [batch for batch in wanted if batch]
    pairs: dict[Change, tuple[np.ndarray, np.ndarray]] = {}
    for shared in _shared_truth(planned, wanted):
        truth_box = counterfactual.union([planned[k].box for batch in shared for k in batch])
        truth = regions.render_region(scene, truth_box)
        for batch in shared:
            with regions.hidden([b for k in batch for b in planned[k].own]):
                for step in range(max(len(planned[k].changes) for k in batch)):
                    turn = [k for k in batch if (k, step) in todo]
                    if not turn:
                        continue
                    box = counterfactual.union([planned[k].changes[step][3] for k in turn])
                    with regions.shown([b for k in turn for b in planned[k].changes[step][2]]):
                        other = regions.render_region(scene, box)
                    for k in turn:
                        own_box = planned[k].changes[step][3]
                        pairs[k, step] = (counterfactual.crop(truth, truth_box, own_box),
                                          counterfactual.crop(other, box, own_box))
    return pairs


def _rank(p: _Planned, attribute: str) -> int:
    """The pixel rank a change is measured at: a removal's by the object's size, else TOP_PIXELS."""
    if attribute == counterfactual.PRESENCE:
        return counterfactual.presence_rank(p.seen["visible_pixels"])
    return counterfactual.TOP_PIXELS


def _compared(p: _Planned, attribute: str, truth: np.ndarray, other: np.ndarray) -> tuple[float, np.ndarray]:
    """A change's difference and its per-pixel map (a removal's smoothed by the object's blur)."""
    smooth = (counterfactual.presence_smoothing(p.blur) if attribute == counterfactual.PRESENCE
              else counterfactual.SMOOTH_PX)
    d = counterfactual.pixel_differences(truth, other, smooth)
    return counterfactual.ranked(d, _rank(p, attribute)), d


def _may_settle(p: _Planned, step: int) -> bool:
    attribute = p.changes[step][0]
    return counterfactual.may_settle(attribute, _rank(p, attribute), p.blur)


def _first_pass_samples(scene, settings) -> int | None:
    """The samples of the screening pass (half the check's), or None for one pass: screening off,
    too few samples to halve, or an engine that takes its own (Workbench)."""
    if settings.screen and settings.samples >= 2 and scene.render.engine == "CYCLES":
        return settings.samples // 2
    return None


def measure(spec: SceneSpec, family: Family, scene, built: dict[int, list], measured: dict[int, dict],
            attributes: Sequence[str] | None = None, keep: Keep | None = None) -> dict[int, counterfactual.Measured]:
    """Object id -> what its counterfactual renders measured, for every object of `spec` the mask
    shows (`measured`: the mask's pixels and box per id, parts included). `built`: mask id ->
    the Blender objects of the scene as rendered. `attributes`: those to vary (default: the
    config's, else the family's); `keep`: handed every pair of renders a measure was taken from
    (the calibration bench keeps them).

    Objects whose regions do not overlap share their renders (counterfactual.groups: one render
    with all of them removed, one with each as its first alternative...), one render of the
    unchanged scene serves every region within budget, and each change is compared on its own
    region. Every render has the same seed, so a pixel comes out the same whichever region it is
    rendered in. A first pass at half the samples measures the changes it may settle
    (counterfactual.may_settle); the others, and those it does not settle (counterfactual.settled),
    are rendered, with their truth, at the check's samples. Blurred
    objects whose regions overlap are measured for how far they blur into one
    (counterfactual.merge_ratio, on their removals' differences)."""
    settings = spec.setup.render.counterfactual
    wanted = tuple(attributes) if attributes is not None else checked_attributes(spec, family)
    planned, made = _plan(spec, family, scene, built, measured, wanted)
    batches = counterfactual.groups([p.box for p in planned])
    every = {(k, step) for k, p in enumerate(planned) for step in range(len(p.changes))}
    first = _first_pass_samples(scene, settings)
    screened = {c for c in every if _may_settle(planned[c[0]], c[1])} if first else set()
    results: dict[Change, tuple[float, np.ndarray, np.ndarray, np.ndarray]] = {}
    for samples, todo in ((first, screened), (settings.samples, every)):
        todo = todo - {c for c in results if counterfactual.settled(planned[c[0]].changes[c[1]][0], results[c][0])}
        if not todo:
            continue
        with regions.region_renders(scene, samples, settings.denoise):
            pairs = _render_changes(scene, planned, batches, todo)
        for (k, step), (a, b) in pairs.items():
            results[k, step] = (*_compared(planned[k], planned[k].changes[step][0], a, b), a, b)
    regions.remove(made)
    maps: dict[int, counterfactual.Hump] = {}
    found: dict[int, dict[str, dict[str, float]]] = {}
    presence: dict[int, float] = {}
    for (k, step), (value, d, a, b) in sorted(results.items()):
        p = planned[k]
        attribute, choice, _, own_box = p.changes[step]
        if keep is not None:
            keep(p.obj.id, attribute, choice, a, b)
        if attribute == counterfactual.PRESENCE:
            maps[p.obj.id] = (own_box, d, a)
            presence[p.obj.id] = value
        else:
            found.setdefault(p.obj.id, {}).setdefault(attribute, {})[choice] = value
    merged: dict[int, dict[int, float]] = {}
    blur = {p.obj.id: p.blur for p in planned}
    for a, b in itertools.combinations(sorted(maps), 2):
        blurred = min(blur[a], blur[b]) >= counterfactual.MERGE_MIN_BLUR_PX
        if blurred and counterfactual.overlaps(maps[a][0], maps[b][0]):
            pooling = counterfactual.pooling_px(max(blur[a], blur[b]))
            merged.setdefault(a, {})[b] = merged.setdefault(b, {})[a] = counterfactual.merge_ratio(maps[a], maps[b],
                                                                                                   pooling)
    received = _at_received(spec, planned, results)
    return {p.obj.id: counterfactual.Measured(p.seen["visible_pixels"], presence[p.obj.id], found.get(p.obj.id, {}),
                                              merged.get(p.obj.id, {}), received.get(p.obj.id, {}))
            for p in planned}


def _at_received(spec: SceneSpec, planned: list[_Planned], results: dict) -> dict[int, dict[str, counterfactual.AtReceived]]:
    """Object id -> model -> the check at the size that model receives (render.counterfactual.received,
    byo render --for), for each model receiving less than the image: the same pairs of renders
    resampled (counterfactual.at_scale). The object's received area is its mask pixels scaled."""
    width, height = spec.setup.resolution
    sizes = {model: (int(w), int(h)) for model, (w, h) in (spec.setup.render.counterfactual.received or {}).items()
             if w < width or h < height}
    out: dict[int, dict[str, counterfactual.AtReceived]] = {}
    for model, size in sorted(sizes.items()):
        scale = min(size[0] / width, size[1] / height)
        presence: dict[int, float] = {}
        found: dict[int, dict[str, dict[str, float]]] = {}
        for (k, step), (_, _, a, b) in sorted(results.items()):
            p = planned[k]
            attribute, choice, _, _ = p.changes[step]
            area = round(p.seen["visible_pixels"] * scale * scale)
            if attribute == counterfactual.PRESENCE:
                presence[p.obj.id] = counterfactual.at_scale(a, b, scale, removal_area=max(1, area), blur_px=p.blur)
            else:
                found.setdefault(p.obj.id, {}).setdefault(attribute, {})[choice] = counterfactual.at_scale(a, b, scale)
        for p in planned:
            if p.obj.id in presence:
                area = round(p.seen["visible_pixels"] * scale * scale)
                out.setdefault(p.obj.id, {})[model] = counterfactual.AtReceived(size, area, presence[p.obj.id],
                                                                              found.get(p.obj.id, {}))
    return out


def timed_measure(*args, **kwargs) -> tuple[dict[int, counterfactual.Measured], float, float]:
    """`measure`, with its wall-clock seconds and the engine's share of them."""
    started, engine_before = time.perf_counter(), engine.engine_seconds()
    out = measure(*args, **kwargs)
    return out, time.perf_counter() - started, engine.engine_seconds() - engine_before
