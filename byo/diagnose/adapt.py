"""`byo adapt CONFIG --variable PATH --model PROVIDER:MODEL --key KEY`: a breaking point found one
trial at a time. Each trial's level is the psi method's choice (byo.diagnose.adaptive) from the
answers so far; a fresh scene is sampled at that level (everything else as the config's base
scene), rendered, its questions of KEY made (readability applies: a question the image does not
show is skipped as `byo questions` skips it) and asked, and the parsed answers update the posterior.
It stops at a target interval width, or a budget of trials (answers), images or cost.

The trials are an ordinary dataset and run: OUT/config.yaml is the config whose variable PATH lists
the trials' levels in order (`byo render OUT/config.yaml` renders the same images again), the images,
masks and legends, questions.jsonl, and OUT/runs/RUN with the model's answers (`byo score`,
`byo view`, `byo audit` read them as any other). Beside them: adapt.json (the settings, every
trial, the threshold with its interval and the posterior) and adapt.png (the trials and the
posterior).

Trial i is image i of that config: its seed is the dataset seed's image i seed, so the same seed
and the same answers give the same trial sequence and the same images.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from byo.core.dataset import (
    RESOLVED_CONFIG,
    SOURCE_CONFIG,
    Layout,
    atomic_write_bytes,
    atomic_write_text,
)
from byo.core.errors import ARGUMENTS, ConfigError
from byo.core.inputs import read_json
from byo.core.locks import entries, writer_lock
from byo.core.seeding import split_seed
from byo.diagnose.adaptive import (
    CONFIDENCE,
    DIRECTIONS,
    Estimate,
    PsiMethod,
    Stop,
    candidate_levels,
)
from byo.diagnose.plots import adapt_figure
from byo.eval.resolve import Evaluation, preflight
from byo.eval.run import EvalSettings, Session
from byo.eval.schedule import EndpointDown
from byo.families import load_config
from byo.providers import PROVIDERS
from byo.questions.generate import QuestionMaker
from byo.questions.load import QUESTIONS, Question
from byo.render.executors import Executor
from byo.render.executors.inprocess import InProcess
from byo.render.loop import RenderLoop
from byo.render.messages import RenderTask
from byo.render.runner import finalize, resolved_config
from byo.scene.config import (
    ENUMERATED,
    DatasetConfig,
    VaryingAll,
    VaryingAllRange,
    VaryingAmongRange,
    read_config,
    set_path,
    validate_scene,
)
from byo.scene.plan import ImageJob, draw_random_levels, image_name
from byo.scene.spec import PlacementError, placed_spec
from byo.score.psychometric import LINKS, hit
from byo.score.rows import score_rows

RESULT = "adapt.json"
FIGURE = "adapt.png"
MAX_TRIALS = 100  # the default budget when no other is given
MAX_SILENT = 10  # trials in a row without an answer (skipped, failed requests) end the search
MAX_FAILED = 10  # trials that failed (a scene that cannot be placed, a render that failed) end the search


@dataclass(frozen=True)
class Budget:
    """When to stop: the interval at most `width` wide, or `trials` answers (100 unless given),
    `images` renders or `cost` USD spent, whichever comes first (None: no such limit). The cost is
    the run's own ledger (byo.eval.budget): no request is sent that could pass it."""

    width: float | None = None
    trials: int | None = MAX_TRIALS
    images: int | None = None
    cost: float | None = None

    def problems(self) -> list[tuple[str, str]]:
        out = [(name, "expected a positive number")
               for name, value in (("width", self.width), ("trials", self.trials), ("images", self.images),
                                   ("cost", self.cost)) if value is not None and not value > 0]
        if self.width is None and self.trials is None and self.images is None and self.cost is None:
            out.append(("width", "give a target width or a budget (`trials`, `images`, `cost`)"))
        return out


