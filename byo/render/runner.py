"""Render a dataset: plan, skip what is done, sample every scene, hand the tasks to the render
loop (byo.render.loop: the executor, the writer, the render log), then the per-dataset files.

Nothing touches the output directory before the config is valid and every image's scene
could be sampled. Images are independent (own seed, own files), so any executor, any number
of workers, any order and any interruption give the same dataset.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from byo.core.dataset import (
    COUNTERFACTUALS,
    IMAGES,
    LEGENDS,
    MASKS,
    METADATA,
    PASSES,
    RESOLVED_CONFIG,
    SOURCE_CONFIG,
    Layout,
    atomic_write_text,
    write_metadata,
)
from byo.core.errors import ConfigError, FatalRenderError, InputError, RenderError, format_key_path
from byo.core.inputs import DATA_ERRORS, read_json, reading
from byo.core.locks import entries, writer_lock
from byo.core.progress import Bar
from byo.core.schema import shown
from byo.core.sheets import SHEET, contact_sheet
from byo.core.stops import Stopped
from byo.families import load_config
from byo.families.base import Family
from byo.render import log as renderlog
from byo.render.executors import Executor
from byo.render.executors.pool import LocalPool
from byo.render.loop import Outcome, RenderLoop
from byo.render.messages import RenderResult, RenderTask
from byo.scene import floor_check
from byo.scene.config import DatasetConfig, scene_for_levels
from byo.scene.plan import ImageJob, Shard, image_count, jobs, selected_jobs
from byo.scene.setup import level_label
from byo.scene.spec import PlacementError, placed_spec


@dataclass(frozen=True)
class Rendered:
    """What a report keeps of a rendered image: not its pixels, which a long render would all hold."""

    name: str
    seconds: float
    attempts: int
    worker: str


@dataclass
class RenderReport:
    out_dir: Path
    planned: int
    rendered: list[Rendered] = field(default_factory=list)
    skipped: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    written: dict[str, Path] = field(default_factory=dict)  # per-dataset files
    repaired: list[tuple[str, list[str]]] = field(default_factory=list)  # found damaged on resume; rendered again
    device_notice: str = ""


def resolved_config(cfg: DatasetConfig) -> dict:
    return {
        "dataset": cfg.dataset.model_dump(mode="json"),
        "scene": cfg.full_scene(),
        "variables": {k: v.model_dump(mode="json", exclude_none=True) for k, v in cfg.variables.items()},
        "images": image_count(cfg),
    } | ({"questions": cfg.questions.model_dump()} if "questions" in cfg.model_fields_set else {})


def count_of(cfg: DatasetConfig, job: ImageJob) -> int:
    """The most objects the scene of `job` asks for (its content.count, or the top of its range;
    0 when its content has no count)."""
    count = scene_for_levels(cfg, job.levels).get("content", {}).get("count")
    return max(count) if isinstance(count, list | tuple) else count if isinstance(count, int) else 0


def sample_tasks(cfg: DatasetConfig, todo: Iterable[ImageJob], file: str) -> list[RenderTask]:
    """Sample every scene that will be rendered; impossible requests fail here, before any work."""
    tasks = []
    for job in todo:
        try:
            tasks.append(RenderTask(cfg, job, placed_spec(cfg, job, file=file)))
        except PlacementError as err:
            # The image first: a long path or explanation may cut the line's end, never the image.
            levels = ", ".join(f"{k}={shown(v)}" for k, v in job.levels.items())
            image = f"image {job.index} ({levels})" if levels else f"image {job.index}"
            n = floor_check.placeable_count(cfg, job, count_of(cfg, job), file)
            fix = f"expected content.count at most {n} here: " if n else ""
            raise ConfigError(file, [(format_key_path(("scene", "content")), f"{image}: {fix}{err}")]) from None
    # Images whose objects the camera cannot show on the visibility floor fail every try: refused
    # here, with the change that would let them (byo/scene/floor_check.py).
    short = floor_check.unmet(cfg, [(t.job, t.spec) for t in tasks])
    if short:
        raise floor_check.refusal(cfg, short, len(tasks), file)
    return tasks


def _output_dir(cfg: DatasetConfig, out_dir: str | Path | None, file: str) -> Path:
    out = Path(out_dir or cfg.dataset.output_dir or Path("output") / cfg.dataset.name)
    blocker = next((p for p in (out, *out.parents) if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        what = "it is a file" if blocker == out else f"{blocker} is a file"
        raise ConfigError(file, [("<output>", f"expected a directory, {what}: {out}")])
    return out


def first_difference(a, b, path: str = "") -> str:
    """Where two resolved configs first differ: 'scene.render.samples: 4 vs 8'."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                return first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else str(key))
    return f"{path}: {json.dumps(a)} vs {json.dumps(b)}"


