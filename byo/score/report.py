"""`byo report RUN... -o report.html`: one self-contained HTML page comparing runs (models) and
prompt variants; plots and images are inlined as base64.

The page is its sections, in order: those about the runs before the tables (byo.score.run_sections),
then each registered table's (byo.score.registry: its own sections, or a section of its columns),
then those about the runs after them. Only sections with something to show are written."""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import jinja2

from byo import __version__
from byo.core.dataset import atomic_write_text
from byo.core.figures import preload as preload_drawing
from byo.core.paths import relative_url
from byo.core.report_tables import Section, num, pct
from byo.score import humans, plots, registry, run_sections
from byo.score.report_format import CLUSTERED, Runs
from byo.score.run import Scores

TEMPLATE = Path(__file__).with_name("templates") / "report.html.j2"


def page_sections() -> list[Section]:
    """Every section the report may have, in order: those about the runs before the tables, each
    registered table's, those about the runs after them."""
    return [*run_sections.BEFORE, *registry.SECTIONS, *run_sections.AFTER]


def _keys(section: Section, runs: Runs) -> list[tuple]:
    """The keys a per-key section is built for (all questions first where `everything`)."""
    return [("*", "all", "*"), *runs.keys()] if section.everything else list(runs.keys())


def _build(section: Section, runs: Runs):
    if section.per_key:
        return [b for key in _keys(section, runs) if (b := section.build(runs, key)) is not None]
    return section.build(runs)


_building: tuple[Runs, dict[str, Section]] | None = None  # what forked workers build from (inherited, not pickled)
WORKERS: int | None = None  # build_sections' default; None: one per CPU (the test suite sets 1, its workers fill the CPUs)


def _build_one(name: str, key: tuple | None = None):
    runs, sections = _building
    return sections[name].build(runs) if key is None else sections[name].build(runs, key)


def build_sections(runs: Runs, sections: dict[str, Section], workers: int | None = None) -> dict:
    """{name: its data}. Drawing figures is most of a report's time and the sections are
    independent, so with more than one CPU they are built in forked worker processes, a per-key
    section key by key (the same bytes as one by one: every figure is drawn the same way wherever
    it is drawn), the per-key sections' many short tasks last (they even out the workers' ends).
    By default, one worker per CPU (up to 4), and none while another thread runs here: a forked
    child would inherit any lock that thread holds."""
    global _building
    workers = WORKERS if workers is None else workers
    if workers is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        workers = min(cpus, 4) if threading.active_count() == 1 else 1
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return {name: _build(section, runs) for name, section in sections.items()}
    preload_drawing()  # once here, not in every worker
    _building = (runs, sections)
    order = sorted(sections.items(), key=lambda item: item[1].per_key)
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = {name: [pool.submit(_build_one, name, key) for key in _keys(section, runs)]
                       if section.per_key else pool.submit(_build_one, name) for name, section in order}
            built = {name: [b for f in future if (b := f.result()) is not None] if isinstance(future, list)
                     else future.result() for name, future in futures.items()}
    finally:
        _building = None
    return {name: built[name] for name in sections}


@dataclass(frozen=True)
class Shown:
    """A section as the page template gets it."""

    name: str
    title: str
    template: str
    data: object


def build(runs_scores: list[Scores], title: str | None = None, viewer: str | None = None) -> str:
    panels = humans.panels(runs_scores)  # two or more annotators of a dataset: their majority is a row too
    runs_scores = [*runs_scores, *(h.majority for h in panels if h.majority is not None)]
    runs = Runs(runs_scores)
    runs.human = panels
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATE.parent), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    env.filters.update(pct=pct, num=num)
    sections = {s.name: s for s in page_sections()}
    data = build_sections(runs, sections)
    shown = [Shown(s.name, s.title, s.template, data[s.name]) for s in sections.values() if s.shown(data[s.name])]
    return env.get_template(TEMPLATE.name).render(
        title=title or "BYO Render report: " + ", ".join(runs.labels), generated=dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        version=__version__, sections=shown, labels=runs.labels,
        colors=[plots.color(i) for i in range(len(runs.labels))], asked=run_sections.asked_section(runs),
        settings=runs_scores[0].settings, viewer=viewer, clustered=CLUSTERED, **data)


def write_report(runs_scores: list[Scores], out: Path, title: str | None = None, viewer: Path | None = None) -> Path:
    """`viewer`: the sample viewer's page, linked from the report's navigation."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    link = relative_url(viewer, out.parent) if viewer is not None else None
    atomic_write_text(out, build(runs_scores, title, link))
    return out
