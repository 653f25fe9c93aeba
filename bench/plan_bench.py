"""`byo plan --estimate` against the real run, one run each: the demo config and a paper config
(COMPASS's, 100 CLEVR scenes at 320x240; BYO-Eval's chess identification, 50 images at 1920x1080,
about 1.5 CPU-hours here, on request). In this run, for each: the estimate (a fresh calibration in a
cache of its own), then the whole config rendered by byo render's pool (its default workers),
its questions written, and a real vision-language model asking every question: the tiny
transformers VLM of tests/hf_tiny.py (randomly initialised, built from configs: nothing is
downloaded) at prices of this bench's price file. The run records its usage; its cost is the
price file applied to that usage. Reported: estimate / actual for the render's CPU time (the
workers' CPU seconds: steady on a busy machine), its wall time, the questions, the calls and the
cost (the issue asks within 25% for the render, 5% for the cost).

    .venv/bin/python bench/plan_bench.py [--cases demo,compass,chess_identification]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from figures import Section

import byo
from byo.eval.estimate import estimate_model, estimate_questions
from byo.providers import GenerationParams
from byo.providers.catalog import load_catalog
from byo.render.estimate import estimate_render
from byo.render.executors.pool import LocalPool, default_workers

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from hf_tiny import save_tiny_llava  # noqa: E402

CASES = {"demo": "dataset_configs/demo.yaml", "compass": "dataset_configs/compass/compass.yaml",
         "chess_identification": "dataset_configs/byo_eval/chess_identification.yaml"}
DEFAULT_CASES = "demo,compass"
MAX_TOKENS = 8  # the tiny model's answers: random weights write until the cap (or an end token)
PRICE = {"input_per_million": 2.0, "output_per_million": 8.0}  # this bench's price file: any prices will do


def measure(name: str, config: str, work: Path, section: Section, model: Path, providers: Path) -> list:
    cfg = byo.load_config(ROOT / config)
    workers = default_workers()
    threads = max(1, len(os.sched_getaffinity(0)) // workers)
    os.environ["BYO_CACHE"] = str(work / "cache")  # a calibration of this run's own
    started = time.perf_counter()
    est = estimate_render(cfg, threads=threads)
    cal = est.calibration
    questions = estimate_questions(cal.dataset, est.images, len(cal.indices), keys=cfg.questions.keys,
                                   unreadable=cfg.questions.unreadable)
    catalog = load_catalog(providers)
    modelled = estimate_model(f"hf:{model}", questions, cal.dataset, catalog=catalog, answer_tokens=MAX_TOKENS)
    plan_s = time.perf_counter() - started

    cpu = []
    started = time.perf_counter()
    report = byo.render_dataset(cfg, work / name, executor=LocalPool(workers, threads=threads), progress=False,
                                on_result=lambda r: cpu.append(r.phases["cpu"]))
    wall = time.perf_counter() - started
    asked = byo.write_questions(report.out_dir, keys=cfg.questions.keys, unreadable=cfg.questions.unreadable)
    run = byo.evaluate(report.out_dir, "hf", str(model), params=GenerationParams(max_tokens=MAX_TOKENS),
                       providers_file=providers, run="tiny", device="cpu")
    recorded = json.loads((run.run_dir / "run.json").read_text())
    actual_cost = catalog.providers["hf"].models[str(model)].cost(recorded["tokens"]["input"],
                                                                  recorded["tokens"]["output"])
    rows = [
        [name, "images", est.images, len(cpu), round(est.images / len(cpu), 3)],
        [name, "render CPU (s)", round(est.cpu_s, 1), round(sum(cpu), 1), round(est.cpu_s / sum(cpu), 3)],
        [name, f"render wall at the calibration's load, {workers} workers x {threads} thread (s)",
         round(est.wall_hours(workers * threads, loaded=True) * 3600, 1), round(wall, 1),
         round(est.wall_hours(workers * threads, loaded=True) * 3600 / wall, 3)],
        [name, "questions", questions.total, asked.count, round(questions.total / asked.count, 3)],
        [name, "model calls", modelled.calls, recorded["answered"], round(modelled.calls / recorded["answered"], 3)],
        [name, "input tokens", modelled.input_tokens, recorded["tokens"]["input"],
         round(modelled.input_tokens / recorded["tokens"]["input"], 3)],
        [name, "output tokens", modelled.output_tokens, recorded["tokens"]["output"],
         round(modelled.output_tokens / max(1, recorded["tokens"]["output"]), 3)],
        [name, "cost (USD)", round(modelled.cost_usd, 6), round(actual_cost, 6), round(modelled.cost_usd / actual_cost, 3)],
    ]
    section.figure(f"{name}_render_cpu_estimate_over_actual", rows[1][4], "", f"{name}: estimated / measured render "
                   "CPU time", at_least=0.75, at_most=1.25)
    section.figure(f"{name}_cost_estimate_over_actual", rows[7][4], "", f"{name}: estimated cost / the price file "
                   "applied to the recorded usage", at_least=0.95, at_most=1.05)
    section.figure(f"{name}_calibration_s", round(plan_s, 1), "s", f"{name}: the estimate's own wall time "
                   f"({len(cal.indices)} calibration images and the question count)")
    for row in rows:
        print(row, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default=DEFAULT_CASES)
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "plan.json")
    args = parser.parse_args()
    section = Section("plan", "byo plan's estimate against the real run",
                      "One run each: the estimate (3 calibration images, rendered in this run), then the whole config "
                      "rendered by byo render's pool, its questions, and a real VLM (a tiny random transformers model) "
                      "asking them; CPU time is the render workers' own.")
    os.environ.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"})
    rows = []
    with tempfile.TemporaryDirectory(prefix="byo_plan_bench_") as tmp:
        work = Path(tmp)
        model = save_tiny_llava(work / "tiny-vlm")
        providers = work / "providers.yaml"
        providers.write_text(json.dumps({"providers": {"hf": {"models": {str(model): PRICE}}}}))
        for name in args.cases.split(","):
            rows += measure(name, CASES[name], work, section, model, providers)
    section.table("estimate / actual", [("config", ""), ("what", ""), ("estimate", ""), ("actual", ""),
                                        ("estimate / actual", "")], rows)
    section.write(args.json)


if __name__ == "__main__":
    main()
