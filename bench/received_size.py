"""Rendering what is received: BYO-Eval's chess identification by distance at 1920x1080 against the
size GPT-4.1 and Claude receive of it (byo render --for MODEL), at the standard quality preset, in
one run (every side measured in the same run, so the machine's load weighs on all). Reports the
CPU seconds per image of each side (the render log's), their ratios, and the questions asked: of
the 1920x1080 images decided at each model's received size (byo questions --for), and of each
model's own render.

    .venv/bin/python bench/received_size.py [--images 1] [--distances 7.5] [--out DIR] [--json FILE]

1920x1080 renders take minutes each on a CPU: `--images` per size (default 1) at the given camera
distances (default the paper's farthest, 7.5 m, where the resize decides). Writes the section of
docs/speed.md between its markers; `--json`: the bench section `make bench` merges (bench/report.py).
"""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path

import yaml
from figures import Section, write_block

from byo.api.ask import write_questions
from byo.api.rendered_for import config_resolution, sized_for
from byo.render.executors.inprocess import InProcess
from byo.render.runner import render_dataset

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "dataset_configs" / "byo_eval" / "chess_identification_distance.yaml"
DOC = ROOT / "docs" / "speed.md"
BEGIN, END = "<!-- received size: begin -->", "<!-- received size: end -->"
MODELS = {"gpt-4.1": "openai:gpt-4.1", "claude": "anthropic:claude-sonnet-4"}


def config(size: tuple[int, int], n: int, distances: list[float]) -> dict:
    """The paper's config at `size`, the standard preset, `n` images per distance."""
    cfg = yaml.safe_load(CONFIG.read_text())
    cfg["dataset"].pop("output_dir", None)
    cfg["dataset"]["n_images"] = n
    cfg["scene"]["resolution"] = list(size)
    cfg["scene"].setdefault("render", {})["quality"] = "standard"
    cfg["variables"]["camera.distance"]["levels"] = distances
    return copy.deepcopy(cfg)


def images(root: Path) -> list[dict]:
    """The render log's image events (empty when nothing was rendered there)."""
    log = root / "render_log.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines()] if log.is_file() else []
    return [r for r in lines if r.get("event") == "image"]


def cpu_seconds(root: Path) -> list[float]:
    """Each image's CPU seconds (the render process's, every thread: a busy machine's steady measure)."""
    return [r["phases"]["cpu"] for r in images(root)]


def wall_seconds(root: Path) -> list[float]:
    return [r["seconds"] for r in images(root)]


def asked(root: Path, models: list[str] | None = None) -> dict:
    """Questions of `root` (flagged, not skipped, so every image's question is counted), and per model
    of `models` how many its received size leaves undecidable."""
    got = write_questions(root, unreadable="flag", for_models=models or (), out=root / "questions.jsonl", force=True)
    s = got.summary
    return {"questions": sum(s.questions.values()), "flagged": sum(s.flagged.values()),
            "undecidable": {m: r["undecidable"] for m, r in s.received.items()},
            "examples": {m: r["examples"] for m, r in s.received.items()}}


def measure(out: Path, n: int, distances: list[float], resolution: str | None = None, reuse: bool = False) -> dict:
    """`resolution`: the config's size to start from (default the paper's 1920x1080; a smoke run's
    smaller); `reuse`: keep the renders of an earlier run in `out` (its render logs' figures)."""
    sizes = {"1920x1080": config_resolution(CONFIG, resolution)}
    for name, spec in MODELS.items():
        size = sized_for(CONFIG, [spec], resolution=resolution).size
        sizes[name] = size
    runs = {}
    for name, size in sizes.items():
        target = out / name
        if not (reuse and images(target)):
            render_dataset(config(size, n, distances), target, executor=InProcess(), show_progress=False)
        runs[name] = {"size": list(size), "seconds": cpu_seconds(target), "wall_seconds": wall_seconds(target)}
    runs["1920x1080"]["questions"] = asked(out / "1920x1080", list(MODELS.values()))
    for name in MODELS:
        runs[name]["questions"] = asked(out / name)
    return runs


def markdown(runs: dict, n: int, distances: list[float]) -> str:
    full = runs["1920x1080"]
    per_full = sum(full["seconds"]) / len(full["seconds"])
    lines = [BEGIN, "## Rendering what is received", "",
             f"Measured by `bench/received_size.py` (one run, {n} image(s) at camera distance(s) "
             f"{', '.join(f'{d:g} m' for d in distances)} per size): BYO-Eval's chess identification by distance at "
             "the standard preset, rendered at 1920x1080 and at the size each model receives of it "
             "(`byo render --for MODEL`), CPU seconds per image (the render process's, every thread) and wall seconds "
             "from the render log.", "",
             "| rendered for | size | CPU s / image | 1920x1080 / this | wall s / image | questions asked | flagged unreadable | "
             "1920x1080 questions undecidable at its received size |", "|---|---|---|---|---|---|---|---|"]
    for name, r in runs.items():
        per = sum(r["seconds"]) / len(r["seconds"])
        q = r["questions"]
        undecidable = "" if name == "1920x1080" else full["questions"]["undecidable"].get(MODELS[name], "")
        wall = sum(r["wall_seconds"]) / len(r["wall_seconds"])
        lines.append(f"| {name} | {r['size'][0]}x{r['size'][1]} | {per:.0f} | {per_full / per:.2f} | {wall:.0f} | "
                     f"{q['questions']} | {q['flagged']} | {undecidable} |")
    return "\n".join([*lines, "", END]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "output" / "bench_received_size")
    parser.add_argument("--images", type=int, default=1, help="images per camera distance and size")
    parser.add_argument("--distances", default="7.5", help="comma-separated camera distances (m)")
    parser.add_argument("--reuse", action="store_true", help="keep the renders already in --out (their logs' figures)")
    parser.add_argument("--resolution", help="start from this size, not the paper's 1920x1080 (a smoke run)")
    parser.add_argument("--json", type=Path, help="write the bench section here (make bench)")
    args = parser.parse_args()
    distances = [float(d) for d in args.distances.split(",")]
    begun = Section("received_size", "Rendering what GPT-4.1 and Claude receive against 1920x1080",
                    "BYO-Eval's chess identification by distance at the standard preset, rendered at 1920x1080 and at "
                    "each model's received size (byo render --for), in one run: CPU seconds per image, and the "
                    "questions asked.")
    runs = measure(args.out, args.images, distances, args.resolution, args.reuse)
    (args.out / "received_size.json").write_text(json.dumps(runs, indent=1))
    if args.resolution is None:  # a smoke run writes no figures into the docs
        write_block(DOC, markdown(runs, args.images, distances), BEGIN, END)
    full = runs["1920x1080"]
    begun.figure("full_hd", round(sum(full["seconds"]) / len(full["seconds"]), 1), "s", "1920x1080: CPU s / image")
    rows = []
    for name in MODELS:
        r = runs[name]
        begun.figure(name, round(sum(r["seconds"]) / len(r["seconds"]), 1), "s", f"{name}'s received size: CPU s / image")
        begun.ratio(f"full_hd_over_{name}", "full_hd", name, f"1920x1080 / {name}'s received size")
        rows.append([name, f"{r['size'][0]}x{r['size'][1]}", r["questions"]["questions"], r["questions"]["flagged"],
                     full["questions"]["undecidable"].get(MODELS[name])])
    begun.table("questions", [("rendered for", ""), ("size", ""), ("questions", ""), ("flagged", ""),
                              ("undecidable at 1920x1080's receipt", "")], rows)
    begun.write(args.json)


if __name__ == "__main__":
    main()
