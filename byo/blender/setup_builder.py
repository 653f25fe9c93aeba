"""The setup built in Blender, written once for every family: render settings, camera, lights,
background, floor and table, from a resolved setup (the pure model: byo/scene/setup.py)."""

from __future__ import annotations

import bmesh
import bpy
from mathutils import Matrix

from byo.blender import compat, devices
from byo.blender.materials import image_material, linear_rgb, principled_material
from byo.blender.meshes import add_box, look_at, mesh_object
from byo.scene.assets import find_pack
from byo.scene.camera import camera_axes
from byo.scene.setup import ResolvedSetup

DENOISE_GUIDES = {"albedo_normal": "RGB_ALBEDO_NORMAL", "albedo": "RGB_ALBEDO", "none": "RGB"}


def configure_render(scene, setup: ResolvedSetup, threads: int) -> dict:
    r = setup.render
    compat.match_factory_scene(scene)
    scene.render.resolution_x, scene.render.resolution_y = setup.resolution
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    scene.render.image_settings.color_depth = "8"
    scene.render.image_settings.compression = 15
    scene.render.threads_mode = "FIXED"
    scene.render.threads = max(1, threads)
    scene.render.dither_intensity = r.dither
    compat.disable_stamps(scene.render)
    scene.view_settings.view_transform = r.view_transform
    scene.view_settings.look = "None"
    applied = {"engine": r.engine}
    if r.engine == "workbench":
        scene.render.engine = "BLENDER_WORKBENCH"
        shading = scene.display.shading
        shading.light = r.workbench_lighting.upper()  # FLAT: each material's colour, unlit
        shading.color_type = "MATERIAL"
        if r.workbench_lighting == "flat":
            for flag in ("show_shadows", "show_cavity", "show_specular_highlight", "show_xray",
                         "show_object_outline"):
                setattr(shading, flag, False)
        scene.display.render_aa = r.workbench_aa.upper()
        return applied
    scene.render.engine = "CYCLES"
    c = scene.cycles
    applied.update(devices.use_device(scene, r.device))
    c.samples = r.samples
    c.use_adaptive_sampling = r.adaptive_threshold is not None
    if r.adaptive_threshold is not None:
        c.adaptive_threshold = r.adaptive_threshold
        c.adaptive_min_samples = r.adaptive_min_samples
    c.max_bounces = r.max_bounces
    c.diffuse_bounces = r.diffuse_bounces
    c.glossy_bounces = r.glossy_bounces
    c.transparent_max_bounces = r.transparent_bounces
    c.transmission_bounces = min(r.max_bounces, 4)
    c.volume_bounces = 0
    c.filter_width = r.filter_width
    c.use_animated_seed = False
    c.sample_clamp_indirect = r.clamp_indirect
    c.caustics_reflective = c.caustics_refractive = r.caustics
    compat.set_if_present(c, "use_light_tree", r.light_tree)
    compat.set_sampling_pattern(c, r.sampling_pattern)
    applied["denoised"] = compat.set_denoising(c, r.denoise, r.denoise_prefilter)
    if applied["denoised"]:
        compat.set_if_present(c, "denoising_quality", r.denoise_quality.upper())
        c.denoising_input_passes = DENOISE_GUIDES[r.denoise_guides]
        applied.update(devices.denoise_on_device(scene))
    applied["quality"] = r.quality
    return applied


def add_camera(scene, setup: ResolvedSetup) -> bpy.types.Object:
    cam = setup.camera
    data = bpy.data.cameras.new("camera")
    if cam.projection == "orthographic":
        data.type = "ORTHO"
        data.ortho_scale = cam.ortho_scale
    data.lens = cam.focal_length
    data.sensor_width = cam.sensor_width
    data.sensor_fit = "AUTO"
    data.clip_start = 0.01
    data.clip_end = 200.0
    obj = bpy.data.objects.new("camera", data)
    scene.collection.objects.link(obj)
    axes = camera_axes(cam.location, cam.target, cam.azimuth)
    rot = Matrix([list(axes[i]) for i in range(3)])
    obj.matrix_world = Matrix.Translation(cam.location) @ rot.to_4x4()
    data.dof.use_dof = setup.blur.enabled
    if setup.blur.enabled:
        data.dof.aperture_fstop = setup.blur.fstop
        data.dof.focus_distance = setup.blur.focus_distance
    scene.camera = obj
    return obj


