"""Blender realization of chess specs: the board and procedurally modelled pieces, or the
pieces of an asset pack (`content.piece_set`).

Pieces are built in units of the square size, base at z = 0, and scaled by the spec. Round
pieces are lathe profiles (radius, height) spun about the vertical axis; the knight's head is
an extruded side silhouette; queen and king get a coronet and a cross. A pack's pieces are
scaled to the same height per type and stood on their foot's centre, so the legend's heights,
cells and everything measured mean the same for both.
"""

from __future__ import annotations

import math

import bmesh
from mathutils import Matrix

from byo.blender import imports
from byo.blender.materials import linear_rgb, principled_material
from byo.blender.meshes import add_box, box_object, linked_object, mesh_object
from byo.families.api import SceneSpec, find_pack
from byo.families.chess.model import PIECE_HEIGHT, ChessContent


def _arc(cx: float, cz: float, r: float, start: float, end: float, n: int = 8) -> list[tuple[float, float]]:
    """Points of a circle arc in the (radius, height) plane, angles in degrees."""
    return [(cx + r * math.cos(math.radians(a)), cz + r * math.sin(math.radians(a)))
            for a in (start + (end - start) * k / n for k in range(n + 1))]


_STAUNTON_BASE = [(0.0, 0.0), (0.37, 0.0), (0.37, 0.05), (0.34, 0.08), (0.34, 0.11), (0.29, 0.14)]
STAUNTON = {
    "pawn": _STAUNTON_BASE + [(0.22, 0.18), (0.15, 0.30), (0.12, 0.44), (0.21, 0.48), (0.21, 0.51),
                              (0.11, 0.54)] + _arc(0.0, 0.68, 0.16, -60, 90),
    "rook": _STAUNTON_BASE + [(0.26, 0.20), (0.22, 0.30), (0.21, 0.62), (0.26, 0.66), (0.29, 0.72),
                              (0.29, 0.84), (0.0, 0.84)],
    "knight": _STAUNTON_BASE + [(0.27, 0.20), (0.27, 0.26), (0.0, 0.26)],
    "bishop": _STAUNTON_BASE + [(0.24, 0.18), (0.15, 0.40), (0.11, 0.68), (0.22, 0.72), (0.22, 0.76),
                                (0.12, 0.79)] + _arc(0.0, 0.97, 0.17, -70, 60) + [(0.03, 1.17)]
              + _arc(0.0, 1.21, 0.05, -60, 90, 5),
    "queen": _STAUNTON_BASE + [(0.26, 0.18), (0.16, 0.42), (0.12, 0.86), (0.25, 0.92), (0.25, 0.96),
                               (0.14, 1.00), (0.17, 1.10), (0.26, 1.26), (0.20, 1.27), (0.13, 1.30)]
             + _arc(0.0, 1.36, 0.07, -60, 90, 5),
    "king": _STAUNTON_BASE + [(0.26, 0.18), (0.17, 0.45), (0.13, 0.98), (0.26, 1.03), (0.26, 1.07),
                              (0.15, 1.10), (0.19, 1.20), (0.23, 1.30), (0.14, 1.36), (0.0, 1.38)],
}
_SIMPLE_BASE = [(0.0, 0.0), (0.36, 0.0), (0.36, 0.10)]
STYLISED = {
    "pawn": _SIMPLE_BASE + [(0.20, 0.10), (0.10, 0.50)] + _arc(0.0, 0.66, 0.17, -70, 90, 6),
    "rook": _SIMPLE_BASE + [(0.24, 0.10), (0.24, 0.88), (0.0, 0.88)],
    "knight": _SIMPLE_BASE + [(0.26, 0.10), (0.26, 0.22), (0.0, 0.22)],
    "bishop": _SIMPLE_BASE + [(0.20, 0.10), (0.08, 0.78), (0.18, 0.92), (0.0, 1.28)],
    "queen": _SIMPLE_BASE + [(0.22, 0.10), (0.10, 1.00), (0.26, 1.24), (0.0, 1.24)],
    "king": _SIMPLE_BASE + [(0.22, 0.10), (0.12, 1.10), (0.24, 1.30), (0.0, 1.32)],
}
# Side silhouette of the knight's head (x forward, z up), extruded across y.
KNIGHT_HEAD = {
    "staunton": [(-0.24, 0.22), (-0.27, 0.55), (-0.22, 0.82), (-0.10, 1.02), (-0.06, 1.14), (0.00, 1.06),
                 (0.06, 1.11), (0.10, 1.00), (0.24, 0.90), (0.38, 0.76), (0.40, 0.66), (0.33, 0.61),
                 (0.18, 0.64), (0.06, 0.56), (0.12, 0.42), (0.24, 0.22)],
    "stylised": [(-0.22, 0.20), (-0.22, 1.05), (0.36, 1.05), (0.36, 0.72), (0.08, 0.72), (0.20, 0.20)],
}
SEGMENTS = 32


