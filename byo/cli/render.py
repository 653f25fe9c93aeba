"""`byo render` (here, on a local pool, Ray or Slurm), `byo status`, `byo merge`."""

from __future__ import annotations

import argparse
from pathlib import Path

import byo
from byo.api.rendered_for import config_for, sized_for, write_record
from byo.cli.console import (
    add_json,
    add_quiet,
    console,
    new_table,
    out,
    print_json,
    quiet,
    say,
    waiting,
)
from byo.cli.fields import flags_in
from byo.cli.options import (
    add_max_images,
    add_quick_options,
    add_wait,
    config_source,
    positive,
    shard_spec,
    slurm_name,
    whole,
)
from byo.core.dataset import IMAGES, LEGENDS
from byo.core.errors import ConfigError
from byo.eval.layout import RUN_FILE
from byo.render.executors import Executor
from byo.render.executors.inprocess import InProcess
from byo.render.executors.pool import LocalPool, default_workers
from byo.render.merge import merge
from byo.render.status import as_json, dataset_status, time_per_image


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
    sized = None
    if args.for_models:  # render what those models receive, never above the config's size
        if args.executor == "slurm":
            raise ConfigError("<command line>", [("--for", "not with --executor slurm (its tasks read the config "
                                                  "file): write the size into a copy of the config")])
        sized = sized_for(args.config, args.for_models, detail=args.detail, resolution=args.resolution, field="--for")
    if args.executor == "slurm":
        if args.quality is not None or args.resolution is not None:
            raise ConfigError("<command line>", [("--quality / --resolution", "not with --executor slurm (its tasks "
                                                  "read the config file): write them into a copy of the config")])
        return render_slurm(args)
    source = config_for(args.config, sized, quality=args.quality) if sized is not None else config_source(args)
    with quiet(args.quiet):
        report = byo.render_dataset(source, args.output, file=args.config, executor=executor_for(args),
                                    limit=args.limit, sample=args.sample, resume=args.resume, shard=args.shard,
                                    max_images=args.max_images, wait=args.wait, on_wait=waiting,
                                    progress=not args.quiet)
    root = report.out_dir
    if sized is not None:
        report.written["rendered_for"] = write_record(root, sized)
    if args.json:
        print_json({"directory": root, "planned": report.planned, "rendered": [r.name for r in report.rendered],
                    "already_complete": report.skipped, "rendered_again": dict(report.repaired),
                    "failed": dict(report.failed), "images": root / IMAGES, "legends": root / LEGENDS,
                    "written": report.written})
        return 1 if report.failed else 0
    with quiet(args.quiet and not report.failed):
        for name, found in report.repaired:
            console.print(f"[yellow]rendered again[/yellow] {name}: {'; '.join(found)}", highlight=False)
        shard = f", shard {args.shard}" if args.shard else ""
        sample = f", a stratified sample of {args.sample}" if args.sample else ""
        console.print(f"rendered {len(report.rendered)}, already complete {report.skipped}, "
                      f"failed {len(report.failed)} (of {report.planned} planned{sample}{shard})")
        console.print(f"images: {root / IMAGES}\nlegends: {root / LEGENDS}")
        for name, path in report.written.items():
            console.print(f"{name.replace('_', ' ')}: {path}")
    if args.quiet:
        print(root)
    return 1 if report.failed else 0


