"""Mesh objects from bmesh or vertex data, linked into the scene being built."""

from __future__ import annotations

import bmesh
import bpy
from mathutils import Matrix, Vector

from byo.blender import compat


def linked_object(scene, name: str, data) -> bpy.types.Object:
    """A new object of `data` (a mesh, light...) in `scene`; data may be shared between objects."""
    obj = bpy.data.objects.new(name, data)
    scene.collection.objects.link(obj)
    return obj


def mesh_data(name: str, bm: bmesh.types.BMesh, material=None, smooth=None) -> bpy.types.Mesh:
    """A mesh of `bm` (freed), its faces shaded smooth where `smooth(face)` says, in `material`."""
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    if smooth is not None:
        compat.set_smooth(mesh, [smooth(p) for p in mesh.polygons])
    if material is not None:
        mesh.materials.append(material)
    return mesh


def mesh_object(scene, name: str, bm: bmesh.types.BMesh, material=None, smooth=None) -> bpy.types.Object:
    return linked_object(scene, name, mesh_data(name, bm, material, smooth))


def copied_object(scene, name: str, mesh, material) -> bpy.types.Object:
    """An object with a copy of `mesh` of its own (as if built again: no data shared) in `material`."""
    data = mesh.copy()
    data.name = name
    data.materials.clear()
    data.materials.append(material)
    return linked_object(scene, name, data)


def discard(meshes) -> None:
    """Remove meshes that no object uses (templates `copied_object` copied)."""
    bpy.data.batch_remove(list(meshes))


def add_box(bm: bmesh.types.BMesh, size, centre=(0.0, 0.0, 0.0)) -> list:
    """Add to `bm` a box of `size` (x, y, z) centred on `centre`; returns its vertices."""
    matrix = Matrix.Translation(centre) @ Matrix.Diagonal((*size, 1.0))
    return bmesh.ops.create_cube(bm, size=1.0, matrix=matrix)["verts"]


def box_object(scene, name: str, size, centre, material, bevel: float = 0.0) -> bpy.types.Object:
    """A box object of `size` (x, y, z) centred on `centre`, its edges rounded by `bevel` (metres)."""
    bm = bmesh.new()
    add_box(bm, size)
    if bevel > 0:
        bmesh.ops.bevel(bm, geom=list(bm.edges) + list(bm.verts), offset=bevel, segments=2, profile=0.5,
                        affect="EDGES", clamp_overlap=True)
    bmesh.ops.translate(bm, vec=centre, verts=bm.verts)
    return mesh_object(scene, name, bm, material)


def data_object(scene, name: str, verts, faces, material, smooth: bool = False) -> bpy.types.Object:
    """A mesh object from vertex coordinates and faces (vertex index tuples)."""
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(map(float, v)) for v in verts], [], [tuple(map(int, f)) for f in faces])
    mesh.update()
    if smooth:
        compat.set_smooth(mesh, [True] * len(mesh.polygons))
    mesh.materials.append(material)
    return linked_object(scene, name, mesh)


def look_at(obj, target) -> None:
    direction = Vector(target) - obj.location
    obj.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()


