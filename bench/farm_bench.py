"""Render-farm throughput, measured in one run on this machine: the same images rendered by a
local pool of workers x Cycles threads (1 x 2, 2 x 1, and 2 x 2, which oversubscribes two
cores), and by Ray on a two-node cluster started here on loopback (1 CPU per node, 1 thread per
worker). The pool's default (as many workers as CPUs, 1 thread each) is chosen by it. Wall time includes
starting the workers (and loading bpy); the cluster's own start-up is not counted. Run with
`make bench`."""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import yaml
from figures import QUICK, Section

from byo.render.executors.pool import LocalPool
from byo.render.executors.ray_cluster import LocalCluster, RayExecutor
from byo.render.runner import render_dataset

CONFIG = {
    "dataset": {"name": "farm_bench", "family": "clevr", "seed": 3, "n_images": 1},
    "scene": {"resolution": [160, 120], "render": {"samples": 16, "denoise": "off"}, "content": {"mode": "random"}},
    "variables": {"content.count": {"type": "varying_among_range", "min": 3, "max": 8}},
}


def measure(config: Path, out: Path, executor) -> dict:
    started = time.perf_counter()
    report = render_dataset(str(config), str(out), executor=executor, show_progress=False)
    wall = time.perf_counter() - started
    seconds = [r.seconds for r in report.rendered]
    return {"images": len(report.rendered), "failed": len(report.failed), "wall_s": round(wall, 1),
            "images_per_min": round(60 * len(report.rendered) / wall, 1),
            "median_render_s": round(statistics.median(seconds), 3) if seconds else None,
            "workers_seen": len({r.worker for r in report.rendered})}


SETUPS = {  # figure key: the setup
    "pool_1x2": "pool 1 worker x 2 threads",
    "pool_2x1": "pool 2 workers x 1 thread",
    "pool_2x2": "pool 2 workers x 2 threads",
    "ray_2x1": "ray 2 nodes x 1 worker x 1 thread",
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=4 if QUICK else 24)
    parser.add_argument("--repeats", type=int, default=1 if QUICK else 2)
    parser.add_argument("--json", type=Path, help="write the section here (bench/results/farm.json)")
    args = parser.parse_args()
    section = Section("farm", f"Render farm: {args.images} CLEVR scenes (160x120, Cycles 16 samples) per run, "
                      f"best of {args.repeats} rounds", " ".join(__doc__.split("Run with")[0].split()))
    runs: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp, LocalCluster(2, cpus_per_node=1) as address:
        config = Path(tmp) / "farm_bench.yaml"
        config.write_text(yaml.safe_dump({**CONFIG, "dataset": {**CONFIG["dataset"], "n_images": args.images}}))
        executors = {"pool_1x2": lambda: LocalPool(1, threads=2), "pool_2x1": lambda: LocalPool(2, threads=1),
                     "pool_2x2": lambda: LocalPool(2, threads=2),
                     "ray_2x1": lambda: RayExecutor(address, threads=1)}
        for round_ in range(args.repeats):
            for key, make in executors.items():
                runs.setdefault(key, []).append(measure(config, Path(tmp) / f"{round_}_{key}", make()))
    rows = []
    for key, measured in runs.items():
        best = max(measured, key=lambda m: m["images_per_min"])
        rows.append([SETUPS[key], best["images"], best["failed"], best["wall_s"], best["images_per_min"],
                     best["median_render_s"], best["workers_seen"], [m["images_per_min"] for m in measured]])
        section.figure(key, best["images_per_min"], "images/min", f"{SETUPS[key]}, best round")
    section.table("setups (best round of each)", [("setup", ""), ("images", ""), ("failed", ""), ("wall", "s"),
                                                  ("rate", "images/min"), ("median render", "s"),
                                                  ("workers seen", ""), ("rate every round", "images/min")], rows)
    section.ratio("workers_2x1_over_1x2", "pool_2x1", "pool_1x2", "pool: 2 workers x 1 thread over 1 x 2, images/min",
                  at_least=1)
    section.write(args.json)


if __name__ == "__main__":
    main()
