"""Blender version differences (3.4 to 5.0), kept in one place."""

from __future__ import annotations

import bpy

VERSION = bpy.app.version  # (major, minor, patch)


def version_string() -> str:
    return bpy.app.version_string.split(" ")[0]


def use_nodes(idblock) -> None:
    """Materials and worlds always use nodes from 5.0; earlier versions need the switch."""
    if VERSION < (5, 0, 0):
        idblock.use_nodes = True


def set_principled(node, base_rgb, roughness: float, metallic: float, specular: float = 0.5) -> None:
    node.inputs["Base Color"].default_value = (*base_rgb, 1.0)
    node.inputs["Roughness"].default_value = roughness
    node.inputs["Metallic"].default_value = metallic
    # "Specular" became "Specular IOR Level" in 4.0.
    for name in ("Specular IOR Level", "Specular"):
        if name in node.inputs:
            node.inputs[name].default_value = specular
            break


def set_denoising(cycles, wanted: str) -> bool:
    """Enable OpenImageDenoise when asked (or 'auto' and available). Returns whether it is on."""
    if wanted == "off":
        cycles.use_denoising = False
        return False
    try:
        cycles.denoiser = "OPENIMAGEDENOISE"
        cycles.use_denoising = True
        return True
    except (TypeError, ValueError, RuntimeError, AttributeError) as err:  # Debian's 3.4 lacks OIDN
        cycles.use_denoising = False
        if wanted == "on":
            raise RuntimeError(f"denoise: on, but this Blender cannot denoise ({err})") from None
        return False


def has_denoiser() -> bool:
    return bool(getattr(bpy.app.build_options, "openimagedenoise", False))


def disable_stamps(render) -> None:
    """No date, time or render-time metadata in the PNGs, so identical renders are identical files."""
    for attr in dir(render):
        if attr.startswith("use_stamp"):
            try:
                setattr(render, attr, False)
            except (AttributeError, TypeError):
                pass


def set_smooth(mesh, flags) -> None:
    mesh.polygons.foreach_set("use_smooth", flags)
    mesh.update()
