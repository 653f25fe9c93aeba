"""Render worker: builds the Blender scene for a spec, checks visibility on the segmentation
mask, renders, measures and writes image, mask and legend atomically. Many images per process."""

from __future__ import annotations

import importlib
import itertools
import os
import time
from pathlib import Path

import bpy  # noqa: F401  (the render layer is where bpy lives)

from byo import legend as legends
from byo.config import DatasetConfig
from byo.dataset import Layout, atomic_write_text, temp_path_for
from byo.errors import RenderError
from byo.families import get_family
from byo.measure import measure, read_mask
from byo.plan import make_job
from byo.render import compat
from byo.render import scene as shared
from byo.spec import PlacementError, sample_spec

_THREADS = os.cpu_count() or 1


def init_worker(threads: int) -> None:
    global _THREADS
    _THREADS = threads


def _render_png(scene, final: Path, mask: bool = False, objects=None) -> None:
    tmp = temp_path_for(final)
    try:
        if mask:
            shared.render_mask(scene, str(tmp), objects)
        else:
            shared.render_to(scene, str(tmp))
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)


def render_job(config: dict, index: int, out_dir: str, config_file: str = "<config>") -> dict:
    """Render image `index` of the dataset; returns a small summary for progress reporting."""
    started = time.perf_counter()
    cfg = DatasetConfig.model_validate(config)
    family = get_family(cfg.dataset.family)
    builder = importlib.import_module(family.builder)
    job = make_job(cfg, index)
    layout = Layout(out_dir)

    for attempt in itertools.count():
        try:
            spec = sample_spec(cfg, family, job, attempt, file=config_file)
        except PlacementError as err:
            raise RenderError(f"{job.name}: {err}") from None
        max_attempts = spec.setup.render.max_visibility_attempts
        scene = shared.reset()
        scene.cycles.seed = job.seed % 2**31
        applied = shared.build_setup(scene, spec.setup, _THREADS)
        built = builder.build(spec)
        _render_png(scene, layout.mask(job.name), mask=True, objects=built)
        measured = measure(read_mask(layout.mask(job.name)), [o.id for o in spec.objects])
        hidden = [o.name for o in spec.objects if measured[o.id]["visible_pixels"] < spec.setup.min_visible_pixels]
        if not hidden or spec.setup.render.on_hidden == "flag":
            break
        if attempt + 1 >= max_attempts:
            layout.mask(job.name).unlink(missing_ok=True)
            raise RenderError(
                f"{job.name}: after {max_attempts} placements some objects stay below "
                f"{spec.setup.min_visible_pixels} visible pixels ({', '.join(hidden)}); raise the camera, "
                f"lower render.min_visible_pixels, set render.on_hidden: flag or reduce the object count")

    _render_png(scene, layout.image(job.name))
    pixel_coords = shared.project_points(scene, [o.location for o in spec.objects])
    landmarks = {name: shared.project_points(scene, points) for name, points in family.landmarks(spec).items()}
    legend = legends.build_legend(
        spec, image=f"images/{job.name}.png", mask=f"masks/{job.name}.png",
        blender_version=compat.version_string(), pixel_coords=pixel_coords, measured=measured,
        render_applied=applied, landmarks=landmarks)
    atomic_write_text(layout.legend_text(job.name), legends.legend_text(legend, family))
    atomic_write_text(layout.legend(job.name), legends.dumps(legend))  # last: marks the image complete
    return {"index": index, "name": job.name, "attempts": spec.attempt + 1,
            "seconds": time.perf_counter() - started, "rss_mb": shared.current_rss_mb()}