@dataclass
class Trial:
    index: int
    image: str
    level: float
    hits: list[bool] = field(default_factory=list)
    questions: list[dict] = field(default_factory=list)  # id, status, response, value, hit
    skipped: str | None = None  # why the image asked no question
    estimate: Estimate | None = None
    failed: str | None = None  # why the trial has no image (its scene could not be placed, its render failed)

    def to_json(self) -> dict:
        return {"trial": self.index, "image": self.image, "level": self.level, "hits": self.hits,
                "questions": self.questions, "skipped": self.skipped, "failed": self.failed,
                "estimate": self.estimate.to_json() if self.estimate else None}


@dataclass
class AdaptResult:
    out_dir: Path
    run_dir: Path
    variable: str
    unit_range: tuple[float, float]
    estimate: Estimate | None
    stopped: str
    trials: list[Trial]
    images: int
    answers: int
    cost_usd: float | None
    result: Path
    figure: Path | None


@dataclass(frozen=True)
class Variable:
    """The variable the method moves: a dotted scene path, its tested range, and whether it takes
    whole numbers only (an ordered variable: a count)."""

    path: str
    lo: float
    hi: float
    ordered: bool

    def value(self, level: float):
        return int(round(level)) if self.ordered else float(level)


def _numbers(values) -> list[float]:
    return [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]


def variable_range(cfg: DatasetConfig, path: str, given: tuple[float, float] | None, file: str) -> Variable:
    """The tested range: `given` (--range), else the config's own levels of the variable; whole
    numbers only when the scene refuses a fractional value there."""
    where = f"variables.{path}" if path in cfg.variables else "`variable`"
    if given is not None:
        lo, hi = given
    else:
        var = cfg.variables.get(path)
        if isinstance(var, VaryingAllRange | VaryingAmongRange):
            lo, hi = var.min, var.max
        elif isinstance(var, VaryingAll) and len(_numbers(var.levels)) >= 2:
            lo, hi = min(_numbers(var.levels)), max(_numbers(var.levels))
        else:
            raise ConfigError(file, [(where, f"no numeric range of {path} in the config: give `range` LO HI (its "
                                             "lowest and highest level)")])
    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
        raise ConfigError(file, [("`range`", f"expected LO < HI, two finite numbers, got {lo:g} {hi:g}")])
    base = cfg.full_scene()
    known = set(validate_scene(base, cfg.family)[2])

    def problems(value) -> list:
        """What `value` of the variable breaks in the base scene."""
        scene = copy.deepcopy(base)
        try:
            set_path(scene, path, value)
        except (KeyError, IndexError, ValueError) as err:
            raise ConfigError(file, [(where, f"path does not lead into the scene (stuck at {err})")]) from None
        return [p for p in validate_scene(scene, cfg.family)[2] if p not in known]

    whole = math.floor(lo)  # a whole number the scene takes, and half past it that it refuses: an ordered variable
    ordered = bool(problems(whole + 0.5)) and not problems(whole)
    for end in (lo, hi):
        value = int(round(end)) if ordered else float(end)
        if new := problems(value):
            raise ConfigError(file, [(where, f"level {value:g} makes the scene invalid: "
                                             + "; ".join(f"{k}: {m}" for k, m in new))])
    return Variable(path, float(lo), float(hi), ordered)


def trials_config(cfg: DatasetConfig, variable: Variable, levels: Sequence[float]) -> dict:
    """The config whose images are the trials: the variable's levels in trial order (one image
    each), the other enumerated variables left out (the base scene's values), fixed and random
    ones kept, in their order (a random variable's draw depends on its position)."""
    data = cfg.model_dump(mode="json", exclude_unset=True)
    dataset = {k: v for k, v in data["dataset"].items() if k not in ("splits", "split_key", "output_dir", "n_images")}
    dataset["name"] = f"{cfg.dataset.name}_adapt"
    variables = {}
    entry = {"type": "varying_all", "levels": [variable.value(x) for x in levels] or [variable.value(variable.lo)]}
    for path, var in cfg.variables.items():
        if path == variable.path:
            variables[path] = entry
        elif not isinstance(var, ENUMERATED) or var.type == "fixed":
            variables[path] = {k: v for k, v in data["variables"][path].items() if k != "n_images"}
    variables.setdefault(variable.path, entry)
    return {**data, "dataset": dataset, "variables": variables}


