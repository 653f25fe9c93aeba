"""Mesh objects from bmesh or vertex data, linked into the scene being built."""

from __future__ import annotations

import bmesh
import bpy
from mathutils import Vector

from byo.blender import compat


def linked_object(scene, name: str, data) -> bpy.types.Object:
    """A new object of `data` (a mesh, light...) in `scene`; data may be shared between objects."""
    obj = bpy.data.objects.new(name, data)
    scene.collection.objects.link(obj)
    return obj


def mesh_object(scene, name: str, bm: bmesh.types.BMesh, material=None, smooth=None) -> bpy.types.Object:
    mesh = bpy.data.meshes.new(name)
    bm.to_mesh(mesh)
    bm.free()
    if smooth is not None:
        compat.set_smooth(mesh, [smooth(p) for p in mesh.polygons])
    if material is not None:
        mesh.materials.append(material)
    return linked_object(scene, name, mesh)


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


