"""The public Python API, re-exported by `byo` itself: each stage of an experiment as a function
that returns an object and prints nothing. The command line calls these; so can a notebook:

    import byo
    config = byo.load_config("dataset_configs/demo.yaml")
    byo.plan(config).images                      # 8
    dataset = byo.render_dataset(config, "output/demo").out_dir
    byo.write_questions(dataset, preprompts=["neutral", "cot"])
    byo.audit_dataset(dataset).failed             # False: every answer agrees with the pixels
    run = byo.evaluate(dataset, "oracle").run_dir
    scores = byo.score_run(run)
    scores.overall["accuracy"]                   # 1.0
    byo.write_report([run], "output/demo/report.html")

Names carry their object (`render_dataset`, not `render`) because `byo.render`, `byo.questions`,
`byo.audit` and `byo.score` are the stage packages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from byo.api.experiment import Experiment, ExperimentOutcome, load_experiment, run_experiment
from byo.audit.run import AuditReport
from byo.audit.run import audit_dataset as _audit
from byo.core.outputs import check_file_output, writing_outputs
from byo.eval.run import EvalReport, EvalSettings
from byo.eval.run import evaluate as _evaluate
from byo.families import load_config
from byo.providers import GenerationParams
from byo.questions.generate import DEFAULT_PROMPTS, Summary, generate
from byo.render.executors import Executor
from byo.render.executors.pool import LocalPool, default_workers
from byo.render.messages import RenderResult
from byo.render.runner import RenderReport
from byo.render.runner import render_dataset as _render_dataset
from byo.render.runner import render_images as _render_images
from byo.scene.config import DatasetConfig
from byo.scene.plan import combination, combination_count, image_count
from byo.score.compare import compare
from byo.score.report import write_report as _write_report
from byo.score.run import Scores, load_scores
from byo.score.run import score_run as _score_run
from byo.view.build import check_view_output, write_view

__all__ = ["AuditReport", "DatasetConfig", "EvalReport", "Experiment", "ExperimentOutcome", "Plan", "Questions", "RenderReport", "RenderResult",
           "Scores", "audit_dataset", "compare_runs", "evaluate", "load_config", "plan", "render_dataset",
           "load_experiment", "render_images", "run_experiment", "sample_viewer_of", "score_run", "write_questions", "write_report"]

Config = DatasetConfig | dict | str | Path


def _config(config: Config) -> DatasetConfig:
    return config if isinstance(config, DatasetConfig) else load_config(config)


@dataclass(frozen=True)
class Plan:
    """What a config renders: its combinations of levels and the images of each."""

    name: str
    family: str
    combinations: int
    images_per_combination: int
    images: int

    def levels(self, config: Config, index: int) -> dict:
        """The levels of combination `index` (0 <= index < combinations)."""
        return combination(_config(config), index)


def plan(config: Config) -> Plan:
    """The images a config renders, counted without enumerating them."""
    cfg = _config(config)
    sizes = cfg.dataset.split_sizes() if cfg.dataset.splits else None
    per = sum(n for _, n in sizes) if sizes else cfg.repetitions
    return Plan(name=cfg.dataset.name, family=cfg.family.name, combinations=combination_count(cfg),
                images_per_combination=per, images=image_count(cfg))


def render_dataset(config: Config, output: str | Path | None = None, *, workers: int | None = None,
                   executor: Executor | None = None, limit: int | None = None, resume: bool = False,
                   progress: bool = True, **options) -> RenderReport:
    """Render every image of `config` into `output` (default: the config's output_dir, else
    output/NAME); `workers` render processes here unless an `executor` is given. Further options
    as byo.render.runner.render_dataset (shard, max_images, wait...)."""
    executor = executor or LocalPool(workers or default_workers())
    return _render_dataset(config, output, executor=executor, limit=limit, resume=resume,
                           show_progress=progress, **options)


def render_images(config: Config, executor: Executor | None = None) -> list[RenderResult]:
    """Every image of `config`, rendered and returned in memory (image, masks, legend), writing nothing."""
    return _render_images(_config(config), executor)


@dataclass(frozen=True)
class Questions:
    """The question file written and what was asked, skipped and flagged per key and level."""

    path: Path
    summary: Summary

    @property
    def count(self) -> int:
        return sum(self.summary.questions.values())


def write_questions(dataset: str | Path, *, keys: Sequence[str] | None = None,
                    preprompts: Sequence[str] | None = None, instructions: Sequence[str] | None = None,
                    prompts: str = DEFAULT_PROMPTS, unreadable: str | None = None, **options) -> Questions:
    """Write DATASET/questions.jsonl: every key of the family (or `keys`, patterns allowed) in each
    preprompt x instruction variant (default: the prompt set's grid; the project's own set asks
    the neutral question alone, BYO-Eval's its six), skipping what the image cannot decide
    (`unreadable`: skip, flag or ask). Further options as byo.questions.generate.generate
    (templates, out, options...)."""
    path, summary = generate(dataset, keys=list(keys) if keys else None,
                             preprompts=list(preprompts) if preprompts else None,
                             instructions=list(instructions) if instructions else None, prompts=prompts,
                             unreadable=unreadable, **options)
    return Questions(path=path, summary=summary)


def audit_dataset(dataset: str | Path, questions: str | Path | None = None) -> AuditReport:
    """Every answer recomputed from the masks, the images and the camera (`.failed`: any wrong or
    ill-posed question, or a legend field disagreeing with the pixels)."""
    return _audit(dataset, questions=questions)


def evaluate(dataset: str | Path, provider: str, model: str | None = None, *,
             params: GenerationParams | None = None, on_wait: Callable[[str], None] | None = None,
             **settings) -> EvalReport:
    """Ask `provider` (openai, groq, ollama, openai-compatible, hf, clip, hf-clip, blind, oracle...)
    every question of `dataset`; cached and resumable. Settings as byo.eval.settings.EvalSettings
    (run, concurrency, limit, base_url, shots...). `.run_dir` is the run to score."""
    return _evaluate(EvalSettings(dataset=Path(dataset), provider=provider, model=model,
                                  params=params or GenerationParams(), **settings), on_wait=on_wait)


def score_run(run: str | Path, **options) -> Scores:
    """Parse a run's answers and measure every table, written beside it (scores.json, CSVs,
    parsed.jsonl: `.written`). Options as byo.score.run.score_run (n_boot, seed, tolerance,
    criterion, bins...)."""
    return _score_run(Path(run), **options)[0]


def write_report(runs: Sequence[str | Path | Scores], output: str | Path, *, title: str | None = None,
                 viewer: bool = True, force: bool = False) -> Path:
    """One self-contained HTML page over the runs (paths are scored if needed), and beside it the
    sample viewer of every answer (`sample_viewer_of(output)`), linked from the page. A file in
    the way that byo did not write is refused, naming it, unless `force` (byo.core.outputs)."""
    check_file_output(Path(output), force=force)
    if viewer:
        check_view_output(sample_viewer_of(output), force=force)
    scores = [r if isinstance(r, Scores) else load_scores(Path(r)) for r in runs]
    page = write_view(scores, sample_viewer_of(output), force=force) if viewer else None
    with writing_outputs([Path(output)], "byo report"):
        return _write_report(scores, Path(output), title=title, viewer=page)


def sample_viewer_of(report: str | Path) -> Path:
    """Where write_report puts the sample viewer of the report at `report`."""
    return Path(report).with_name(Path(report).stem + "_samples.html")


def compare_runs(run_a: str | Path | Scores, run_b: str | Path | Scores, **options) -> dict:
    """Two runs over the same questions, paired: differences per key and level with their
    intervals and adjusted p-values, and threshold differences (byo.score.compare.compare)."""
    a, b = (r if isinstance(r, Scores) else load_scores(Path(r)) for r in (run_a, run_b))
    return compare(a, b, **options)
