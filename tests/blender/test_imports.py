"""Renders with asset packs: chess pieces from a .glb and from a .blend set are measured and
labelled like procedural ones (legends true of the masks), look like the pack's pieces, leave
nothing behind in the open file; table textures show on the table."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import TINY_RENDER, small_render
from PIL import Image

from byo.render.executors.inprocess import InProcess
from byo.render.runner import render_dataset
from byo.scene.assets import find_pack
from byo.scene.measure import read_mask

pytestmark = pytest.mark.render


def render(tmp_path, name: str, content: dict, n_images: int = 3, **scene) -> tuple[list[dict], object]:
    cfg = {"dataset": {"name": name, "family": "chess", "seed": 21, "n_images": n_images},
           "scene": {**TINY_RENDER, "resolution": [128, 96], "camera": {"distance": 0.75, "elevation": 50},
                     "render": small_render("chess", [128, 96], samples=4, denoise="off"),
                     **scene, "content": {"board": {"rows": 4, "columns": 4}, **content}}}
    out = tmp_path / name
    report = render_dataset(cfg, out, executor=InProcess(), show_progress=False)
    assert not report.failed, report.failed
    return [json.loads(p.read_text()) for p in sorted((out / "legends").glob("*.json"))], out


def pixels(out, legend, key: str) -> np.ndarray:
    return read_mask(out / legend[key]) if key == "mask" else np.asarray(
        Image.open(out / legend[key]).convert("RGB"), dtype=float)


@pytest.mark.parametrize("pack", ["lowpoly_glb", "boxwood_blend"])
def test_pack_pieces_are_measured_and_labelled_like_procedural_ones(tmp_path, pack):
    import bpy

    kinds = ("objects", "meshes", "materials", "images", "scenes", "collections", "actions", "cameras", "lights")
    before = {k: len(getattr(bpy.data, k)) for k in kinds}
    content = {"count": 6, "types": "all"}
    legends, out = render(tmp_path, pack, {**content, "piece_set": pack})
    assert {k: len(getattr(bpy.data, k)) for k in kinds} == before  # the pack's data went with the job
    plain, plain_out = render(tmp_path, "procedural", content)
    rgb = find_pack(pack).manifest.colors
    for legend, reference in zip(legends, plain, strict=True):
        mask = pixels(out, legend, "mask")
        counts = np.bincount(mask.ravel(), minlength=256)
        assert legend["content"]["piece_set"] == pack
        for o in legend["objects"]:
            # Ground truth of the pixels: the legend's count and box are the mask's.
            assert o["visible_pixels"] == counts[o["id"]] > 0, o["name"]
            ys, xs = np.nonzero(mask == o["id"])
            assert o["bbox"] == [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
            assert o["attributes"]["rgb"] == list(rgb[o["attributes"]["color"]])
        assert set(np.unique(mask)) - {0} == {o["id"] for o in legend["objects"]}
        # The same pieces on the same cells as the procedural set, but other shapes.
        assert [(o["kind"], o["attributes"]["cell"]) for o in legend["objects"]] == [
            (o["kind"], o["attributes"]["cell"]) for o in reference["objects"]]
        assert not np.array_equal(mask, pixels(plain_out, reference, "mask"))
    assert (out / "contact_sheet.png").is_file()


@pytest.mark.parametrize("pack", ["lowpoly_glb", "boxwood_blend"])
def test_a_pack_piece_stands_where_a_procedural_one_does_at_its_height(tmp_path, pack):
    """The pack's pieces come in their own units and places (the .glb set is 4 cm squares laid out
    in rows); the builder scales each to the procedural height and stands it on its cell."""
    for kind in ("pawn", "knight", "king"):
        content = {"pieces": [{"type": kind, "color": "white", "cell": [1, 2]}], "max_rotation": 0}
        scene = {"resolution": [160, 120], "camera": {"distance": 0.6, "elevation": 20}}
        (own,), _ = render(tmp_path, f"{pack}_{kind}", {**content, "piece_set": pack}, n_images=1, **scene)
        (plain,), _ = render(tmp_path, f"plain_{kind}", content, n_images=1, **scene)
        (a,), (b,) = own["objects"], plain["objects"]
        height = b["bbox"][3] - b["bbox"][1]
        assert abs(a["bbox"][3] - b["bbox"][3]) <= 2, (kind, a["bbox"], b["bbox"])  # the same foot
        assert abs((a["bbox"][3] - a["bbox"][1]) - height) <= 0.1 * height, (kind, a["bbox"], b["bbox"])
        assert abs((a["bbox"][0] + a["bbox"][2]) - (b["bbox"][0] + b["bbox"][2])) <= 6, (kind, a["bbox"], b["bbox"])


def test_boxwood_pieces_show_their_wood_colour(tmp_path):
    legends, out = render(tmp_path, "wood", {"pieces": [{"type": "queen", "color": "white", "cell": [1, 1]},
                                                        {"type": "rook", "color": "black", "cell": [1, 2]}],
                                             "piece_set": "boxwood_blend"}, n_images=1,
                          render={"samples": 16, "denoise": "off"})
    (legend,) = legends
    img, mask = pixels(out, legend, "image"), pixels(out, legend, "mask")
    white, black = (img[mask == o["id"]].mean(axis=0) for o in legend["objects"])
    assert white[0] - white[2] > 40 and white.mean() > black.mean() + 60  # boxwood: warm and light


def test_a_table_image_from_a_pack_covers_the_table(tmp_path):
    scene = {"camera": {"distance": 1.2, "elevation": 70}, "floor": {"enabled": False},
             "render": {"samples": 8, "denoise": "off"}}
    size = {"length": 1.4, "width": 1.0}  # a table that fills the frame around the board
    (gingham,), out = render(tmp_path, "gingham", {"count": 1}, n_images=1,
                             table={**size, "image": {"pack": "table_textures", "texture": "red_gingham"}}, **scene)
    (plain,), plain_out = render(tmp_path, "plain", {"count": 1}, n_images=1, table=size, **scene)
    assert gingham["setup"]["table"]["image"] == {"pack": "table_textures", "texture": "red_gingham",
                                                  "size": [0.4, 0.4]}
    assert "image" not in plain["setup"]["table"]
    corner = (slice(0, 12), slice(0, 12))  # the table beyond the board
    red = pixels(out, gingham, "image")[corner]
    wood = pixels(plain_out, plain, "image")[corner]
    assert (red[..., 0] - red[..., 1]).mean() > 40 > (wood[..., 0] - wood[..., 1]).mean()
    assert red[..., 1].std() > 3 * wood[..., 1].std()  # the checks


def test_each_image_draws_a_texture_when_none_is_named(tmp_path):
    legends, _ = render(tmp_path, "drawn", {"count": 1}, n_images=6, table={"image": {"pack": "table_textures"}})
    drawn = [lg["setup"]["table"]["image"]["texture"] for lg in legends]
    assert len(set(drawn)) > 1 and set(drawn) <= set(find_pack("table_textures").manifest.textures)


def test_a_card_face_shows_upright_on_a_card_through_image_material(tmp_path):
    """What the poker family builds on: a deck's face image on a card-sized quad, by its UVs."""
    import bpy

    from byo.blender import engine
    from byo.blender.materials import image_material
    from byo.blender.meshes import data_object

    deck = find_pack("simple_deck", "card_deck")
    width, height = deck.manifest.size
    with engine.own_scene("card") as scene:
        corners = [(-width / 2, -height / 2, 0), (width / 2, -height / 2, 0), (width / 2, height / 2, 0),
                   (-width / 2, height / 2, 0)]
        card = data_object(scene, "QH", corners, [(0, 1, 2, 3)], image_material("QH", deck.card("QH")))
        uv = card.data.uv_layers.new(name="UVMap")
        for loop, (u, v) in zip(uv.data, [(0, 0), (1, 0), (1, 1), (0, 1)], strict=True):
            loop.uv = (u, v)
        camera = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
        camera.data.type, camera.data.ortho_scale = "ORTHO", height
        camera.location = (0.0, 0.0, 1.0)
        scene.collection.objects.link(camera)
        scene.camera = camera
        scene.render.engine = "BLENDER_WORKBENCH"
        scene.display.shading.light, scene.display.shading.color_type = "FLAT", "TEXTURE"
        scene.view_settings.view_transform = "Standard"
        scene.render.resolution_x, scene.render.resolution_y = 90, 126
        scene.render.film_transparent = False
        rendered = engine.render_image(scene).astype(float)
    with Image.open(deck.card("QH")) as im:
        face = np.asarray(im.convert("RGBA").resize((90, 126), Image.LANCZOS), dtype=float)
    inside = face[..., 3] > 250  # the card, not its transparent corners
    assert np.abs(rendered[inside] - face[..., :3][inside]).mean() < 12
    flipped = face[::-1, ::-1, :3]  # upside down would look the same only for a symmetric face
    assert np.abs(rendered[inside] - flipped[inside]).mean() > 2 * np.abs(rendered[inside] - face[..., :3][inside]).mean()


