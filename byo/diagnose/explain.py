"""`byo explain RUN`: why each failure failed. Every failed question of the run (or a seeded sample
of them) has its image re-rendered with one factor changed at a time, and the same model is asked
the same question of the twin; a factor whose change turns the answer right explains that failure.

The factors: those the family declares (`Family.explain_factors`: no blur, brighter light, the
camera overhead...) and every variable of the dataset's config set to its easiest level, the level
at which the run answered best (its failed keys pooled). A twin is the same scene (the image's
seed, levels and random draws) with that one change; a change that leaves the scene as it was is
not made ("unchanged"), nor one that makes it invalid or unplaceable ("invalid").

Each factor's twins are a dataset of their own, DATASET/explain/RUN/twins/FACTOR (byo.diagnose.twins),
the images under their original names (the same question ids), asked in the run RUN there with the
run's own provider, model and generation parameters. The table, per question key and factor: the
failures, how many the factor changed, how many twins were asked (readability applies: a twin the
image does not show is not asked), how many turned right, and that share of the key's failures.

One more factor, where the run's model was sent the images: full detail. The failure's own image,
cut to the box around its objects at native resolution (no scene change, no render), is asked the
same question: a failure it turns right was resized away (the provider's resize, or byo's own
max_side, left too few pixels of the objects), one it leaves wrong was not seen at any size. A
failure whose image the model received at full detail already (its row's received scale, by the
provider's published pipeline, at least 1) is "unchanged": nothing of it was resized away.

The cost is bounded and stated before any render: the renders and questions are counted from the
scenes alone, the cost estimated from the run's own cost per answer; a budget of questions or USD
keeps a seeded sample of the failures that fits.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from byo.core.dataset import Layout, atomic_write_bytes, atomic_write_text, png_bytes
from byo.core.errors import ConfigError, InputError, RenderError
from byo.core.inputs import read_json
from byo.core.locks import writer_lock
from byo.diagnose.twins import RECORD, TABLE, TWINS, explain_dir, factor_slug
from byo.eval.layout import read_predictions
from byo.eval.resolve import Evaluation, capped_price
from byo.eval.run import EvalSettings, Session
from byo.families.base import Factor
from byo.providers import GenerationParams
from byo.questions.generate import QuestionMaker, options_cap, unreadable_policy
from byo.questions.load import QUESTIONS, SUMMARY_FILE, Question, load_questions
from byo.render.executors import Executor
from byo.render.executors.inprocess import InProcess
from byo.render.loop import RenderLoop
from byo.render.messages import RenderTask
from byo.render.status import dataset_config
from byo.scene.config import UNREADABLE_POLICIES, DatasetConfig
from byo.scene.plan import ImageJob, image_count, make_job
from byo.scene.spec import PlacementError, SceneSpec, sample_spec
from byo.score.psychometric import hit
from byo.score.rows import load_run, run_info, score_rows

FLIPPED, STILL_WRONG, NOT_ASKED, UNCHANGED, INVALID = "flipped", "still wrong", "not asked", "unchanged", "invalid"
FULL_DETAIL = "full detail"  # the resize factor: the failure's image cut to its objects at native resolution
RESIZE = "resize"  # its source


@dataclass(frozen=True)
class Change:
    """A factor as byo explain makes it: scene paths and the values they take (a variable's
    easiest level, or a family's factor)."""

    name: str
    description: str
    changes: dict[str, Any]
    source: str  # "family" or "variable"


@dataclass
class Twin:
    failure: dict  # the failed scored row
    change: Change
    job: ImageJob | None = None
    spec: SceneSpec | None = None
    outcome: str | None = None  # set when decided without asking: unchanged, invalid
    note: str | None = None
    response: str | None = None
    image: str | None = None  # relative to the run's dataset
    crop: tuple[int, int, int, int] | None = None  # full detail: the region kept (x0, y0, x1, y1, rendered px)
    received_scale: float | None = None  # received px per rendered px of the twin as asked, where known


@dataclass
class ExplainPlan:
    failures: int  # failed questions of the run
    explained: list[dict]  # those explained (all, or a sample that fits the budget)
    changes: list[Change]
    twins: list[Twin]
    renders: int
    questions: int
    cost_per_answer: float | None  # USD, the run's own mean
    note: str | None = None  # how the failures were sampled

    @property
    def cost(self) -> float | None:
        return None if self.cost_per_answer is None else self.cost_per_answer * self.questions

    def describe(self) -> str:
        if not self.failures:
            return "the run has no failures: nothing to explain"
        cost = (f"about ${self.cost:.4f} (the run's ${self.cost_per_answer:.5f} per answer)"
                if self.cost is not None else "no cost known (the run has no price)")
        return (f"{len(self.explained)} of {self.failures} failures x {len(self.changes)} factors: "
                f"{self.renders} renders and {self.questions} questions at most, {cost}"
                + (f"; {self.note}" if self.note else ""))


@dataclass
class ExplainResult:
    folder: Path
    record: Path
    table: Path
    rows: list[dict]
    plan: ExplainPlan
    cost_usd: float | None


def variable_changes(cfg: DatasetConfig, failures: list[dict], rows: list[dict], tolerance: float) -> list[Change]:
    """Each variable of the config with two levels or more, at the level the run answered best (the
    failed keys pooled; ties: the first in the config's order)."""
    keys = {r["key"] for r in failures}
    used = [r for r in rows if r["key"] in keys and r["request_status"] == "ok"]
    out = []
    for path in cfg.variables:
        by_level: dict[str, list[bool]] = defaultdict(list)
        values = {}
        for r in used:
            if path in r["levels"]:
                shown = json.dumps(r["levels"][path])
                by_level[shown].append(hit(r, tolerance))
                values[shown] = r["levels"][path]
        if len(by_level) < 2:
            continue
        best = max(by_level, key=lambda level: np.mean(by_level[level]))
        accuracy = float(np.mean(by_level[best]))
        out.append(Change(f"{path} = {values[best]}", f"the config's variable {path} at the level the run answered "
                          f"best ({accuracy:.0%} right)", {path: values[best]}, "variable"))
    return out


def family_changes(factors: tuple[Factor, ...]) -> list[Change]:
    return [Change(f.name, f.description, dict(f.changes), "family") for f in factors]


def full_detail_change() -> Change:
    return Change(FULL_DETAIL, "the failure's own image cut to its objects' region at native resolution (no scene "
                  "change): right there, the failure was resized away; still wrong, it was not seen", {}, RESIZE)


def object_region(legend: dict, margin: float = 0.25, least: int = 8) -> tuple[int, int, int, int] | None:
    """The box around the legend's visible objects (x0, y0, x1, y1 in rendered pixels), widened on
    each side by a quarter of its size (at least `least` px) and kept inside the image; None when
    the legend has no box."""
    boxes = [o["bbox"] for o in legend.get("objects", []) if isinstance(o, dict) and o.get("visible", True)
             and isinstance(o.get("bbox"), list) and len(o["bbox"]) == 4]
    width, height = legend.get("width"), legend.get("height")
    if not boxes or not isinstance(width, int) or not isinstance(height, int):
        return None
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    dx, dy = max(least, round(margin * (x1 - x0))), max(least, round(margin * (y1 - y0)))
    return max(0, int(x0) - dx), max(0, int(y0) - dy), min(width, int(x1) + dx + 1), min(height, int(y1) + dy + 1)


def _full_detail_twin(twin: Twin, legend: dict) -> None:
    """The full-detail twin of a failure: unchanged where the model received the image at full
    detail already, invalid where the legend has no object box, else the region to cut."""
    scale = twin.failure.get("received_scale")
    if scale is not None and scale >= 1 - 1e-9:
        twin.outcome, twin.note = UNCHANGED, f"received at full detail already ({scale:.2f} received px per rendered px)"
        return
    twin.crop = object_region(legend)
    if twin.crop is None:
        twin.outcome, twin.note = INVALID, "its legend has no object box to cut the image to"
    elif twin.crop == (0, 0, legend["width"], legend["height"]):
        twin.outcome, twin.note = UNCHANGED, "its objects' region is the whole image"


def original_job(cfg: DatasetConfig, legend: dict, layout: Layout) -> ImageJob:
    index = legend.get("index")
    if not isinstance(index, int) or not 0 <= index < image_count(cfg):
        raise InputError(layout.legend(legend["name"]), "its index is not one of the config's images: the dataset "
                         "does not match its config.yaml", key="index")
    job = make_job(cfg, index)
    if job.seed != legend.get("seed") or job.name != legend["name"]:
        raise InputError(layout.legend(legend["name"]), "its seed or name differs from the config's image "
                         f"{index}: the dataset does not match its config.yaml", key="seed")
    return job


def _same_scene(a: SceneSpec, b: SceneSpec) -> bool:
    skip = {"levels"}
    return a.model_dump(mode="json", exclude=skip) == b.model_dump(mode="json", exclude=skip)


def plan_twins(cfg: DatasetConfig, layout: Layout, failures: list[dict], changes: list[Change], file: str) -> list[Twin]:
    """Every (failure, change) as a twin to render, or decided without rendering (unchanged,
    invalid). Failures of one image share one twin per change."""
    twins = []
    jobs: dict[str, tuple[ImageJob, SceneSpec]] = {}
    legends: dict[str, dict] = {}
    made: dict[tuple[str, str], Twin] = {}
    for row in failures:
        name = Path(row["image"]).stem
        if name not in jobs:
            legend = legends[name] = read_json(layout.legend(name))
            job = original_job(cfg, legend, layout)
            jobs[name] = job, sample_spec(cfg, job, legend.get("attempt", 0), file,
                                          (legend.get("restart") or {}).get("number", 0))
        job, original = jobs[name]
        for change in changes:
            twin = Twin(failure=row, change=change)
            twins.append(twin)
            if change.source == RESIZE:  # the image as rendered, cut: no scene to sample
                twin.job = job
                _full_detail_twin(twin, legends[name])
                continue
            if (name, change.name) in made:  # another failed question of the same image
                first = made[(name, change.name)]
                twin.job, twin.spec, twin.outcome, twin.note = first.job, first.spec, first.outcome, first.note
                continue
            made[(name, change.name)] = twin
            twin.job = replace(job, levels={**job.levels, **change.changes})
            try:
                twin.spec = sample_spec(cfg, twin.job, original.attempt, file,
                                        original.restart["number"] if original.restart else 0)
            except (ConfigError, PlacementError, TypeError, ValueError) as err:
                twin.outcome, twin.note = INVALID, str(err)[:300]
                continue
            if _same_scene(original, twin.spec):
                twin.outcome, twin.note = UNCHANGED, "the scene is already so"
    return twins


def run_settings(run_dir: Path, options: dict) -> EvalSettings:
    """The run's provider, model and generation parameters (run.json), for asking its twins."""
    info = run_info(run_dir)
    request = info.get("request")
    if not isinstance(request, dict) or not isinstance(request.get("provider"), str):
        raise InputError(run_dir / "run.json", "no request settings: byo explain asks the run's own model again",
                         key="request")
    for what in ("shots", "text_only", "repeat"):
        if request.get(what):
            raise ConfigError(str(run_dir), [("<run>", f"a run with {what.replace('_', '-')} is not explained: "
                                                       "explain its plain run")])
    params = GenerationParams(**(request.get("parameters") or {}))
    return EvalSettings(dataset=run_dir.parent.parent, provider=request["provider"], model=request.get("model"), params=params,
                        max_side=request.get("max_side"), structured=bool(request.get("structured")),
                        run=run_dir.name, **options)


def cost_per_answer(run_dir: Path) -> float | None:
    rows, _ = read_predictions(run_dir / "predictions.jsonl")
    costs = [r["cost_usd"] for r in rows.values() if isinstance(r.get("cost_usd"), int | float)]
    return float(np.mean(costs)) if costs else None


def sent_images(run_dir: Path) -> bool:
    """Whether the run's model was sent the images (its rows record them; a baseline's do not)."""
    rows, _ = read_predictions(run_dir / "predictions.jsonl")
    return any(isinstance(r.get("image"), dict) for r in rows.values())


def chosen(changes: list[Change], factors: list[str] | None) -> list[Change]:
    """The changes named in `factors` (None: all), in their own order; a name that is none of them
    is refused, naming those there are."""
    if factors is None:
        return changes
    names = [c.name for c in changes]
    unknown = [f for f in factors if f not in names]
    if unknown:
        raise ConfigError("<settings>", [("factors", f"{f!r} is not a factor of this run; its factors: "
                                                     + ", ".join(names)) for f in unknown])
    return [c for c in changes if c.name in factors]


def plan(run_dir: str | Path, *, tolerance: float = 0.0, max_failures: int | None = None,
         max_questions: int | None = None, max_cost: float | None = None, seed: int = 0,
         factors: list[str] | None = None) -> tuple[ExplainPlan, dict]:
    """What byo explain would render and ask, counted from the scenes alone, within the budget;
    `factors`: the names of the factors to try (None: every one)."""
    run_dir = Path(run_dir)
    rows, facts = load_run(run_dir)
    dataset = Path(facts["dataset"])
    layout = Layout(dataset)
    cfg = dataset_config(dataset)
    file = str(dataset / "config.yaml")
    failures = [r for r in rows if r["request_status"] == "ok" and not r.get("ranked") and not hit(r, tolerance)]
    changes = family_changes(cfg.family.explain_factors) + variable_changes(cfg, failures, rows, tolerance)
    if sent_images(run_dir):
        changes.append(full_detail_change())
    changes = chosen(changes, factors)
    per_answer = cost_per_answer(run_dir)
    order = np.random.default_rng(seed).permutation(len(failures))
    keep, note = len(failures), None
    if max_failures is not None and keep > max_failures:
        keep, note = max_failures, f"a sample of {max_failures} (seed {seed})"
    twins = plan_twins(cfg, layout, [failures[i] for i in sorted(order[:keep])], changes, file)
    while keep and (max_questions is not None and _questions(twins) > max_questions
                    or max_cost is not None and per_answer is not None and per_answer * _questions(twins) > max_cost):
        keep -= 1  # the sample shrinks until its questions fit the budget
        note = f"a sample of {keep} (seed {seed}) within the budget"
        twins = [t for t in twins if t.failure["id"] in {failures[i]["id"] for i in order[:keep]}]
    explained = [failures[i] for i in sorted(order[:keep])]
    renders = len({(Path(t.failure["image"]).stem, t.change.name) for t in twins
                   if t.outcome is None and t.change.source != RESIZE})
    return ExplainPlan(failures=len(failures), explained=explained, changes=changes, twins=twins, renders=renders,
                       questions=_questions(twins), cost_per_answer=per_answer, note=note), \
        {"rows": rows, "facts": facts, "cfg": cfg, "layout": layout, "file": file}


def _questions(twins: list[Twin]) -> int:
    return sum(1 for t in twins if t.outcome is None)


def explain(run_dir: str | Path, *, tolerance: float = 0.0, max_failures: int | None = None,
            max_questions: int | None = None, max_cost: float | None = None, seed: int = 0,
            executor: Executor | None = None, eval_options: dict | None = None,
            on_plan: Callable[[ExplainPlan], bool] | None = None,
            factors: list[str] | None = None) -> ExplainResult | None:
    """Explain the failures of `run_dir`; `on_plan(plan)` is told the plan before any render and
    may decline it (returning False: nothing is done, None is returned)."""
    run_dir = Path(run_dir)
    found, context = plan(run_dir, tolerance=tolerance, max_failures=max_failures, max_questions=max_questions,
                          max_cost=max_cost, seed=seed, factors=factors)
    folder = explain_dir(run_dir)
    if (folder / RECORD).exists():
        raise ConfigError(str(folder), [("<output>", "the run is explained already: remove this folder to explain it "
                                                     "again")])
    settings = run_settings(run_dir, {**(eval_options or {}), "max_cost": max_cost})
    capped_price(settings)  # a cap with no price to count it by: refused before any work
    Evaluation(settings, questions=[])  # the model and its key, checked before any work
    if on_plan is not None and on_plan(found) is False:
        return None
    if not found.failures:
        return None  # nothing to explain, nothing written
    with writer_lock(folder, what="explanation"):
        # a folder without its record is an explanation killed early: it goes on (renders that
        # are there are kept, answers come from the cache)
        spent = Explanation(found, context, folder, settings, tolerance).explain_all(executor or InProcess())
    rows = table(found)
    record = {"run": str(run_dir), "model": context["facts"].get("model"), "provider": settings.provider,
              "tolerance": tolerance, "failures_in_run": found.failures, "explained": len(found.explained),
              "sample": found.note, "plan": found.describe(), "cost_usd": spent,
              "factors": [{"name": c.name, "description": c.description, "changes": c.changes, "source": c.source,
                           "folder": f"{TWINS}/{factor_slug(c.name)}"} for c in found.changes],
              "table": rows, "failures": failure_records(found)}
    folder.mkdir(parents=True, exist_ok=True)  # none there when no twin was made (all unchanged)
    atomic_write_text(folder / RECORD, json.dumps(record, indent=1) + "\n")
    atomic_write_text(folder / TABLE, csv_text(rows))
    return ExplainResult(folder=folder, record=folder / RECORD, table=folder / TABLE, rows=rows, plan=found,
                         cost_usd=spent)


class Explanation:
    """The twins rendered, asked and scored, one factor's dataset at a time."""

    def __init__(self, found: ExplainPlan, context: dict, folder: Path, settings: EvalSettings, tolerance: float):
        self.found, self.context, self.folder, self.settings, self.tolerance = found, context, folder, settings, tolerance
        original = context["layout"]
        self.policy = asked_policy(original)
        self.options = options_cap(original, None)

    def explain_all(self, executor: Executor) -> float | None:
        """Every factor's twins, one dataset after another; with a cap (settings.max_cost) each
        factor's run is capped at what the ones before left, so that the whole explanation holds it."""
        spent: list[float] = []
        for change in self.found.changes:
            twins = [t for t in self.found.twins if t.change is change and t.outcome is None]
            if not twins:
                continue
            left = None if self.settings.max_cost is None else self.settings.max_cost - sum(spent)
            if left is not None and left <= 0:
                for t in twins:
                    t.outcome, t.note = NOT_ASKED, "the cost budget (`max_cost`) is spent"
                continue
            if change.source == RESIZE:
                cost = self.full_detail(change, twins, left)
            else:
                cost = self.one_factor(change, twins, executor, left)
            if cost is not None:
                spent.append(cost)
        return sum(spent) if spent else None

    def one_factor(self, change: Change, twins: list[Twin], executor: Executor, cap: float | None) -> float | None:
        root = self.folder / TWINS / factor_slug(change.name)
        layout = Layout(root)
        layout.make_dirs()
        cfg = self.context["cfg"]
        by_image: dict[str, list[Twin]] = defaultdict(list)
        for t in twins:
            by_image[t.job.name].append(t)
        legends = {}
        renders = RenderLoop(layout, executor)
        todo, _ = renders.still_to_render(group[0].job for group in by_image.values())  # a killed explanation's kept
        tasks = [RenderTask(cfg, job, by_image[job.name][0].spec) for job in todo]
        renders.start(images=len(by_image), planned=len(by_image), to_render=len(tasks), explain=change.name)
        with contextlib.closing(renders.render(tasks)) as outcomes:
            for outcome in outcomes:
                if outcome.result is None:
                    raise RenderError(f"{change.name}: the twin of {outcome.task.name}: {outcome.error}")
        renders.end()
        for name in by_image:
            legends[name] = read_json(layout.legend(name))
        failures = {t.failure["id"] for t in twins}
        maker = QuestionMaker(layout, cfg.family, keys=sorted({t.failure["key"] for t in twins}),
                              preprompts=sorted({t.failure["preprompt"] for t in twins}),
                              instructions=sorted({t.failure["instruction"] for t in twins}),
                              unreadable=self.policy, options=self.options, images=len(legends))
        rows = [r for name in by_image for r in maker.of(legends[name]) if r["id"] in failures]
        maker.write(rows)
        questions = [Question.model_validate(r) for r in rows]
        asked = {q.id for q in questions}
        for t in twins:
            t.image = (root / "images" / f"{t.job.name}.png").relative_to(self.context["layout"].root).as_posix()
            if t.failure["id"] not in asked:
                t.outcome, t.note = NOT_ASKED, "its question is not asked of the twin (readability, or a skip)"
        return self.ask(root, questions, twins, cap)

    def full_detail(self, change: Change, twins: list[Twin], cap: float | None) -> float | None:
        """The failures' own images cut to their objects' regions (no render), asked the same
        questions, word for word."""
        root = self.folder / TWINS / factor_slug(change.name)
        original = self.context["layout"].root
        ids = {t.failure["id"] for t in twins}
        lines = Path(self.context["facts"]["questions"]).read_text().splitlines()
        rows = [r for r in map(json.loads, filter(str.strip, lines)) if r["id"] in ids]
        for t in twins:
            image = root / t.failure["image"]
            if not image.is_file():  # a killed explanation's crops are kept
                image.parent.mkdir(parents=True, exist_ok=True)
                with Image.open(original / t.failure["image"]) as whole:
                    atomic_write_bytes(image, png_bytes(np.asarray(whole.convert("RGB").crop(t.crop))))
            x0, y0, x1, y1 = t.crop
            t.image = image.relative_to(original).as_posix()
            t.note = f"cut to {x1 - x0}x{y1 - y0} px at ({x0}, {y0}) of the image as rendered"
        atomic_write_text(root / QUESTIONS, "".join(json.dumps(r) + "\n" for r in rows))
        questions = load_questions(root / QUESTIONS, root)
        cost = self.ask(root, questions, twins, cap)
        for t in twins:
            if t.received_scale is not None:
                whole = t.failure.get("received_scale")
                t.note += (f"; received at {t.received_scale:.2f} px per rendered px"
                           + (f" (the whole image at {whole:.2f})" if whole is not None else ""))
        return cost

    def ask(self, root: Path, questions: list[Question], twins: list[Twin], cap: float | None) -> float | None:
        """The twins' questions asked in the run of the same name in `root`, each twin's outcome
        set from its answer; the cost of the asking."""
        if not questions:
            return None
        session = Session(Evaluation(replace(self.settings, dataset=root, max_cost=cap), questions=[]))
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(session.open(earlier=[]))  # rows of a killed explanation: asked again, from the cache
            predictions = loop.run_until_complete(session.ask_all(questions))
        finally:
            report = loop.run_until_complete(session.close())
            loop.close()
        scored = {r["id"]: (r, p) for r, p in zip(score_rows(questions, predictions, self.settings.run or ""),
                                                  predictions, strict=True)}
        for t in twins:
            if t.failure["id"] in scored:
                row, prediction = scored[t.failure["id"]]
                t.response, t.received_scale = row["response"], row.get("received_scale")
                if prediction["status"] != "ok":
                    t.outcome, t.note = NOT_ASKED, f"the request failed: {prediction['status']}"
                else:
                    t.outcome = FLIPPED if hit(row, self.tolerance) else STILL_WRONG
        for t in twins:
            if t.outcome is None:  # not sent: it could pass the cost budget
                t.outcome, t.note = NOT_ASKED, "the cost budget (`max_cost`) is reached"
        return report.spent_usd if report.max_cost_usd is not None else report.cost_usd


def asked_policy(layout: Layout) -> str:
    """The readability policy the run's questions were written with (questions_summary.json), else
    the dataset config's: the twins' questions follow it."""
    summary = layout.root / SUMMARY_FILE
    if summary.is_file():
        policy = read_json(summary).get("policy")
        if policy in UNREADABLE_POLICIES:
            return policy
    return unreadable_policy(layout, None)


def table(found: ExplainPlan) -> list[dict]:
    """Per question key and factor: failures, changed, asked, flipped and the share of failures
    flipped; and per key, failures that any factor flips and that none does."""
    out = []
    keys = list(dict.fromkeys(f["key"] for f in found.explained))
    for key in keys:
        failures = [f["id"] for f in found.explained if f["key"] == key]
        flipped_by: dict[str, set] = defaultdict(set)
        for change in found.changes:
            twins = [t for t in found.twins if t.change is change and t.failure["key"] == key]
            changed = [t for t in twins if t.outcome not in (UNCHANGED, INVALID)]
            asked = [t for t in changed if t.outcome in (FLIPPED, STILL_WRONG)]
            flipped = [t for t in asked if t.outcome == FLIPPED]
            for t in flipped:
                flipped_by[t.failure["id"]].add(change.name)
            out.append({"key": key, "factor": change.name, "source": change.source,
                        "changes": ", ".join(f"{k}={v}" for k, v in change.changes.items()),
                        "failures": len(failures), "changed": len(changed), "asked": len(asked),
                        "flipped": len(flipped), "share": len(flipped) / len(failures) if failures else None})
        anyone = sum(1 for f in failures if flipped_by.get(f))
        out.append({"key": key, "factor": "any factor", "source": None, "changes": None, "failures": len(failures),
                    "changed": None, "asked": None, "flipped": anyone, "share": anyone / len(failures)})
    return out


def failure_records(found: ExplainPlan) -> list[dict]:
    by_id: dict[str, list[Twin]] = defaultdict(list)
    for t in found.twins:
        by_id[t.failure["id"]].append(t)
    return [{"id": f["id"], "image": f["image"], "key": f["key"], "levels": f["levels"], "response": f["response"],
             "twins": [{"factor": t.change.name, "image": t.image, "outcome": t.outcome, "note": t.note,
                        "response": t.response} for t in by_id[f["id"]]]} for f in found.explained]


def csv_text(rows: list[dict]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["key", "factor", "source", "changes", "failures", "changed", "asked",
                                                "flipped", "share"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()

