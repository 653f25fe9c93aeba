"""Render benchmarks, in one worker process: per family, where an image's time goes (build,
render, measure, write) and the share that is not the engine's own; the quality presets next to
BYO-Eval's 128-sample adaptive setting (time, PSNR and SSIM against the 1024-sample
references of bench/quality.py); and a long run's trend and memory. Writes
bench/results/render.json. Run with `make bench` (BENCH_QUICK=1: small sizes, for the test)."""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import yaml
from figures import QUICK, Section
from quality import BASELINE, SCENES, Scene, quality, reference, scene_config

from byo.executors.inprocess import InProcess
from byo.plan import make_job
from byo.render.job import render_task
from byo.render.messages import RenderResult, RenderTask
from byo.runner import render_dataset
from byo.spec import sample_spec

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"

# Each family's representative config, at the resolution it is measured at.
FAMILIES = [
    ("chess", "dataset_configs/chess/count.yaml", [640, 360]),
    ("clevr", "dataset_configs/clevr/count.yaml", None),
    ("poker", "dataset_configs/poker/count.yaml", None),
    ("crest 3d", "dataset_configs/crest/composite_3d.yaml", None),
    ("crest flat (Workbench)", "dataset_configs/crest/composite.yaml", None),
]
PRESETS = {"draft": {"quality": "draft"}, "standard": {"quality": "standard"}, "final": {"quality": "final"},
           "128 samples adaptive": BASELINE}


def _config_file(work: Path, config: str, resolution, render: dict, images: int | None = None) -> Path:
    raw = yaml.safe_load((ROOT / config).read_text())
    scene = raw.setdefault("scene", {})
    if resolution:
        scene["resolution"] = resolution
    scene["render"] = {**{k: v for k, v in scene.get("render", {}).items() if k != "samples"}, **render}
    if images:
        raw["dataset"]["n_images"] = images
        raw.pop("variables", None)
    path = work / f"{Path(config).stem}.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def timed_run(path: Path, out: Path, limit: int) -> list[dict]:
    """Render the first `limit` images in this process; per image: wall seconds between results
    (writing included), the job's phases, and the process's memory."""
    records: list[dict] = []
    last = [time.perf_counter()]

    def record(result: RenderResult) -> None:
        now = time.perf_counter()
        wall = now - last[0]
        phases = dict(result.phases)
        phases["write"] = max(0.0, wall - result.seconds)  # writing and the runner's bookkeeping
        records.append({"wall": wall, "phases": phases, "rss_mb": result.rss_mb})
        last[0] = now

    render_dataset(str(path), str(out), executor=InProcess(), limit=limit, on_result=record, show_progress=False)
    return records


def _mean(values) -> float:
    values = list(values)
    return statistics.fmean(values) if values else 0.0


def family_phases(section: Section, work: Path, images: int) -> None:
    """Mean seconds per image and phase, after the first image (which pays Blender's set-up)."""
    rows = []
    for name, config, resolution in FAMILIES:
        size = [96, 72] if QUICK else resolution
        runs = timed_run(_config_file(work, config, size, {}), work / name.replace(" ", "_"), images + 1)[1:]
        wall = _mean(r["wall"] for r in runs)
        phase = {k: _mean(r["phases"][k] for r in runs) for k in ("build", "render", "measure", "write", "engine")}
        shown = "x".join(map(str, size)) if size else "config's"
        rows.append([name, shown, len(runs), round(phase["build"], 3), round(phase["render"], 3),
                     round(phase["measure"], 3), round(phase["write"], 3), round(wall, 3),
                     round(100 * (1 - phase["engine"] / wall), 1), round(60 / wall, 1)])
    section.table("time per image by phase (standard preset, one worker, after a warm-up image)",
                  [("family", ""), ("size", "px"), ("images", ""), ("build", "s"), ("render", "s"), ("measure", "s"),
                   ("write", "s"), ("wall", "s"), ("overhead (wall - engine)", "%"), ("rate", "images/min")], rows)


def _task(scene: Scene, render: dict) -> RenderTask:
    """The scene as bench/quality.py renders its references, with these render keys."""
    cfg = scene_config(scene, render)
    job = make_job(cfg, scene.index)
    return RenderTask(cfg, job, sample_spec(cfg, job, 0))


