"""Command line: `byo plan`, `byo render`, `byo status`, `byo merge`, `byo doctor`, `byo questions`,
`byo audit`, `byo contact-sheet`, `byo eval`, `byo score`, `byo report`, `byo compare`, `byo view`,
`byo sheet KIND` (the sheets the families declare, each also under its older name), `byo export`,
`byo import-predictions`, `byo human`."""

from __future__ import annotations

import argparse
import json
import math
import re
from collections import Counter
from functools import partial
from pathlib import Path

from PIL import Image
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from byo import __version__
from byo.audit.run import AUDIT_FILE, audit_dataset
from byo.authoring.byo_eval_import import import_config
from byo.cli import doctor
from byo.core.dataset import IMAGES, LEGENDS, Layout, atomic_write_text
from byo.core.errors import ConfigError, FatalRenderError, RenderError
from byo.core.inputs import read_json, reading
from byo.core.schema import validation_problems
from byo.core.sheets import contact_sheet
from byo.core.stops import Stopped, stoppable
from byo.eval.layout import MAX_ANSWER_CHARS, PREDICTIONS, RUN_FILE
from byo.eval.repeats import evaluate_repeats
from byo.eval.run import EvalSettings, evaluate
from byo.families import family_names, get_family, load_config, sheets
from byo.families.base import Sheet, SheetRequest
from byo.providers import GenerationParams
from byo.questions.generate import DEFAULT_PROMPTS, PROMPT_SETS, generate
from byo.questions.load import SUMMARY_FILE
from byo.questions.real import real_questions
from byo.questions.sheet import SHEET_FILE, unreadable_sheet
from byo.render.executors import Executor
from byo.render.executors.inprocess import InProcess
from byo.render.executors.pool import LocalPool, default_workers
from byo.render.merge import merge
from byo.render.runner import render_dataset, render_images, sample_tasks
from byo.render.status import as_json, dataset_status, time_per_image
from byo.scene.plan import Shard, combination, combination_count, image_count, jobs
from byo.score.compare import CORRECTIONS, compare, default_output, write_comparison
from byo.score.correlate import correlation_table, prompt_table, scene_pair_table
from byo.score.power import PowerSettings, plan_power
from byo.score.report import write_report
from byo.score.rows import load_run
from byo.score.run import load_scores, score_run
from byo.score.tables import parse_bins
from byo.view.build import write_view

console = Console(stderr=True, soft_wrap=True)


class Defaults(argparse.ArgumentDefaultsHelpFormatter):
    """--help shows each option's default."""


DefaultsParser = partial(argparse.ArgumentParser, formatter_class=Defaults)
MAX_IMAGES = 100_000  # byo render refuses larger datasets unless --max-images is raised


