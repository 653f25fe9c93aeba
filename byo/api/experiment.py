"""`byo run EXPERIMENT --model PROVIDER:MODEL ...`: a whole experiment in one call. For each dataset
config it renders, asks, audits, evaluates every model and scores; then it compares each model with
the baseline and writes one report over everything. Rerun, it redoes only what changed: each stage
records the content hash of what it was made from (`.byo-run.json` beside its output), so a second
invocation renders nothing and sends no request, and a model added later is the only one asked.

EXPERIMENT is a dataset config, a folder of them (a paper's suite: `dataset_configs/byo_eval/`, whose
protocol it follows; so does an experiment file listing the folder, its own `questions` first), or
an experiment file, checked against `ExperimentFile` before any work (an unknown key is refused
with its path and the keys expected):

    experiment:
      name: counting_by_elevation           # the report goes to output/NAME/report.html
      configs: [count.yaml, ../clevr/count.yaml]   # relative to this file; folders allowed
      models:                                # PROVIDER:MODEL[@BASE_URL], a reference, or a mapping
        - blind
        - oracle
        - "openai:gpt-4.1-mini"
        - "openai-compatible:qwen2.5-vl@http://localhost:8000/v1"
        - {provider: openai-compatible, model: qwen2.5-vl, base_url: "http://localhost:8000/v1",
           key_env: LOCAL_KEY, run: qwen-local, concurrency: 4}
      baseline: blind                        # default: the first model
      questions: {preprompts: [neutral, cot], instructions: [direct], keys: ["count_*"], prompts: byo}

`output` (the `out` argument of `run_experiment`, `byo run -o OUT`): every dataset goes to
OUT/DATASET and the report to OUT/report.html; without it, each dataset goes where its config says
(dataset.output_dir, else output/DATASET) and the report to output/NAME/report.html.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import yaml
from pydantic import BeforeValidator, Field, ValidationError, field_validator

from byo.api.rendered_for import (
    SizedFor,
    config_for,
    image_models,
    receivers,
    rendered_for_clash,
    sized_for,
    write_record,
)
from byo.audit.run import AuditReport, audit_dataset
from byo.core.dataset import atomic_write_text
from byo.core.errors import ARGUMENTS, ConfigError
from byo.core.inputs import reading
from byo.core.outputs import check_file_output, writing_outputs
from byo.core.paths import as_name
from byo.core.schema import Strict, validation_problems
from byo.eval.layout import PREDICTIONS, run_name
from byo.eval.resolve import preflight
from byo.eval.run import EvalSettings, evaluate
from byo.families import load_config
from byo.providers import GenerationParams
from byo.providers.catalog import PROVIDER_TYPES
from byo.questions.generate import DEFAULT_PROMPTS, generate
from byo.render.executors import Executor
from byo.render.executors.pool import LocalPool, default_workers
from byo.render.runner import render_dataset
from byo.scene.config import DatasetConfig
from byo.score.bins import Bins, parse_bins
from byo.score.compare import compare, default_output, write_comparison
from byo.score.registry import TABLES as DECLARED_TABLES
from byo.score.report import write_report
from byo.score.run import Scores, load_scores
from byo.view.build import check_view_output, write_view

STAMP = ".byo-run.json"  # what a stage's output was made from, beside it


class QuestionSettings(Strict):
    """What `byo questions` asks; preprompts or instructions None: the prompt set's own grid
    (`prompts: byo-eval`: BYO-Eval's neutral, helpful, cot x declarative, fill_blank)."""

    preprompts: list[str] | None = Field(default_factory=lambda: ["neutral"], min_length=1)
    instructions: list[str] | None = Field(default_factory=lambda: ["direct"], min_length=1)
    keys: list[str] | None = None
    prompts: str = DEFAULT_PROMPTS
    unreadable: str | None = None


class ModelSpec(Strict):
    """A model to evaluate: its provider (a type of byo.providers, or a reference: blind, oracle),
    model name, run name (default PROVIDER-MODEL), endpoint, key variable and concurrency."""

    provider: str = Field(min_length=1)
    model: str | None = None
    run: str | None = None
    base_url: str | None = None
    key_env: str | None = None
    concurrency: int = Field(8, ge=1)

    @field_validator("provider")
    @classmethod
    def _a_provider_type(cls, provider: str) -> str:
        if provider not in PROVIDER_TYPES:
            raise ValueError(f"unknown provider {provider!r}; expected one of {', '.join(sorted(PROVIDER_TYPES))}")
        return provider

    @field_validator("base_url")
    @classmethod
    def _an_http_url(cls, url: str | None) -> str | None:
        if url is not None and not url.startswith(("http://", "https://")):
            raise ValueError(f"expected an http:// or https:// URL, got {url!r}")
        return url


class ExperimentFile(Strict):
    """The `experiment:` section of an experiment file (the only top-level key)."""

    name: str | None = None
    configs: list[str] = Field(min_length=1)
    models: list[Annotated[ModelSpec, BeforeValidator(lambda m: model_fields(m) if isinstance(m, str) else m)]] = (
        Field(default_factory=list))
    baseline: str | None = None
    questions: QuestionSettings = Field(default_factory=QuestionSettings)


MODEL_FORMAT = ("PROVIDER:MODEL (openai:gpt-4.1-mini), PROVIDER:MODEL@BASE_URL "
                "(openai-compatible:qwen2.5-vl@http://localhost:8000/v1) or a reference provider (blind)")


def model_fields(text: str) -> dict:
    """`PROVIDER:MODEL`, `PROVIDER:MODEL@BASE_URL` (the endpoint of an OpenAI-compatible server, a
    local ollama...), or `PROVIDER` alone (blind, oracle, rank-blind...), as ModelSpec's fields."""
    provider, _, rest = text.partition(":")
    model, at, url = rest.partition("@")
    if not provider or (":" in text and not model) or (at and not url):
        raise ValueError(f"expected {MODEL_FORMAT}, got {text!r}")
    return {"provider": provider, "model": model or None, "base_url": url or None}


def model_spec(text: str) -> ModelSpec:
    """A --model's text as a ModelSpec (ValueError naming the format otherwise)."""
    try:
        return ModelSpec(**model_fields(text))
    except ValidationError as err:
        raise ValueError("; ".join(m for _, m in validation_problems(err))) from None


# The keys each part of an experiment file takes, for the message that refuses another one.
SECTIONS_OF = {"experiment": ExperimentFile, "questions": QuestionSettings, "models": ModelSpec}


def _expected_keys(key: str) -> str:
    """`experiment.questions.prompt` -> "expected one of preprompts, instructions, ..."."""
    parts = [part.split("[")[0] for part in key.split(".")[:-1]]
    model = SECTIONS_OF.get(parts[-1]) if parts else None
    return f"expected one of {', '.join(model.model_fields)}" if model else "expected no other key"


def _file_problems(path: Path, data) -> list[tuple[str, str]]:
    """The experiment file's problems, each with its key path and what was expected."""
    others = sorted(str(k) for k in data if k != "experiment")
    if others:
        return [(k, "unknown key: an experiment file holds one section, experiment") for k in others]
    if not isinstance(data["experiment"], dict):
        return [("experiment", f"expected a mapping of {', '.join(ExperimentFile.model_fields)}")]
    try:
        ExperimentFile.model_validate(data["experiment"])
    except ValidationError as err:
        return [(k, f"unknown key: {_expected_keys(k)}" if m == "unknown key" else m)
                for k, m in validation_problems(err, ("experiment",))]
    return []


PROTOCOL = "protocol.yml"  # a suite folder's protocol, beside its configs (.yml: its .yaml files are configs)


class Protocol(Strict):
    """A paper's protocol, declared by its suite's folder (PROTOCOL: a `protocol:` section): the
    questions it asks (its prompt set and grid, its keys) and the ranges its tables pool a
    variable's levels into (`bins`: VARIABLE: LO-HI,LO-HI,... or a named set, `byo-eval` for
    Table 3's 1-4 / 5-9 / 10-21), the split its headline is taken on (`headline_split`: the
    results table pools that split's questions only) and the split parts it asks (`splits`: the
    other images' questions are not asked) and its headline tables (`tables`: tables of
    byo.score.registry, such as Auto-Comp's `autocomp` or COMPASS's `compass_integration`, printed
    after the results table per dataset and model) and those laid across its datasets (`across`:
    BYO-Eval's Table 2, `byo_eval_task`, a row per model and a column group per task). `byo run
    FOLDER` asks and scores as it says."""

    paper: str
    questions: QuestionSettings = Field(default_factory=QuestionSettings)
    bins: dict[str, str] = Field(default_factory=dict)
    headline_split: str | None = None  # the split the results are taken on (KamonBench's Table 1: test)
    splits: list[str] | None = None  # the split parts asked (the binding studies evaluate val and test only)
    tables: list[str] = Field(default_factory=list)  # the paper's headline tables, printed after the results
    # tables laid across the suite's datasets, a row per model and a column group per dataset (BYO-Eval's
    # Table 2: byo_eval_task); their rows of every prompt variant pooled
    across: list[str] = Field(default_factory=list)

    @field_validator("tables", "across")
    @classmethod
    def _declared_tables(cls, names: list[str]) -> list[str]:
        unknown = [n for n in names if n not in DECLARED_TABLES]
        if unknown:
            raise ValueError(f"unknown table {unknown[0]!r}; expected one of {', '.join(sorted(DECLARED_TABLES))}")
        return names

    @field_validator("bins")
    @classmethod
    def _ranges(cls, bins: dict[str, str]) -> dict[str, str]:
        for variable, spec in bins.items():
            parse_bins(f"{variable}={spec}")  # ValueError says what is wrong
        return bins

    def ranges(self) -> Bins:
        return dict(parse_bins(f"{variable}={spec}") for variable, spec in self.bins.items())


def load_protocol(folder: Path) -> Protocol | None:
    """The folder's protocol, checked (ConfigError naming the file and key), or None."""
    path = folder / PROTOCOL
    if not path.is_file():
        return None
    data = _yaml(path)
    if not isinstance(data, dict) or set(data) != {"protocol"}:
        raise ConfigError(str(path), [("protocol", "expected one section, protocol: paper, questions, bins")])
    try:
        return Protocol.model_validate(data["protocol"])
    except ValidationError as err:
        raise ConfigError(str(path), validation_problems(err, ("protocol",))) from None


@dataclass
class Experiment:
    name: str
    configs: list[Path]
    models: list[ModelSpec]
    baseline: str | None = None
    questions: QuestionSettings = field(default_factory=QuestionSettings)
    protocol: Protocol | None = None  # a paper's suite's: its questions and bins

    @property
    def bins(self) -> Bins | None:
        return self.protocol.ranges() if self.protocol is not None and self.protocol.bins else None

    def papers_key(self, key: str) -> bool:
        """Whether `key` is one of the protocol's question keys (patterns such as compass_*); every
        key is when there is no protocol or it names none. An experiment file asking other keys of
        a suite's configs gets them reported apart, never pooled into the paper's rows."""
        keys = self.protocol.questions.keys if self.protocol is not None else None
        return keys is None or any(fnmatch.fnmatchcase(key, pattern) for pattern in keys)


def _configs_in(path: Path) -> list[Path]:
    found = sorted(p for p in path.glob("*.yaml") if p.is_file())
    configs = [p for p in found if "dataset" in (_yaml(p) or {})]
    if not configs:
        raise ConfigError(str(path), [(None, "expected a folder holding dataset configs (YAML with a dataset "
                                             "section); found none")])
    return configs


def _yaml(path: Path):
    with reading(path, "a YAML file"):
        return yaml.safe_load(path.read_text())


def load_experiment(path: str | Path, models: Sequence[str] = (), baseline: str | None = None) -> Experiment:
    """An experiment from a dataset config, a folder of them or an experiment file; `models`
    (PROVIDER:MODEL) are added to the file's."""
    path = Path(path)
    try:
        extra = [model_spec(m) for m in models]
    except ValueError as err:
        raise ConfigError(ARGUMENTS, [("model", str(err))]) from None
    if path.is_dir():
        protocol = load_protocol(path)
        exp = Experiment(name=path.resolve().name, configs=_configs_in(path), models=extra, protocol=protocol,
                         questions=protocol.questions if protocol is not None else QuestionSettings())
    elif not path.is_file():
        raise ConfigError(str(path), [(None, "no such file or folder: expected a dataset config, a folder of "
                                             "them or an experiment file")])
    elif isinstance(data := _yaml(path), dict) and "experiment" in data:
        problems = _file_problems(path, data)
        if problems:
            raise ConfigError(str(path), problems)
        spec = ExperimentFile.model_validate(data["experiment"])
        configs: list[Path] = []
        protocols: dict[str, Protocol] = {}  # a suite folder's, by its paper
        outside: list[str] = []  # the configs listed that are in no suite's folder
        for i, entry in enumerate(spec.configs):
            target = (path.parent / entry).resolve()
            if not target.exists():
                raise ConfigError(str(path), [(f"experiment.configs[{i}]", f"no such file or folder: {entry} "
                                               f"(relative to {path.parent}); expected a dataset config or a "
                                               "folder of them")])
            configs += _configs_in(target) if target.is_dir() else [target]
            if target.is_dir() and (protocol := load_protocol(target)) is not None:
                protocols.setdefault(protocol.paper, protocol)
            else:
                outside.append(entry)
        if len(protocols) > 1:
            raise ConfigError(str(path), [("experiment.configs", "folders of several papers' suites (" + ", ".join(
                protocols) + "): an experiment follows one paper's protocol; expected one experiment file each")])
        if protocols and outside:
            raise ConfigError(str(path), [("experiment.configs", f"{', '.join(outside)} beside the suite of "
                                           f"{next(iter(protocols))}: its protocol (keys, splits) would apply to "
                                           "them too; expected them in an experiment file of their own")])
        listed = [m if isinstance(m, ModelSpec) else model_spec(m) for m in spec.models]
        named = [("experiment.name", spec.name)] + [(f"experiment.models[{i}].run", m.run)
                                                    for i, m in enumerate(listed) if isinstance(m, ModelSpec)]
        for key, name in named:  # the report's folder, the runs' folders
            if name is not None and as_name(name) != name:
                raise ConfigError(str(path), [(key, f"expected a plain folder name (letters, digits, '.', '_' or "
                                                    f"'-'), got {name!r}")])
        protocol = next(iter(protocols.values()), None)  # a suite's folder: its protocol, the file's questions first
        asked = spec.questions if protocol is None or "questions" in data["experiment"] else protocol.questions
        exp = Experiment(name=spec.name or path.stem, configs=configs, models=listed + extra,
                         baseline=spec.baseline, questions=asked, protocol=protocol)
    else:
        exp = Experiment(name=path.stem, configs=[path], models=extra)
    exp.baseline = baseline or exp.baseline
    if not exp.models:
        raise ConfigError(str(path), [("`model`", "no model to evaluate: give `model` PROVIDER:MODEL (or blind, "
                                                  "oracle), or list models in the experiment file")])
    names = [run_of(m) for m in exp.models]
    if exp.baseline is not None and exp.baseline not in names:
        raise ConfigError(str(path), [("`baseline`", f"{exp.baseline!r} is none of the models' runs: "
                                                     + ", ".join(names))])
    return exp


def run_of(model: ModelSpec) -> str:
    """The run a model's answers go to: its own name, else PROVIDER-MODEL (PROVIDER alone for the
    references)."""
    return model.run or run_name(model.provider, model.model or model.provider)


# --- content hashes ----------------------------------------------------------------------------
def digest(*parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else json.dumps(part, sort_keys=True, default=str).encode())
    return h.hexdigest()[:16]


def files_digest(paths: Sequence[Path]) -> str:
    return digest(*(p.read_bytes() for p in sorted(paths) if p.is_file()))


def _stamp(folder: Path) -> dict:
    path = folder / STAMP
    try:
        return json.loads(path.read_text()) if path.is_file() else {}
    except ValueError:
        return {}  # a stamp cut short: the stage is simply done again


def _fresh(folder: Path, stage: str, made_from: str) -> bool:
    return _stamp(folder).get(stage) == made_from


def _mark(folder: Path, stage: str, made_from: str) -> None:
    atomic_write_text(folder / STAMP, json.dumps({**_stamp(folder), stage: made_from}, indent=1) + "\n")


# --- the run -----------------------------------------------------------------------------------
@dataclass
class DatasetOutcome:
    config: Path
    dataset: Path
    rendered: int = 0
    questions: int = 0
    audit: AuditReport | None = None
    scores: dict[str, Scores] = field(default_factory=dict)  # run name -> scores
    requests: dict[str, int] = field(default_factory=dict)  # run name -> requests sent this invocation


@dataclass
class ExperimentOutcome:
    experiment: Experiment
    datasets: list[DatasetOutcome]
    report: Path | None
    comparisons: list[Path]
    work: list[str]  # what was done this invocation, in order (empty: everything was up to date)


def run_experiment(experiment: Experiment, *, out: str | Path | None = None, workers: int | None = None,
                   executor: Executor | None = None, report: str | Path | None = None,
                   on_step: Callable[[str], None] | None = None, progress: bool = True,
                   force: bool = False, received_size: bool = False) -> ExperimentOutcome:
    """Every stage of `experiment`, each done only when what it is made from changed. `out`: the
    folder of everything (OUT/DATASET for each dataset, OUT/report.html); `report`: the report's
    path, when not there. The report (and its sample viewer) replaces only files byo wrote, unless
    `force`. `received_size`: render each config at the largest size its models receive, never
    above the config's (byo.api.rendered_for.sized_for); else at the config's own (a paper's)."""
    say = on_step or (lambda _: None)
    work: list[str] = []
    configs = [(path, load_config(path)) for path in experiment.configs]  # every config checked first
    page = Path(report or (Path(out) if out is not None else Path("output") / experiment.name) / "report.html")
    check_file_output(page, force=force, flag="`report`")  # a file of the user's there: refused before any work
    check_view_output(viewer_page(page), force=force)
    for model in experiment.models:  # and every model's endpoint (a base URL no client reaches, say)
        preflight(EvalSettings(dataset=Path("."), provider=model.provider, model=model.model,
                               base_url=model.base_url, key_env=model.key_env))
    outcomes = [_one_dataset(path, cfg, experiment, executor or LocalPool(workers or default_workers()),
                             work, say, progress, Path(out) / cfg.dataset.name if out is not None else None,
                             received_size)
                for path, cfg in configs]
    names = [run_of(m) for m in experiment.models]
    baseline = experiment.baseline or names[0]
    comparisons = []
    for outcome in outcomes:
        for name in names:
            if name == baseline:
                continue
            a, b = outcome.scores[name], outcome.scores[baseline]
            folder = default_output(a, b)
            made_from = digest(a.facts, b.facts, files_digest([outcome.dataset / "runs" / n / "scores.json"
                                                                 for n in (name, baseline)]))
            if not _fresh(folder, "compare", made_from):
                write_comparison(compare(a, b), folder)
                _mark(folder, "compare", made_from)
                work.append(f"compared {name} with {baseline} on {outcome.dataset.name}")
            comparisons.append(folder)
    scores = [s for outcome in outcomes for s in outcome.scores.values()]
    made_from = files_digest([o.dataset / "runs" / n / "scores.json" for o in outcomes for n in o.scores])
    if not (page.is_file() and _fresh(page.parent, f"report {page.name}", made_from)):
        viewer = write_view(scores, viewer_page(page), force=force)
        with writing_outputs([page], "byo run"):
            write_report(scores, page, title=f"{experiment.name}: " + ", ".join(names), viewer=viewer)
        _mark(page.parent, f"report {page.name}", made_from)
        work.append(f"wrote {page}")
    return ExperimentOutcome(experiment, outcomes, page, comparisons, work)


def viewer_page(page: Path) -> Path:
    """The sample viewer beside a report: REPORT_samples.html."""
    return page.with_name(page.stem + "_samples.html")


def _keep_splits(questions_file: Path, dataset: Path, cfg: DatasetConfig, splits: list[str]) -> int:
    """Rewrite the question file with the questions of images in `splits` only (the split read
    from the question's params, its split level, else its legend's extras); returns how many."""
    kept = []
    legends: dict[str, str | None] = {}
    for line in questions_file.read_text().splitlines():
        if not line.strip():
            continue
        q = json.loads(line)
        split = (q.get("params") or {}).get("split") or q["levels"].get(cfg.dataset.split_key or "split")
        if split is None:
            stem = Path(q["image"]).stem
            if stem not in legends:
                legend = json.loads((dataset / "legends" / f"{stem}.json").read_text())
                legends[stem] = (legend.get("extras") or {}).get("split")
            split = legends[stem]
        if split in splits:
            kept.append(line)
    atomic_write_text(questions_file, "".join(f"{line}\n" for line in kept))
    return len(kept)


def _sized(path: Path, cfg: DatasetConfig, experiment: Experiment, out_dir: Path | None) -> SizedFor | None:
    """received_size: the size to render `path` at for the experiment's image models; a dataset
    already rendered for others at another size is refused (never upscaled)."""
    models = image_models(experiment.models)
    if not models:
        return None
    sized = sized_for(path, models, field="received_size")
    clash = rendered_for_clash(Path(out_dir or cfg.dataset.output_dir or Path("output") / cfg.dataset.name), sized)
    if clash:
        raise ConfigError(str(path), [("received_size", clash)])
    return sized


def _one_dataset(path: Path, cfg: DatasetConfig, experiment: Experiment, executor: Executor, work: list[str],
                 say: Callable[[str], None], progress: bool, out_dir: Path | None = None,
                 received_size: bool = False) -> DatasetOutcome:
    sized = _sized(path, cfg, experiment, out_dir) if received_size else None
    rendered = render_dataset(config_for(path, sized) if sized else cfg, out_dir, executor=executor, resume=True,
                              file=str(path), show_progress=progress, wait_flag=None)  # byo run has no --wait
    dataset = rendered.out_dir
    if sized is not None:
        write_record(dataset, sized)
    outcome = DatasetOutcome(config=path, dataset=dataset, rendered=len(rendered.rendered))
    if rendered.failed:
        raise ConfigError(str(path), [(None, f"{len(rendered.failed)} images failed to render (byo status "
                                             f"{dataset}); rerun the same command to render them")])
    if rendered.rendered:
        work.append(f"rendered {len(rendered.rendered)} images of {dataset.name}")
        say(f"{dataset.name}: rendered {len(rendered.rendered)} images ({rendered.skipped} already complete)")

    q = experiment.questions
    legends = sorted((dataset / "legends").glob("*.json"))
    received = receivers(image_models(experiment.models))  # each model asked what it decides at its received size
    made_from = digest(q.model_dump(mode="json"), files_digest(legends), *([sorted(received)] if received else []))
    questions_file = dataset / "questions.jsonl"
    if not (questions_file.is_file() and _fresh(dataset, "questions", made_from)):
        _, summary = generate(dataset, preprompts=q.preprompts, instructions=q.instructions, keys=q.keys,
                              prompts=q.prompts, unreadable=q.unreadable, received=received)
        _mark(dataset, "questions", made_from)
        work.append(f"asked {dataset.name}")
        say(f"{dataset.name}: {sum(summary.questions.values())} questions")
    splits = experiment.protocol.splits if experiment.protocol is not None else None
    if splits and not _fresh(dataset, "splits", files_digest([questions_file])):  # the file as filtered
        kept = _keep_splits(questions_file, dataset, cfg, splits)
        _mark(dataset, "splits", files_digest([questions_file]))
        say(f"{dataset.name}: {kept} questions on the split parts the paper evaluates ({', '.join(splits)})")
    outcome.questions = sum(1 for _ in questions_file.open())

    asked = files_digest([questions_file, *legends])
    if not _fresh(dataset, "audit", asked):
        outcome.audit = audit_dataset(dataset)
        if outcome.audit.failed:
            raise ConfigError(str(dataset / "audit.json"), [(None, (
                f"the audit found {outcome.audit.count('wrong')} wrong and {outcome.audit.count('ill_posed')} "
                f"ill-posed questions, {len(outcome.audit.legend_problems)} legend fields disagreeing with the "
                "pixels: no model is asked until they are fixed (byo audit shows them)"))])
        _mark(dataset, "audit", asked)
        work.append(f"audited {dataset.name}")

    for model in experiment.models:
        name = run_of(model)
        run_dir = dataset / "runs" / name
        made_from = digest(model.model_dump(mode="json"), files_digest([questions_file]))
        if not ((run_dir / PREDICTIONS).is_file() and _fresh(run_dir, "eval", made_from)):
            report = evaluate(EvalSettings(dataset=dataset, provider=model.provider, model=model.model, run=name,
                                           base_url=model.base_url, key_env=model.key_env,
                                           concurrency=model.concurrency, params=GenerationParams()),
                              show_progress=progress, wait_flag=None)
            outcome.requests[name] = report.requests_sent
            if report.stopped or report.unanswered:
                raise ConfigError(str(run_dir), [(None, f"{report.unanswered} questions unanswered "
                                                        f"({report.stopped.message if report.stopped else 'failed'}); "
                                                        "rerun the same command to resume")])
            _mark(run_dir, "eval", made_from)
            work.append(f"evaluated {name} on {dataset.name} ({report.requests_sent} requests)")
            say(f"{dataset.name}: {name} answered {len(report.rows)} questions "
                f"({report.requests_sent} requests, {report.cached} from the cache)")
        outcome.scores[name] = load_scores(run_dir, bins=experiment.bins)
    return outcome