def _lathe(bm: bmesh.types.BMesh, profile: list[tuple[float, float]]) -> None:
    verts = [bm.verts.new((r, 0.0, z)) for r, z in profile]
    edges = [bm.edges.new((a, b)) for a, b in zip(verts, verts[1:], strict=False)]
    bmesh.ops.spin(bm, geom=verts + edges, cent=(0, 0, 0), axis=(0, 0, 1), dvec=(0, 0, 0),
                   angle=2 * math.pi, steps=SEGMENTS, use_merge=True, use_duplicate=False)
    bm.normal_update()
    for face in bm.faces:  # turned surfaces shade smooth; flat tops and bottoms stay flat
        face.smooth = abs(face.normal.z) < 0.999


def _knight_head(bm: bmesh.types.BMesh, outline: list[tuple[float, float]], width: float) -> None:
    verts = [bm.verts.new((x, -width / 2, z)) for x, z in outline]
    face = bm.faces.new(verts)
    extruded = bmesh.ops.extrude_face_region(bm, geom=[face])
    moved = [g for g in extruded["geom"] if isinstance(g, bmesh.types.BMVert)]
    bmesh.ops.translate(bm, vec=(0.0, width, 0.0), verts=moved)


def _coronet(bm: bmesh.types.BMesh, radius: float, z: float, size: float, count: int = 8) -> None:
    for k in range(count):
        a = 2 * math.pi * k / count
        m = Matrix.Translation((radius * math.cos(a), radius * math.sin(a), z))
        bmesh.ops.create_uvsphere(bm, u_segments=8, v_segments=6, radius=size, matrix=m)


def piece_mesh(kind: str, style: str) -> bmesh.types.BMesh:
    """A piece one square wide (in square units), base centred at the origin."""
    bm = bmesh.new()
    profiles = STAUNTON if style == "staunton" else STYLISED
    _lathe(bm, profiles[kind])
    bmesh.ops.remove_doubles(bm, verts=bm.verts, dist=1e-5)  # close the poles on the axis
    if kind == "knight":
        _knight_head(bm, KNIGHT_HEAD[style], 0.26 if style == "staunton" else 0.22)
    elif kind == "rook":
        top = profiles["rook"][-1][1]
        for k in range(6 if style == "staunton" else 4):  # battlements
            a = 2 * math.pi * (k + 0.5) / (6 if style == "staunton" else 4)
            r = 0.24 if style == "staunton" else 0.19
            add_box(bm, (0.11, 0.11, 0.12), (r * math.cos(a), r * math.sin(a), top + 0.06))
    elif kind == "queen":
        _coronet(bm, 0.21, 1.27 if style == "staunton" else 1.26, 0.045)
    elif kind == "king":
        top = profiles["king"][-1][1]
        add_box(bm, (0.06, 0.06, 0.26), (0.0, 0.0, top + 0.12))
        add_box(bm, (0.20, 0.06, 0.06), (0.0, 0.0, top + 0.15))
    if kind == "bishop" and style == "stylised":
        bmesh.ops.create_uvsphere(bm, u_segments=8, v_segments=6, radius=0.05,
                                  matrix=Matrix.Translation((0.0, 0.0, 1.30)))
    bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
    return bm


