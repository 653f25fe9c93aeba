"""The score stage of the public API: a run's answers parsed and measured, two runs compared, and
the report over several runs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from byo.core.outputs import check_file_output, writing_outputs
from byo.score.compare import compare
from byo.score.report import write_report as _write_report
from byo.score.run import Scores, load_scores
from byo.score.run import score_run as _score_run
from byo.view.build import check_view_output, write_view

__all__ = ["Scores", "compare_runs", "sample_viewer_of", "score_run", "write_report"]


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
