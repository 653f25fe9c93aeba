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
from quality import BYO_EVAL, SCENES, keys_of, quality, reference, render

from byo.blender import devices
from byo.render.executors.inprocess import InProcess
from byo.render.messages import RenderResult
from byo.render.runner import render_dataset

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
BYO_EVAL_LABEL = "BYO-Eval's 128 samples adaptive"
PRESETS = {"draft": {"quality": "draft"}, "standard": {"quality": "standard"}, "final": {"quality": "final"},
           BYO_EVAL_LABEL: keys_of(BYO_EVAL)}


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
        # at quick sizes an object may fall under the visibility floor: flagged, not a failed image
        render = {"on_hidden": "flag"} if QUICK else {}
        runs = timed_run(_config_file(work, config, size, render), work / name.replace(" ", "_"), images + 1)[1:]
        wall = _mean(r["wall"] for r in runs)
        phase = {k: _mean(r["phases"][k] for r in runs) for k in ("build", "render", "measure", "write", "engine")}
        shown = "x".join(map(str, size)) if size else "config's"
        rows.append([name, shown, len(runs), round(phase["build"], 3), round(phase["render"], 3),
                     round(phase["measure"], 3), round(phase["write"], 3), round(wall, 3),
                     round(100 * (1 - phase["engine"] / wall), 1), round(60 / wall, 1)])
    section.table("time per image by phase (standard preset, one worker, after a warm-up image)",
                  [("family", ""), ("size", "px"), ("images", ""), ("build", "s"), ("render", "s"), ("measure", "s"),
                   ("write", "s"), ("wall", "s"), ("overhead (wall - engine)", "%"), ("rate", "images/min")], rows)


def presets(section: Section) -> None:
    """Each preset next to BYO-Eval's setting on every scene of bench/quality.py (the busiest of
    each family included), in this run: CPU seconds of the render, the speed-up over BYO-Eval's
    setting, PSNR and SSIM against the 1024-sample references."""
    scenes = SCENES[:1] if QUICK else SCENES
    rows, by_setting = [], {}
    for scene in scenes:
        ref = reference(scene)
        measured = {}
        for label, keys in PRESETS.items():
            if QUICK and label in ("final", BYO_EVAL_LABEL):
                keys = {**keys, "samples": 16}
            image, seconds = render(scene, keys)
            measured[label] = (seconds, *quality(image, ref))
            by_setting.setdefault(label, []).append(measured[label])
        baseline = measured[BYO_EVAL_LABEL][0]
        rows += [[scene.key, label, round(s, 2), round(baseline / s, 1), round(p, 2), round(q, 4)]
                 for label, (s, p, q) in measured.items()]
    section.table("quality presets next to BYO-Eval's setting, per scene (CPU seconds of the render, 2 threads)",
                  [("scene", ""), ("setting", ""), ("CPU", "s"), ("speed-up over BYO-Eval's", "x"), ("PSNR", "dB"),
                   ("SSIM", "")], rows)
    chess_count = [i for i, s in enumerate(scenes) if s.family == "chess"]
    for label in ("standard", BYO_EVAL_LABEL):
        key = "standard" if label == "standard" else "baseline"
        section.figure(f"{key}_cpu_s_chess", round(_mean(by_setting[label][i][0] for i in chess_count), 2), "s",
                       f"{label}: CPU seconds per image, chess count 640x360 (mean of {len(chess_count)} scenes)")
    section.ratio("standard_speedup", "baseline_cpu_s_chess", "standard_cpu_s_chess",
                  "standard over BYO-Eval's 128 samples adaptive, chess count", at_least=5)
    keys = [s.key for s in scenes]
    for busiest in ("chess_200_640x360", "clevr_35_320x240"):  # the most pieces, the most objects
        if busiest in keys:
            i = keys.index(busiest)
            section.figure(f"standard_speedup_{busiest.split('_')[0]}_busiest",
                           round(by_setting[BYO_EVAL_LABEL][i][0] / by_setting["standard"][i][0], 2), "x",
                           f"standard over BYO-Eval's 128 samples adaptive on {busiest}", at_least=5)
    worst = min(range(len(scenes)), key=lambda i: by_setting["standard"][i][1])
    section.figure("standard_worst_psnr", round(by_setting["standard"][worst][1], 2), "dB",
                   f"standard: PSNR on its worst scene ({scenes[worst].key})", at_least=45)
    section.figure("standard_worst_ssim", round(min(m[2] for m in by_setting["standard"]), 4), "",
                   "standard: SSIM on its worst scene", at_least=0.995)


