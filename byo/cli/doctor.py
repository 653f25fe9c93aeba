"""`byo doctor`: what this machine offers for rendering and evaluation, in one table. The Blender
probes (bpy's devices, Debian's blender) take seconds: their answers are kept per machine and
install in the user's cache, and `--refresh` probes again."""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from byo.cli.console import new_table, out
from byo.providers import key_variables
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


def cache_file() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "byo" / "doctor.json"


def _probed(refresh: bool) -> tuple[dict, str | None]:
    """The Blender probes' answers, and when they were made when they come from the cache. They are
    kept for this machine, this Python and these Blender installs (any change probes again)."""
    blender = shutil.which("blender")
    identity = {"host": platform.node(), "python": sys.executable, "bpy": _version("bpy"),
                "blender": [blender, os.stat(blender).st_mtime] if blender else None}
    path = cache_file()
    if not refresh:
        try:
            kept = json.loads(path.read_text())
            if kept.get("identity") == identity:
                return kept["probes"], kept["when"]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
    wheel, devices = _blender_wheel()
    probes = {"wheel": wheel, "devices": devices, "debian": _debian_blender()}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        partial.write_text(json.dumps({"identity": identity, "probes": probes,
                                       "when": datetime.now().strftime("%Y-%m-%d %H:%M")}) + "\n")
        os.replace(partial, path)
    except OSError:
        pass  # a read-only home: probe every time
    return probes, None


def facts(refresh: bool = False) -> list[tuple[str, str]]:
    probes, when = _probed(refresh)
    blender, devices = probes["wheel"], probes["devices"]
    ray = _version("ray")
    address = os.environ.get("RAY_ADDRESS")
    keys = key_variables()
    models = ollama_models()
    return [
        ("Blender (bpy wheel)", blender),
        ("Cycles devices", devices),
        ("Debian blender", probes["debian"]),
        ("CPU cores", str(os.cpu_count())),
        ("memory", _memory()),
        ("Ray", (f"{ray}" if ray else "not installed (pip install 'byo-render[ray]')")
         + (f"; RAY_ADDRESS {address}" if address else "; RAY_ADDRESS not set (a run starts Ray here)")),
        ("provider keys", ", ".join(f"{k} {'set' if os.environ.get(k) else 'not set'}" for k in keys)),
        ("Ollama", f"answers at {ollama_host()}: {len(models)} models" if models is not None
         else f"no answer at {ollama_host()}"),
        *([("Blender probed", f"{when} (byo doctor --refresh probes again)")] if when else []),
    ]


def cmd_doctor(args) -> int:
    found = facts(refresh=args.refresh)
    if args.json:
        print(json.dumps(dict(found), indent=1))
        return 0
    table = new_table("", "", title="byo doctor: what this machine offers", show_header=False)
    for name, value in found:
        table.add_row(f"[bold]{name}[/bold]", value)
    out().print(table)
    return 0


def add_doctor(doc: argparse.ArgumentParser) -> None:
    doc.add_argument("--refresh", action="store_true", help="probe Blender again (its answers are kept per "
                     f"machine in {cache_file()})")
    doc.add_argument("--json", action="store_true", help="print the facts as JSON")
    doc.set_defaults(func=cmd_doctor)


PARSERS = {"doctor": add_doctor}