def trial_job(cfg: DatasetConfig, variable: Variable, index: int, level: float) -> ImageJob:
    """Trial `index` at `level`: image `index` of the trials' config, its seed and random draws."""
    seed = split_seed(cfg.dataset.seed, cfg.dataset.split, index)
    drawn = draw_random_levels(cfg, seed)
    levels = {}
    for path, var in cfg.variables.items():
        if path == variable.path:
            levels[path] = variable.value(level)
        else:  # a random variable's draw, or a fixed one's value
            levels[path] = drawn[path] if path in drawn else var.level(0)
    return ImageJob(index=index, seed=seed, name=image_name(cfg, index), combination=index, repetition=0,
                    levels=levels, split=cfg.dataset.split)


@dataclass
class AdaptSettings:
    config: str | Path | dict
    variable: str
    provider: str
    key: str
    model: str | None = None
    out: str | Path | None = None  # default output/NAME_adapt_VARIABLE
    run: str | None = None
    range: tuple[float, float] | None = None
    budget: Budget = field(default_factory=lambda: Budget(trials=MAX_TRIALS))
    direction: str = "either"
    link: str = "logistic"
    chance: float | None = None  # default: the question's own (0 for open answers)
    tolerance: float = 0.0  # counts: |error| <= tolerance is a hit
    preprompts: Sequence[str] = ("neutral",)
    instructions: Sequence[str] = ("direct",)
    unreadable: str | None = None
    eval: dict = field(default_factory=dict)  # further EvalSettings (base_url, key_env, params...)


def check(settings: AdaptSettings) -> tuple[DatasetConfig, Variable, str]:
    """The config, the variable and the config's file name, every setting checked before any work."""
    file = str(settings.config) if not isinstance(settings.config, dict) else "<config>"
    cfg = load_config(settings.config, file)
    problems = settings.budget.problems()
    if settings.direction not in DIRECTIONS:
        problems.append(("direction", f"expected one of {', '.join(DIRECTIONS)}"))
    if settings.link not in LINKS:
        problems.append(("link", f"expected one of {', '.join(LINKS)}"))
    if settings.chance is not None and not 0 <= settings.chance < 1:
        problems.append(("chance", "expected a guess rate in [0, 1)"))
    if settings.provider in PROVIDERS and (PROVIDERS[settings.provider].ranks or settings.provider == "blind"):
        problems.append(("model", f"{settings.provider} cannot answer trials one at a time: the blind baseline "
                                    "answers from the whole question file's prior, and image-text models rank "
                                    "captions; use a chat model, oracle or simulated"))
    if problems:
        raise ConfigError(ARGUMENTS, problems)
    preflight(eval_settings(settings, Path(".")))  # a cap with no price, a base URL no client reaches: refused now
    return cfg, variable_range(cfg, settings.variable, settings.range, file), file


def eval_settings(settings: AdaptSettings, root: Path) -> EvalSettings:
    """The settings of the trials' run: the endpoint's, and the cost budget as the run's cap."""
    return EvalSettings(dataset=root, provider=settings.provider, model=settings.model, run=settings.run,
                        **{"max_cost": settings.budget.cost, **settings.eval})


def default_out(cfg: DatasetConfig, variable: str) -> Path:
    return Path("output") / f"{cfg.dataset.name}_adapt_{variable.replace('.', '_')}"


SAME_ON_RESUME = ("variable", "range", "key", "provider", "model", "direction", "link", "tolerance")


def earlier_record(out: Path, settings: AdaptSettings, variable: Variable) -> dict | None:
    """The record of an interrupted or finished byo adapt in `out`, to go on from (None: `out` is
    empty). A folder byo adapt did not make, or one made with other settings, is refused."""
    if not entries(out):
        return None
    path = out / RESULT
    try:
        record = read_json(path) if path.is_file() else None
    except (OSError, ValueError):
        record = None
    if not isinstance(record, dict) or not isinstance(record.get("trials"), list):
        raise ConfigError(str(out), [("<output>", f"{out} is not empty and holds no byo adapt record ({RESULT}): "
                                                  "byo adapt writes a new dataset; choose another output directory")])
    now = {"variable": variable.path, "range": [variable.lo, variable.hi], "key": settings.key,
           "provider": settings.provider, "model": settings.model, "direction": settings.direction,
           "link": settings.link, "tolerance": settings.tolerance}
    differ = [k for k in SAME_ON_RESUME if record.get(k) != now[k]]
    if differ:
        raise ConfigError(str(path), [(k, f"the search there has {record.get(k)!r}, this command {now[k]!r}: resuming "
                                          "goes on with the same settings; choose another output directory")
                                      for k in differ])
    return record


