"""Rendering a scene of its own: creating it and removing everything it made, the engine
call (the image and each pixel's instance id from one Cycles render), the separate sharp
instance-id render where one render cannot give them, and Blender's own projection of points."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import bpy
import numpy as np
from bpy_extras.object_utils import world_to_camera_view
from mathutils import Vector
from PIL import Image

from byo.blender import compat, exr

# Kinds of data a build creates; everything of these kinds made inside `own_scene` is removed
# (imported files may bring actions, armatures, curves and more besides meshes).
_DATA_KINDS = ("objects", "meshes", "materials", "lights", "cameras", "worlds", "images", "node_groups",
               "textures", "curves", "collections", "actions", "armatures", "libraries", "scenes")
# The custom property that marks what a kept scene's build made: the build's token.
BUILD_TAG = "byo_build"


def _data_ids() -> dict[str, set[int]]:
    return {kind: {block.as_pointer() for block in getattr(bpy.data, kind)} for kind in _DATA_KINDS}


@contextlib.contextmanager
def made_blocks() -> Iterator[list]:
    """Collects, when the block ends, every data-block the block created."""
    before = _data_ids()
    made: list = []
    try:
        yield made
    finally:
        made += [block for kind in _DATA_KINDS for block in getattr(bpy.data, kind)
                 if block.as_pointer() not in before[kind]]


@contextlib.contextmanager
def own_scene(name: str) -> Iterator[bpy.types.Scene]:
    """A new, empty scene to build and render in. Whatever the block creates is removed when it
    ends; the open file's other scenes, objects and data are never touched."""
    made: list = []
    try:
        with made_blocks() as made:
            yield bpy.data.scenes.new(name)
    finally:
        bpy.data.batch_remove(made)


@contextlib.contextmanager
def kept_scene(name: str) -> Iterator[bpy.types.Scene]:
    """A new scene to build in that stays when the block ends (the add-on's Build scene).
    Everything the block creates is tagged with one token, so `remove_build` can later remove
    exactly that; if the block fails, it is removed at once. Nothing else is touched."""
    token = uuid.uuid4().hex
    made: list = []
    built = False
    try:
        with made_blocks() as made:
            yield bpy.data.scenes.new(name)
        built = True
    finally:
        if not built:
            bpy.data.batch_remove(made)
    for block in made:
        block[BUILD_TAG] = token


def is_build(scene) -> bool:
    """Whether `scene` is a kept build whose objects all come from that build (so removing it
    removes nothing of the user's)."""
    token = scene.get(BUILD_TAG)
    return token is not None and all(o.get(BUILD_TAG) == token for o in scene.objects)


def remove_build(scene) -> None:
    """Remove a kept scene and every data-block its build made (see `kept_scene`)."""
    token = scene.get(BUILD_TAG)
    if token is None:
        raise ValueError(f"scene {scene.name!r} was not built by byo")
    made = [block for kind in _DATA_KINDS for block in getattr(bpy.data, kind) if block.get(BUILD_TAG) == token]
    bpy.data.batch_remove(made)


@contextlib.contextmanager
def quiet():
    """Blender prints per-tile progress and start-up warnings on both streams; keep them off the
    progress bar. Render failures still surface as Python exceptions."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in saved:
        os.dup2(devnull, fd)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
        os.close(devnull)


@contextlib.contextmanager
def captured():
    """What Blender and Cycles print on either stream (Cycles' device probe: "CUEW initialization
    failed" on a machine without CUDA), kept off the terminal and handed back as lines for the
    render log: `with captured() as lines: ...`."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    lines: list[str] = []
    with tempfile.TemporaryFile() as sink:
        for fd in saved:
            os.dup2(sink.fileno(), fd)
        try:
            yield lines
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, copy in saved.items():
                os.dup2(copy, fd)
                os.close(copy)
            sink.seek(0)
            lines += [line for line in sink.read().decode(errors="replace").splitlines() if line.strip()][:50]


# Seconds spent inside Cycles or Workbench (bpy.ops.render.render) by this process, so that a
# job can tell the engine's own time from its overhead.
_engine_seconds = [0.0]


def engine_seconds() -> float:
    return _engine_seconds[0]


def _render(scene) -> None:
    started = time.perf_counter()
    with quiet():
        bpy.ops.render.render(write_still=False, scene=scene.name)
    _engine_seconds[0] += time.perf_counter() - started


def _saved_render(scene, path: Path, multilayer: bool) -> None:
    """Save the last render result as the scene's PNG (colour-managed, dithered), or with every
    pass as raw floats in a multilayer OpenEXR."""
    result = bpy.data.images["Render Result"]
    if not multilayer:
        result.save_render(str(path), scene=scene)
        return
    settings = scene.render.image_settings
    file_format = settings.file_format
    saved = {k: getattr(settings, k) for k in ("color_mode", "color_depth", "compression")}
    compat.set_multilayer_exr(settings)
    settings.color_depth = "32"
    settings.exr_codec = "NONE"
    try:
        result.save_render(str(path), scene=scene)
    finally:
        compat.set_single_image(settings, file_format)
        for key, value in saved.items():
            setattr(settings, key, value)


def _png_pixels(path: Path, mode: str) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert(mode), dtype=np.uint8)


def _object_index_pass(path: Path) -> np.ndarray:
    """The object index pass of a multilayer OpenEXR (named IndexOB before Blender 4.x)."""
    return np.rint(exr.read_channel(path, (".IndexOB.X", ".Object Index.X"))).astype(np.uint8)


