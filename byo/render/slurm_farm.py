"""`byo render CONFIG -o OUT --executor slurm`: a Slurm job array over shards, then `byo merge`.

The command checks the config and samples every scene (a bad config exits 2 before anything is
submitted), then submits one array task per shard (submitit). Each task renders its shard
(`--shard I/N`, with `--resume`) into OUT.shards/shard-I with a local pool of its own, on the
node it lands on; a task that is preempted or reaches its time limit is requeued and resumes.
The command waits for the tasks, shows them finishing, collects the images that failed (each
shard's, as the local pool reports them) and the tasks that failed, and once every image is
there merges the shards into OUT. With `--no-wait` it returns once the array is submitted:
`byo merge OUT.shards/shard-* -o OUT` when it has run.
"""

from __future__ import annotations

import os
import shutil
import socket
from dataclasses import dataclass, field
from pathlib import Path

from byo.core.errors import ConfigError
from byo.core.locks import entries
from byo.core.progress import Bar
from byo.families import load_config
from byo.render.executors.pool import LocalPool
from byo.render.executors.slurm import SlurmArray, SlurmSettings, TaskOutcome
from byo.render.merge import merge
from byo.render.runner import render_dataset, sample_tasks
from byo.scene.plan import Shard, selected_jobs

SHARDS_SUFFIX = ".shards"  # OUT.shards: the shards' directories and the tasks' logs
LOGS = "slurm-logs"


@dataclass(frozen=True)
class ShardWork:
    """What one array task does, beyond its shard: passed to `render_shard` on the node."""

    workers: int = 1
    threads: int | None = None  # Cycles threads per worker (default: the task's CPUs / workers)
    timeout: float | None = None  # seconds per image
    retries: int = 2
    limit: int | None = None
    max_images: int | None = None


def render_shard(config: str, out: str, index: int, count: int, work: ShardWork) -> dict:
    """An array task: render shard `index` of `count` into `out`, resuming what is there."""
    cpus = len(os.sched_getaffinity(0))  # what Slurm gave the task, not the node's count
    threads = work.threads or max(1, cpus // work.workers)
    pool = LocalPool(work.workers, threads=threads, timeout=work.timeout, retries=work.retries)
    report = render_dataset(config, out, executor=pool, limit=work.limit, resume=True, shard=Shard(index, count),
                            show_progress=False, max_images=work.max_images)
    return {"index": index, "out": out, "planned": report.planned, "rendered": len(report.rendered),
            "skipped": report.skipped, "failed": report.failed, "host": socket.gethostname()}


@dataclass
class FarmReport:
    out_dir: Path
    shards_dir: Path
    planned: int
    job_ids: list[str] = field(default_factory=list)
    tasks: list[dict] = field(default_factory=list)  # render_shard's summaries
    failed_images: list[tuple[str, str]] = field(default_factory=list)
    failed_tasks: list[tuple[int, str]] = field(default_factory=list)  # (shard, error)
    written: dict[str, Path] = field(default_factory=dict)  # the merged dataset's files

    @property
    def merged(self) -> bool:
        return bool(self.written)


def shard_dirs(shards_dir: Path, count: int) -> list[Path]:
    width = len(str(count - 1))
    return [shards_dir / f"shard-{i:0{width}d}" for i in range(count)]


def render_on_slurm(config: str | Path, out: str | Path | None, *, shards: int | None, settings: SlurmSettings,
                    work: ShardWork, wait: bool = True, show_progress: bool = True, on_submitted=None) -> FarmReport:
    file = str(config)
    cfg = load_config(config)
    count = shards or cfg.slurm.shards
    if count is None:
        raise ConfigError(file, [("slurm.shards", "how many array tasks? set slurm.shards in the config or give "
                                  "`shards`")])
    selected = selected_jobs(cfg, limit=work.limit)
    if work.max_images is not None and len(selected) > work.max_images:
        raise ConfigError(file, [("<dataset>", f"{len(selected):,} images to render, more than the limit of "
                                  f"{work.max_images:,}; raise it with `max_images`, or render a part with `limit`")])
    count = min(count, len(selected))  # no empty shard
    sample_tasks(cfg, selected, file)  # an impossible scene is named now, not on a node
    out = Path(out or cfg.dataset.output_dir or Path("output") / cfg.dataset.name)
    if out.exists() and (not out.is_dir() or entries(out)):
        raise ConfigError(file, [("<output>", f"{out} is not empty: the shards are merged into an empty or new "
                                  "directory (to resume, remove it and rerun; the shards resume)")])
    shards_dir = out.with_name(out.name + SHARDS_SUFFIX)
    dirs = shard_dirs(shards_dir, count)  # each task makes its own (a resumed one finds it)
    array = SlurmArray(settings, shards_dir / LOGS)
    config_path = str(Path(config).resolve())
    made = not shards_dir.exists()
    try:
        jobs = array.submit(render_shard, [(config_path, str(d.resolve()), i, count, work)
                                           for i, d in enumerate(dirs)])
    except ConfigError:
        if made:  # nothing was submitted: leave no trace
            shutil.rmtree(shards_dir, ignore_errors=True)
        raise
    report = FarmReport(out_dir=out, shards_dir=shards_dir, planned=len(selected), job_ids=[j.job_id for j in jobs])
    if on_submitted:
        on_submitted(report)
    if not wait:
        return report
    with Bar("[bold]shards", count, unit="shard", enabled=show_progress) as bar:
        for outcome in array.outcomes(jobs):
            _collect(report, outcome, bar)
    if not report.failed_tasks and not report.failed_images:
        report.written = merge(dirs, out)
    return report


def _collect(report: FarmReport, outcome: TaskOutcome, bar: Bar) -> None:
    if outcome.error is not None:
        report.failed_tasks.append((outcome.index, outcome.error))
        bar.console.print(f"[red]shard {outcome.index} failed[/red] (job {outcome.job_id}): {outcome.error}",
                          highlight=False)
        bar.advance(failed=True)
        return
    summary = outcome.result
    report.tasks.append(summary)
    for name, error in summary["failed"]:
        report.failed_images.append((name, error))
        bar.console.print(f"[red]failed[/red] {name}: {error}", highlight=False)
    bar.advance(failed=bool(summary["failed"]),
                note=f"shard {outcome.index}: {summary['rendered']} rendered on {summary['host']}")
