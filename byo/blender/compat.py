"""Blender version differences (3.4 to 5.0), kept in one place."""

from __future__ import annotations

import bpy
import numpy as np

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


def set_denoising(cycles, wanted: str, prefilter: str = "accurate") -> bool:
    """Enable OpenImageDenoise when asked (or 'auto' and available), with this prefilter of its
    albedo and normal guides. Returns whether it is on."""
    if wanted == "off":
        cycles.use_denoising = False
        return False
    try:
        cycles.denoiser = "OPENIMAGEDENOISE"
        cycles.denoising_prefilter = prefilter.upper()
        cycles.use_denoising = True
        return True
    except (TypeError, ValueError, RuntimeError, AttributeError) as err:  # Debian's 3.4 lacks OIDN
        cycles.use_denoising = False
        if wanted == "on":
            raise RuntimeError(f"denoise: on, but this Blender cannot denoise ({err})") from None
        return False


def set_if_present(settings, name: str, value) -> None:
    """Set a setting newer Blenders have (the light tree from 4.0, OIDN's quality from 4.1)."""
    if hasattr(settings, name):
        setattr(settings, name, value)


def set_sampling_pattern(cycles, pattern: str) -> None:
    """sobol: the tabulated Sobol pattern (the factory start-up scene's from 4.2, where new scenes
    say AUTOMATIC; 3.x's default); blue_noise: Cycles' blue-noise pattern (4.2 on; earlier
    builds keep Sobol)."""
    wanted = {"sobol": "TABULATED_SOBOL", "blue_noise": "BLUE_NOISE"}[pattern]
    try:
        cycles.sampling_pattern = wanted
    except TypeError:  # 3.x names neither: its default is Sobol
        pass


def denoiser_available() -> bool:
    """Whether this build has OpenImageDenoise (Debian's 3.4.1 does not)."""
    scene = bpy.data.scenes.new("byo_denoiser_probe")
    try:
        scene.cycles.denoiser = "OPENIMAGEDENOISE"
        return True
    except (TypeError, ValueError, RuntimeError, AttributeError):
        return False
    finally:
        bpy.data.scenes.remove(scene)


def disable_stamps(render) -> None:
    """No date, time or render-time metadata in the PNGs, so identical renders are identical files."""
    for attr in dir(render):
        if attr.startswith("use_stamp"):
            try:
                setattr(render, attr, False)
            except (AttributeError, TypeError):
                pass


def set_multilayer_exr(image_settings) -> None:
    """Multilayer OpenEXR (every pass): a file format before 5.0, a media type from 5.0."""
    if hasattr(image_settings, "media_type"):
        image_settings.media_type = "MULTI_LAYER_IMAGE"
    image_settings.file_format = "OPEN_EXR_MULTILAYER"


def set_single_image(image_settings, file_format: str) -> None:
    if hasattr(image_settings, "media_type"):
        image_settings.media_type = "IMAGE"
    image_settings.file_format = file_format


def set_smooth(mesh, flags) -> None:
    mesh.polygons.foreach_set("use_smooth", flags)
    mesh.update()


# Settings where a new scene (bpy.data.scenes.new) differs from the factory start-up scene that
# renders were made in before: set to the factory values, so both give the same pixels.
FACTORY_SHADING = {
    "background_color": (0.0, 0.0, 0.0), "cavity_type": "WORLD", "curvature_ridge_factor": 0.0,
    "curvature_valley_factor": 0.0, "studiolight_intensity": 0.0, "use_scene_lights_render": False,
    "use_scene_world_render": False,
}


def match_factory_scene(scene) -> None:
    shading = scene.display.shading
    for name, value in FACTORY_SHADING.items():
        setattr(shading, name, value)


def gltf_importer_numpy() -> None:
    """Blender 3.x's glTF importer uses `np.bool`, which numpy 1.24 to 1.26 do not have (numpy 2
    has it again): give it the builtin it stood for."""
    if VERSION < (4, 0, 0) and "bool" not in np.__dict__:
        np.bool = bool
