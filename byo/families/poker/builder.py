"""Blender realization of poker specs: thin cards with rounded corners and the project's face and
back textures, the corner-index quads (mask parts of their own), chip piles, players' mats and
grid lines."""

from __future__ import annotations

import math

import bmesh

from byo.blender.materials import image_material, linear_rgb, principled_material
from byo.blender.meshes import box_object, mesh_object
from byo.families.api import SceneSpec
from byo.families.poker import layout as lay
from byo.families.poker.faces import texture_path

CORNER_SEGMENTS = 6
CHIP_SEGMENTS = 32
EDGE_RGB = (0.93, 0.93, 0.90)
GRID_LINE_RGB = (0.88, 0.88, 0.84)


def _outline(width: float, height: float, radius: float) -> list[tuple[float, float]]:
    """A rounded rectangle, counter-clockwise."""
    r = min(radius, width / 2, height / 2)
    points = []
    for cx, cy, start in ((width / 2 - r, height / 2 - r, 0), (-width / 2 + r, height / 2 - r, 90),
                          (-width / 2 + r, -height / 2 + r, 180), (width / 2 - r, -height / 2 + r, 270)):
        for k in range(CORNER_SEGMENTS + 1):
            a = math.radians(start + 90 * k / CORNER_SEGMENTS)
            points.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return points


def card_mesh(width: float, height: float, thickness: float, radius: float) -> bmesh.types.BMesh:
    """A card centred at the origin, face up: the top (material 0) shows the face texture, the
    bottom (material 1) the back, the rim (material 2) is plain."""
    bm = bmesh.new()
    uv = bm.loops.layers.uv.new("UVMap")
    outline = _outline(width, height, radius)
    top = [bm.verts.new((x, y, thickness / 2)) for x, y in outline]
    bottom = [bm.verts.new((x, y, -thickness / 2)) for x, y in outline]
    face = bm.faces.new(top)
    face.material_index = 0
    back = bm.faces.new(list(reversed(bottom)))
    back.material_index = 1
    for loop in face.loops:
        loop[uv].uv = (loop.vert.co.x / width + 0.5, loop.vert.co.y / height + 0.5)
    for loop in back.loops:  # seen from below, so mirrored: the back reads right when turned over
        loop[uv].uv = (0.5 - loop.vert.co.x / width, loop.vert.co.y / height + 0.5)
    n = len(outline)
    for k in range(n):
        rim = bm.faces.new((bottom[k], bottom[(k + 1) % n], top[(k + 1) % n], top[k]))
        rim.material_index = 2
    return bm


def index_mesh(corner: str, width: float, height: float, thickness: float) -> bmesh.types.BMesh:
    """The quad of a corner index, just above the face, with the face texture's UVs there."""
    bm = bmesh.new()
    uv = bm.loops.layers.uv.new("UVMap")
    quad = lay.index_quad_local(corner, width, height)
    z = thickness / 2 + lay.INDEX_LIFT
    face = bm.faces.new([bm.verts.new((x, y, z)) for x, y in quad])
    for loop in face.loops:
        loop[uv].uv = (loop.vert.co.x / width + 0.5, loop.vert.co.y / height + 0.5)
    return bm


def _place(obj, location, rotation: float, face_up: bool) -> None:
    obj.location = location
    obj.rotation_euler = (0.0, 0.0 if face_up else math.pi, math.radians(rotation))