def render_slurm(args) -> int:
    """--executor slurm: a job array over shards (byo.render.slurm_farm), then byo merge."""
    from byo.render.executors.slurm import SlurmSettings, require_submitit
    from byo.render.slurm_farm import ShardWork, render_on_slurm

    if args.sample:
        raise ConfigError("<command line>", [("--sample", "not with --executor slurm (its shards split the plan by "
                                              "index): use --limit, or render the sample with the pool")])
    require_submitit()
    cfg = byo.load_config(args.config)
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
    if (args.dataset / RUN_FILE).is_file():  # a run of byo eval: its answers, spend and batches
        from byo.cli.evaluate import cmd_run_status  # the eval stage, loaded only for a run

        return cmd_run_status(args)
    status = dataset_status(args.dataset, check=args.check)
    if args.json:
        print(as_json(status))
        return 0
    shown = out()
    where = f", shard {status.shard}" if status.shard else ""
    limit = f", first {status.limit} images" if status.limit is not None else ""
    sample = f", a stratified sample of {status.sample} images" if status.sample is not None else ""
    table = new_table("planned", "done", "missing", "failed", "damaged",
                      title=f"{status.root} ({status.state}{where}{limit}{sample})")
    table.add_row(*(str(len(x)) for x in (status.planned, status.done, status.missing, status.failed,
                                          status.damaged)))
    shown.print(table)
    timing = time_per_image(status.seconds)
    if timing:
        shown.print(f"seconds per image ({len(status.seconds)} renders): " +
                  ", ".join(f"{k} {v:.2f}" for k, v in timing.items()))
    for name, error in status.failed.items():
        shown.print(f"[red]failed[/red] {name}: {flags_in(str(error))}", highlight=False)
    for name, found in status.damaged.items():
        shown.print(f"[yellow]damaged[/yellow] {name}: {'; '.join(found)} (--resume renders it again)", highlight=False)
    if not args.check:
        shown.print("(sizes checked against the legends; --check also compares every file's SHA-256)")
    return 0


def cmd_merge(args) -> int:
    with quiet(args.quiet):
        written = merge(args.dirs, args.output, say=say)
        console.print(f"merged {len(args.dirs)} directories into {args.output}")
        for name, path in written.items():
            console.print(f"{name.replace('_', ' ')}: {path}")
    if args.json:
        print_json({"directory": args.output, "merged": args.dirs, "written": written})
    elif args.quiet:
        print(args.output)
    return 0


def add_render_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("config")
    add_quick_options(p)
    p.add_argument("--for", dest="for_models", action="append", metavar="PROVIDER:MODEL",
                   help="render at the largest size any of these models receives of the config's resolution "
                        "(its provider's published resize; repeatable), never above the config's; recorded in "
                        "DATASET/rendered_for.json, and a model that would receive more is refused later")
    p.add_argument("--detail", choices=("auto", "low", "high"), default=None,
                   help="with --for an OpenAI model: the image detail it will be asked at (default auto, taken as high)")
    p.add_argument("-o", "--output", help="output directory (default: dataset.output_dir or output/NAME)")
    chosen = p.add_mutually_exclusive_group()
    chosen.add_argument("--limit", type=whole(1), help="only the first N images of the plan")
    chosen.add_argument("--sample", type=whole(1), metavar="N", help="a smoke render of N images that covers every "
                        "combination of levels before repeating one (the first image of each, then the second...); "
                        "the same N images every time")
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
    p.add_argument("--shard", type=shard_spec, help="render only shard I of N (0 <= I < N): images whose index is I "
                   "modulo N; `byo merge` combines the shards' directories")
    add_max_images(p)
    add_wait(p, "output directory")
    add_json(p)
    add_quiet(p, "the output directory's path")
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


def add_render(p: argparse.ArgumentParser) -> None:
    add_render_arguments(p)
    p.set_defaults(func=cmd_render)


def add_status(status: argparse.ArgumentParser) -> None:
    status.add_argument("dataset", type=Path)
    status.add_argument("--check", action="store_true", help="compare every file with the SHA-256 its legend "
                        "records (default: sizes only)")
    add_json(status)
    status.set_defaults(func=cmd_status)


def add_merge(merge_: argparse.ArgumentParser) -> None:
    merge_.add_argument("dirs", type=Path, nargs="+", help="render directories of the same config")
    merge_.add_argument("-o", "--output", type=Path, required=True, help="new or empty directory")
    add_json(merge_)
    add_quiet(merge_, "the merged directory's path")
    merge_.set_defaults(func=cmd_merge)


PARSERS = {"render": add_render, "status": add_status, "merge": add_merge}
