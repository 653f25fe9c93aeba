"""Render a dataset: validate, pre-sample every spec, then render with bounded workers.

Nothing touches the output directory before the config is valid and every image's scene
could be sampled. Images are independent (own seed, own files), so any number of workers,
any order and any interruption give the same dataset.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from byo.config import DatasetConfig, deep_merge, load_config
from byo.contact_sheet import contact_sheet
from byo.dataset import RESOLVED_CONFIG, SOURCE_CONFIG, Layout, atomic_write_text, write_metadata
from byo.errors import ConfigError, RenderError, format_key_path
from byo.plan import ImageJob, image_count, jobs
from byo.pool import run_jobs
from byo.spec import PlacementError, sample_spec


@dataclass
class RenderReport:
    out_dir: Path
    planned: int
    rendered: list[dict] = field(default_factory=list)
    skipped: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)


def resolved_config(cfg: DatasetConfig, family) -> dict:
    return {
        "dataset": cfg.dataset.model_dump(mode="json"),
        "scene": deep_merge(family.default_scene, cfg.scene),
        "variables": {k: v.model_dump(mode="json", exclude_none=True) for k, v in cfg.variables.items()},
        "images": image_count(cfg),
    }


def preflight(cfg: DatasetConfig, family, todo: Iterable[ImageJob], file: str) -> None:
    """Sample every scene that will be rendered; impossible requests fail here, before any work."""
    for job in todo:
        try:
            sample_spec(cfg, family, job, 0, file=file)
        except PlacementError as err:
            levels = ", ".join(f"{k}={v!r}" for k, v in job.levels.items())
            where = f" (image {job.index}: {levels})" if levels else f" (image {job.index})"
            raise ConfigError(file, [(format_key_path(("scene", "content")), f"{err}{where}")]) from None


def prepare(config_path: str, out_dir: str | None, resume: bool):
    cfg, family = load_config(config_path)
    out = Path(out_dir or cfg.dataset.output_dir or Path("output") / cfg.dataset.name)
    layout = Layout(out)
    resolved = resolved_config(cfg, family)
    previous = out / RESOLVED_CONFIG
    if out.exists() and any(out.iterdir()):
        if not resume:
            raise ConfigError(config_path, [("<output>", f"{out} is not empty; pass --resume to continue it "
                                             "or choose another output directory")])
        if previous.is_file() and json.loads(previous.read_text()) != resolved:
            raise ConfigError(config_path, [("<output>", f"{out} was rendered from a different config; "
                                             "--resume needs the same config")])
    return cfg, family, layout, resolved


def render_dataset(config_path: str, out_dir: str | None = None, *, limit: int | None = None,
                   resume: bool = False, workers: int = 1, recycle_after: int = 50,
                   in_process: bool = False, show_progress: bool = True,
                   on_result: Callable[[dict], None] | None = None) -> RenderReport:
    cfg, family, layout, resolved = prepare(config_path, out_dir, resume)
    planned = jobs(cfg)
    selected = planned[:limit] if limit is not None else planned
    todo = [j for j in selected if not layout.is_complete(j.name)]
    preflight(cfg, family, todo, config_path)

    layout.make_dirs()
    layout.remove_temporary_files()
    atomic_write_text(layout.root / RESOLVED_CONFIG, json.dumps(resolved, indent=1) + "\n")
    if not (layout.root / SOURCE_CONFIG).exists():
        shutil.copyfile(config_path, layout.root / SOURCE_CONFIG)

    report = RenderReport(out_dir=layout.root, planned=len(planned), skipped=len(selected) - len(todo))
    raw = cfg.model_dump(mode="json")
    threads = max(1, (os.cpu_count() or 1) // max(1, workers))
    progress = Progress(TextColumn("[bold]rendering"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                        disable=not show_progress)

    def done(result: dict | None, job: ImageJob, error: Exception | None, task) -> None:
        if error is not None:
            report.failed.append((job.name, str(error)))
            progress.console.print(f"[red]failed[/red] {job.name}: {error}")
        else:
            report.rendered.append(result)
            if on_result:
                on_result(result)
        n = len(report.rendered) + len(report.failed)
        elapsed = progress.tasks[0].elapsed or 1e-9
        progress.update(task, advance=1, rate=f"{n / elapsed:.2f} img/s")

    with progress:
        task = progress.add_task("render", total=len(todo), rate="")
        if in_process:
            from byo.render.worker import init_worker, render_job

            init_worker(threads)
            for job in todo:
                try:
                    done(render_job(raw, job.index, str(layout.root), config_path), job, None, task)
                except Exception as err:  # recorded, reported, and the run goes on
                    done(None, job, err, task)
        elif todo:
            by_index = {j.index: j for j in todo}
            run_jobs(((j.index, (raw, j.index, str(layout.root), config_path)) for j in todo),
                     workers=workers, recycle_after=recycle_after, threads=threads,
                     on_done=lambda index, result, error: done(
                         result, by_index[index], RenderError(error) if error else None, task))
    finalize(layout, family)
    return report


def finalize(layout: Layout, family) -> dict[str, Path]:
    """Per-dataset files, rebuilt from the legends on disk (so a resumed run writes the same)."""
    legends = layout.legends()
    written = {"metadata": write_metadata(layout, legends)}
    written.update(family.export(layout, legends))
    if legends:
        written["contact_sheet"] = contact_sheet(layout.root)
    return written
