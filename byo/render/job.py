"""The render job: one scene spec in, one RenderResult out. It builds into a scene of its own
(the open file's other scenes and data are left alone), renders the instance ids and the image,
measures, and writes nothing. `build_kept` builds the same scene into a scene that stays, for
the Blender add-on."""

from __future__ import annotations

import dataclasses
import os
import socket
import time

import numpy as np

from byo.blender import compat, engine, passes
from byo.blender.setup_builder import build_setup
from byo.core.dataset import IMAGES, MASKS, Layout
from byo.core.errors import RenderError
from byo.families.base import Family
from byo.render import counterfactuals
from byo.render import legend as legends
from byo.render.messages import RenderResult, RenderTask
from byo.scene.measure import measure
from byo.scene.spec import MAX_RESTARTS, PlacementError, SceneSpec, placed_spec, sample_spec


def build_scene(spec: SceneSpec, family: Family, scene, threads: int) -> tuple[dict, dict[int, list]]:
    """Build `spec` into the empty `scene`: the render settings and shared setup, then the
    family's objects. Returns what the render applied and mask id -> objects."""
    scene.cycles.seed = spec.seed % 2**31
    applied = build_setup(scene, spec.setup, threads)
    return applied, family.module(family.builder).build(spec, scene)


def _measured(spec: SceneSpec, family: Family, ids: np.ndarray) -> tuple[dict, list[str], dict[int, int]]:
    """What the instance ids measure per object (parts with ids of their own included), the
    objects below the visibility threshold, and the parts (part id -> object id)."""
    parts = family.mask_parts(spec)
    measured = measure(ids, [o.id for o in spec.objects], parts)
    hidden = [o.name for o in spec.objects if measured[o.id]["visible_pixels"] < spec.setup.min_visible_pixels]
    return measured, hidden, parts


def _legend(spec: SceneSpec, family: Family, scene, measured: dict, applied: dict, parts: dict[int, int],
            dense: tuple[str, ...] = (), checked: dict | None = None) -> dict:
    pixel_coords = engine.project_points(scene, [o.location for o in spec.objects])
    landmarks = {name: engine.project_points(scene, points) for name, points in family.landmarks(spec).items()}
    legend = legends.build_legend(
        spec, image=f"{IMAGES}/{spec.name}.png", mask=f"{MASKS}/{spec.name}.png",
        blender_version=compat.version_string(), pixel_coords=pixel_coords, measured=measured,
        render_applied=applied, landmarks=landmarks, parts=parts, counterfactuals=checked)
    if dense:  # render.passes: the files beside the image, and the camera that makes them 3D
        legend["camera"] = passes.camera_record(scene)
        legend["passes"] = {kind: Layout.pass_path(spec.name, kind) for kind in dense}
    family.complete_legend(legend)
    return legend


def _resampled(spec: SceneSpec, hidden: list[str]) -> bool:
    return bool(hidden) and spec.setup.render.on_hidden == "resample"


