"""Blender realization of crest specs: the crest as flat meshes (one per container band and
motif copy), and in 3D the plaque, banner or lantern it is printed on."""

from __future__ import annotations

import math

import bmesh
import bpy
import numpy as np
from mathutils import Vector

from byo.blender.materials import linear_rgb, principled_material
from byo.blender.meshes import box_object, data_object, mesh_object
from byo.families.api import SceneSpec
from byo.families.crest.model import layer_offset, layers_from_record
from byo.families.crest.motifs import carriers
from byo.families.crest.motifs.mesh import triangulate

CELL = 0.08  # canvas units: longest triangle side on a curved carrier is about CELL * sqrt(2)


def _cylinder(scene, name: str, radius: float, start, end, material, segments: int = 32) -> bpy.types.Object:
    start, end = np.asarray(start, float), np.asarray(end, float)
    length = float(np.linalg.norm(end - start))
    bm = bmesh.new()
    bmesh.ops.create_cone(bm, cap_ends=True, segments=segments, radius1=radius, radius2=radius, depth=length)
    axis = (end - start) / length
    if abs(axis[2]) < 0.999:  # lay the cylinder (built along z) onto its axis
        bmesh.ops.rotate(bm, verts=bm.verts, cent=(0, 0, 0), matrix=_rotation_to(axis))
    bmesh.ops.translate(bm, vec=tuple((start + end) / 2), verts=bm.verts)
    return mesh_object(scene, name, bm, material, smooth=lambda p: abs(p.normal.dot(axis.tolist())) < 0.5)


def _rotation_to(axis):
    return Vector((0, 0, 1)).rotation_difference(Vector(tuple(axis))).to_matrix()


def _plaque(scene, s: float, material, stand) -> None:
    d = carriers.PLAQUE
    base_h, height = d["base_height"] * s, d["height"] * s
    box_object(scene, "plaque", (d["width"] * s, d["thickness"] * s, height), (0, 0, base_h + height / 2), material,
               bevel=0.03 * s)
    box_object(scene, "plaque_stand", (d["base_width"] * s, d["base_depth"] * s, base_h), (0, 0, base_h / 2), stand,
               bevel=0.02 * s)


def _banner(scene, s: float, material, stand) -> None:
    d = carriers.BANNER
    width, height = d["width"] * s, d["height"] * s
    zc = carriers.CREST_HEIGHT * s
    nx, nz = 72, 8
    xs = np.linspace(-width / 2, width / 2, nx + 1)
    zs = np.linspace(zc - height / 2, zc + height / 2, nz + 1)
    verts = [(x, float(carriers.banner_y(x, s)), z) for z in zs for x in xs]
    faces = [(j * (nx + 1) + i, j * (nx + 1) + i + 1, (j + 1) * (nx + 1) + i + 1, (j + 1) * (nx + 1) + i)
             for j in range(nz) for i in range(nx)]
    data_object(scene, "banner", verts, faces, material, smooth=True)
    rod_z, r = d["rod_height"] * s, d["post_radius"] * s
    half = width / 2 + 0.15 * s
    _cylinder(scene, "banner_rod", 0.7 * r, (-half - r, 0, rod_z), (half + r, 0, rod_z), stand)
    for x in (-half, half):
        _cylinder(scene, f"banner_post_{'l' if x < 0 else 'r'}", r, (x, 0, 0), (x, 0, rod_z + r), stand)


def _lantern(scene, s: float, material, caps) -> None:
    d = carriers.LANTERN
    zc, half = carriers.CREST_HEIGHT * s, d["height"] * s / 2
    n_ring, n_seg = 40, 96
    zs = np.linspace(zc - half, zc + half, n_ring + 1)
    rs = carriers.lantern_radius(zs, s)
    verts = [(r * math.sin(2 * math.pi * k / n_seg), -r * math.cos(2 * math.pi * k / n_seg), z)
             for z, r in zip(zs, rs, strict=True) for k in range(n_seg)]
    faces = [(j * n_seg + k, j * n_seg + (k + 1) % n_seg, (j + 1) * n_seg + (k + 1) % n_seg, (j + 1) * n_seg + k)
             for j in range(n_ring) for k in range(n_seg)]
    data_object(scene, "lantern", verts, faces, material, smooth=True)
    cap_r, cap_h = d["cap_radius"] * s, d["cap_height"] * s
    _cylinder(scene, "lantern_cap_bottom", cap_r, (0, 0, zc - half - cap_h), (0, 0, zc - half + 0.02 * s), caps, 64)
    _cylinder(scene, "lantern_cap_top", cap_r, (0, 0, zc + half - 0.02 * s), (0, 0, zc + half + cap_h), caps, 64)


def build(spec: SceneSpec, scene) -> dict[int, list]:
    e = spec.extras
    kind, s = e["carrier"]["kind"], e["size"]
    roughness = 0.5 if kind == "flat" else spec.content["carrier"]["roughness"]
    ink = principled_material("ink", linear_rgb(e["carrier"]["ink"]), roughness)
    if kind != "flat":
        surface = principled_material(kind, linear_rgb(e["carrier"]["surface"]), roughness)
        dark = principled_material("lacquer", linear_rgb((0.06, 0.045, 0.035)), 0.35)
        {"plaque": _plaque, "banner": _banner, "lantern": _lantern}[kind](scene, s, surface, dark)

    built = {}
    parts = layers_from_record(e["crest"])
    for obj, layer in zip(spec.objects, parts, strict=True):
        verts2, faces = triangulate(layer.geometry(), cell=CELL if carriers.needs_cells(kind) else None)
        verts3 = carriers.surface(kind, s, verts2, layer_offset(layer.level, kind, s))
        built[obj.id] = [data_object(scene, obj.name, verts3, faces, ink, smooth=carriers.needs_cells(kind))]
    return built