def add_lights(scene, setup: ResolvedSetup) -> list:
    lights = []
    for spec in setup.lights:
        data = bpy.data.lights.new(f"{spec.name}_light", "AREA")
        data.energy = spec.power
        data.size = spec.size
        obj = bpy.data.objects.new(f"{spec.name}_light", data)
        obj.location = spec.location
        scene.collection.objects.link(obj)
        look_at(obj, setup.camera.target)
        lights.append(obj)
    return lights


def set_background(scene, setup: ResolvedSetup) -> None:
    world = bpy.data.worlds.new("world")
    compat.use_nodes(world)
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = (*linear_rgb(setup.background.color), 1.0)
    bg.inputs["Strength"].default_value = setup.background.strength
    # Workbench shows the world's viewport colour: the same radiance the camera sees in Cycles.
    world.color = tuple(min(1.0, c * setup.background.strength) for c in linear_rgb(setup.background.color))
    scene.world = world


def add_floor(scene, setup: ResolvedSetup):
    if not setup.floor.enabled:
        return None
    bm = bmesh.new()
    bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=100.0)
    mat = principled_material("floor", linear_rgb(setup.floor.color), setup.floor.roughness)
    obj = mesh_object(scene, "floor", bm, mat)
    obj.location.z = setup.floor_z
    return obj


def _table_material(setup: ResolvedSetup):
    t = setup.table
    if t.image is not None:
        pack = find_pack(t.image.pack, "table_texture")
        path = pack.path(pack.manifest.textures[t.image.texture].file)
        return image_material("table", path, t.roughness, tile=t.image.size)
    base = linear_rgb(t.color)
    mat = principled_material("table", base, t.roughness)
    if t.texture == "low":
        return mat
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    coords = nodes.new("ShaderNodeTexCoord")
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = 12.0
    noise.inputs["Detail"].default_value = 8.0
    links.new(coords.outputs["Object"], noise.inputs["Vector"])
    ramp = nodes.new("ShaderNodeValToRGB")
    dark = tuple(0.55 * c for c in base)
    light = tuple(min(1.0, 1.35 * c) for c in base)
    ramp.color_ramp.elements[0].color = (*dark, 1.0)
    ramp.color_ramp.elements[1].color = (*light, 1.0)
    pattern = noise.outputs["Fac"]
    if t.texture == "high":
        # Layered: fine noise times cellular Voronoi, plus a bump from the same pattern.
        voronoi = nodes.new("ShaderNodeTexVoronoi")
        voronoi.inputs["Scale"].default_value = 25.0
        links.new(coords.outputs["Object"], voronoi.inputs["Vector"])
        mix = nodes.new("ShaderNodeMath")
        mix.operation = "MULTIPLY_ADD"
        links.new(voronoi.outputs["Distance"], mix.inputs[0])
        mix.inputs[1].default_value = 0.8
        links.new(noise.outputs["Fac"], mix.inputs[2])
        pattern = mix.outputs["Value"]
        ramp.color_ramp.elements.new(0.5).color = (*base, 1.0)
        bump = nodes.new("ShaderNodeBump")
        bump.inputs["Strength"].default_value = 0.6
        bump.inputs["Distance"].default_value = 0.02
        links.new(pattern, bump.inputs["Height"])
        links.new(bump.outputs["Normal"], bsdf.inputs["Normal"])
    links.new(pattern, ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    return mat


def add_table(scene, setup: ResolvedSetup):
    t = setup.table
    if not t.enabled:
        return None
    bm = bmesh.new()
    if t.shape == "rectangular":
        add_box(bm, (t.length, t.width, t.thickness))
    else:
        width = t.length if t.shape == "circular" else t.width
        bmesh.ops.create_cone(bm, cap_ends=True, segments=96, radius1=0.5, radius2=0.5, depth=1.0)
        bmesh.ops.scale(bm, vec=(t.length, width, t.thickness), verts=bm.verts)
    bmesh.ops.translate(bm, vec=(0.0, 0.0, -t.thickness / 2), verts=bm.verts)  # top face at z = 0
    return mesh_object(scene, "table", bm, _table_material(setup))


def build_setup(scene, setup: ResolvedSetup, threads: int) -> dict:
    applied = configure_render(scene, setup, threads)
    add_camera(scene, setup)
    add_lights(scene, setup)
    set_background(scene, setup)
    add_floor(scene, setup)
    add_table(scene, setup)
    return applied


