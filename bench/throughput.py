"""Throughput at paper scale, from byo plan's calibration (byo.render.estimate): images per
CPU-hour per family at the papers' sizes (640x360 and 1920x1080, whole frames, the standard
preset as each family applies it), and the full-size render time of every shipped paper config,
extrapolated from a few of its own images spread over its plan. One Cycles thread per image, as
byo render's pool runs on this machine; CPU seconds of the render worker.

Writes bench/results/throughput.json (docs/speed.md quotes its tables). Calibrations are cached
per machine and scene (~/.cache/byo/calibration): --fresh measures everything anew.

    .venv/bin/python bench/throughput.py [--fresh] [--images 3]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml
from figures import QUICK, Section

from byo.families import load_config
from byo.render.estimate import estimate_render
from byo.scene.plan import image_count

ROOT = Path(__file__).resolve().parent.parent
PAPERS = {  # the shipped configs of each paper (dataset_configs/<folder>/README.md maps them)
    "BYO-Eval": "byo_eval", "Auto-Comp": "autocomp", "COMPASS": "compass",
    "the compositional-generalisation study": "compgen", "KamonBench": "crest",
}
# Each family's representative config, as bench/family_presets.py's FAMILIES (not imported: that
# module loads bpy, which byo render's worker processes, re-importing this script, must not).
FAMILY_CONFIGS = {
    "chess": "dataset_configs/chess/count.yaml",
    "clevr": "dataset_configs/clevr/count.yaml",
    "poker": "dataset_configs/poker/count.yaml",
    "crest (3D, Cycles)": "dataset_configs/crest/composite_3d.yaml",
    "crest (flat, Workbench)": "dataset_configs/crest/composite.yaml",
}
SIZES = [(640, 360), (1920, 1080)]
THREADS = 1  # byo render's default pool here: a worker per CPU, one thread each
NODES, CORES_PER_NODE = 10, 32  # a small cluster, for the last column


def _at(config: str, size: tuple[int, int] | None):
    raw = yaml.safe_load((ROOT / config).read_text())
    if size is not None:
        raw.setdefault("scene", {})["resolution"] = list(size)
    if QUICK:  # thumbnails: any object a pixel wide counts as visible (the pipeline checked, not figures)
        raw["scene"].setdefault("render", {})["min_visible_pixels"] = 1
    return load_config(raw, file=config)


def _size_of(cfg) -> str:
    res = cfg.full_scene().get("resolution", "low")
    return res if isinstance(res, str) else "x".join(map(str, res))


def families(section: Section, images: int, fresh: bool) -> None:
    rows = []
    sizes = [(64, 36)] if QUICK else SIZES
    for family, config in (list(FAMILY_CONFIGS.items())[:2] if QUICK else FAMILY_CONFIGS.items()):
        for size in sizes:
            est = estimate_render(_at(config, size), images=images, threads=THREADS, refresh=fresh)
            per = est.calibration.cpu_s_per_image
            rows.append([family, f"{size[0]}x{size[1]}", len(est.calibration.indices), round(per, 2),
                         round(3600 / per), "cached" if est.calibration.cached else "now"])
            print(rows[-1], flush=True)
    section.table("images per CPU-hour per family, standard preset (calibration images of its representative config)",
                  [("family", ""), ("size", "px"), ("images measured", ""), ("CPU per image", "s"),
                   ("images per CPU-hour", ""), ("measured", "")], rows)


def papers(section: Section, images: int, fresh: bool, only: list[str] | None = None) -> None:
    rows = []
    for paper, folder in PAPERS.items():
        if only is not None and folder not in only:
            continue
        configs = sorted((ROOT / "dataset_configs" / folder).glob("*.yaml"))
        for path in configs[:1] if QUICK else configs:
            cfg = _at(str(path.relative_to(ROOT)), (64, 36) if QUICK else None)
            total = image_count(cfg)
            est = estimate_render(cfg, images=images, threads=THREADS, refresh=fresh)
            rows.append([paper, f"{folder}/{path.name}", _size_of(cfg), cfg.full_scene().get("render", {}).get(
                "engine", "cycles"), total, len(est.calibration.indices), round(est.calibration.cpu_s_per_image, 2),
                round(est.cpu_hours, 3), round(est.wall_hours(2), 2), round(est.wall_hours(NODES * CORES_PER_NODE) * 60, 1)])
            print(rows[-1], flush=True)
    section.table("full-size render time of each shipped paper config (extrapolated from its calibration images)",
                  [("paper", ""), ("config", ""), ("size", "px"), ("engine", ""), ("images", ""),
                   ("images measured", ""), ("CPU per image", "s"), ("render", "CPU-hours"),
                   ("wall, this machine (2 CPUs)", "h"), (f"wall, {NODES} nodes x {CORES_PER_NODE} CPUs", "min")], rows)
    section.figure("paper_configs_cpu_hours", round(sum(r[7] for r in rows), 2), "CPU-hours",
                   "every shipped paper config rendered once, at the standard preset")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=3, help="calibration images per config")
    parser.add_argument("--fresh", action="store_true", help="measure anew, ignoring cached calibrations")
    parser.add_argument("--parts", default="families,papers")
    parser.add_argument("--papers", help=f"only these papers' configs (folders: {', '.join(PAPERS.values())})")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "throughput.json")
    args = parser.parse_args()
    section = Section("throughput", "Throughput at paper scale",
                      "CPU seconds per image of byo plan's calibration renders (one Cycles thread per worker, as "
                      "byo render runs here), extrapolated to whole configs.")
    parts = args.parts.split(",")
    if "families" in parts:
        families(section, args.images, args.fresh)
    if "papers" in parts:
        only = args.papers.split(",") if args.papers else None
        if only and set(only) - set(PAPERS.values()):
            parser.error(f"--papers: expected some of {', '.join(PAPERS.values())}, got {args.papers!r}")
        papers(section, args.images, args.fresh, only)
    section.write(args.json)


if __name__ == "__main__":
    main()
