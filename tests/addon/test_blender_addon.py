"""The Blender add-on (blender_addon/), headless in the bpy module: registering, every operator,
YAML -> panel -> scene -> YAML, the user's own scenes and objects left alone, and a designed scene
that `byo render` renders to the same pixels. Debian's Blender 3.4 (legacy add-on) is in
test_blender_binary.py."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import ROOT, TINY_RENDER, small_render, write_config
from PIL import Image

from byo.render.legend import legend_text

pytestmark = pytest.mark.render
ADDON = ROOT / "blender_addon"


def tiny_chess(name: str = "panel", **content) -> dict:
    return {"dataset": {"name": name, "family": "chess", "seed": 12, "n_images": 2},
            "scene": {**TINY_RENDER, "render": small_render("chess", TINY_RENDER["resolution"], samples=4, denoise="off"),
                      "camera": {"distance": 0.8, "elevation": "high"},
                      "content": {"board": {"rows": 4, "columns": 4}, "count": [2, 4], **content}},
            "variables": {"lighting.intensity": {"type": "varying_all", "levels": ["low", "high"]}}}


@pytest.fixture
def addon(monkeypatch):
    import bpy

    from byo.blender import engine

    monkeypatch.syspath_prepend(str(ROOT))
    import blender_addon

    blender_addon.register()
    for scene in bpy.data.scenes:  # each test starts with a fresh panel
        scene.property_unset("byo")
    yield blender_addon
    blender_addon.unregister()
    for scene in list(bpy.data.scenes):
        if engine.is_build(scene):
            engine.remove_build(scene)
    for image in [i for i in bpy.data.images if i.name == "BYO preview"]:
        bpy.data.images.remove(image)


def load(tmp_path, config: dict):
    import bpy

    assert bpy.ops.byo.load_yaml(filepath=str(write_config(tmp_path, config, "design.yaml"))) == {"FINISHED"}
    return bpy.context.scene.byo


def export(tmp_path, name: str = "exported.yaml", scene=None) -> dict:
    import bpy

    path = tmp_path / name
    with bpy.context.temp_override(scene=scene or bpy.context.scene):
        assert bpy.ops.byo.export_yaml(filepath=str(path)) == {"FINISHED"}
    return yaml.safe_load(path.read_text())


def built_scene(name: str):
    import bpy

    from byo.blender import engine

    (scene,) = [s for s in bpy.data.scenes if engine.is_build(s) and s.name == name]
    return scene


def test_register_and_unregister():
    import bpy

    sys.path.insert(0, str(ROOT))
    try:
        import blender_addon
    finally:
        sys.path.remove(str(ROOT))
    for _ in range(2):  # registering again after unregistering works
        blender_addon.register()
        assert hasattr(bpy.types, "BYO_PT_main") and hasattr(bpy.types, "BYO_PT_experiment")
        assert "byo" in bpy.types.Scene.bl_rna.properties
        assert bpy.ops.byo.build_scene.poll() and bpy.ops.byo.render_preview.poll()
        assert bpy.context.scene.byo.family in ("chess", "clevr", "crest")
        blender_addon.unregister()
        assert not hasattr(bpy.types, "BYO_PT_main") and not hasattr(bpy.types, "BYO_OT_build_scene")
        assert "byo" not in bpy.types.Scene.bl_rna.properties


def test_without_byo_the_add_on_says_what_to_do():
    """In a Python that cannot import byo, then given a checkout's folder."""
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import connect, json; "
              "print(json.dumps([connect.connect('/no/such/folder'), connect.connect(''), connect.connect(sys.argv[2])]));"
              "import byo.families; print(byo.families.__file__, byo.families.family_names())")
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", script, str(ADDON), str(ROOT)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    missing_folder, no_byo, found = json.loads(proc.stdout.splitlines()[0])
    assert "'/no/such/folder' does not exist" in missing_folder
    assert "Cannot import byo (No module named 'byo')" in no_byo
    for message in (missing_folder, no_byo):
        assert "'byo folder'" in message and f"{sys.executable} -m pip install byo-render" in message
    assert found is None
    assert proc.stdout.splitlines()[1].startswith(str(ROOT / "byo")) and "chess" in proc.stdout.splitlines()[1]