def _set_pass_indices(scene, objects: dict[int, list]) -> None:
    for obj in scene.objects:
        obj.pass_index = 0
    for index, parts in objects.items():
        if not 0 < index < 256:
            raise ValueError(f"instance id {index} outside 1..255")
        for obj in parts:
            obj.pass_index = index


def one_pass_ids(scene) -> bool:
    """Whether one Cycles render gives both the image and exact instance ids. Its object index
    pass is the first camera sample of each pixel, which is the pixel centre's object, exactly as
    a separate sharp render gives it; with depth of field that sample goes through the lens
    (edges would be noise) and Workbench has no such pass, so those use `render_instance_ids`."""
    return scene.render.engine == "CYCLES" and not scene.camera.data.dof.use_dof


def render_image_and_ids(scene, objects: dict[int, list]) -> tuple[np.ndarray, np.ndarray]:
    """The image, (height, width, 3) sRGB, and each pixel's instance id (0: no object),
    (height, width), from one Cycles render: every object of `objects[id]` gets pass index id."""
    _set_pass_indices(scene, objects)
    layer = scene.view_layers[0]
    saved = layer.use_pass_object_index
    layer.use_pass_object_index = True
    try:
        _render(scene)
    finally:
        layer.use_pass_object_index = saved
    with tempfile.TemporaryDirectory(prefix="byo_render_") as tmp:
        image_path, passes_path = Path(tmp) / "image.png", Path(tmp) / "passes.exr"
        _saved_render(scene, image_path, multilayer=False)
        _saved_render(scene, passes_path, multilayer=True)
        return _png_pixels(image_path, "RGB"), _object_index_pass(passes_path)


def _rendered(scene, mode: str) -> np.ndarray:
    """Render `scene` and return its pixels (Blender keeps no pixels of a render result to read,
    so they pass through a private temporary PNG)."""
    _render(scene)
    with tempfile.TemporaryDirectory(prefix="byo_render_") as tmp:
        path = Path(tmp) / "render.png"
        _saved_render(scene, path, multilayer=False)
        return _png_pixels(path, mode)


def render_into(scene, path: Path) -> np.ndarray:
    """Render `scene`, save the result to `path` in the scene's own output format (e.g. BMP, the
    cheapest to write for many small renders) and return its pixels, (height, width, 3) sRGB."""
    _render(scene)
    bpy.data.images["Render Result"].save_render(str(path), scene=scene)
    return _png_pixels(path, "RGB")


def render_image(scene) -> np.ndarray:
    """The image, (height, width, 3) sRGB."""
    return _rendered(scene, "RGB")


def render_instance_ids(scene, objects: dict[int, list]) -> np.ndarray:
    """Each pixel's instance id (0: no object), (height, width): every object of `objects[id]`
    renders as the exact grey level id / 255 (one Cycles sample, no pixel filter, no blur,
    lights off, emission only, Raw view transform)."""
    saved = {
        "engine": scene.render.engine, "view": scene.view_settings.view_transform,
        "dither": scene.render.dither_intensity,
    }
    cam = scene.camera.data
    saved_dof = cam.dof.use_dof
    mat = bpy.data.materials.new("mask_index")
    compat.use_nodes(mat)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    for n in list(nodes):
        nodes.remove(n)
    info = nodes.new("ShaderNodeObjectInfo")
    scale = nodes.new("ShaderNodeMath")
    scale.operation = "DIVIDE"
    scale.inputs[1].default_value = 255.0
    emission = nodes.new("ShaderNodeEmission")
    out = nodes.new("ShaderNodeOutputMaterial")
    links.new(info.outputs["Object Index"], scale.inputs[0])
    links.new(scale.outputs["Value"], emission.inputs["Color"])
    links.new(emission.outputs["Emission"], out.inputs["Surface"])

    _set_pass_indices(scene, objects)
    lights = [o for o in scene.objects if o.type == "LIGHT"]
    for light in lights:
        light.hide_render = True
    world_strength = scene.world.node_tree.nodes["Background"].inputs["Strength"]
    saved_strength = world_strength.default_value
    world_strength.default_value = 0.0
    layer = scene.view_layers[0]
    layer.material_override = mat

    scene.render.engine = "CYCLES"
    c = scene.cycles
    cycles_saved = {k: getattr(c, k) for k in ("samples", "use_adaptive_sampling", "use_denoising",
                                                 "filter_width", "max_bounces")}
    c.samples = 1
    c.use_adaptive_sampling = False
    c.use_denoising = False
    c.filter_width = 0.01
    c.max_bounces = 0
    cam.dof.use_dof = False
    scene.view_settings.view_transform = "Raw"
    scene.render.dither_intensity = 0.0
    try:
        return _rendered(scene, "L")
    finally:
        for k, v in cycles_saved.items():
            setattr(c, k, v)
        layer.material_override = None
        for light in lights:
            light.hide_render = False
        world_strength.default_value = saved_strength
        cam.dof.use_dof = saved_dof
        scene.render.engine = saved["engine"]
        scene.view_settings.view_transform = saved["view"]
        scene.render.dither_intensity = saved["dither"]
        bpy.data.materials.remove(mat)


def project_points(scene, points) -> list[tuple[float, float, float]]:
    """Pixel x, pixel y (down from the top) and depth, as Blender's camera projects them."""
    w, h = scene.render.resolution_x, scene.render.resolution_y
    out = []
    for p in points:
        v = world_to_camera_view(scene, scene.camera, Vector(p))
        out.append((v.x * w, (1.0 - v.y) * h, v.z))
    return out


def current_rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20