def _output(out: Path, resolved: dict, resume: bool, file: str) -> Layout:
    """The output directory's layout, once this process holds its lock: empty, or (--resume) one
    rendered from the same config."""
    previous = out / RESOLVED_CONFIG
    held = entries(out)
    if held:
        if not resume:
            names = sorted(p.name for p in held)
            shown = ", ".join(names[:5]) + (f" ... and {len(names) - 5} more" if len(names) > 5 else "")
            raise ConfigError(file, [("<output>", f"{out} is not empty (it holds {shown}); pass `resume` to "
                                      "continue a render of this config there, or choose another output directory")])
        started = {IMAGES, MASKS, LEGENDS, PASSES, COUNTERFACTUALS, METADATA, SOURCE_CONFIG, renderlog.RENDER_LOG}
        foreign = sorted(p.name for p in held if p.name not in started and not p.name.startswith("."))
        if not previous.is_file() and foreign:  # a folder of the user's, not a render begun there
            shown = ", ".join(foreign[:5]) + (f" ... and {len(foreign) - 5} more" if len(foreign) > 5 else "")
            raise ConfigError(file, [("<output>", f"{out} holds files that are no render's ({shown}); byo renders "
                                      "into an empty folder or one it rendered: choose another output directory")])
        if previous.is_file() and read_json(previous) != resolved:
            raise ConfigError(file, [("<output>", f"{out} was rendered from a different config "
                                      f"({first_difference(read_json(previous), resolved)}, as rendered vs now); "
                                      "`resume` needs the same config")])
    return Layout(out)


def render_dataset(config: DatasetConfig | dict | str | Path, out_dir: str | Path | None = None, *,
                   executor: Executor | None = None, limit: int | None = None, resume: bool = False,
                   shard: Shard | None = None, file: str | None = None, show_progress: bool = True,
                   max_images: int | None = None, sample: int | None = None,
                   on_result: Callable[[RenderResult], None] | None = None, wait: bool = False,
                   on_wait: Callable[[str], None] | None = None, wait_flag: str | None = "`wait`") -> RenderReport:
    """Render `config` (a validated config, data, or a YAML file) into `out_dir`: the first
    `limit` images of the plan (or a stratified `sample` of it, every combination of levels before
    any is repeated: byo.scene.plan.stratified_indices), only those of `shard` when given. One process writes a dataset:
    another one rendering into the same directory is refused (or waited for, `wait`)."""
    if isinstance(config, DatasetConfig):
        cfg, file = config, file or "<config>"
    else:
        file = file or (str(config) if not isinstance(config, dict) else "<config>")
        cfg = load_config(config, file)
    selected = selected_jobs(cfg, limit=limit, shard=shard, sample=sample)
    if max_images is not None and len(selected) > max_images:
        raise ConfigError(file, [("<dataset>", f"{len(selected):,} images to render, more than the limit of "
                                  f"{max_images:,}; raise it with `max_images`, or render a part with `limit`")])
    resolved = resolved_config(cfg)
    out = _output_dir(cfg, out_dir, file)
    with writer_lock(out, what="dataset", wait=wait, on_wait=on_wait, wait_flag=wait_flag):
        return _render_locked(cfg, config, file, out, resolved, selected, executor=executor, limit=limit,
                              resume=resume, shard=shard, sample=sample, show_progress=show_progress,
                              on_result=on_result)


def _render_locked(cfg: DatasetConfig, config, file: str, out: Path, resolved: dict,
                   selected: list[ImageJob], *, executor: Executor | None, limit: int | None, resume: bool,
                   shard: Shard | None, sample: int | None, show_progress: bool,
                   on_result: Callable[[RenderResult], None] | None) -> RenderReport:
    """`render_dataset`, in the output directory whose lock this process holds."""
    layout = _output(out, resolved, resume, file)
    fresh = not entries(layout.root)
    loop = RenderLoop(layout, executor or LocalPool(1))
    todo, repaired = loop.still_to_render(selected, show_progress)
    tasks = sample_tasks(cfg, todo, file)

    layout.make_dirs()
    layout.remove_temporary_files()
    atomic_write_text(layout.root / RESOLVED_CONFIG, json.dumps(resolved, indent=1) + "\n")
    if not (layout.root / SOURCE_CONFIG).exists():
        source = Path(config).read_text() if isinstance(config, (str, Path)) else yaml.safe_dump(
            cfg.model_dump(mode="json", exclude_unset=True), sort_keys=False)
        atomic_write_text(layout.root / SOURCE_CONFIG, source)

    report = RenderReport(out_dir=layout.root, planned=len(selected), skipped=len(selected) - len(todo),
                          repaired=repaired)
    loop.start(images=image_count(cfg), limit=limit, sample=sample, shard=str(shard) if shard else None,
               planned=len(selected), to_render=len(tasks), repaired=dict(repaired))
    try:
        _render_all(loop, tasks, report, show_progress, on_result)
    except FatalRenderError:
        if fresh and not report.rendered:
            _remove_started_files(layout)  # nothing rendered: leave the directory as it was, empty
        raise
    except Stopped as stop:
        layout.remove_temporary_files()
        loop.stopped(stop.name)
        same = ", ".join(f"`{field}` {value}" for field, value in (("limit", limit), ("sample", sample)) if value)
        stop.detail = (f"{len(report.rendered)} of {len(tasks)} images rendered; continue with `resume` "
                       f"(config {file}, into {layout.root}" + (f", the same {same})" if same else ")"))
        raise
    report.written = finalize(layout, cfg.family)
    loop.end()
    return report