def whole(minimum: int):
    """An argparse type: a whole number >= minimum."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:40]!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {value}")
        return value

    return parse


SIZE_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KIB": 2**10, "MIB": 2**20, "GIB": 2**30}


def byte_size(text: str) -> int:
    """An argparse type: a size in bytes, with an optional unit (500MB, 2GB, 64MiB)."""
    found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([A-Za-z]*)\s*", text)
    try:
        value = float(found[1]) * SIZE_UNITS[found[2].upper()]
    except (TypeError, KeyError):
        raise argparse.ArgumentTypeError(f"expected a size such as 500MB or 2GB, got {text[:40]!r}") from None
    if not math.isfinite(value) or value < 1:
        raise argparse.ArgumentTypeError(f"expected a size of at least 1 byte, got {text[:40]!r}")
    return int(value)


def device_name(text: str) -> str:
    """An argparse type: a torch device (--provider hf)."""
    if not re.fullmatch(r"auto|cpu|mps|cuda(:[0-9]{1,2})?", text):
        raise argparse.ArgumentTypeError(f"expected auto, cpu, cuda, cuda:N or mps, got {text[:40]!r}")
    return text


def slurm_name(text: str) -> str:
    """An argparse type: a Slurm partition, account or QOS name (it goes into an #SBATCH line)."""
    if not re.fullmatch(r"[A-Za-z0-9_.,\-]{1,100}", text):
        raise argparse.ArgumentTypeError(f"expected letters, digits, '_', '-', '.' or ',', got {text[:40]!r}")
    return text


def positive(text: str) -> float:
    """An argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text[:40]!r}")
    return value


def cmd_real_questions(args) -> int:
    path, n = real_questions(args.folder, args.like, labels=args.labels, out=args.output)
    console.print(f"{n} questions of {args.like} asked of the photos: {path}\nnext: byo eval {args.folder} ...")
    return 0


def cmd_correlate(args) -> int:
    synthetic, real = (load_run(run)[0] for run in (args.synthetic, args.real))
    result = {"synthetic": str(args.synthetic), "real": str(args.real),
              "rows": correlation_table(synthetic, real), "scene_pairs": scene_pair_table(synthetic, real),
              "prompts": prompt_table(synthetic, real)}
    print_correlation(args, result)
    out = args.output or Path(args.real) / "correlation.json"
    atomic_write_text(out, json.dumps(result, indent=1) + "\n")
    console.print(f"wrote {out}")
    return 0


def print_correlation(args, result: dict) -> None:
    """Figures 51, 52 and 53 of BYO-Eval's appendix E as tables; a coefficient the data cannot give
    is "not estimable"."""
    def coefficient(value) -> str:
        return "not estimable" if value is None else f"{value:.2f}"

    def folded(table: Table) -> Table:  # a narrow terminal wraps the cells, never cuts them
        for column in table.columns:
            column.overflow = "fold"
        return table

    table = folded(Table("key", "variable", "levels", "Pearson r", "Spearman rho", "note",
                         title=f"Figure 51, per-level accuracy: {args.synthetic} (synthetic) against {args.real} "
                               "(real)"))
    for r in result["rows"]:
        table.add_row(r["key"], r["variable"], str(r["levels"]), coefficient(r["pearson"]),
                      coefficient(r["spearman"]), r["note"] or "")
    Console().print(table)
    if not result["scene_pairs"]:
        console.print("Figures 52 and 53 compare each photo with the render it reproduces: no photo names its render "
                      "(labels.yaml: render: images/...).")
        return
    table = folded(Table("key", "scene pairs", "with a coefficient", "mean Pearson r", "mean Spearman rho",
                         title="Figure 52, per scene pair (right/wrong over the prompt variants), mean over the pairs"))
    for r in result["scene_pairs"]:
        table.add_row(r["key"], str(r["of"]), str(r["estimable"]), coefficient(r["pearson"]),
                      coefficient(r["spearman"]))
    Console().print(table)
    table = folded(Table("key", "variable", "prompt", "levels", "with a coefficient", "mean Pearson r",
                         "mean Spearman rho",
                         title="Figure 53, per prompt: per level over the scene pairs, mean over the levels"))
    for r in result["prompts"]:
        table.add_row(r["key"], r["variable"], f"{r['grouping']} {r['prompt']}", str(r["of"]), str(r["estimable"]),
                      coefficient(r["pearson"]), coefficient(r["spearman"]))
    Console().print(table)


def cmd_import_config(args) -> int:
    config, text, skipped = import_config(args.config, family=args.family, skip_unmapped=args.skip_unmapped)
    for key, why in skipped:
        console.print(f"[yellow]left out[/yellow] {key}: {why}")
    if args.output:
        atomic_write_text(args.output, text)
        console.print(f"{config['dataset']['name']} ({config['dataset']['family']}): {args.output}\n"
                      f"next: byo plan {args.output}")
    else:
        print(text, end="")
    return 0


def cmd_plan(args) -> int:
    cfg = load_config(args.config)
    family = cfg.family
    n_combos, reps, n_images = combination_count(cfg), cfg.repetitions, image_count(cfg)
    sizes = cfg.dataset.split_sizes() if cfg.dataset.splits else None
    if sizes:
        reps = sum(n for _, n in sizes)
    out = Console()
    out.print(f"[bold]{cfg.dataset.name}[/bold] ({family.name}): {n_combos:,} combinations x {reps:,} "
              f"images = [bold]{n_images:,} images[/bold]")
    if sizes:
        out.print("splits, one after another, each from its own seed stream (images per combination): "
                  + ", ".join(f"{name} {n:,}" for name, n in sizes))
    if n_images > args.max_images:
        console.print(f"[yellow]more than --max-images {args.max_images:,}: byo render refuses it unless "
                      "--max-images is raised; scenes not sampled[/yellow]")
    elif not args.no_sample:
        sample_tasks(cfg, jobs(cfg), args.config)
    randoms = cfg.random_variables()
    if randoms:
        out.print("drawn per image: " + ", ".join(f"{k} ({v.type})" for k, v in randoms.items()))
    table = Table("#", *[k for k in cfg.enumerated()], "images", "first index")
    for i in range(min(n_combos, args.max_rows)):
        first = str(i * sizes[0][1]) if sizes else str(i * reps)  # with splits: in the first split
        table.add_row(str(i), *[str(v) for v in combination(cfg, i).values()], str(reps), first)
    out.print(table)
    if n_combos > args.max_rows:
        out.print(f"... {n_combos - args.max_rows:,} more combinations")
    print_readability(cfg, out)
    if args.power:
        print_power(args, cfg, out)
    return 0


def print_readability(cfg, out: Console) -> None:
    """The question policy for unreadable questions and, once the dataset is rendered and asked
    (its questions_summary.json), how many questions each level had skipped or flagged and why."""
    out.print(f"unreadable questions: {cfg.questions.unreadable} (questions.unreadable; docs/readability.md)")
    summary = Path(cfg.dataset.output_dir or Path("output") / cfg.dataset.name) / SUMMARY_FILE
    if not summary.is_file():
        out.print("questions per level: known once rendered (byo questions counts them per level)")
        return
    data = read_json(summary)
    levels = {v: {lv: Counter(c) for lv, c in by.items()} for v, by in data.get("levels", {}).items()}
    why = {v: {lv: Counter(c) for lv, c in by.items()} for v, by in data.get("why", {}).items()}
    out.print(level_table(levels, why, f"Questions per level ({summary}, policy {data.get('policy', 'skip')})"))


def print_power(args, cfg, out: Console) -> None:
    s = PowerSettings(difference=args.difference, baseline=args.baseline, alpha=args.alpha, power=args.target_power,
                      icc=args.icc, keys_per_image=args.keys_per_image, variants=args.variants,
                      threshold_difference=args.threshold_difference)
    levels = {name: [var.level(i) for i in range(var.count())] for name, var in cfg.enumerated().items()}
    result = plan_power(levels, cfg.repetitions, s)
    table = Table("scope", "combinations", "images per group", "n_images needed", f"power at n_images {cfg.repetitions}",
                  title=f"Power: a {s.difference:.0%} accuracy difference (from {s.baseline:.0%}), alpha {s.alpha:g}, "
                        f"power {s.power:.0%}, {result['questions_per_image']} questions per image, intra-image "
                        f"correlation {s.icc:g} (design effect {result['design_effect']:.2f})")
    for r in result["accuracy"]:
        table.add_row(r["scope"], str(r["combinations"]), str(r["images_per_group"]), f"[bold]{r['n_images']}[/bold]",
                      f"{r['power_with_config']:.0%}")
    out.print(table)
    for r in result.get("thresholds", []):
        out.print(f"threshold of {r['variable']} {s.threshold_difference:g} apart: {r['images_per_level']} images per "
                  f"level, n_images {r['n_images']} (assumed logistic curve: threshold {r['assumed_threshold']:.3g}, "
                  f"steepness {r['assumed_steepness']:.3g}, lapse {s.lapse:g}, chance {s.chance:g})")
    path = Path(args.config).with_suffix(".power.json")
    atomic_write_text(path, json.dumps({"config": str(args.config), **result}, indent=1) + "\n")
    console.print(f"power: {path}")


def executor_for(args) -> Executor:
    if args.in_process or args.executor == "in-process":
        return InProcess(args.threads)
    if args.executor == "ray":
        # Ray is an optional extra, imported only when asked for (it adds a second to start-up).
        from byo.render.executors.ray_cluster import RayExecutor

        return RayExecutor(args.address, threads=args.threads or 1, timeout=args.timeout, retries=args.retries)
    return LocalPool(args.workers or default_workers(), recycle_after=args.recycle_after, threads=args.threads,
                     timeout=args.timeout, retries=args.retries)


def cmd_render(args) -> int:
    if args.executor == "slurm":
        return render_slurm(args)
    report = render_dataset(args.config, args.output, executor=executor_for(args), limit=args.limit,
                            resume=args.resume, shard=args.shard, max_images=args.max_images, wait=args.wait,
                            on_wait=waiting)
    root = report.out_dir
    for name, found in report.repaired:
        console.print(f"[yellow]rendered again[/yellow] {name}: {'; '.join(found)}", highlight=False)
    shard = f", shard {args.shard}" if args.shard else ""
    console.print(f"rendered {len(report.rendered)}, already complete {report.skipped}, "
                  f"failed {len(report.failed)} (of {report.planned} planned{shard})")
    console.print(f"images: {root / IMAGES}\nlegends: {root / LEGENDS}")
    for name, path in report.written.items():
        console.print(f"{name.replace('_', ' ')}: {path}")
    return 1 if report.failed else 0


def render_slurm(args) -> int:
    """--executor slurm: a job array over shards (byo.render.slurm_farm), then byo merge."""
    from byo.render.executors.slurm import SlurmSettings, require_submitit
    from byo.render.slurm_farm import ShardWork, render_on_slurm

    require_submitit()
    cfg = load_config(args.config)
    given = cfg.slurm
    settings = SlurmSettings(
        partition=args.partition or given.partition, time_minutes=args.job_time or given.time_minutes,
        mem_gb=args.job_mem or given.mem_gb, cpus_per_task=args.cpus_per_task or given.cpus_per_task,
        account=args.account or given.account, qos=args.qos or given.qos,
        array_parallelism=args.array_parallelism or given.array_parallelism, local=args.slurm_local)
    work = ShardWork(workers=args.workers or given.workers or 1, threads=args.threads,
                     timeout=args.timeout, retries=args.retries, limit=args.limit, max_images=args.max_images)

    def submitted(report) -> None:
        where = "submitit's local executor" if args.slurm_local else "Slurm"
        console.print(f"submitted {len(report.job_ids)} array tasks to {where} (jobs {report.job_ids[0]}"
                      f"{' ... ' + report.job_ids[-1] if len(report.job_ids) > 1 else ''}); shards and logs: "
                      f"{report.shards_dir}", highlight=False)

    report = render_on_slurm(args.config, args.output, shards=args.shards, settings=settings, work=work,
                             wait=not args.no_wait, on_submitted=submitted)
    if args.no_wait:
        console.print(f"when the tasks have ended: byo merge {report.shards_dir}/shard-* -o {report.out_dir}")
        return 0
    rendered = sum(t["rendered"] for t in report.tasks)
    console.print(f"rendered {rendered}, failed {len(report.failed_images)} (of {report.planned} planned), "
                  f"{len(report.failed_tasks)} of {len(report.job_ids)} array tasks failed")
    if not report.merged:
        console.print(f"[yellow]not merged[/yellow]: rerun the same command to render what is missing (each shard "
                      f"resumes), or see the tasks' logs in {report.shards_dir}", highlight=False)
        return 1
    console.print(f"merged into {report.out_dir}")
    for name, path in report.written.items():
        console.print(f"{name.replace('_', ' ')}: {path}")
    return 0


def cmd_status(args) -> int:
    status = dataset_status(args.dataset, check=args.check)
    if args.json:
        print(as_json(status))
        return 0
    out = Console()
    where = f", shard {status.shard}" if status.shard else ""
    limit = f", first {status.limit} images" if status.limit is not None else ""
    table = Table("planned", "done", "missing", "failed", "damaged", title=f"{status.root} ({status.state}{where}{limit})")
    table.add_row(*(str(len(x)) for x in (status.planned, status.done, status.missing, status.failed,
                                          status.damaged)))
    out.print(table)
    timing = time_per_image(status.seconds)
    if timing:
        out.print(f"seconds per image ({len(status.seconds)} renders): " +
                  ", ".join(f"{k} {v:.2f}" for k, v in timing.items()))
    for name, error in status.failed.items():
        out.print(f"[red]failed[/red] {name}: {error}", highlight=False)
    for name, found in status.damaged.items():
        out.print(f"[yellow]damaged[/yellow] {name}: {'; '.join(found)} (--resume renders it again)", highlight=False)
    if not args.check:
        out.print("(sizes checked against the legends; --check also compares every file's SHA-256)")
    return 0


def cmd_merge(args) -> int:
    written = merge(args.dirs, args.output)
    console.print(f"merged {len(args.dirs)} directories into {args.output}")
    for name, path in written.items():
        console.print(f"{name.replace('_', ' ')}: {path}")
    return 0


def cmd_doctor(args) -> int:
    table = Table("", "", title="byo doctor: what this machine offers", show_header=False)
    for name, value in doctor.facts():
        table.add_row(f"[bold]{name}[/bold]", value)
    Console().print(table)
    return 0


def cmd_questions(args) -> int:
    def listed(value):
        return [v for v in value.split(",") if v] if value else None

    path, summary = generate(args.dataset, preprompts=listed(args.preprompts) or ["neutral"],
                             instructions=listed(args.instructions) or ["direct"], keys=listed(args.keys),
                             templates=args.templates, out=args.output, wait=args.wait, on_wait=waiting,
                             unreadable=args.unreadable, prompts=args.prompts)
    table = Table("key", "questions", "skipped", "flagged", "why skipped", title=f"{summary.images} images x "
                  f"{summary.variants} prompt variants (unreadable questions: {summary.policy})")
    for key in sorted(set(summary.questions) | set(summary.skipped)):
        reasons = "; ".join(f"{r} ({n} images)" for r, n in summary.reasons.get(key, {}).items())
        table.add_row(key, str(summary.questions[key]), str(summary.skipped[key]), str(summary.flagged[key]), reasons)
    Console().print(table)
    if summary.levels:
        Console().print(level_table(summary.levels, summary.why, "Questions per level"))
    console.print(f"{sum(summary.questions.values())} questions ({sum(summary.flagged.values())} flagged as "
                  f"unreadable), {sum(summary.skipped.values())} skipped: {path}")
    if args.sheet:
        sheet = unreadable_sheet(args.dataset, out=path.with_name(SHEET_FILE), summary_file=path.with_name(SUMMARY_FILE))
        console.print(f"unreadable cases: {sheet}" if sheet else "no skipped or flagged unreadable case to draw")
    return 0


def level_table(levels: dict, why: dict, title: str) -> Table:
    """Per variable and level: questions asked, skipped and flagged, and the reasons."""
    table = Table("variable", "level", "asked", "skipped", "flagged", "why skipped or flagged", title=title)
    for variable, by_level in levels.items():
        for level, counts in by_level.items():
            reasons = "; ".join(f"{r} ({n})" for r, n in Counter(why.get(variable, {}).get(level, {})).most_common())
            table.add_row(variable, level, str(counts.get("asked", 0)), str(counts.get("skipped", 0)),
                          str(counts.get("flagged", 0)), reasons)
    return table


def cmd_audit(args) -> int:
    report = audit_dataset(args.dataset, questions=args.questions)
    shown = ("ok", "wrong", "ill_posed", "flagged", "unchecked")
    table = Table("key", "questions", "ok", "wrong", "ill-posed", "flagged", "unchecked",
                  title=f"{report.family}: {report.images} images, {len(report.questions)} distinct questions")
    for key, counts in report.table().items():
        table.add_row(key, str(sum(counts.values())), *(str(counts[s]) for s in shown))
    table.add_row("[bold]all[/bold]", str(len(report.questions)), *(str(report.count(s)) for s in shown))
    out = Console()
    out.print(table)
    findings = [q for q in report.questions if q.status in ("wrong", "ill_posed")]
    for q in findings[: args.show]:
        out.print(f"[red]{q.status}[/red] {q.id}: {q.reason}", highlight=False)
    for p in report.legend_problems[: args.show]:
        out.print(f"[red]legend[/red] {p.image}: {p.field}: {p.problem}", highlight=False)
    for d in report.damaged[: args.show]:
        console.print(f"[red]damaged[/red] {escape(d.file)}: {escape(d.problem)}", highlight=False)
    more = sum(max(0, len(x) - args.show) for x in (findings, report.legend_problems, report.damaged))
    if more:
        out.print(f"... {more} more in the audit file")
    damaged = f", {len(report.damaged)} damaged images (not audited)" if report.damaged else ""
    flagged = f", {report.count('flagged')} asked flagged as unreadable" if report.count("flagged") else ""
    console.print(f"{report.count('wrong')} wrong, {report.count('ill_posed')} ill-posed{flagged}, "
                  f"{len(report.legend_problems)} legend fields disagreeing with the pixels{damaged}: "
                  f"{Path(report.dataset) / AUDIT_FILE}")
    return 1 if report.failed else 0


def cmd_contact_sheet(args) -> int:
    layout = Layout(args.dataset)
    legends = layout.legends()
    caption = None
    if legends:
        with reading(layout.legend(legends[0]["name"]), "a legend"):
            caption = get_family(legends[0]["family"]).caption
    path = contact_sheet(args.dataset, caption=caption, columns=args.columns, thumb_width=args.thumb_width,
                         keys=args.keys.split(",") if args.keys else None, out=args.output, legends=legends)
    console.print(f"contact sheet: {path}")
    return 0


def cmd_eval(args) -> int:
    try:
        params = GenerationParams(temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed,
                                  detail=args.detail)
    except ValidationError as err:
        raise ConfigError("<command line>", [("--" + key.replace("_", "-"), msg)
                                             for key, msg in validation_problems(err)]) from None
    settings = EvalSettings(
        dataset=args.dataset, provider=args.provider, model=args.model, params=params, questions=args.questions,
        providers_file=args.providers, run=args.run, base_url=args.base_url, api=args.api, key_env=args.key_env,
        key_file=args.key_file, concurrency=args.concurrency, rpm=args.rpm, limit=args.limit,
        timeout=args.timeout, retries=args.retries, max_side=args.max_side, cache=args.cache, repeats=args.repeats,
        max_answer_chars=args.max_answer_chars or None, wait=args.wait,
        device=args.device, dtype=args.dtype, batch_size=args.batch_size, structured=args.structured,
        shots=args.shots, shots_from=args.shots_from, shots_seed=args.shots_seed,
        text_only=args.text_only)
    if args.repeats == 1:  # a signal outside the run's own handlers ends in run()'s Stopped
        return eval_summary(evaluate(settings, on_wait=waiting), args)
    codes = []
    for i, report in enumerate(evaluate_repeats(settings, on_wait=waiting), start=1):
        console.print(f"[bold]repeat {i} of {args.repeats}[/bold]: {report.run_dir}")
        codes.append(eval_summary(report, args))
    if args.temperature == 0:
        console.print("[yellow]--temperature 0: the repeats differ only where the model is not deterministic[/yellow]")
    return max(codes)


def read_run_info(run_dir: Path) -> dict:
    path = Path(run_dir) / RUN_FILE
    return json.loads(path.read_text()) if path.is_file() else {}


def eval_summary(report, args) -> int:
    if report.stopped:
        stop = report.stopped
        done = (f"{len(report.rows)} of {report.n_questions} questions answered, {report.unanswered} left "
                f"({report.requests_sent} requests sent, {report.cached} answers from the cache)")
        if stop.reason == "endpoint":
            kept = f"; predictions so far: {report.run_dir / PREDICTIONS}" if report.rows else ""
            console.print(f"[red]error:[/red] {escape(stop.message)}. {done}{kept}; rerun the same command to resume",
                          highlight=False)
        else:
            console.print(f"{stop.message}: {done}; rerun the same command to resume", highlight=False)
        return stop.exit_code
    statuses = ", ".join(f"{k} {n}" for k, n in sorted(report.statuses.items()))
    info = read_run_info(report.run_dir)
    if info.get("ranks"):  # an image-text model ranked the candidate captions
        calls = info.get("model_calls") or {}
        console.print(f"{len(report.rows)} questions ranked: {statuses}; {report.cached} kept from an earlier "
                      f"invocation; model calls {report.requests_sent} ({calls.get('images', 0)} images, "
                      f"{calls.get('texts', 0)} captions embedded; "
                      f"{sum((info.get('embeddings_cached') or {}).values())} embeddings from the cache)"
                      + (f"; {info['without_candidates']} questions without candidate captions left out"
                         if info.get("without_candidates") else ""), highlight=False)
        console.print(f"predictions: {report.run_dir / PREDICTIONS}")
        return 1 if report.failed else 0
    cost = f"${report.cost_new_usd:.4f}" if report.cost_new_usd is not None else "n/a (no price)"
    if report.reference:
        console.print(f"{len(report.rows)} questions: {statuses} (reference provider {args.provider}: "
                      "no model was asked)")
    else:
        console.print(f"{len(report.rows)} questions: {statuses}; {report.cached} from the cache, "
                      f"{report.requests_sent} requests sent; tokens {report.tokens_new.get('total', 0):,} "
                      f"this run ({report.tokens.get('total', 0):,} in all), cost {cost}")
    console.print(f"predictions: {report.run_dir / PREDICTIONS}")
    if report.failed:
        console.print("[yellow]rerun the same command to retry the failed questions[/yellow]")
    return 1 if report.failed else 0


def cmd_score(args) -> int:
    scores, paths = score_run(args.run, n_boot=args.bootstrap, seed=args.seed, require_complete=args.require_complete,
                              tolerance=args.tolerance, criterion=args.criterion,
                              perplexity_model=args.perplexity_model, bins=dict(args.bins or []))
    table = Table("key", "type", "n", "parse rate", "accuracy", "F1 BYO-Eval", "F1 macro", "MAE", "NMAE",
                  title=f"{args.run} ({scores.facts.get('model')}, all prompt variants"
                        f"{', ' + scores.partial if scores.partial else ''})")
    for column in table.columns:  # a narrow terminal wraps the cells, never cuts them
        column.overflow = "fold"
    for r in scores.tables["metrics"]:
        if r["variant"] == "all" and not r["variable"]:
            table.add_row(r["key"] if r["key"] != "*" else "[bold]all questions[/bold]", r["answer_type"], str(r["n"]),
                          f"{r['parse_rate']:.0%}", f"{r['accuracy']:.0%} [{r['accuracy_lo']:.0%}-{r['accuracy_hi']:.0%}]",
                          _fmt(r.get("f1_byoeval")), _fmt(r.get("f1_macro")), _fmt(r.get("mae")), _fmt(r.get("nmae")))
    Console().print(table)
    print_retrieval(scores)
    print_breaking_points(scores)
    print_stability(scores)
    warn_partial(args.run, scores)
    console.print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def print_retrieval(scores) -> None:
    rows = [r for r in scores.tables.get("retrieval", []) if r["variant"] == "all"]
    if rows:
        table = Table("key", "how", "n", "candidates", "recall@1 [95% CI]", "chance",
                      title="Recall@1 over the candidate captions (ties shared; intervals clustered by image)")
        for r in rows:
            table.add_row(r["key"], "ranked" if r["ranked"] else "answered", str(r["n"]), f"{r['candidates']:.1f}",
                          f"{r['recall_at_1']:.0%} [{r['recall_at_1_lo']:.0%}-{r['recall_at_1_hi']:.0%}]",
                          f"{r['chance']:.0%}" if r["chance"] is not None else "")
        Console().print(table)
    gaps = [r for r in scores.tables.get("compass_integration", []) if r["variant"] == "all" and r["n"] == "all"]
    if gaps:
        table = Table("level", "captions", "R@1 composed", "R@1 decomposed", "delta", "delta over N (mean +- sd)",
                      title="COMPASS: compositional integration gap (seed 003, Table 2)")
        for r in gaps:
            spread = (f"{r['delta_mean_over_n']:.3f} +- {r['delta_sd_over_n']:.3f}"
                      if r["delta_sd_over_n"] is not None else f"{r['delta_mean_over_n']:.3f}")
            table.add_row(r["level"], str(r["captions"]), f"{r['r1_composed']:.1%}", f"{r['r1_decomposed']:.1%}",
                          f"{r['delta']:+.3f}", spread)
        Console().print(table)
    for r in scores.tables.get("compass_perplexity", []):
        if r.get("note"):
            console.print(f"COMPASS perplexity check: {r['note']}", highlight=False)


def print_breaking_points(scores) -> None:
    fits = [f for f in scores.tables.get("breaking_points", []) if f["link"] == "logistic"]
    if not fits:
        return
    table = Table("key", "variable", "breaks at [95% CI]", "slope", "lapse", "fit p", "subitizing",
                  title="Breaking points (logistic; criterion halfway from chance to the ceiling; intervals resample "
                        "images within levels)")
    for f in fits:
        if f["verdict"] == "breaks":
            ci = f" [{f['threshold_lo']:.3g}-{f['threshold_hi']:.3g}]" if f.get("threshold_lo") is not None else ""
            shown = f"{f['threshold']:.3g}{ci}"
        else:
            shown = f"{f['verdict']}" + (f": {f['note']}" if f.get("note") else "")
        table.add_row(f["key"], f["variable"], shown, _fmt(f.get("slope")), _fmt(f.get("lapse")),
                      _fmt(f.get("gof_p")), _fmt(f.get("subitizing")))
    Console().print(table)


def print_stability(scores) -> None:
    rows = scores.tables.get("stability") or []
    if not rows:
        return
    table = Table("key", "n", "agreement", "Fleiss' kappa", "accuracy mean", "sd", "min-max",
                  title=f"Repeat stability over {rows[0]['repeats']} repeats ({rows[0]['runs']})")
    for r in rows:
        table.add_row(r["key"] if r["key"] != "*" else "all questions", str(r["n"]), f"{r['agreement']:.0%}",
                      _fmt(r["fleiss_kappa"]), f"{r['accuracy_mean']:.1%}", f"{r['accuracy_sd']:.1%}",
                      f"{r['accuracy_min']:.1%}-{r['accuracy_max']:.1%}")
    Console().print(table)


def warn_partial(run: Path, scores) -> None:
    if scores.partial:
        console.print(f"[yellow]{escape(str(run))}: {scores.partial}; every figure is over the {scores.facts['answered']} "
                      "answered questions. Rerun the same byo eval command to finish the run "
                      "(--require-complete makes this an error)[/yellow]", highlight=False)


def _fmt(value) -> str:
    return "" if value is None else f"{value:.2f}"


def cmd_report(args) -> int:
    runs = [load_scores(run, n_boot=args.bootstrap, seed=args.seed, require_complete=args.require_complete,
                        tolerance=args.tolerance, criterion=args.criterion, bins=dict(args.bins or []))
            for run in args.runs]
    for run, scores in zip(args.runs, runs, strict=True):
        warn_partial(run, scores)
    viewer = None
    if not args.no_viewer:
        viewer = write_view(runs, Path(args.output).with_name(Path(args.output).stem + "_samples.html"))
    path = write_report(runs, args.output, title=args.title, viewer=viewer)
    console.print(f"[bold]report: {path.resolve()}[/bold]" + (f"\nsample viewer: {viewer.resolve()}" if viewer else ""))
    return 0


def cmd_compare(args) -> int:
    a, b = (load_scores(run, n_boot=args.bootstrap, seed=args.seed, tolerance=args.tolerance,
                        criterion=args.criterion, bins=dict(args.bins or [])) for run in (args.run_a, args.run_b))
    result = compare(a, b, n_boot=args.bootstrap, seed=args.seed, correction=args.correction)
    out = Console()
    s = result["settings"]
    table = Table("key", "variable", "level", "n", "images", "A", "B", "A - B [95% CI]", "McNemar p", "clustered p",
                  "verdict", title=f"A = {a.facts['run']} ({a.facts.get('model')}), B = {b.facts['run']} "
                  f"({b.facts.get('model')}): {result['paired']} paired questions; adjusted p: {s['correction']}; "
                  "CI: paired bootstrap of images")
    for r in result["differences"]:
        if r["variable"] and not args.levels:
            continue
        ci = f" [{r['difference_lo']:+.1%}, {r['difference_hi']:+.1%}]" if r["difference_lo"] is not None else ""
        table.add_row(r["key"] if r["key"] != "*" else "[bold]all questions[/bold]", r["variable"], r["level"],
                      str(r["n"]), str(r["images"]), f"{r['accuracy_a']:.1%}", f"{r['accuracy_b']:.1%}",
                      f"{r['difference']:+.1%}{ci}", _p(r["p_mcnemar"], r["p_mcnemar_adjusted"]),
                      _p(r["p_clustered"], r["p_clustered_adjusted"]), r["verdict"])
    out.print(table)
    if result["thresholds"]:
        thresholds = Table("key", "variable", "threshold A", "threshold B", "A - B [95% CI]", "note",
                           title="Breaking points (logistic), paired bootstrap of images")
        for r in result["thresholds"]:
            ci = (f" [{r['difference_lo']:+.2f}, {r['difference_hi']:+.2f}]" if r.get("difference_lo") is not None
                  else "")
            shown = [_fmt(r[f"threshold_{x}"]) if r[f"verdict_{x}"] == "breaks" else r[f"verdict_{x}"] for x in "ab"]
            thresholds.add_row(r["key"], r["variable"], *shown,
                               f"{r['difference']:+.2f}{ci}" if r["difference"] is not None else "–", r.get("note") or "")
        out.print(thresholds)
    paths = write_comparison(result, args.output or default_output(a, b))
    console.print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def _p(raw: float, adjusted: float) -> str:
    return f"{raw:.2g} (adj. {adjusted:.2g})"


def cmd_view(args) -> int:
    runs = [load_scores(run, n_boot=args.bootstrap, seed=args.seed) for run in args.runs]
    out = args.output or Path(args.runs[0]) / "view.html"
    path = write_view(runs, out, title=args.title)
    console.print(f"[bold]viewer: {path.resolve()}[/bold] ({sum(len(s.rows) for s in runs):,} answers)")
    return 0


def cmd_sheet(args) -> int:
    sheet: Sheet = args.sheet
    options = {o.name: getattr(args, o.name) for o in sheet.options}
    rendered = None
    if sheet.configs is not None and not args.preview:
        rendered = [(Image.fromarray(result.image), result.legend) for config in sheet.configs(options)
                    for result in render_images(config)]
    target = args.dataset if sheet.target == "dataset" else args.output
    output = args.output if sheet.target == "dataset" else None
    console.print(f"{sheet.kind} sheet: {sheet.draw(SheetRequest(target, output, options, rendered))}")
    return 0


def cmd_export(args) -> int:
    from byo.export import export

    paths = export(args.dataset, args.format, args.output, force=args.force, license=args.license, task=args.task,
                   shard_size=args.shard_size, wait=args.wait, on_wait=waiting)
    console.print(f"exported {args.dataset} as {args.format}: {args.output}\n"
                  + "\n".join(f"{k}: {p}" for k, p in paths.items() if not k.startswith("shard ")))
    return 0


def cmd_import_predictions(args) -> int:
    from byo.export.predictions import import_predictions

    report = import_predictions(args.file, args.format, args.dataset, run=args.run, model=args.model,
                                force=args.force, max_answer_chars=args.max_answer_chars or None, wait=args.wait,
                                on_wait=waiting)
    statuses = ", ".join(f"{k} {n}" for k, n in sorted(report.statuses.items()))
    console.print(f"{len(report.rows)} answers ({statuses}), {report.unanswered} questions unanswered\n"
                  f"predictions: {report.run_dir / 'predictions.jsonl'}\nnext: byo score {report.run_dir}")
    return 0


def cmd_human(args) -> int:
    try:  # the `human` extra: starlette and uvicorn
        from byo.human.serve import HumanSettings, serve
    except ModuleNotFoundError as err:
        raise ConfigError("<command line>", [("byo human", f"needs the `human` extra ({err.name} is not installed): "
                                              "pip install 'byo-render[human]'")]) from None
    return serve(HumanSettings(dataset=args.dataset, run=args.run, host=args.host, port=args.port,
                               questions=args.questions, variant=args.variant, per_level=args.per_level))


def add_human_parser(sub) -> None:
    hu = sub.add_parser("human", help="a web page that asks people the dataset's questions; their answers are "
                                      "runs of provider human (one per annotator) for byo score and byo report")
    hu.add_argument("dataset", type=Path, help="dataset directory (with questions.jsonl)")
    hu.add_argument("--run", default="human", help="run name: each annotator's answers go to DATASET/runs/RUN-NAME")
    hu.add_argument("--host", default="127.0.0.1", help="address to listen on; any other than loopback requires "
                                                         "the access token printed at start")
    hu.add_argument("--port", type=whole(0), default=8000, help="port (0: one the system assigns)")
    hu.add_argument("--questions", type=Path, help="question file (default DATASET/questions.jsonl)")
    hu.add_argument("--variant", help="prompt variant asked, PREPROMPT/INSTRUCTION, or 'all' (default: the file's "
                                      "first)")
    hu.add_argument("--per-level", type=whole(1), help="at most N questions of each key at each combination of "
                                                       "levels (the same sample for every annotator)")
    hu.set_defaults(func=cmd_human)


def add_export_parsers(sub) -> None:
    from byo.export import FORMATS
    from byo.export.predictions import FORMATS as PREDICTION_FORMATS

    ex = sub.add_parser("export", help="write a dataset for another harness (hf, lmms-eval, inspect, vlmevalkit) or "
                                       "for training (coco, webdataset)")
    ex.add_argument("dataset", type=Path, help="dataset directory (with questions.jsonl)")
    ex.add_argument("--format", required=True, choices=FORMATS)
    ex.add_argument("-o", "--output", type=Path, required=True, help="output directory (new or empty)")
    ex.add_argument("--license", help="license in the dataset card (hf; default cc-by-4.0)")
    ex.add_argument("--task", help="task name (lmms-eval, inspect; default byo_<dataset name>)")
    ex.add_argument("--shard-size", type=byte_size, help="webdataset: close a shard once it holds this much "
                    "(bytes, or with a unit: 500MB, 2GB; default 256MB)")
    ex.add_argument("--force", action="store_true", help="write into a non-empty output directory")
    add_wait(ex, "output directory")
    ex.set_defaults(func=cmd_export)

    im = sub.add_parser("import-predictions", help="answers from another harness become a run for byo score")
    im.add_argument("file", type=Path, help="lmms-eval samples .jsonl, Inspect log (.eval, .json), or id/response .jsonl")
    im.add_argument("--format", required=True, choices=PREDICTION_FORMATS)
    im.add_argument("--dataset", type=Path, required=True, help="the dataset the answers are for")
    im.add_argument("--run", help="run name: DATASET/runs/RUN (default FORMAT-MODEL)")
    im.add_argument("--model", help="model name (default: from the file)")
    im.add_argument("--force", action="store_true", help="replace the run's predictions")
    add_max_answer_chars(im)
    add_wait(im, "run")
    im.set_defaults(func=cmd_import_predictions)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="byo", description="Controlled synthetic scenes for VLM evaluation.",
                                formatter_class=Defaults)
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=DefaultsParser)

    rq = sub.add_parser("real-questions", help="ask real photographs with hand-written labels (FOLDER/labels.yaml) "
                                               "the questions of a synthetic dataset, word for word")
    rq.add_argument("folder", type=Path, help="folder of photos with labels.yaml")
    rq.add_argument("--like", type=Path, required=True, help="the synthetic dataset whose questions are asked")
    rq.add_argument("--labels", type=Path, help="the labels file (default FOLDER/labels.yaml)")
    rq.add_argument("-o", "--output", type=Path, help="default: FOLDER/questions.jsonl")
    rq.set_defaults(func=cmd_real_questions)

    co = sub.add_parser("correlate", help="Pearson and Spearman correlation between a run on synthetic images and a "
                                          "run on real photos, per key: of per-level accuracy, per scene pair and "
                                          "per prompt (BYO-Eval appendix E, Figures 51-53)")
    co.add_argument("synthetic", type=Path, help="run directory on the synthetic dataset")
    co.add_argument("real", type=Path, help="run directory on the photos")
    co.add_argument("-o", "--output", type=Path, help="default: REAL/correlation.json")
    co.set_defaults(func=cmd_correlate)

    imp = sub.add_parser("import-config", help="a BYO-Eval config (seed 002, appendix D) as a project config; "
                                              "keys without a counterpart are named (exit 2)")
    imp.add_argument("config", type=Path, help="BYO-Eval YAML: a dataset config (variables) or a base config")
    imp.add_argument("-o", "--output", type=Path, help="write the project config here (default: print it)")
    imp.add_argument("--family", choices=family_names(), help="the family, when the config does not say")
    imp.add_argument("--skip-unmapped", action="store_true",
                     help="leave out keys without a counterpart (listed, and as comments in the output)")
    imp.set_defaults(func=cmd_import_config)

    plan = sub.add_parser("plan", help="validate a config; print the image count and combinations")
    plan.add_argument("config")
    plan.add_argument("--max-rows", type=whole(1), default=50, help="combinations to list")
    add_max_images(plan)
    plan.add_argument("--no-sample", action="store_true",
                      help="skip sampling every scene (which catches placements that cannot be met)")
    plan.add_argument("--power", action="store_true", help="images needed to tell two models apart; written to "
                      "CONFIG.power.json beside the config")
    plan.add_argument("--difference", type=_fraction, default=0.10, help="--power: accuracy difference to detect")
    plan.add_argument("--baseline", type=_fraction, default=0.5, help="--power: accuracy of the weaker model")
    plan.add_argument("--alpha", type=_fraction, default=0.05, help="--power: significance level (two-sided)")
    plan.add_argument("--target-power", type=_fraction, default=0.8, help="--power: the power wanted")
    plan.add_argument("--icc", type=_unit, default=0.3, help="--power: assumed intra-image correlation of verdicts")
    plan.add_argument("--keys-per-image", type=whole(1), default=1, help="--power: question keys asked per image")
    plan.add_argument("--variants", type=whole(1), default=1, help="--power: prompt variants per question")
    plan.add_argument("--threshold-difference", type=positive,
                      help="--power: also the images per level to tell two thresholds this far apart")
    plan.set_defaults(func=cmd_plan)

    render = sub.add_parser("render", help="render a dataset config")
    add_render_arguments(render)
    render.set_defaults(func=cmd_render)

    status = sub.add_parser("status", help="planned, done, missing, failed and damaged images of a render "
                            "directory (also while it renders)")
    status.add_argument("dataset", type=Path)
    status.add_argument("--check", action="store_true", help="compare every file with the SHA-256 its legend "
                        "records (default: sizes only)")
    status.add_argument("--json", action="store_true", help="print the status as JSON")
    status.set_defaults(func=cmd_status)

    merge_ = sub.add_parser("merge", help="combine shard outputs into one dataset")
    merge_.add_argument("dirs", type=Path, nargs="+", help="render directories of the same config")
    merge_.add_argument("-o", "--output", type=Path, required=True, help="new or empty directory")
    merge_.set_defaults(func=cmd_merge)

    doc = sub.add_parser("doctor", help="what this machine offers: Blender, devices, cores, Ray, keys, Ollama")
    doc.set_defaults(func=cmd_doctor)

    questions = sub.add_parser("questions", help="write questions.jsonl for a rendered dataset")
    questions.add_argument("dataset", type=Path)
    questions.add_argument("--preprompts", help="comma-separated: neutral,debiased,cot,debiased_cot,helpful")
    questions.add_argument("--instructions", help="comma-separated: direct,declarative,fill_blank")
    questions.add_argument("--keys", help="comma-separated question keys or patterns ('compass_*'; default: all of "
                           "the family)")
    questions.add_argument("--templates", type=Path, default=None, help="question templates folder")
    questions.add_argument("--prompts", default=DEFAULT_PROMPTS, choices=list(PROMPT_SETS),
                           help="prompt set: the project's own wording (byo) or BYO-Eval's (byo-eval: its "
                                "preprompts, instruction styles and question wordings)")
    questions.add_argument("-o", "--output", type=Path, help="default: DATASET/questions.jsonl")
    questions.add_argument("--unreadable", choices=("skip", "flag", "ask"), default=None,
                           help="questions a readability rule finds unreadable in the image: skip them, ask them "
                                "flagged (scored apart), or ask them (default: the config's questions.unreadable, "
                                "else skip; docs/readability.md)")
    questions.add_argument("--sheet", action="store_true",
                           help=f"also draw DATASET/{SHEET_FILE}: the skipped and flagged unreadable cases, each "
                                "object outlined and the reason written under it")
    add_wait(questions, "dataset (a render)")
    questions.set_defaults(func=cmd_questions)

    audit = sub.add_parser("audit", help="recompute every answer from the masks and the camera; exit 1 on any "
                                         "wrong or ill-posed question or legend field disagreeing with the pixels")
    audit.add_argument("dataset", type=Path)
    audit.add_argument("--questions", type=Path, help="question file (default DATASET/questions.jsonl)")
    audit.add_argument("--show", type=int, default=20, help="print at most this many findings of each kind")
    audit.set_defaults(func=cmd_audit)

    sheet = sub.add_parser("contact-sheet", help="thumbnail grid of a rendered dataset")
    sheet.add_argument("dataset", type=Path)
    sheet.add_argument("-o", "--output", type=Path)
    sheet.add_argument("--columns", type=whole(1))
    sheet.add_argument("--thumb-width", type=whole(16), default=200)
    sheet.add_argument("--keys", help="comma-separated level variables to print under each image")
    sheet.set_defaults(func=cmd_contact_sheet)

    ev = sub.add_parser("eval", help="ask a VLM provider every question of a dataset")
    add_eval_arguments(ev)
    ev.set_defaults(func=cmd_eval)

    score = sub.add_parser("score", help="parse a run's answers; write scores.json, CSV tables and parsed.jsonl")
    score.add_argument("run", type=Path, help="run directory DATASET/runs/NAME")
    add_interval_arguments(score)
    add_curve_arguments(score)
    add_require_complete(score)
    score.add_argument("--perplexity-model", help="COMPASS's perplexity check of the negatives: a transformers "
                       "causal language model (a Hub name such as gpt2, or a folder); without it the check is skipped")
    score.set_defaults(func=cmd_score)

    report = sub.add_parser("report", help="one self-contained HTML report comparing runs and prompt variants")
    report.add_argument("runs", type=Path, nargs="+", help="run directories DATASET/runs/NAME (scored if needed)")
    report.add_argument("-o", "--output", type=Path, default=Path("report.html"))
    report.add_argument("--title", help="report title")
    report.add_argument("--no-viewer", action="store_true", help="skip the sample viewer (REPORT_samples.html and "
                        "REPORT_samples_files/ beside the report, linked from it)")
    add_interval_arguments(report)
    add_curve_arguments(report)
    add_require_complete(report)
    report.set_defaults(func=cmd_report)

    cmp = sub.add_parser("compare", help="two runs over the same questions, paired: accuracy differences with "
                                          "McNemar's test and an image bootstrap, and threshold differences")
    cmp.add_argument("run_a", type=Path, help="run directory DATASET/runs/A (scored if needed)")
    cmp.add_argument("run_b", type=Path, help="run directory of the same questions")
    cmp.add_argument("-o", "--output", type=Path, help="output directory (default DATASET/comparisons/A--B)")
    cmp.add_argument("--correction", choices=list(CORRECTIONS), default="holm",
                     help="multiple-comparison control: holm (family-wise) or bh (Benjamini-Hochberg)")
    cmp.add_argument("--levels", action="store_true", help="print every level's row, not only each key's")
    add_interval_arguments(cmp)
    add_curve_arguments(cmp)
    cmp.set_defaults(func=cmd_compare)

    view = sub.add_parser("view", help="a static page of every answered question: image, overlay of the objects "
                                       "asked about, prompt, answer, parse, truth, verdict; runs side by side")
    view.add_argument("runs", type=Path, nargs="+", help="run directories DATASET/runs/NAME (scored if needed)")
    view.add_argument("-o", "--output", type=Path, help="the page (default RUN/view.html); its data and overlays go "
                      "to FILE_files/ beside it")
    view.add_argument("--title", help="page title")
    add_interval_arguments(view)
    view.set_defaults(func=cmd_view)

    add_sheet_parsers(sub)
    add_export_parsers(sub)
    add_human_parser(sub)
    return p


def add_sheet_parsers(sub) -> None:
    """`byo sheet KIND` for every sheet an installed family declares, and each under its older name."""
    declared = sheets()
    sheet = sub.add_parser("sheet", help="a labelled sheet a family draws: " + ", ".join(s.kind for s in declared))
    kinds = sheet.add_subparsers(dest="kind", required=True, parser_class=DefaultsParser)
    for s in declared:
        add_sheet_arguments(kinds.add_parser(s.kind, help=s.help), s)
        if s.alias:
            add_sheet_arguments(sub.add_parser(s.alias, help=f"{s.help} (byo sheet {s.kind})"), s)


def add_sheet_arguments(p: argparse.ArgumentParser, sheet: Sheet) -> None:
    if sheet.target == "dataset":
        p.add_argument("dataset", type=Path)
        p.add_argument("-o", "--output", type=Path, help=sheet.output_help or None)
    else:
        p.add_argument("output", type=Path)
    for option in sheet.options:
        p.add_argument(option.flag, type=whole(option.minimum), default=option.default, help=option.help)
    if sheet.configs is not None:
        p.add_argument("--preview", action="store_true", help=sheet.preview_help)
    p.set_defaults(func=cmd_sheet, sheet=sheet)


def add_interval_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bootstrap", type=whole(0), default=1000, help="bootstrap resamples for error intervals (0: none)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")


def add_curve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tolerance", type=whole(0), default=0,
                   help="breaking points of counts score |error| <= this as a hit")
    p.add_argument("--criterion", type=_fraction, default=0.5,
                   help="threshold: where accuracy has come this far from chance to the ceiling")
    p.add_argument("--bins", type=_bins, action="append", default=None, metavar="VARIABLE=LO-HI,...",
                   help="ranges of a numeric variable's levels for the ranges table (repeatable; metrics keep every "
                        "level), e.g. content.count=1-4,5-9,10-21 or content.count=byo-eval (BYO-Eval's Table 3)")


def _bins(text: str) -> tuple[str, list[tuple[float, float]]]:
    """An argparse type: VARIABLE=LO-HI,... (byo.score.tables.parse_bins)."""
    try:
        return parse_bins(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _fraction(text: str) -> float:
    """An argparse type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1 (exclusive), got {text[:40]!r}")
    return value


def _unit(text: str) -> float:
    """An argparse type: a number in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a number from 0 up to 1 (exclusive), got {text[:40]!r}")
    return value


def add_require_complete(p: argparse.ArgumentParser) -> None:
    p.add_argument("--require-complete", action="store_true",
                   help="a run with unanswered questions (stopped or killed) is an error (exit 2), not a partial score")


def add_eval_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dataset", type=Path, help="dataset directory (with questions.jsonl)")
    p.add_argument("--provider", required=True,
                   help="openai, groq, ollama, openai-compatible, hf (transformers in this process), blind, oracle, "
                   "clip (open_clip) and hf-clip (transformers CLIP / SigLIP), which rank candidate captions, "
                   "rank-oracle, rank-blind, or a --providers entry")
    p.add_argument("--model", help="model name (optional for blind and oracle; hf: a Hub name or a local folder)")
    p.add_argument("--questions", type=Path, help="question file (default DATASET/questions.jsonl)")
    p.add_argument("--providers", type=Path, help="providers YAML: endpoints, models, prices")
    p.add_argument("--run", help="run name: DATASET/runs/RUN (default PROVIDER-MODEL); rerun it to resume")
    p.add_argument("--base-url", help="API base URL (openai-compatible: required)")
    p.add_argument("--api", choices=["chat", "responses"], help="OpenAI API (default chat)")
    p.add_argument("--key-env", help="environment variable holding the API key")
    p.add_argument("--key-file", type=Path, help="file holding the API key (alone, or NAME=KEY lines)")
    p.add_argument("--concurrency", type=whole(1), default=8, help="requests in flight at once")
    p.add_argument("--rpm", type=positive, help="at most this many requests per minute")
    p.add_argument("--limit", type=whole(1), help="only the first N questions")
    p.add_argument("--timeout", type=positive, help="seconds per request (default 60)")
    p.add_argument("--retries", type=whole(0), default=4, help="retries of a failed request (429, 5xx, timeouts)")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--max-tokens", type=whole(1), help="maximum output tokens")
    p.add_argument("--seed", type=int)
    p.add_argument("--detail", choices=["auto", "low", "high"], help="OpenAI image detail")
    p.add_argument("--max-side", type=whole(16), help="downscale images whose longest side exceeds this (pixels)")
    p.add_argument("--cache", type=Path, help="request cache (default DATASET/runs/cache.sqlite)")
    p.add_argument("--structured", action="store_true", help="ask for the answer as JSON of a schema built from its "
                   "answer type (response_format; ollama: format), read without heuristics; the run is "
                   "PROVIDER-MODEL-structured: byo report and byo compare set it against the free-form run")
    p.add_argument("--text-only", action="store_true", help="the text-only baseline: ask a language model "
                   "(openai, groq, ollama, openai-compatible) each question without its image, to measure what the "
                   "options alone give away (caption priors, Auto-Comp's blind LLM); the run is PROVIDER-MODEL-text-only")
    hf = p.add_argument_group("--provider hf, clip, hf-clip (pip install 'byo-render[hf]' or '[clip]')")
    hf.add_argument("--device", default="auto", type=device_name, help="where the model runs: auto (CUDA, then MPS, then CPU), cpu, "
                    "cuda, cuda:1, mps")
    hf.add_argument("--dtype", choices=["auto", "float32", "bfloat16", "float16"], default="auto",
                    help="the weights' dtype (auto: the checkpoint's)")
    hf.add_argument("--batch-size", type=whole(1), default=8, help="hf: questions generated together (at most "
                    "--concurrency); clip, hf-clip: images or captions embedded together")
    p.add_argument("--repeats", type=whole(1), default=1, help="ask each question K times: repeat 1 is the run, "
                   "repeat r the run RUN.repeat-r (asked anew, cached per repeat); byo score reports their agreement")
    shots = p.add_argument_group("few-shot prompts (openai, groq, openai-compatible, ollama)")
    shots.add_argument("--shots", type=whole(0), default=0, help="K solved examples (image, prompt, true answer) of "
                       "the same question key and prompt before each question, never its own image; the run is "
                       "PROVIDER-MODEL-Kshot")
    shots.add_argument("--shots-from", metavar="SPLIT|DATASET", help="where the examples come from: a split of the "
                       "dataset (train, val, test) or another dataset directory (default: the whole dataset)")
    shots.add_argument("--shots-seed", type=whole(0), default=0, help="which examples are drawn (per question)")
    add_max_answer_chars(p)
    add_wait(p, "run")


def answer_cap(text: str) -> int:
    """An argparse type: 0 (no cap) or at least 100 characters."""
    value = whole(0)(text)
    if 0 < value < 100:
        raise argparse.ArgumentTypeError(f"expected 0 (keep answers whole) or at least 100, got {value}")
    return value


def add_max_answer_chars(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-answer-chars", type=answer_cap, default=MAX_ANSWER_CHARS,
                   help="store at most this many characters of an answer (its beginning and end; the cut is "
                        "recorded in the prediction); 0: keep every answer whole")


def add_wait(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--wait", action="store_true", help=f"when another process writes the {what}, wait for it to end "
                   "(default: exit 2 naming it)")


def waiting(holder: str) -> None:
    console.print(f"[yellow]waiting[/yellow] for {holder} to finish", highlight=False)


def add_render_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config")
    p.add_argument("-o", "--output", help="output directory (default: dataset.output_dir or output/NAME)")
    p.add_argument("--limit", type=whole(1), help="only the first N images of the plan")
    p.add_argument("--resume", action="store_true", help="continue: skip complete images, redo incomplete ones")
    p.add_argument("--workers", type=whole(1), help="render processes (threads are shared among them; default: one "
                   "per CPU, as many as memory holds at 1 GB each; slurm: per array task, slurm.workers)")
    p.add_argument("--recycle-after", type=whole(1), default=50, help="restart a worker after N images")
    p.add_argument("--in-process", action="store_true", help="render in this process (bpy imported here); "
                   "same as --executor in-process")
    p.add_argument("--executor", choices=["pool", "in-process", "ray", "slurm"], default="pool",
                   help="pool: worker processes here; ray: Ray workers across a cluster; slurm: a job array over "
                   "--shards, merged into -o")
    p.add_argument("--address", help="Ray cluster address (default: RAY_ADDRESS, else a Ray started here)")
    p.add_argument("--threads", type=whole(1), help="Cycles threads per worker (pool default: cores / "
                   "workers; ray: CPUs each Ray worker requests, default 1)")
    p.add_argument("--timeout", type=positive, help="seconds one image may take before its worker is "
                   "killed (pool and ray; default: no limit)")
    p.add_argument("--retries", type=whole(0), default=2,
                   help="further attempts at an image whose worker crashed or timed out")
    p.add_argument("--shard", type=_shard, help="render only shard I of N (0 <= I < N): images whose index is I "
                   "modulo N; `byo merge` combines the shards' directories")
    add_max_images(p)
    add_wait(p, "output directory")
    slurm = p.add_argument_group("--executor slurm (submitit; each also from the config's `slurm:` section)")
    slurm.add_argument("--shards", type=whole(1), help="array tasks, one shard each (slurm.shards)")
    slurm.add_argument("--partition", type=slurm_name, help="Slurm partition (slurm.partition)")
    slurm.add_argument("--job-time", type=whole(1), help="wall time per task, minutes (slurm.time_minutes); a task "
                       "that reaches it is requeued and resumes")
    slurm.add_argument("--job-mem", type=positive, help="memory per task, GB (slurm.mem_gb)")
    slurm.add_argument("--cpus-per-task", type=whole(1), help="CPUs per task (slurm.cpus_per_task)")
    slurm.add_argument("--account", type=slurm_name, help="Slurm account (slurm.account)")
    slurm.add_argument("--qos", type=slurm_name, help="Slurm quality of service (slurm.qos)")
    slurm.add_argument("--array-parallelism", type=whole(1), help="tasks running at once (slurm.array_parallelism)")
    slurm.add_argument("--slurm-local", action="store_true", help="run the array's tasks on this machine through "
                       "submitit's local executor (to try a setup)")
    slurm.add_argument("--no-wait", action="store_true", help="return once submitted; merge later with byo merge")


def add_max_images(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-images", type=whole(1), default=MAX_IMAGES,
                   help="refuse to render a dataset (or --limit) of more images than this")


def _shard(text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(args.func, args)


def run(func, args) -> int:
    """Run a command, turning known errors into a one-paragraph message and an exit code."""
    try:
        with stoppable():
            return func(args)
    except Stopped as stop:
        console.print(f"[yellow]{stop}[/yellow]", highlight=False)
        return stop.exit_code
    except (ConfigError, FatalRenderError) as err:
        console.print(f"[red]error:[/red] {escape(str(err))}", highlight=False)
        return 2
    except RenderError as err:
        console.print(f"[red]error:[/red] {escape(str(err))}", highlight=False)
        return 1
    except OSError as err:  # a file or directory that cannot be read or written, a full disk
        where = f"{err.filename}: " if err.filename else ""
        console.print(f"[red]error:[/red] {escape(where + (err.strerror or str(err)))}", highlight=False)
        return 1

