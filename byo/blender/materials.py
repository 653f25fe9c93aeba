"""Materials: sRGB to linear, and the principled material every family uses."""

from __future__ import annotations

import bpy

from byo.blender import compat


def srgb_to_linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def linear_rgb(rgb) -> tuple[float, float, float]:
    return tuple(srgb_to_linear(float(c)) for c in rgb[:3])


def principled_material(name: str, rgb, roughness: float, metallic: float = 0.0, specular: float = 0.5):
    mat = bpy.data.materials.new(name)
    compat.use_nodes(mat)
    compat.set_principled(mat.node_tree.nodes["Principled BSDF"], rgb, roughness, metallic, specular)
    mat.diffuse_color = (*rgb, 1.0)  # what Workbench shows
    mat.roughness = roughness
    mat.metallic = metallic
    return mat


def image_material(name: str, path, roughness: float = 0.5, specular: float = 0.5, interpolation: str = "Cubic",
                   tile: tuple[float, float] | None = None):
    """A principled material whose base colour is an image file (sRGB): over the mesh's UV map,
    or, with `tile`, repeated every tile[0] x tile[1] metres across the object's x and y.
    Workbench shows `diffuse_color` (white) instead of the image."""
    mat = principled_material(name, (1.0, 1.0, 1.0), roughness, specular=specular)
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    texture = nodes.new("ShaderNodeTexImage")
    texture.image = bpy.data.images.load(str(path), check_existing=True)
    texture.interpolation = interpolation
    texture.extension = "REPEAT" if tile else "EXTEND"
    if tile:
        coords = nodes.new("ShaderNodeTexCoord")
        mapping = nodes.new("ShaderNodeMapping")
        mapping.inputs["Scale"].default_value = (1.0 / tile[0], 1.0 / tile[1], 1.0)
        links.new(coords.outputs["Object"], mapping.inputs["Vector"])
        links.new(mapping.outputs["Vector"], texture.inputs["Vector"])
    links.new(texture.outputs["Color"], nodes["Principled BSDF"].inputs["Base Color"])
    return mat
