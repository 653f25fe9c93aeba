"""Cycles compute devices: which GPU backend this machine offers (OptiX, CUDA, HIP, Metal,
oneAPI, in that order of preference) and putting a scene on it or on the CPU.

`python -m byo.blender.devices` prints what this Blender offers as JSON (for `byo doctor`)."""

from __future__ import annotations

import functools
import json
import sys

import bpy

from byo.blender import compat, engine
from byo.core.errors import FatalRenderError

BACKENDS = ("OPTIX", "CUDA", "HIP", "METAL", "ONEAPI")


def _preferences():
    addon = bpy.context.preferences.addons.get("cycles")
    return addon.preferences if addon else None


@functools.cache
def gpu_backend() -> tuple[str, tuple[str, ...]] | None:
    """(backend, GPU names) of the first backend with a device, or None. Probed once per process
    (quietly: Cycles logs every backend library it fails to open)."""
    with engine.quiet():
        return _probe()


def _probe() -> tuple[str, tuple[str, ...]] | None:
    prefs = _preferences()
    if prefs is None:
        return None
    for backend in BACKENDS:
        try:
            prefs.compute_device_type = backend  # TypeError: not built into this Blender
            prefs.refresh_devices()
        except (TypeError, AttributeError, RuntimeError):
            continue
        gpus = [d for d in prefs.devices if d.type == backend]
        if gpus:
            for device in prefs.devices:
                device.use = device.type == backend
            return backend, tuple(d.name for d in gpus)
    prefs.compute_device_type = "NONE"
    return None


def use_device(scene, wanted: str) -> dict:
    """Put a Cycles scene on the device `render.device` asks for; what the legend records. `gpu`
    without a GPU is fatal (every image would hit it); `auto` then falls back to the CPU."""
    found = gpu_backend() if wanted in ("gpu", "auto") else None
    if found is None:
        if wanted == "gpu":
            raise FatalRenderError(
                "render.device is gpu, but Cycles finds no GPU on this machine (tried "
                f"{', '.join(BACKENDS)}); set render.device to auto (falls back to the CPU) or cpu")
        scene.cycles.device = "CPU"
        return {"device": "cpu"}
    backend, names = found
    scene.cycles.device = "GPU"
    return {"device": "gpu", "compute_backend": backend, "gpus": list(names)}


def denoise_on_device(scene) -> dict:
    """On a GPU scene, OpenImageDenoise runs on the GPU too (Blender 4.1 on, when OIDN supports
    the card); on the CPU nothing changes and the legend records nothing more."""
    if scene.cycles.device != "GPU":
        return {}
    compat.set_if_present(scene.cycles, "denoising_use_gpu", True)
    return {"denoiser_device": "gpu" if getattr(scene.cycles, "denoising_use_gpu", False) else "cpu"}


def report() -> dict:
    """What this Blender offers for rendering."""
    found = gpu_backend()
    return {"blender": compat.version_string(), "denoiser": compat.denoiser_available(),
            "gpu_backend": found[0] if found else None, "gpus": list(found[1]) if found else []}


if __name__ == "__main__":
    json.dump(report(), sys.stdout)
