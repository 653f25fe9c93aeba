"""Blender realization of CLEVR-style specs."""

from __future__ import annotations

import math

import bmesh

from byo.blender.materials import linear_rgb, principled_material
from byo.blender.meshes import copied_object, discard, mesh_data, mesh_object
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


def _torus_mesh(segments: int = 32, sides: int = 12, minor: float = 0.35) -> bmesh.types.BMesh:
    """A ring of radius 1 (tube radius `minor`) lying on the ground plane."""
    bm = bmesh.new()
    rings = []
    for i in range(segments):
        a = 2 * math.pi * i / segments
        ring = []
        for j in range(sides):
            b = 2 * math.pi * j / sides
            r = 1 + minor * math.cos(b)
            ring.append(bm.verts.new((r * math.cos(a), r * math.sin(a), minor * math.sin(b))))
        rings.append(ring)
    for i in range(segments):
        for j in range(sides):
            a, b = rings[i], rings[(i + 1) % segments]
            bm.faces.new((a[j], b[j], b[(j + 1) % sides], a[(j + 1) % sides]))
    return bm


def _box(scene, name, material, centre, half, yaw_deg):
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=2.0)
    obj = mesh_object(scene, name, bm, material)
    obj.location = centre
    obj.scale = half
    obj.rotation_euler = (0.0, 0.0, math.radians(yaw_deg))
    return obj


def build_set(spec: SceneSpec, scene) -> None:
    """Auto-Comp's contextual set (extras.set): the environment light, floor, wall, table, rug and
    tori; in no mask (nothing of the set is an object a question names)."""
    for k, p in enumerate(spec.extras.get("set", [])):
        mat = principled_material(f"set_{k}", linear_rgb(p["rgb"]), 0.6) if p["kind"] != "environment" else None
        x, y, z = p["location"]
        sx, sy, sz = p["size"]
        if p["kind"] == "environment":  # the world's light: the set's, not the plain background
            tree = getattr(scene.world, "node_tree", None)
            background = tree.nodes.get("Background") if tree is not None else None
            if background is not None:
                scene.world.color = tuple(min(1.0, c * p["size"][0]) for c in linear_rgb(p["rgb"]))
                background.inputs["Color"].default_value = (*linear_rgb(p["rgb"]), 1.0)
                background.inputs["Strength"].default_value = p["size"][0]
        elif p["kind"] in ("wall", "rug", "floor"):
            _box(scene, f"set_{p['kind']}_{k}", mat, (x, y, z + (sz if p["kind"] == "rug" else 0)), (sx, sy, sz),
                 p["rotation"])
        elif p["kind"] == "table":
            _box(scene, f"set_table_top_{k}", mat, (x, y, 2 * sz), (sx, sy, 0.012), p["rotation"])
            yaw = math.radians(p["rotation"])
            for lx, ly in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                dx, dy = 0.85 * sx * lx, 0.85 * sy * ly
                at = (x + dx * math.cos(yaw) - dy * math.sin(yaw), y + dx * math.sin(yaw) + dy * math.cos(yaw), sz)
                _box(scene, f"set_table_leg_{k}", mat, at, (0.012, 0.012, sz), p["rotation"])
        elif p["kind"] == "torus":
            obj = mesh_object(scene, f"set_torus_{k}", _torus_mesh(), mat, smooth=lambda _p: True)
            obj.location = (x, y, z)
            obj.scale = (sx, sy, sz)
            obj.rotation_euler = (0.0, 0.0, math.radians(p["rotation"]))


def build_objects(spec: SceneSpec, objects, scene) -> dict[int, list]:
    """Create `objects` (of `spec`, or variants of them) and nothing else; returns mask index ->
    Blender objects."""
    materials: dict[tuple, object] = {}
    units: dict[str, object] = {}  # each shape built once, copied for every object of it
    built = {}
    for o in objects:
        a = o.attributes
        key = (a["color"], a["material"])
        if key not in materials:
            materials[key] = principled_material(f"{a['color']}_{a['material']}", linear_rgb(a["rgb"]),
                                                 **MATERIALS[a["material"]])
        if o.kind not in units:
            bm, smooth = _unit_mesh(o.kind)
            flat_caps = o.kind in ("cylinder", "cone")
            units[o.kind] = mesh_data(f"unit_{o.kind}", bm, smooth=(lambda p: abs(p.normal.z) < 0.99) if flat_caps
                                      else (lambda p, s=smooth: s))
        obj = copied_object(scene, o.name, units[o.kind], materials[key])
        obj.location = o.location
        obj.rotation_euler = (0.0, 0.0, math.radians(o.rotation))
        obj.scale = (o.scale, o.scale, o.scale)
        built[o.id] = [obj]
    discard(units.values())
    return built


def build(spec: SceneSpec, scene) -> dict[int, list]:
    """Create the objects; returns mask index -> Blender objects."""
    built = build_objects(spec, spec.objects, scene)
    build_set(spec, scene)
    return built
