"""`byo doctor`: what this machine offers for rendering and evaluation, in one table."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys

from byo.providers.keys import KEY_ENV
from byo.providers.ollama_api import ollama_host, ollama_models

PROBE_SECONDS = 120


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _blender_wheel() -> tuple[str, str]:
    """bpy, its denoiser and its Cycles devices, probed in a child process (bpy is heavy, and a
    broken install must not take the doctor down)."""
    if _version("bpy") is None:
        return "not installed (make install, or pip install 'byo-render[blender]')", "-"
    try:
        probe = subprocess.run([sys.executable, "-m", "byo.blender.devices"], capture_output=True, text=True,
                               timeout=PROBE_SECONDS)
        found = json.loads(probe.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError):
        return f"bpy {_version('bpy')}: import failed", "-"
    devices = "CPU" + (f", GPU: {found['gpu_backend']} ({', '.join(found['gpus'])})" if found["gpu_backend"]
                       else " only (no OptiX, CUDA, HIP, Metal or oneAPI device)")
    denoiser = "OpenImageDenoise" if found["denoiser"] else "none (render.denoise: auto renders without)"
    return f"bpy {found['blender']}; denoiser {denoiser}", devices


def _debian_blender() -> str:
    path = shutil.which("blender")
    if not path:
        return "not found (apt-get install blender, for `blender -b -P render.py`)"
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=PROBE_SECONDS)
        return f"{out.stdout.strip().splitlines()[0]} ({path})"
    except (subprocess.TimeoutExpired, IndexError, OSError):
        return f"{path}: does not answer --version"


def _memory() -> str:
    info = {}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                key, value = line.split(":", 1)
                info[key] = int(value.split()[0]) / 2**20  # kB -> GB
        return f"{info['MemTotal']:.1f} GB ({info['MemAvailable']:.1f} GB available)"
    except (OSError, KeyError, ValueError):
        return "unknown"


def facts() -> list[tuple[str, str]]:
    blender, devices = _blender_wheel()
    ray = _version("ray")
    address = os.environ.get("RAY_ADDRESS")
    keys = sorted(set(KEY_ENV.values()))
    models = ollama_models()
    return [
        ("Blender (bpy wheel)", blender),
        ("Cycles devices", devices),
        ("Debian blender", _debian_blender()),
        ("CPU cores", str(os.cpu_count())),
        ("memory", _memory()),
        ("Ray", (f"{ray}" if ray else "not installed (pip install 'byo-render[ray]')")
         + (f"; RAY_ADDRESS {address}" if address else "; RAY_ADDRESS not set (a run starts Ray here)")),
        ("provider keys", ", ".join(f"{k} {'set' if os.environ.get(k) else 'not set'}" for k in keys)),
        ("Ollama", f"answers at {ollama_host()}: {len(models)} models" if models is not None
         else f"no answer at {ollama_host()}"),
    ]