PARTS_GLB = """
import sys, bpy
from byo.blender.materials import principled_material
from byo.blender.meshes import data_object
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
corners = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
top = bpy.data.objects.new("Knight", None)
scene.collection.objects.link(top)
top.location, top.scale = (5.0, 0.0, 0.0), (2.0, 2.0, 2.0)
for k, z in enumerate((0.5, 1.5)):
    part = data_object(scene, f"part{k}", corners, faces, principled_material(f"m{k}", (k, 0.5, 0.5), 0.5))
    part.parent, part.location = top, (0.0, 0.0, z)
bpy.ops.export_scene.gltf(filepath=sys.argv[1], export_format="GLB")
"""


def test_a_piece_made_of_parts_under_a_parent_is_joined_in_world_space(tmp_path):
    """A pack's piece may be a top node with child meshes, each with its own material."""
    import subprocess
    import sys

    import bpy

    from byo.blender import imports

    path = tmp_path / "parts.glb"  # written by a Blender of its own, like a user's file
    subprocess.run([sys.executable, "-c", PARTS_GLB, str(path)], check=True, capture_output=True, timeout=300)
    before = {kind: len(getattr(bpy.data, kind)) for kind in ("objects", "meshes", "scenes")}
    with imports.file_objects(path) as objects:
        mesh = imports.joined_mesh(objects["Knight"], "joined")
    assert {kind: len(getattr(bpy.data, kind)) for kind in before} == {**before, "meshes": before["meshes"] + 1}
    co = np.array([v.co[:] for v in mesh.vertices])
    assert len(co) == 2 * 24 and len(mesh.materials) == 2  # glTF splits a flat cube into 24 corners
    assert co.min(axis=0) == pytest.approx((4.0, -1.0, 0.0), abs=1e-5)  # the parent's move and scale applied
    assert co.max(axis=0) == pytest.approx((6.0, 1.0, 4.0), abs=1e-5)
    imports.stand_on_origin(mesh, 1.65)
    co = np.array([v.co[:] for v in mesh.vertices])
    assert co.min(axis=0) == pytest.approx((-0.4125, -0.4125, 0.0), abs=1e-5)
    assert co[:, 2].max() == pytest.approx(1.65)
    materials = list(mesh.materials)
    bpy.data.meshes.remove(mesh)
    bpy.data.batch_remove(materials)