def costs(section: Section) -> None:
    """Where a Cycles render's time goes on the busiest scenes: CPU seconds per sample (17
    samples minus 1, undenoised, over 16) and of the denoiser (16 samples denoised minus not),
    so the next change is measured against the ceiling."""
    scenes = [s for s in SCENES if s.key in ("chess_200_640x360", "clevr_35_320x240", "poker_65_800x600")]
    rows = []
    for scene in scenes[1:2] if QUICK else scenes:  # quick: CLEVR's 320x240 only
        plain = {"quality": "final", "adaptive_threshold": None}
        one = render(scene, {**plain, "samples": 1, "denoise": "off"})[1]
        seventeen = render(scene, {**plain, "samples": 17, "denoise": "off"})[1]
        denoised = {prefilter: render(scene, {**plain, "samples": 16, "denoise": "on", "denoise_prefilter": prefilter})[1]
                    for prefilter in ("accurate", "fast", "none")}
        plain16 = seventeen - (seventeen - one) / 16
        rows.append([scene.key, round(one, 2), round((seventeen - one) / 16, 3), round(denoised["accurate"] - plain16, 2),
                     round(denoised["fast"] - plain16, 2), round(denoised["none"] - plain16, 2)])
    section.table("where a render's CPU time goes (2 threads)",
                  [("scene", ""), ("1 sample, all set-up", "s"), ("each further sample", "s"),
                   ("denoiser, accurate prefilter", "s"), ("denoiser, fast prefilter", "s"),
                   ("denoiser, no prefilter", "s")], rows)


def gpu(section: Section) -> None:
    """The standard preset on the GPU next to the CPU, per scene (wall seconds of the render, since a
    GPU's work is not this process's CPU time), when Cycles finds a GPU; else the table says why not."""
    found = devices.gpu_backend()
    if found is None:
        section.table("GPU: skipped", [("why", "")],
                      [[f"Cycles finds no GPU on this machine (tried {', '.join(devices.BACKENDS)}); "
                        "`byo doctor` shows what a machine offers"]])
        return
    rows = []
    for scene in SCENES[:1] if QUICK else SCENES:
        ref = reference(scene)
        timed = {}
        for device in ("cpu", "gpu"):
            started = time.perf_counter()
            image, _ = render(scene, {"quality": "standard", "device": device})
            timed[device] = (time.perf_counter() - started, *quality(image, ref))
        rows.append([scene.key, *(round(v, 3) for v in timed["cpu"][:2]), *(round(v, 3) for v in timed["gpu"][:2]),
                     round(timed["cpu"][0] / timed["gpu"][0], 1)])
    section.table(f"GPU: standard preset on {found[0]} ({', '.join(found[1])}) next to the CPU",
                  [("scene", ""), ("CPU wall", "s"), ("CPU PSNR", "dB"), ("GPU wall", "s"), ("GPU PSNR", "dB"),
                   ("speed-up", "x")], rows)


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
         "costs": lambda section, work, args: costs(section),
         "gpu": lambda section, work, args: gpu(section),
         "long": lambda section, work, args: long_run(section, work, args.long)}
PREFIXES = {"phases": ("time per image",), "presets": ("quality presets", "standard", "baseline"),
            "costs": ("where a render",), "gpu": ("GPU",),
            "long": ("long_run",)}


def _part_of(name: str) -> str:
    return next((p for p, starts in PREFIXES.items() if name.startswith(starts)), "long")


if __name__ == "__main__":
    main()