def test_every_operator(addon, tmp_path):
    import bpy

    from byo.families import get_family

    config = tiny_chess(piece_set="lowpoly_glb")
    design = load(tmp_path, config)
    assert (design.family, design.name, design.seed) == ("chess", "panel", 12)
    assert design.content_chess.content__board__rows == 4 and design.content_chess.content__piece_set == "lowpoly_glb"
    assert design.setup.camera__elevation == 30.0 and tuple(design.setup.resolution) == (64, 48)
    assert export(tmp_path) == config  # YAML -> panel -> YAML

    assert bpy.ops.byo.randomize() == {"FINISHED"} and design.seed != 12
    assert export(tmp_path)["dataset"]["seed"] == design.seed
    design.seed = 12

    assert bpy.ops.byo.toggle_variable(key="content.board.rows") == {"FINISHED"}
    (_, rows), = [(v.key, v) for v in design.variables if v.key == "content.board.rows"]
    assert (rows.type, rows.min, rows.max) == ("varying_all_range", 4, 6)
    exported = export(tmp_path)
    assert exported["variables"]["content.board.rows"] == {"type": "varying_all_range", "min": 4, "max": 6}
    assert "6 combinations x 2 images" in design.status and "12 images" in design.status
    assert bpy.ops.byo.toggle_variable(key="content.board.rows") == {"FINISHED"}
    assert export(tmp_path) == config

    with pytest.raises(RuntimeError, match="no legend yet"):
        bpy.ops.byo.show_legend()
    assert bpy.ops.byo.build_scene() == {"FINISHED"}
    scene = built_scene("panel")
    legend = json.loads(scene.byo.legend_json)
    assert len([o for o in scene.objects if o.name.startswith(("white_", "black_"))]) == len(legend["objects"]) >= 2
    with bpy.context.temp_override(scene=scene):
        assert bpy.ops.byo.show_legend() == {"FINISHED"}
    text = bpy.data.texts["BYO legend"].as_string()
    assert text == legend_text(legend, get_family("chess"))
    assert f"objects ({len(legend['objects'])}):" in text

    assert bpy.ops.byo.render_preview() == {"FINISHED"}
    job = addon.preview.JOBS[bpy.context.scene.name]
    assert job.process.wait(timeout=300) == 0, job.log.read_text()
    addon.preview.poll()  # what the timer does
    image = bpy.data.images["BYO preview"]
    assert tuple(image.size) == (64, 48) and image.packed_file is not None
    assert json.loads(design.legend_json)["name"] == "panel_000000"
    assert "preview rendered" in design.status

    assert bpy.ops.byo.reset() == {"FINISHED"}
    assert design.content_chess.content__board__rows == 8 and export(tmp_path)["scene"] == {}


def test_switching_the_family_keeps_what_was_set_and_starts_the_content_afresh(addon, tmp_path):
    from byo.authoring.design import new_config, panel_values
    from byo.families import get_family

    config = tiny_chess()
    del config["scene"]["camera"]
    design = load(tmp_path, config)
    assert design.setup.camera__distance == pytest.approx(1.3)  # chess's default
    design.setup.camera__azimuth = 15.0
    design.family = "clevr"
    assert design.content_clevr.content__mode == "random"
    assert tuple(design.setup.resolution) == (64, 48) and design.setup.camera__azimuth == 15.0  # set: kept
    clevr_default = panel_values(new_config("clevr"), get_family("clevr"))["camera.distance"]
    assert design.setup.camera__distance == pytest.approx(clevr_default) and clevr_default != pytest.approx(1.3)
    config = export(tmp_path)
    assert config["dataset"]["family"] == "clevr" and "content" not in config["scene"]
    assert config["scene"]["camera"] == {"azimuth": 15.0}
    design.family = "chess"
    assert design.content_chess.content__board__rows == 8  # back to chess: its defaults again


def test_a_fresh_panel_switched_to_another_family_exports_only_that_familys_defaults(addon, tmp_path):
    import bpy

    design = bpy.context.scene.byo
    assert design.config_json == "" and design.family == "chess"
    design.family = "crest"
    assert export(tmp_path) == {"dataset": {"name": "design", "family": "crest", "seed": 0, "n_images": 1},
                                "scene": {}, "variables": {}}


def test_bad_input_is_refused_with_the_key(addon, tmp_path):
    import bpy

    design = load(tmp_path, tiny_chess())
    bad = write_config(tmp_path, tiny_chess(count=99), "bad.yaml")
    with pytest.raises(RuntimeError, match=r"scene.content.count: 99 pieces cannot stand on 16 cells"):
        bpy.ops.byo.load_yaml(filepath=str(bad))
    assert design.content_chess.content__count == "[2, 4]"  # the design is unchanged
    design.content_chess.content__count = "[2, "  # not YAML
    with pytest.raises(RuntimeError):
        bpy.ops.byo.export_yaml(filepath=str(tmp_path / "never.yaml"))
    design.content_chess.content__count = "40"
    for op in (bpy.ops.byo.export_yaml, bpy.ops.byo.build_scene, bpy.ops.byo.render_preview):
        with pytest.raises(RuntimeError, match="40 pieces cannot stand on 16 cells"):
            op(filepath=str(tmp_path / "never.yaml")) if op == bpy.ops.byo.export_yaml else op()
    assert not (tmp_path / "never.yaml").exists()


def test_yaml_scene_yaml_round_trip(addon, tmp_path):
    import bpy

    config = tiny_chess(piece_set="boxwood_blend", types=["rook", "queen"])
    config["scene"]["table"] = {"image": {"pack": "table_textures", "texture": "green_felt"}}
    config["variables"]["camera.azimuth"] = {"type": "varying_among_range", "min": 0, "max": 90}
    del config["dataset"]["n_images"]  # left to its default, and so it stays
    load(tmp_path, config)
    assert bpy.ops.byo.build_scene() == {"FINISHED"}
    scene = built_scene("panel")
    assert export(tmp_path, "from_scene.yaml", scene=scene) == config
    assert scene.byo.setup.table__image == "table_textures/green_felt"