def _render_all(loop: RenderLoop, tasks: list[RenderTask], report: RenderReport, show_progress: bool,
                on_result: Callable[[RenderResult], None] | None) -> None:
    """The loop's outcomes, as they come, in the report and on the progress bar."""
    with Bar("[bold]rendering", len(tasks), unit="img", enabled=show_progress) as bar, \
            contextlib.closing(loop.render(tasks)) as outcomes:
        for outcome in outcomes:
            task, result = outcome.task, outcome.result
            if result is None:
                report.failed.append((task.name, outcome.error))
                bar.console.print(f"[red]failed[/red] {task.name}: {outcome.error}", highlight=False)
            else:
                report.rendered.append(Rendered(result.name, result.seconds, result.attempts, result.worker))
                _notice_device_fallback(outcome, bar, report)
                if on_result:
                    on_result(result)
            bar.advance(failed=result is None)


def _remove_started_files(layout: Layout) -> None:
    for name in (RESOLVED_CONFIG, SOURCE_CONFIG, renderlog.RENDER_LOG):
        (layout.root / name).unlink(missing_ok=True)
    for sub in (IMAGES, MASKS, LEGENDS):
        with contextlib.suppress(OSError):  # only when empty
            (layout.root / sub).rmdir()
    with contextlib.suppress(OSError):
        layout.root.rmdir()


def _notice_device_fallback(outcome: Outcome, bar: Bar, report: RenderReport) -> None:
    """`render.device: auto` on a machine without a GPU Cycles can use: one line, once."""
    task, result = outcome.task, outcome.result
    used = result.legend.get("blender", {}).get("device")
    if task.spec.setup.render.device == "auto" and used == "cpu" and not report.device_notice:
        report.device_notice = "render.device auto: no GPU that Cycles can use here, rendering on the CPU"
        bar.console.print(f"[yellow]notice[/yellow] {report.device_notice}", highlight=False)


def finalize(layout: Layout, family: Family) -> dict[str, Path]:
    """Per-dataset files, rebuilt from the legends on disk (so a resumed render writes the same). A
    damaged image outside this render's selection is left out (`byo status` names it)."""
    legends = layout.legends(damaged="skip")
    with reading(layout.root / LEGENDS, "legends"):
        written = {"metadata": write_metadata(layout, legends)}
    try:
        written.update(family.export(layout, legends))
    except ConfigError:
        raise
    except DATA_ERRORS:
        raise _unreadable_legend(layout, family, legends) from None
    if legends:
        sheet = layout.root / SHEET
        written["contact_sheet"] = sheet if _sheet_current(layout, sheet, legends) else contact_sheet(
            layout.root, caption=family.caption, legends=legends, level_text=level_label)
    return written


def _sheet_current(layout: Layout, sheet: Path, legends: list[dict]) -> bool:
    """Whether the contact sheet is newer than every legend and image it shows: a rerun with
    nothing rendered leaves it as it is (byo render never removes an image, so a newer sheet
    shows them all)."""
    if not sheet.is_file():
        return False
    try:
        return max(max(layout.legend(g["name"]).stat().st_mtime_ns, (layout.root / g["image"]).stat().st_mtime_ns)
                   for g in legends) <= sheet.stat().st_mtime_ns
    except OSError:
        return False


def _unreadable_legend(layout: Layout, family: Family, legends: list[dict]) -> InputError:
    """The legend that a family's per-dataset export cannot read, found by exporting each one alone
    into a scratch directory."""
    for legend in legends:
        with tempfile.TemporaryDirectory() as scratch:
            try:
                family.export(Layout(scratch), [legend])
            except DATA_ERRORS as err:
                return InputError(layout.legend(legend["name"]), f"not a {family.name} legend this version can read "
                                  f"({type(err).__name__}: {str(err)[:150]}); remove it and render again with `resume`")
    return InputError(layout.root / LEGENDS, f"the {family.name} legends do not fit together (the dataset files of "
                      "the family could not be written)")


def render_images(config: DatasetConfig | dict, executor: Executor | None = None) -> list[RenderResult]:
    """Render every image of `config` and return the results in image order, writing nothing."""
    cfg = config if isinstance(config, DatasetConfig) else load_config(config)
    tasks = sample_tasks(cfg, jobs(cfg), "<config>")
    results: dict[int, RenderResult] = {}
    for task, result, error in (executor or LocalPool(1)).run(tasks):
        if result is None:
            raise RenderError(f"{task.name}: {error}")
        results[task.job.index] = result
    return [results[i] for i in sorted(results)]