def _chips(scene, name: str, attrs: dict, location, materials: dict, stripe):
    """A pile: one cylinder per chip, a hair thinner than its step so the chips read apart, with
    white stripes round the rim as casino chips have."""
    bm = bmesh.new()
    r, t = attrs["radius"], attrs["thickness"]
    order = list(dict.fromkeys(attrs["colors"]))
    for k, (color, (dx, dy)) in enumerate(zip(attrs["colors"], attrs["offsets"], strict=True)):
        made = bmesh.ops.create_cone(bm, cap_ends=True, segments=CHIP_SEGMENTS, radius1=r, radius2=r, depth=0.9 * t)
        centre = (location[0] + dx, location[1] + dy, attrs["base"] + (k + 0.5) * t)
        bmesh.ops.translate(bm, vec=centre, verts=made["verts"])
        for f in {f for v in made["verts"] for f in v.link_faces}:
            f.material_index = order.index(color)
            if abs(f.normal.z) < 0.5:  # rim: every fourth pair of segments is white
                c = f.calc_center_median()
                sector = int((math.atan2(c.y - centre[1], c.x - centre[0]) + math.pi) / (2 * math.pi) * CHIP_SEGMENTS)
                if (sector // 2) % 4 == 0:
                    f.material_index = len(order)
    obj = mesh_object(scene, name, bm)
    for color in order:
        obj.data.materials.append(materials[color])
    obj.data.materials.append(stripe)
    return obj


def _grid_lines(scene, grid: dict, material) -> None:
    frame = lay.GridFrame.from_extras(grid)
    rows, cols, half = frame.rows, frame.columns, grid["line_width"] / 2
    corners = frame.corners(lay.LINE_HEIGHT)

    def at(i: int, j: int):
        return corners[i * (cols + 1) + j]

    segments = [(at(i, 0), at(i, cols)) for i in range(rows + 1)] + [(at(0, j), at(rows, j)) for j in range(cols + 1)]
    bm = bmesh.new()
    for (ax, ay, z), (bx, by, _) in segments:
        dx, dy = bx - ax, by - ay
        length = math.hypot(dx, dy)
        nx, ny = -dy / length * half, dx / length * half
        ex, ey = dx / length * half, dy / length * half  # reach over the corners
        bm.faces.new([bm.verts.new(p) for p in (
            (ax - nx - ex, ay - ny - ey, z), (bx - nx + ex, by - ny + ey, z),
            (bx + nx + ex, by + ny + ey, z), (ax + nx - ex, ay + ny - ey, z))])
    mesh_object(scene, "grid_lines", bm, material)


def build(spec: SceneSpec, scene) -> dict[int, list]:
    """Cards, corner indices, chip piles, mats and grid lines; returns mask id -> objects."""
    e = spec.extras
    card = e["card"]
    w, h, t = card["width"], card["height"], card["thickness"]
    content = spec.content
    radius = content["card"]["corner_radius"] * w
    roughness = content["card"]["roughness"]
    back = image_material("card_back", texture_path(f"back_{card['back']}"), roughness, specular=0.3)
    edge = principled_material("card_edge", linear_rgb(EDGE_RGB), 0.7)
    faces: dict[str, object] = {}
    built: dict[int, list] = {}
    cards = {}
    for o in spec.objects:
        a = o.attributes
        if o.kind == "card":
            code = a["card"]
            if code not in faces:
                faces[code] = image_material(f"face_{code}", texture_path(code), roughness, specular=0.3)
            obj = mesh_object(scene, o.name, card_mesh(w, h, t, radius))
            for m in (faces[code], back, edge):
                obj.data.materials.append(m)
            _place(obj, o.location, o.rotation, a["face_up"])
            built[o.id] = [obj]
            cards[o.id] = o
        elif o.kind == "chip_pile":
            materials = {c: principled_material(f"chip_{c}", linear_rgb(rgb), 0.45) for c, rgb in a["rgb"].items()}
            built[o.id] = [_chips(scene, o.name, a, o.location, materials, edge)]
        elif o.kind == "player":
            x0, y0, x1, y1 = a["mat"]
            felt = principled_material(f"mat_{a['color']}", linear_rgb(a["rgb"]), 0.9)
            built[o.id] = [box_object(scene, o.name, (x1 - x0, y1 - y0, a["thickness"]),
                                      ((x0 + x1) / 2, (y0 + y1) / 2, a["thickness"] / 2), felt)]
    for region in e.get("index_regions", []):
        o = cards[region["card"]]
        obj = mesh_object(scene, f"{o.name}_{region['corner']}", index_mesh(region["corner"], w, h, t),
                          faces[o.attributes["card"]])
        _place(obj, o.location, o.rotation, True)
        built[region["id"]] = [obj]
    grid = e.get("grid")
    if grid and grid["lines"]:
        _grid_lines(scene, grid, principled_material("grid_lines", linear_rgb(GRID_LINE_RGB), 0.8))
    return built
