"""What the dense passes cost (render.passes): the same CLEVR scenes (320x240, the standard preset)
rendered without passes and with all four (depth, normal, albedo, object ids), taking turns in
one run, in one worker with 2 Cycles threads; seconds per image (the job's own time, median, and
the writer's) and bytes per image of each file. Run with `make bench`."""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import yaml
from figures import QUICK, Section

from byo.render.executors.inprocess import InProcess
from byo.render.runner import render_dataset

PASSES = ["depth", "normal", "albedo", "object_ids"]


def config(n_images: int, passes: list[str] | None) -> dict:
    render = {"passes": passes} if passes else {}
    return {"dataset": {"name": "passes_bench", "family": "clevr", "seed": 11, "n_images": n_images},
            "scene": {"resolution": [320, 240], "render": render, "content": {"mode": "random", "count": [3, 8]}}}


def measure(tmp: Path, name: str, n_images: int, passes: list[str] | None) -> dict:
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config(n_images, passes)))
    out = tmp / name
    started = time.perf_counter()
    report = render_dataset(str(path), str(out), executor=InProcess(2), show_progress=False)
    wall = time.perf_counter() - started
    sizes = {"image": [p.stat().st_size for p in (out / "images").glob("*.png")],
             "mask": [p.stat().st_size for p in (out / "masks").glob("*.png")]}
    for kind in passes or []:
        sizes[kind] = [p.stat().st_size for p in (out / "passes").glob(f"*.{kind}.npy")]
    return {"render_s": statistics.median(r.seconds for r in report.rendered), "wall_s": wall,
            "per_image_s": wall / len(report.rendered),
            "bytes": {k: statistics.mean(v) for k, v in sizes.items() if v}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=2 if QUICK else 8)
    parser.add_argument("--repeats", type=int, default=1 if QUICK else 2)
    parser.add_argument("--json", type=Path, help="write the section here (bench/results/passes.json)")
    args = parser.parse_args()
    section = Section("passes", f"Dense passes: {args.images} CLEVR scenes (320x240, standard preset) without and "
                      f"with render.passes, best of {args.repeats} rounds", " ".join(__doc__.split("Run with")[0].split()))
    runs: dict[str, list[dict]] = {"none": [], "all": []}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.repeats):
            for key, passes in (("none", None), ("all", PASSES)):
                runs[key].append(measure(Path(tmp), f"{key}{round_}", args.images, passes))
    best = {k: min(v, key=lambda m: m["render_s"]) for k, v in runs.items()}
    section.figure("render_none", round(best["none"]["render_s"], 3), "s", "render job per image, no passes (median)")
    section.figure("render_all", round(best["all"]["render_s"], 3), "s", "render job per image, all passes (median)")
    section.figure("extra_s", round(best["all"]["render_s"] - best["none"]["render_s"], 3), "s",
                   "added per image by the passes (render, read and convert)")
    section.figure("wall_none", round(best["none"]["per_image_s"], 3), "s", "wall per image with writing, no passes")
    section.figure("wall_all", round(best["all"]["per_image_s"], 3), "s", "wall per image with writing, all passes")
    section.ratio("slowdown", "render_all", "render_none", "render time with passes / without")
    sizes = best["all"]["bytes"]
    for kind, size in sizes.items():
        section.figure(f"bytes_{kind}", round(size), "bytes", f"{kind} file per image")
    section.figure("bytes_passes", round(sum(sizes[k] for k in PASSES)), "bytes", "all four passes per image")
    section.table("files per image (all passes)", [("file", ""), ("bytes", "")], [[k, round(v)] for k, v in sizes.items()])
    section.write(args.json)


if __name__ == "__main__":
    main()