def _board(scene, content: ChessContent, dark_squares: list[list[int]]) -> None:
    b = content.board
    width, depth = b.columns * b.square_size, b.rows * b.square_size
    box_object(scene, "board_frame", (width + 2 * b.border, depth + 2 * b.border, b.thickness),
               (*b.location, b.thickness / 2), principled_material("board_frame", linear_rgb(b.frame_color), 0.5))

    squares = bmesh.new()
    x0, y0 = b.location[0] - width / 2, b.location[1] + depth / 2
    z = b.thickness + 0.0003
    for i in range(b.rows):
        for j in range(b.columns):
            xa, ya = x0 + j * b.square_size, y0 - i * b.square_size
            face = squares.faces.new([squares.verts.new(p) for p in (
                (xa, ya - b.square_size, z), (xa + b.square_size, ya - b.square_size, z),
                (xa + b.square_size, ya, z), (xa, ya, z))])
            face.material_index = dark_squares[i][j]
    light = principled_material("light_squares", linear_rgb(b.light_color), 0.45)
    dark = principled_material("dark_squares", linear_rgb(b.dark_color), 0.45)
    obj = mesh_object(scene, "board_squares", squares, light)
    obj.data.materials.append(dark)


def _procedural_piece(scene, name: str, kind: str, attributes: dict, materials: dict):
    color = attributes["color"]
    if color not in materials:
        materials[color] = principled_material(f"piece_{color}", linear_rgb(attributes["rgb"]), 0.35, specular=0.6)
    return mesh_object(scene, name, piece_mesh(kind, attributes["style"]), materials[color])


def pack_meshes(piece_set: str, wanted: set[tuple[str, str]]) -> dict[tuple[str, str], object]:
    """(colour, type) -> a mesh of the pack's piece, in square units like the procedural ones."""
    pack = find_pack(piece_set, "chess_set")
    manifest = pack.manifest
    meshes = {}
    with imports.file_objects(pack.path(manifest.file)) as objects:
        for color, kind in sorted(wanted):
            name = manifest.object_name(color, kind)
            if name not in objects:
                raise RuntimeError(f"{pack.root / 'pack.yaml'}: pieces.{color}.{kind}: {manifest.file} has no "
                                   f"object {name!r} (it has {', '.join(sorted(objects))})")
            mesh = imports.joined_mesh(objects[name], f"{pack.name}_{color}_{kind}")
            imports.stand_on_origin(mesh, PIECE_HEIGHT[kind])
            meshes[(color, kind)] = mesh
    return meshes


def build_objects(spec: SceneSpec, objects, scene) -> dict[int, list]:
    """Create the pieces `objects` (of `spec`, or variants of them) and nothing else; returns mask
    index -> Blender objects."""
    content = ChessContent.model_validate(spec.content)
    from_pack = pack_meshes(content.piece_set, {(o.attributes["color"], o.kind) for o in objects}) \
        if content.piece_set else None
    materials: dict[str, object] = {}
    built = {}
    for o in objects:
        if from_pack is None:
            obj = _procedural_piece(scene, o.name, o.kind, o.attributes, materials)
        else:
            obj = linked_object(scene, o.name, from_pack[(o.attributes["color"], o.kind)])
        obj.location = o.location
        obj.rotation_euler = (0.0, 0.0, math.radians(o.rotation))
        obj.scale = (o.scale, o.scale, o.scale)
        built[o.id] = [obj]
    return built


def build(spec: SceneSpec, scene) -> dict[int, list]:
    """Create the board and the pieces; returns mask index -> Blender objects."""
    content = ChessContent.model_validate(spec.content)
    _board(scene, content, spec.extras["board"]["dark_squares"])
    return build_objects(spec, spec.objects, scene)