def render_job(spec: SceneSpec, family: Family, *, threads: int) -> RenderResult | list[str]:
    """Render `spec`. When objects stay below the visibility threshold and the spec asks for a
    new placement in that case (`on_hidden: resample`), returns their names instead.
    The image and the instance ids come from one render where the engine can give both
    (`engine.one_pass_ids`); a placement that may be rejected is first checked on a sharp
    one-sample id render (a few percent of the image's render), and only then rendered."""
    started, engine_before, cpu_before = time.perf_counter(), engine.engine_seconds(), time.process_time()
    phases = {}
    with engine.own_scene(f"byo_{spec.name}") as scene:
        applied, built = build_scene(spec, family, scene, threads)
        phases["build"] = time.perf_counter() - started
        one_pass = engine.one_pass_ids(scene)
        if not one_pass or spec.setup.render.on_hidden == "resample":
            ids = engine.render_instance_ids(scene, built)
            checked = _measured(spec, family, ids)
            if _resampled(spec, checked[1]):
                return checked[1]
        dense = tuple(spec.setup.render.passes or ())
        arrays: dict[str, np.ndarray] = {}
        if dense:  # the passes come from the image's own render (with blur, its ids stay the sharp render's)
            image, pass_ids, arrays = passes.render_with_passes(scene, built, dense)
            ids = pass_ids if one_pass else ids
        elif one_pass:
            image, ids = engine.render_image_and_ids(scene, built)
        else:
            image = engine.render_image(scene)
        phases["render"] = time.perf_counter() - started - phases["build"]
        # the image's own pass is measured; the separate id render was measured above
        measured, _, parts = _measured(spec, family, ids) if one_pass else checked
        alternatives = None
        if spec.setup.render.counterfactual.enabled:  # the readability check (byo/scene/counterfactual.py)
            alternatives, phases["counterfactual"], _ = counterfactuals.timed_measure(spec, family, scene, built,
                                                                                       measured)
        legend = _legend(spec, family, scene, measured, applied, parts, dense, alternatives)
        phases["measure"] = (time.perf_counter() - started - phases["build"] - phases["render"]
                             - phases.get("counterfactual", 0.0))
    seconds = time.perf_counter() - started
    phases["cleanup"] = seconds - sum(phases.values())
    phases["engine"] = engine.engine_seconds() - engine_before
    phases["cpu"] = time.process_time() - cpu_before  # this process's CPU time, every thread: a busy machine's steady measure
    return RenderResult(name=spec.name, image=image, instance_ids=ids, legend=legend,
                        legend_text=legends.legend_text(legend, family), attempts=_placements(spec),
                        seconds=seconds, rss_mb=engine.current_rss_mb(),
                        worker=f"{socket.gethostname()}:{os.getpid()}", phases=phases, passes=arrays)


def _placements(spec: SceneSpec) -> int:
    """Placements tried up to this one, the draws restarted included."""
    restarts = spec.restart["number"] if spec.restart else 0
    return restarts * spec.setup.render.max_visibility_attempts + spec.attempt + 1


def _next_placement(task: RenderTask, spec: SceneSpec, hidden: list[str]) -> SceneSpec:
    """The scene placed again; after render.max_visibility_attempts placements, the scene drawn
    again from a derived seed (byo.scene.spec.MAX_RESTARTS times at most), as CLEVR's generator
    starts a scene over."""
    attempts = spec.setup.render.max_visibility_attempts
    restart = spec.restart["number"] if spec.restart else 0
    try:
        if spec.attempt + 1 < attempts:
            try:
                return sample_spec(task.config, task.job, spec.attempt + 1, restart=restart)
            except PlacementError:
                pass  # this draw places no more: the next restart's
        if restart < MAX_RESTARTS:
            return placed_spec(task.config, task.job, restart=restart + 1)
    except PlacementError as err:
        raise RenderError(f"{spec.name}: {err}") from None
    raise RenderError(
        f"{spec.name}: after {attempts} placements of each of {MAX_RESTARTS + 1} draws of the scene some objects "
        f"stay below {spec.setup.min_visible_pixels} visible pixels ({', '.join(hidden)}); byo plan says which "
        f"camera distance, resolution or count would show them; or lower render.min_visible_pixels, or set "
        f"render.on_hidden: flag")


def render_task(task: RenderTask, threads: int = os.cpu_count() or 1) -> RenderResult:
    """Render a task's spec, placing the scene anew (bounded) while objects stay hidden."""
    family = task.config.family
    spec = task.spec
    with engine.captured() as printed:
        while True:
            outcome = render_job(spec, family, threads=threads)
            if isinstance(outcome, RenderResult):
                break
            spec = _next_placement(task, spec, outcome)
    return dataclasses.replace(outcome, engine_log=printed)


def build_kept(task: RenderTask, name: str, threads: int = os.cpu_count() or 1):
    """Build the scene `render_task` would render into a new scene named `name` that stays
    (placed anew, like a render, while objects stay hidden). Returns the scene and its legend
    (everything a render records but the image)."""
    family = task.config.family
    spec = task.spec
    while True:
        with engine.kept_scene(name) as scene:
            applied, built = build_scene(spec, family, scene, threads)
            measured, hidden, parts = _measured(spec, family, engine.render_instance_ids(scene, built))
            legend = _legend(spec, family, scene, measured, applied, parts)
        if not _resampled(spec, hidden):
            return scene, legend
        engine.remove_build(scene)
        spec = _next_placement(task, spec, hidden)