def adapt(settings: AdaptSettings, *, executor: Executor | None = None,
          on_trial: Callable[[Trial], None] | None = None) -> AdaptResult:
    """Run the adaptive procedure of `settings` into its output directory: an empty one, or the
    folder of an earlier byo adapt with the same settings, which goes on from its record (a search
    killed mid-trial redoes that trial; its answers come from the cache)."""
    cfg, variable, file = check(settings)
    working = load_config(trials_config(cfg, variable, [variable.lo, variable.hi]), file)
    out = Path(settings.out) if settings.out else default_out(cfg, settings.variable)
    with writer_lock(out, what="dataset"):
        record = earlier_record(out, settings, variable)
        adaptive = Adaptive(settings, cfg, working, variable, Layout(out), file)
        if record is not None:
            adaptive.restore(record)
        return adaptive.search(executor or InProcess(), on_trial)


class Adaptive:
    """One adaptive search, in the output directory whose lock this process holds."""

    def __init__(self, settings: AdaptSettings, cfg: DatasetConfig, working: DatasetConfig, variable: Variable,
                 layout: Layout, file: str):
        self.s, self.cfg, self.working, self.variable = settings, cfg, working, variable
        self.layout, self.file = layout, file
        self.levels = candidate_levels(variable.lo, variable.hi, integer=variable.ordered)
        self.trials: list[Trial] = []
        self.chance = settings.chance
        self.method = self.new_method(settings.chance or 0.0)
        self.questions: list[Question] = []
        self.question_rows: list[dict] = []
        self.resumed = False
        self.session = Session(Evaluation(eval_settings(settings, layout.root), questions=[]))
        self.maker = QuestionMaker(layout, cfg.family, keys=[settings.key], preprompts=settings.preprompts,
                                   instructions=settings.instructions,
                                   unreadable=settings.unreadable or cfg.questions.unreadable,
                                   options=cfg.questions.options)

    def new_method(self, chance: float) -> PsiMethod:
        return PsiMethod(self.levels, chance=chance, direction=self.s.direction, link=self.s.link,
                         lo=self.variable.lo, hi=self.variable.hi)

    def restore(self, record: dict) -> None:
        """The trials, questions and posterior of an earlier invocation (its record)."""
        for t in record["trials"]:
            est = t.get("estimate")
            estimate = Estimate(threshold=est["threshold"], lo=est["lo"], hi=est["hi"], trials=est["trials"],
                                closed=est["closed"], falls=est["p_falls"]) if isinstance(est, dict) else None
            self.trials.append(Trial(index=t["trial"], image=t["image"], level=float(t["level"]),
                                     hits=list(t.get("hits") or []), questions=list(t.get("questions") or []),
                                     skipped=t.get("skipped"), estimate=estimate, failed=t.get("failed")))
        names = {t.image for t in self.trials}
        path = self.layout.root / QUESTIONS
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.is_file() else []
        self.question_rows = [r for r in rows if Path(r["image"]).stem in names]
        self.questions = [Question.model_validate(r) for r in self.question_rows]
        if self.s.chance is None and any(t.questions for t in self.trials):
            self.chance = float(record.get("chance") or 0.0)
        self.method = self.new_method(self.chance or 0.0)
        for t in self.trials:
            for right in t.hits:
                self.method.update(t.level, right)
        self.resumed = True

    def search(self, executor: Executor, on_trial: Callable[[Trial], None] | None) -> AdaptResult:
        """Trials until a stop: each rendered through the render loop, asked and scored."""
        layout = self.layout
        layout.make_dirs()
        loop = asyncio.new_event_loop()
        self.renders = RenderLoop(layout, executor)
        self.renders.start(images=None, limit=None, shard=None, planned=None, to_render=None, adaptive=True)
        stopped, error = None, None
        try:
            loop.run_until_complete(self.session.open(self.questions if self.resumed else None))
            self.write_files()
            self.write_record("running")  # from here on, the same command resumes the search
            stopped = self.stop_reason() if self.trials else None
            while stopped is None:
                trial = self.trial(loop)
                self.write_files()
                self.write_record("running")
                if on_trial:
                    on_trial(trial)
                stopped = self.stop_reason()
        except EndpointDown as down:
            stopped = f"the endpoint is down: {down}"
        except BaseException as err:  # the state and plot are written; the error goes on to the caller
            stopped, error = f"interrupted: {type(err).__name__}: {err}", err
        finally:
            report = loop.run_until_complete(self.session.close())
            loop.close()
            self.write_files()
            if any(not t.failed for t in self.trials):
                finalize(layout, self.cfg.family)
        failed = sum(1 for t in self.trials if t.failed)
        self.renders.end(rendered=len(self.trials) - failed, failed=failed)
        estimate = self.method.estimate() if self.method.history else None
        figure = None
        if self.method.history:
            figure = layout.root / FIGURE
            atomic_write_bytes(figure, adapt_figure(self.method, self.trials, self.variable.path, self.s.key,
                                                    self.s.model or self.s.provider))
        result = self.write_record(stopped)
        if error is not None:
            raise error
        return AdaptResult(out_dir=layout.root, run_dir=self.session.ev.run_dir, variable=self.variable.path,
                           unit_range=(self.variable.lo, self.variable.hi), estimate=estimate, stopped=stopped,
                           trials=self.trials, images=len(self.trials) - failed, answers=len(self.method.history),
                           cost_usd=report.spent_usd if report.max_cost_usd is not None else report.cost_usd,
                           result=result, figure=figure)

    # --- one trial -----------------------------------------------------------------------------
    def trial(self, loop: asyncio.AbstractEventLoop) -> Trial:
        index = len(self.trials)
        level = self.method.next_level(exclude=[t.level for t in self.trials if t.failed])
        job = trial_job(self.working, self.variable, index, level)
        trial = Trial(index=index, image=job.name, level=float(self.variable.value(level)))
        try:
            spec = placed_spec(self.working, job, self.file)
        except PlacementError as err:
            return self.failed(trial, f"its scene cannot be placed: {err}")
        rendered = self.renders.render_one(RenderTask(self.working, job, spec))  # written and logged
        result = rendered.result
        if result is None:
            return self.failed(trial, f"its render failed: {rendered.error}", logged=True)
        self.trials.append(trial)  # its image is written: the record keeps it, whatever happens next
        before = Counter(self.maker.summary.reasons.get(self.s.key, {}))
        rows = self.maker.of(result.legend)
        if not rows:
            new = Counter(self.maker.summary.reasons.get(self.s.key, {})) - before
            trial.skipped = next(iter(new), "no question of this key")
            trial.estimate = self.method.estimate() if self.method.history else None
            return trial
        questions = [Question.model_validate(r) for r in rows]
        self.question_rows += rows
        self.questions += questions
        self.maker.write(self.question_rows)  # the run's questions exist before it is asked them
        try:
            predictions = loop.run_until_complete(self.session.ask_all(questions))
        except EndpointDown:
            trial.skipped = "the endpoint went down"
            raise
        if not predictions:  # none sent: the next request could pass the cost budget
            trial.skipped = "not asked: the cost budget (`cost`) is reached"
            trial.estimate = self.method.estimate() if self.method.history else None
            return trial
        if self.chance is None:  # the guess rate of the question as asked (0 for open answers)
            self.chance = float(questions[0].chance or 0.0)
            if self.chance:
                self.replay(self.chance)
        scored = score_rows(self.questions, predictions, self.session.ev.run_dir.name)
        for row, prediction in zip(scored, predictions, strict=True):
            right = hit(row, self.s.tolerance) if prediction["status"] == "ok" else None
            trial.questions.append({"id": row["id"], "status": prediction["status"], "response": row["response"],
                                    "value": row["value"], "answer": row["answer"], "hit": right})
            if right is not None:  # a failed request is no answer of the model's
                self.method.update(trial.level, right)
                trial.hits.append(right)
        trial.estimate = self.method.estimate() if self.method.history else None
        return trial

    def failed(self, trial: Trial, why: str, logged: bool = False) -> Trial:
        """A trial with no image: recorded with its reason (its index stays taken, so that the
        trials that follow keep their seeds), and the search goes on."""
        trial.failed = why
        trial.estimate = self.method.estimate() if self.method.history else None
        self.trials.append(trial)
        if not logged:  # a render that failed is in the render log already
            self.renders.record_failure(trial.image, why)
        return trial

    def replay(self, chance: float) -> None:
        """The posterior again from the answers so far, under the question's guess rate."""
        method = self.new_method(chance)
        for level, right in self.method.history:
            method.update(level, right)
        self.method = method

    def stop_reason(self) -> str | None:
        b = self.s.budget
        if self.method.history and (b.width is not None or b.trials is not None):
            reason = Stop(width=b.width, trials=b.trials).reason(self.method.estimate())
            if reason:
                return reason
        rendered = sum(1 for t in self.trials if not t.failed)
        if b.images is not None and rendered >= b.images:
            return f"{rendered} image{'s' if rendered > 1 else ''} (the budget)"
        if (line := self.session.budget.stop_line()) is not None:  # the next request would pass --max-cost
            return line
        failed = [t for t in self.trials if t.failed]
        if len(failed) >= MAX_FAILED:
            return f"{len(failed)} trials failed (the last: {failed[-1].failed})"
        silent = list(itertools.takewhile(lambda t: not t.hits, reversed(self.trials)))
        if len(silent) >= MAX_SILENT:
            why = silent[0].failed or silent[0].skipped or next((q["status"] for q in silent[0].questions), "no answer")
            return f"{len(silent)} trials in a row without an answer (the last: {why})"
        return None

    # --- the files -----------------------------------------------------------------------------
    def write_files(self) -> None:
        """The trials as an ordinary dataset: its config (the levels in trial order), the resolved
        config and the question file."""
        data = trials_config(self.cfg, self.variable, [t.level for t in self.trials])
        final = read_config(data, self.file).with_family(self.cfg.family)  # every level lies in the checked range
        header = (f"# byo adapt: the {len(self.trials)} trials of an adaptive run over {self.variable.path} "
                  f"(from {self.file}), one image per level in trial order.\n")
        atomic_write_text(self.layout.root / SOURCE_CONFIG, header + yaml.safe_dump(data, sort_keys=False))
        atomic_write_text(self.layout.root / RESOLVED_CONFIG, json.dumps(resolved_config(final), indent=1) + "\n")
        self.maker.write(self.question_rows)

    def write_record(self, stopped: str | None) -> Path:
        s, m = self.s, self.method
        estimate = m.estimate() if m.history else None
        record = {
            "config": self.file, "variable": self.variable.path, "range": [self.variable.lo, self.variable.hi],
            "ordered": self.variable.ordered, "candidate_levels": self.levels.tolist(), "key": s.key,
            "provider": s.provider, "model": s.model, "run": self.session.ev.run_dir.name,
            "chance": self.chance if self.chance is not None else m.chance, "direction": s.direction, "link": s.link,
            "criterion": m.criterion, "confidence": CONFIDENCE, "tolerance": s.tolerance,
            "budget": {"width": s.budget.width, "trials": s.budget.trials, "images": s.budget.images,
                       "cost_usd": s.budget.cost},
            "stopped": stopped, "images": sum(1 for t in self.trials if not t.failed), "answers": len(m.history), "cost_usd": self.session.cost(),
            "estimate": estimate.to_json() if estimate else None,
            "posterior": {"thresholds": m.thresholds.tolist(), "mass": m.marginal().tolist()},
            "trials": [t.to_json() for t in self.trials],
        }
        path = self.layout.root / RESULT
        atomic_write_text(path, json.dumps(record, indent=1) + "\n")
        return path

