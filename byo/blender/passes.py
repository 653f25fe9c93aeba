"""Dense ground truth (`render.passes`): per-pixel depth, normals, albedo and object ids from the
image's own Cycles render, and the camera's intrinsics and extrinsics, as Kubric and
BlenderProc give them.

The passes come out of the same render as the image and the instance ids (Cycles' data passes
hold each pixel's first camera sample, the pixel centre, as the object index pass does), saved
as one multilayer OpenEXR and read back with byo.blender.exr:

- depth: float32 (height, width), metres along the camera's optical axis (planar depth, as
  Cycles' Depth pass gives it and as `pixel_coords[2]` in the legend is); inf where no surface;
- normal: float32 (height, width, 3), unit shading normals in the camera frame (OpenCV's: x to
  the right, y down, z forward, the frame of the legend's `world_to_camera`); Cycles averages a
  pixel's samples, so an edge pixel's normal lies between its surfaces'; 0 where no surface;
- albedo: float32 (height, width, 3), linear surface colour (Cycles' denoising albedo: the
  diffuse colour, and the tint of glossy and metallic surfaces);
- object_ids: uint8 (height, width), the object index pass: the mask's ids as an array.

The camera record: `K` (pixels; x to the right and y down from the image's top-left corner,
pixel (i, j) covering [i, i+1) x [j, j+1)), `world_to_camera` (OpenCV frame, metres) and
`camera_to_world` (Blender's frame: the camera looks down its -z axis, y up), both 4x4.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from byo.blender import engine, exr

PASSES = ("depth", "normal", "albedo", "object_ids")
BACKGROUND_DEPTH = 1e9  # Cycles writes 1e10 where a camera ray hits nothing
# Blender's camera frame (x right, y up, looking down -z) to OpenCV's (x right, y down, z forward).
BLENDER_TO_OPENCV = np.diag([1.0, -1.0, -1.0])


@contextlib.contextmanager
def passes_on(scene, passes: tuple[str, ...]) -> Iterator[None]:
    """The view layer's data passes that `passes` needs, on for the block."""
    layer = scene.view_layers[0]
    wanted = {"use_pass_object_index": True, "use_pass_z": "depth" in passes,
              "use_pass_normal": "normal" in passes}
    saved = {k: getattr(layer, k) for k in wanted}
    saved_albedo = layer.cycles.denoising_store_passes
    for k, v in wanted.items():
        setattr(layer, k, v or saved[k])
    layer.cycles.denoising_store_passes = saved_albedo or "albedo" in passes
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(layer, k, v)
        layer.cycles.denoising_store_passes = saved_albedo


def camera_record(scene) -> dict:
    """The camera's intrinsics and extrinsics as the render used them."""
    cam = scene.camera
    data = cam.data
    width, height = scene.render.resolution_x, scene.render.resolution_y
    fit = data.sensor_fit if data.sensor_fit != "AUTO" else ("HORIZONTAL" if width >= height else "VERTICAL")
    sensor = data.sensor_width if fit == "HORIZONTAL" or data.sensor_fit == "AUTO" else data.sensor_height
    across = width if fit == "HORIZONTAL" else height  # pixels the sensor's size spans
    camera_to_world = np.array(cam.matrix_world, dtype=np.float64)
    world_to_camera = np.eye(4)
    world_to_camera[:3, :3] = BLENDER_TO_OPENCV @ camera_to_world[:3, :3].T
    world_to_camera[:3, 3] = -world_to_camera[:3, :3] @ camera_to_world[:3, 3]
    cx = width / 2 - data.shift_x * across  # a shift moves the frame, so the axis the other way
    cy = height / 2 + data.shift_y * across
    if data.type == "ORTHO":
        scale = across / data.ortho_scale  # pixels per metre
        k = [[scale, 0.0, cx], [0.0, scale, cy], [0.0, 0.0, 1.0]]
    else:
        f = data.lens / sensor * across  # pixels
        k = [[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]]
    return {"projection": "orthographic" if data.type == "ORTHO" else "perspective",
            "K": [[round(v, 6) for v in row] for row in k],
            "world_to_camera": [[round(float(v), 6) for v in row] for row in world_to_camera],
            "camera_to_world": [[round(float(v), 6) for v in row] for row in camera_to_world],
            "clip_start": round(data.clip_start, 6), "clip_end": round(data.clip_end, 6),
            "depth": "metres along the optical axis", "frame": "opencv: x right, y down, z forward"}


def _read(path: Path, scene, passes: tuple[str, ...]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    if "depth" in passes:
        depth = exr.read_channel(path, (".Depth.Z", ".Z"))
        out["depth"] = np.where(depth >= BACKGROUND_DEPTH, np.inf, depth).astype(np.float32)
    if "normal" in passes:
        world = np.stack([exr.read_channel(path, (f".Normal.{c}",)) for c in "XYZ"], axis=-1)
        rotation = BLENDER_TO_OPENCV @ np.array(scene.camera.matrix_world.to_3x3().transposed())
        normal = world @ rotation.T
        length = np.linalg.norm(normal, axis=-1, keepdims=True)  # an edge pixel averages its samples' normals
        out["normal"] = np.divide(normal, length, out=np.zeros_like(normal), where=length > 0).astype(np.float32)
    if "albedo" in passes:
        out["albedo"] = np.stack([exr.read_channel(path, (f".Denoising Albedo.{c}",)) for c in "RGB"],
                                 axis=-1).astype(np.float32)
    return out


def render_with_passes(scene, objects: dict[int, list], passes: tuple[str, ...]
                       ) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """The image, the instance ids and the dense passes of one Cycles render (see the module)."""
    engine._set_pass_indices(scene, objects)
    with passes_on(scene, passes):
        engine._render(scene)
    with tempfile.TemporaryDirectory(prefix="byo_passes_") as tmp:
        image_path, passes_path = Path(tmp) / "image.png", Path(tmp) / "passes.exr"
        engine._saved_render(scene, image_path, multilayer=False)
        engine._saved_render(scene, passes_path, multilayer=True)
        ids = engine._object_index_pass(passes_path)
        dense = _read(passes_path, scene, passes)
        image = engine._png_pixels(image_path, "RGB")
    if "object_ids" in passes:
        dense["object_ids"] = ids.copy()
    return image, ids, dense

