"""Renders of one region of the image with objects hidden or swapped: the counterfactual images
the readability check compares (byo/scene/counterfactual.py decides from them). The scene keeps
its camera, lights, blur and denoiser; only the samples change, and every region render of one
check uses the same seed, so that two renders differ only where the change reaches."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import bpy
import numpy as np

from byo.blender import engine


@contextlib.contextmanager
def hidden(objects: Iterable) -> Iterator[None]:
    """The objects left out of the render inside the block."""
    objects = list(objects)
    saved = [o.hide_render for o in objects]
    for o in objects:
        o.hide_render = True
    try:
        yield
    finally:
        for o, was in zip(objects, saved, strict=True):
            o.hide_render = was


@contextlib.contextmanager
def shown(objects: Iterable) -> Iterator[None]:
    """The objects (hidden outside the block) rendered inside it."""
    objects = list(objects)
    for o in objects:
        o.hide_render = False
    try:
        yield
    finally:
        for o in objects:
            o.hide_render = True


def _world_points(o) -> np.ndarray:
    """A mesh's vertices (no modifier moves them outward: families add none), else its bounding
    box's corners, in world coordinates (N x 3)."""
    if o.type == "MESH" and len(o.data.vertices):
        local = np.empty(len(o.data.vertices) * 3)
        o.data.vertices.foreach_get("co", local)
        local = local.reshape(-1, 3)
    else:
        local = np.array([tuple(c) for c in o.bound_box])
    m = np.array(o.matrix_world)
    return local @ m[:3, :3].T + m[:3, 3]


def projected_box(scene, objects: Iterable) -> tuple[int, int, int, int] | None:
    """[x0, y0, x1, y1) in pixels (y down) of the objects as the camera projects their vertices,
    clipped to the frame; None when nothing of them lies in front of the camera."""
    w, h = scene.render.resolution_x, scene.render.resolution_y
    layer = scene.view_layers[0]
    layer.update()  # objects built since the last render have their matrices
    objects = list(objects)
    if not objects:
        return None
    points = np.concatenate([_world_points(o) for o in objects])
    cam = scene.camera
    view = np.array(cam.matrix_world.inverted())
    project = np.array(cam.calc_matrix_camera(layer.depsgraph, x=w, y=h, scale_x=scene.render.pixel_aspect_x,
                                              scale_y=scene.render.pixel_aspect_y))
    seen = points @ view[:3, :3].T + view[:3, 3]
    ahead = seen[:, 2] < 0  # the camera looks down its -Z
    if not ahead.any():
        return None
    clip = np.c_[seen[ahead], np.ones(int(ahead.sum()))] @ project.T
    ndc = clip[:, :2] / clip[:, 3:4]
    xs, ys = (ndc[:, 0] + 1) / 2 * w, (1 - (ndc[:, 1] + 1) / 2) * h
    x0, x1 = max(0, int(np.floor(xs.min()))), min(w, int(np.ceil(xs.max())))
    y0, y1 = max(0, int(np.floor(ys.min()))), min(h, int(np.ceil(ys.max())))
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


# Where the region renders of the current `region_renders` block are written (a private folder).
_FOLDER: list[Path] = []


@contextlib.contextmanager
def region_renders(scene, samples: int, denoise: bool) -> Iterator[None]:
    """Render settings of the region renders inside the block: `samples` samples (no adaptive
    stopping, so that every render of a region takes the same samples), the denoiser on or off,
    Cycles' data kept between renders, results written as 8-bit BMP (as the PNG's pixels, written
    in a fraction of its time); everything else as the image was rendered."""
    r = scene.render
    saved = {k: getattr(r, k) for k in ("use_border", "use_crop_to_border", "use_persistent_data", "border_min_x",
                                        "border_max_x", "border_min_y", "border_max_y")}
    file_format = r.image_settings.file_format
    c = scene.cycles
    cycles_keys = ("samples", "use_adaptive_sampling", "use_denoising")
    cycles_saved = {k: getattr(c, k) for k in cycles_keys}
    r.use_border = r.use_crop_to_border = True
    r.use_persistent_data = True
    r.image_settings.file_format = "BMP"
    if r.engine == "CYCLES":
        c.samples = samples
        c.use_adaptive_sampling = False
        c.use_denoising = denoise and cycles_saved["use_denoising"]
    try:
        with tempfile.TemporaryDirectory(prefix="byo_regions_") as tmp:
            _FOLDER.append(Path(tmp))
            yield
    finally:
        _FOLDER.pop()
        for k, v in saved.items():
            setattr(r, k, v)
        r.image_settings.file_format = file_format
        for k, v in cycles_saved.items():
            setattr(c, k, v)


def render_region(scene, box: tuple[int, int, int, int]) -> np.ndarray:
    """The pixels of `box` ([x0, y0, x1, y1), y down), (y1 - y0, x1 - x0, 3) sRGB, rendered with
    the settings of `region_renders`."""
    w, h = scene.render.resolution_x, scene.render.resolution_y
    x0, y0, x1, y1 = box
    r = scene.render
    # Blender truncates border * size to whole pixels: a quarter pixel in lands on the pixel edge.
    r.border_min_x, r.border_max_x = (x0 + 0.25) / w, (x1 + 0.25) / w
    r.border_min_y, r.border_max_y = (h - y1 + 0.25) / h, (h - y0 + 0.25) / h
    pixels = engine.render_into(scene, _FOLDER[-1] / "region.bmp")
    if pixels.shape[:2] != (y1 - y0, x1 - x0):
        raise RuntimeError(f"a region render of {x1 - x0}x{y1 - y0} px came back {pixels.shape[1]}x{pixels.shape[0]}")
    return pixels


def remove(objects: Iterable) -> None:
    """Remove objects built for the check, with the meshes only they used."""
    objects = list(objects)
    data = {o.data for o in objects if o.data is not None}
    bpy.data.batch_remove(objects)
    bpy.data.batch_remove([d for d in data if d.users == 0])
