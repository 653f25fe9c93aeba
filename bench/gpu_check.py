"""The GPU path checked (run by bench/gpu_check.sh): each family's busiest scene (bench/
family_presets.py) at the standard preset rendered on the GPU and on the CPU, with the time per
image, the PSNR and SSIM between the two and the denoiser each used. `--cpu-only` renders both
sides on the CPU (the second with `render.device: auto`, which falls back to it): the path and
the table, on a machine without a GPU (tests/bench/test_gpu_check.py runs it so).

Prints the table and writes it as JSON (--json). Exit 0; 3 when a GPU was wanted and Cycles
finds none (the table then says what it tried).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from family_presets import FAMILIES, busiest
from quality import Scene, quality, scene_config
from rich.console import Console
from rich.table import Table

from byo.blender import devices, engine
from byo.render.job import build_scene
from byo.scene.plan import make_job
from byo.scene.spec import sample_spec

NO_GPU = 3


def render_on(scene: Scene, device: str, threads: int) -> dict:
    """One render of `scene` at the standard preset on `device` (cpu, gpu or auto): the image, wall
    and CPU seconds of the render alone, and what the render applied (device, denoiser)."""
    cfg = scene_config(scene, {"quality": "standard", "device": device, "denoise": "on"})
    spec = sample_spec(cfg, make_job(cfg, scene.index), 0)
    with engine.own_scene(f"gpu_check_{scene.key}_{device}") as bl_scene:
        applied, _ = build_scene(spec, cfg.family, bl_scene, threads)
        c = bl_scene.cycles
        denoiser = f"{c.denoiser.lower()} on the {applied.get('denoiser_device', 'cpu')}" if c.use_denoising else "none"
        wall, cpu = time.perf_counter(), time.process_time()
        image = engine.render_image(bl_scene)
        return {"image": image, "wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
                "device": applied.get("device"), "backend": applied.get("compute_backend"), "denoiser": denoiser}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cpu-only", action="store_true", help="both sides on the CPU: no GPU needed")
    parser.add_argument("--size", default="640x360", help="WIDTHxHEIGHT of every scene")
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--threads", type=int, default=0, help="CPU threads (default: every CPU)")
    parser.add_argument("--json", type=Path, help="also write the table here")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.lower().split("x"))
    found = devices.gpu_backend()
    console = Console(width=200)
    console.print(f"Blender {devices.report()['blender']}; Cycles GPU backend: "
                  + (f"{found[0]} ({', '.join(found[1])})" if found else f"none (tried {', '.join(devices.BACKENDS)})"))
    if found is None and not args.cpu_only:
        console.print("no GPU for Cycles here: rerun with --cpu-only to check the path on the CPU")
        return NO_GPU
    other = "auto" if args.cpu_only else "gpu"
    threads = args.threads or len(os.sched_getaffinity(0))
    rows = []
    for family in args.families.split(","):
        config = FAMILIES[family]
        scene = Scene(family, config, busiest(config), (width, height))
        cpu = render_on(scene, "cpu", threads)
        gpu = render_on(scene, other, threads)
        same = np.array_equal(gpu["image"], cpu["image"])
        psnr, ssim = (float("inf"), 1.0) if same else quality(gpu["image"], cpu["image"])
        rows.append({"family": family, "scene": scene.key, "cpu_wall_s": round(cpu["wall_s"], 3),
                     "cpu_cpu_s": round(cpu["cpu_s"], 3), "other": other, "other_device": gpu["device"],
                     "other_backend": gpu["backend"], "other_wall_s": round(gpu["wall_s"], 3),
                     "psnr_db": round(psnr, 2) if psnr != float("inf") else "identical", "ssim": round(ssim, 4),
                     "cpu_denoiser": cpu["denoiser"], "other_denoiser": gpu["denoiser"]})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    table = Table("family", "scene", "CPU: wall s (CPU s)", f"{other}: device", f"{other}: wall s", "speed-up",
                  "PSNR (dB)", "SSIM", "denoiser (CPU / other)",
                  title=f"standard preset, {width}x{height}, {threads} CPU threads")
    for r in rows:
        table.add_row(r["family"], r["scene"], f"{r['cpu_wall_s']} ({r['cpu_cpu_s']})",
                      f"{r['other_device']}" + (f" ({r['other_backend']})" if r["other_backend"] else ""),
                      str(r["other_wall_s"]), f"{r['cpu_wall_s'] / max(r['other_wall_s'], 1e-6):.1f}x",
                      str(r["psnr_db"]), str(r["ssim"]), f"{r['cpu_denoiser']} / {r['other_denoiser']}")
    console.print(table)
    if args.json:
        args.json.write_text(json.dumps({"gpu": found and {"backend": found[0], "gpus": list(found[1])},
                                         "cpu_only": args.cpu_only, "size": [width, height], "rows": rows},
                                        indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
