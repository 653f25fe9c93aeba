"""Objects from the model files of asset packs: .glb/.gltf through Blender's glTF importer,
.blend by appending. They are read into meshes of their own, standing on the origin, and
everything the file brought besides their materials and images is removed again."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import bmesh
import bpy
import numpy as np
from mathutils import Matrix

from byo.blender import compat, engine

KEEP = (bpy.types.Material, bpy.types.Image, bpy.types.NodeTree, bpy.types.Texture)  # what meshes use


def _read_gltf(path: Path) -> list:
    """Import into a scene of its own (the importer links to the context's scene), then unlink."""
    compat.gltf_importer_numpy()
    scene = bpy.data.scenes.new("byo_import")
    with bpy.context.temp_override(scene=scene, view_layer=scene.view_layers[0]), engine.quiet():
        result = bpy.ops.import_scene.gltf(filepath=str(path))
    if "FINISHED" not in result:
        raise RuntimeError(f"{path}: Blender's glTF importer failed")
    scene.view_layers[0].update()  # world matrices of parented nodes
    return list(scene.objects)


def _read_blend(path: Path) -> list:
    with bpy.data.libraries.load(str(path), link=False) as (source, target):
        target.objects = list(source.objects)
    return [o for o in target.objects if o is not None]


@contextlib.contextmanager
def file_objects(path: str | Path) -> Iterator[dict[str, list]]:
    """The objects of a model file by name in the file, each with its descendants:
    {name: [object, *children...]}, linked to no scene of the user's. When the block ends
    everything the file brought is removed, except materials and images (and their node groups
    and textures), which meshes made from the objects may keep using."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".glb", ".gltf", ".blend"):
        raise ValueError(f"{path}: expected a .glb, .gltf or .blend file")
    brought: list = []
    try:
        with engine.made_blocks() as brought:
            objects = _read_blend(path) if suffix == ".blend" else _read_gltf(path)
        # Names as the file has them (Blender adds .001 when the open file already has one).
        by_name = {o.name: [o, *o.children_recursive] for o in objects}
        for o in objects:
            by_name.setdefault(_file_name(o), by_name[o.name])
        yield by_name
    finally:
        bpy.data.batch_remove([b for b in brought if not isinstance(b, KEEP)])


def _file_name(obj) -> str:
    """The name without the .001 that Blender adds when the open file already uses the name."""
    name = obj.name
    stem, dot, number = name.rpartition(".")
    return stem if dot and len(number) == 3 and number.isdigit() and stem else name


def joined_mesh(objects: list, name: str) -> bpy.types.Mesh:
    """One new mesh, in world coordinates, of the mesh objects among `objects` (their materials
    kept). A lone mesh is copied as is, custom normals included."""
    parts = [o for o in objects if o.type == "MESH"]
    if not parts:
        raise ValueError(f"{name}: the object has no mesh")
    if len(parts) == 1:
        mesh = parts[0].data.copy()
        mesh.name = name
        mesh.materials.clear()
        for slot in parts[0].material_slots:
            mesh.materials.append(slot.material)
        mesh.transform(parts[0].matrix_world)
        return mesh
    materials: list = []
    out = bmesh.new()
    for obj in parts:
        slots = []
        for slot in obj.material_slots:
            if slot.material not in materials:
                materials.append(slot.material)
            slots.append(materials.index(slot.material))
        part = bmesh.new()
        part.from_mesh(obj.data)
        part.transform(obj.matrix_world)
        for face in part.faces:
            face.material_index = slots[face.material_index] if face.material_index < len(slots) else 0
        scratch = bpy.data.meshes.new(f"{name}_part")
        part.to_mesh(scratch)
        part.free()
        out.from_mesh(scratch)
        bpy.data.meshes.remove(scratch)
    mesh = bpy.data.meshes.new(name)
    out.to_mesh(mesh)
    out.free()
    for material in materials:
        mesh.materials.append(material)
    return mesh


def stand_on_origin(mesh: bpy.types.Mesh, height: float, foot: float = 0.05) -> None:
    """Scale `mesh` to `height` and move it so that its base stands on the origin: the lowest
    point at z = 0, the centre of its foot (the lowest `foot` fraction of its height) on the axis."""
    co = np.empty(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    low, high = float(co[:, 2].min()), float(co[:, 2].max())
    if high - low <= 0:
        raise ValueError(f"{mesh.name}: the mesh is flat; it cannot stand")
    base = co[co[:, 2] <= low + foot * (high - low)]
    centre = (base[:, :2].min(axis=0) + base[:, :2].max(axis=0)) / 2
    scale = height / (high - low)
    mesh.transform(Matrix.Diagonal((scale, scale, scale, 1.0)) @ Matrix.Translation((-centre[0], -centre[1], -low)))
    mesh.update()
