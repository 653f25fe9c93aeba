"""Blender realization of CLEVR-style specs."""

from __future__ import annotations

import math

import bmesh

from byo.blender.materials import linear_rgb, principled_material
from byo.blender.meshes import mesh_object
from byo.families.api import SceneSpec

MATERIALS = {"rubber": {"roughness": 0.75, "metallic": 0.0}, "metal": {"roughness": 0.25, "metallic": 1.0}}


def _unit_mesh(shape: str) -> tuple[bmesh.types.BMesh, bool]:
    """A shape with half-extent 1 centred on the origin; and whether its sides are shaded smooth."""
    bm = bmesh.new()
    if shape == "cube":
        bmesh.ops.create_cube(bm, size=2.0)
        return bm, False
    if shape == "sphere":
        bmesh.ops.create_uvsphere(bm, u_segments=48, v_segments=24, radius=1.0)
        return bm, True
    top = 1.0 if shape == "cylinder" else 0.0
    bmesh.ops.create_cone(bm, cap_ends=True, segments=48, radius1=1.0, radius2=top, depth=2.0)
    # Split the caps from the side so smooth side normals never bend the flat caps.
    rims = [e for e in bm.edges if len(e.link_faces) == 2
            and abs(e.link_faces[0].normal.z - e.link_faces[1].normal.z) > 0.5]
    bmesh.ops.split_edges(bm, edges=rims)
    return bm, True


def build(spec: SceneSpec, scene) -> dict[int, list]:
    """Create the objects; returns mask index -> Blender objects."""
    materials: dict[tuple, object] = {}
    built = {}
    for o in spec.objects:
        a = o.attributes
        key = (a["color"], a["material"])
        if key not in materials:
            materials[key] = principled_material(f"{a['color']}_{a['material']}", linear_rgb(a["rgb"]),
                                                 **MATERIALS[a["material"]])
        bm, smooth = _unit_mesh(o.kind)
        flat_caps = o.kind in ("cylinder", "cone")
        obj = mesh_object(scene, o.name, bm, materials[key],
                          smooth=(lambda p: abs(p.normal.z) < 0.99) if flat_caps else (lambda p, s=smooth: s))
        obj.location = o.location
        obj.rotation_euler = (0.0, 0.0, math.radians(o.rotation))
        obj.scale = (o.scale, o.scale, o.scale)
        built[o.id] = [obj]
    return built