def presets(section: Section) -> None:
    """Each preset and the baseline on the chess count scenes at 640x360, timed in this run
    (whole render jobs, wall clock), compared with the 1024-sample references."""
    scenes = [s for s in SCENES if s.family == "chess"]
    if QUICK:
        scenes = scenes[:1]
    measured = {}
    for label, render in PRESETS.items():
        if QUICK and label in ("final", "128 samples adaptive"):
            render = {**render, "samples": 16}
        runs = []
        for scene in scenes:
            result = render_task(_task(scene, render), threads=2)
            runs.append((result.seconds, *quality(result.image, reference(scene))))
        measured[label] = [_mean(column) for column in zip(*runs, strict=True)]
    baseline = measured["128 samples adaptive"][0]
    rows = [[label, round(s, 2), round(60 / s, 1), round(baseline / s, 1), round(p, 2), round(q, 4)]
            for label, (s, p, q) in measured.items()]
    section.table(f"quality presets: chess count at 640x360, {len(scenes)} images (pieces: 1, 11, 21), "
                  "against 1024-sample references",
                  [("setting", ""), ("wall", "s/image"), ("rate", "images/min"), ("speed-up over baseline", "x"),
                   ("PSNR", "dB"), ("SSIM", "")], rows)
    standard_s, standard_psnr, standard_ssim = measured["standard"]
    section.figure("standard_s_per_image", round(standard_s, 2), "s", "standard: seconds per image (chess 640x360)")
    section.figure("baseline_s_per_image", round(baseline, 2), "s", "128 samples adaptive: seconds per image")
    section.ratio("standard_speedup", "baseline_s_per_image", "standard_s_per_image",
                  "standard over 128 samples adaptive", at_least=10)
    section.figure("standard_psnr", round(standard_psnr, 2), "dB", "standard: PSNR against the reference", at_least=45)
    section.figure("standard_ssim", round(standard_ssim, 4), "", "standard: SSIM against the reference", at_least=0.995)


def long_run(section: Section, work: Path, images: int) -> None:
    """Many images of one config in one worker: is time per image flat, memory flat, overhead small?"""
    size = [64, 48] if QUICK else [640, 360]  # the chess scene
    runs = timed_run(_config_file(work, "dataset_configs/chess/count.yaml", size, {}, images=images),
                     work / "long", images)
    n, windows = len(runs), 5
    per = max(1, (n - 1) // windows)
    chunks = [runs[1 + k * per:1 + (k + 1) * per] or runs[-1:] for k in range(windows)]
    overhead = [1 - r["phases"]["engine"] / r["wall"] for r in runs[1:]]
    rss = [r["rss_mb"] for r in runs]
    section.figure("long_run_rss_first_image_mb", round(rss[0], 1), "MB", "long run: memory after the first image")
    section.table(f"{n} images in one worker (chess count, {size[0]}x{size[1]}, standard), in five windows",
                  [("window", ""), ("median wall", "s/image"), ("mean overhead", "%"), ("RSS at the end", "MB")],
                  [[k + 1, round(statistics.median(r["wall"] for r in c), 3),
                    round(100 * _mean(1 - r["phases"]["engine"] / r["wall"] for r in c), 2), round(c[-1]["rss_mb"], 1)]
                   for k, c in enumerate(chunks)])
    first, last = (statistics.median(r["wall"] for r in c) for c in (chunks[0], chunks[-1]))
    section.figure("long_run_images", n, "images", "long run: images")
    section.figure("long_run_overhead_percent", round(100 * _mean(overhead), 2), "%",
                   "long run: wall time outside the engine, mean per image", at_most=5)
    section.figure("long_run_time_trend", round(last / first, 3), "", "long run: median time, last window / first")
    section.figure("long_run_rss_growth_mb", round(rss[-1] - chunks[0][-1]["rss_mb"], 1), "MB",
                   "long run: memory growth after the first window (warm-up)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=2 if QUICK else 4, help="images per family (after a warm-up)")
    parser.add_argument("--long", type=int, default=12 if QUICK else 200, help="images of the long run")
    parser.add_argument("--json", type=Path, default=RESULTS / "render.json")
    parser.add_argument("--parts", default=",".join(PARTS), help="measure only these; keep the file's others")
    args = parser.parse_args()
    parts = args.parts.split(",")
    section = Section("render", "Rendering: phases, quality presets, a long run",
                      "One worker process, 2 threads. Overhead is wall time minus the engine's own (Cycles and "
                      "its denoiser); PSNR and SSIM against 1024-sample references (bench/quality.py).")
    with tempfile.TemporaryDirectory() as tmp:
        for part in parts:
            PARTS[part](section, Path(tmp), args)
    if set(parts) != set(PARTS) and args.json.exists():  # keep what this run did not measure again
        kept = json.loads(args.json.read_text())
        section.tables = [t for t in kept["tables"] if _part_of(t["name"]) not in parts] + section.tables
        section.tables.sort(key=lambda t: list(PARTS).index(_part_of(t["name"])))
        for kind in ("figures", "ratios"):
            getattr(section, kind).update({k: v for k, v in kept[kind].items() if _part_of(k) not in parts})
    section.write(args.json)


# Each part of the benchmark, and how its tables' and figures' names start.
PARTS = {"phases": lambda section, work, args: family_phases(section, work, args.images),
         "presets": lambda section, work, args: presets(section),
         "long": lambda section, work, args: long_run(section, work, args.long)}
PREFIXES = {"phases": ("time per image",), "presets": ("quality presets", "standard", "baseline"),
            "long": ("long_run",)}


def _part_of(name: str) -> str:
    return next((p for p, starts in PREFIXES.items() if name.startswith(starts)), "long")


if __name__ == "__main__":
    main()