def _snapshot(scene) -> dict:
    return {"objects": sorted((o.name, tuple(o.location), o.data.name if o.data else None,
                               tuple(m.name for m in getattr(o.data, "materials", []))) for o in scene.objects),
            "render": (scene.render.engine, scene.render.resolution_x, scene.render.resolution_y),
            "camera": scene.camera.name if scene.camera else None, "world": scene.world.name if scene.world else None}


def test_the_users_scenes_and_objects_are_left_alone(addon, tmp_path):
    import bpy

    from byo.blender import engine

    user = bpy.context.scene
    mesh = bpy.data.meshes.new("users_mesh")
    mesh.materials.append(bpy.data.materials.new("users_material"))
    obj = bpy.data.objects.new("users_object", mesh)
    user.collection.objects.link(obj)
    obj.location = (1.0, 2.0, 3.0)
    same_name = bpy.data.scenes.new("panel")  # the user's own scene with the config's name
    same_name.collection.objects.link(bpy.data.objects.new("users_other_object", None))
    before = {s.name: _snapshot(s) for s in bpy.data.scenes}
    try:
        load(tmp_path, tiny_chess())
        for _ in range(2):  # a second build replaces the first, never the user's scene of that name
            assert bpy.ops.byo.build_scene() == {"FINISHED"}
        assert bpy.ops.byo.render_preview() == {"FINISHED"}
        job = addon.preview.JOBS[user.name]
        assert job.process.wait(timeout=300) == 0
        addon.preview.poll()
        builds = [s for s in bpy.data.scenes if engine.is_build(s)]
        assert [s.name for s in builds] == ["panel.001"]
        assert {s.name: _snapshot(s) for s in bpy.data.scenes if s not in builds} == before
        assert bpy.context.scene == user and obj.users_scene == (user,) and mesh.users == 1
    finally:
        bpy.data.scenes.remove(same_name)
        bpy.data.objects.remove(obj)
        bpy.data.meshes.remove(mesh)


def test_a_designed_scene_renders_pixel_identically_through_byo_render(addon, tmp_path):
    import bpy

    from byo.blender import engine
    from byo.cli import main

    design = load(tmp_path, tiny_chess())
    # Designed on the panel: other pieces, board, camera, table and resolution.
    content = design.content_chess
    content.content__piece_set = "lowpoly_glb"
    content.content__board__columns = 5
    content.content__count = "3"
    design.setup.camera__azimuth = 35.0
    design.setup.camera__elevation = 47.5
    design.setup.table__image = "table_textures/oak"
    design.setup.resolution = (80, 60)
    design.name = "designed"
    assert bpy.ops.byo.build_scene() == {"FINISHED"}
    scene = built_scene("designed")
    built_legend = json.loads(scene.byo.legend_json)
    designed = engine.render_image(scene)

    config = export(tmp_path, "designed.yaml")
    assert config["scene"]["content"]["piece_set"] == "lowpoly_glb" and config["scene"]["camera"]["azimuth"] == 35.0
    out = tmp_path / "out"
    assert main(["render", str(tmp_path / "designed.yaml"), "-o", str(out), "--limit", "1", "--in-process"]) == 0
    rendered = np.asarray(Image.open(out / "images" / "designed_000000.png").convert("RGB"))
    assert designed.shape == (60, 80, 3)
    assert np.array_equal(designed, rendered)
    legend = json.loads((out / "legends" / "designed_000000.json").read_text())
    # the panel builds the scene; byo render also measures each object's counterfactual renders
    rendered_objects = [{k: v for k, v in o.items() if k != "counterfactual"} for o in legend["objects"]]
    assert built_legend["objects"] == rendered_objects and built_legend["setup"] == legend["setup"]


def test_the_extension_validates_builds_and_installs_in_blender_5(tmp_path):
    spec = importlib.util.find_spec("bpy")
    (tool,) = Path(spec.submodule_search_locations[0]).glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py")
    for args in (["validate", str(ADDON)], ["build", "--source-dir", str(ADDON), "--output-dir", str(tmp_path)]):
        proc = subprocess.run([sys.executable, str(tool), *args], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    (package,) = tmp_path.glob("byo_render-*.zip")
    script = ("import bpy, sys; r = bpy.ops.extensions.package_install_files(filepath=sys.argv[1], "
              "repo='user_default', enable_on_install=True); "
              "print(r, sorted(a for a in bpy.context.preferences.addons.keys() if 'byo' in a), "
              "hasattr(bpy.types, 'BYO_PT_main'), bpy.context.scene.byo.family)")
    env = {**os.environ, "BLENDER_USER_EXTENSIONS": str(tmp_path / "extensions"), "BYO_RENDER_PATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", script, str(package)], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "{'FINISHED'} ['bl_ext.user_default.byo_render'] True chess" in proc.stdout
