"""Turn a rendered dataset's legends into questions.jsonl: templates x preprompts x instructions."""

from __future__ import annotations

import fnmatch
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

import jinja2
import yaml
from pydantic import ValidationError

from byo.dataset import Layout, atomic_write_text
from byo.errors import ConfigError, InputError
from byo.families import get_family
from byo.families.base import CATALOG, Answer, Skip, ask
from byo.inputs import reading
from byo.locks import writer_lock
from byo.questions.load import QUESTIONS
from byo.schema import Strict, validation_problems

PREPROMPTS = ("neutral", "debiased", "cot", "debiased_cot", "helpful")
INSTRUCTIONS = ("direct", "declarative", "fill_blank")
_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)


class Template(Strict):
    task: str
    answer_type: str
    direct: str
    declarative: str
    fill_blank: str


class Preprompt(Strict):
    before: str = ""
    after: str = ""


class FamilyPreprompts(Strict):
    debiased: str
    helpful: str


class FamilyTemplates(Strict):
    family: str
    preprompts: FamilyPreprompts
    questions: dict[str, Template]


class Common(Strict):
    preprompts: dict[str, Preprompt]
    instructions: list[str]


def _load(path, model):
    """`path`: a file or a package resource (importlib.resources)."""
    try:
        return model.model_validate(yaml.safe_load(path.read_text()))
    except FileNotFoundError:
        raise ConfigError(str(path), [("<file>", "question templates not found")]) from None
    except UnicodeDecodeError:
        raise ConfigError(str(path), [("<file>", "not UTF-8 text: expected question templates (YAML)")]) from None
    except yaml.YAMLError as err:
        raise ConfigError(str(path), [("<file>", f"not valid YAML: {str(err)[:200]}")]) from None
    except ValidationError as err:
        raise ConfigError(str(path), validation_problems(err)) from None


def preprompt_parts(name: str, family: FamilyTemplates, common: Common) -> tuple[str, str]:
    """Text before and after the question for a preprompt variant."""
    cot = common.preprompts["cot"]
    parts = {
        "neutral": ("", ""),
        "debiased": (family.preprompts.debiased, ""),
        "cot": (cot.before, cot.after),
        "debiased_cot": (f"{family.preprompts.debiased} {cot.before}", cot.after),
        "helpful": (family.preprompts.helpful, ""),
    }
    return parts[name]


def render(text: str, params: dict[str, Any], where: str) -> str:
    try:
        out = _ENV.from_string(text).render(**params)
    except jinja2.UndefinedError as err:
        raise ConfigError(where, [("template", f"{err.message}; parameters given: {sorted(params) or 'none'}")]) from None
    return " ".join(out.split())


@dataclass
class Summary:
    images: int = 0
    variants: int = 0
    questions: Counter = field(default_factory=Counter)  # key -> questions written
    skipped: Counter = field(default_factory=Counter)  # key -> questions skipped (images x variants)
    reasons: dict[str, Counter] = field(default_factory=dict)


def generate(dataset: str | Path, *, preprompts=("neutral",), instructions=("direct",), keys=None,
             templates: str | Path | None = None, out: str | Path | None = None, wait: bool = False,
             on_wait: Callable[[str], None] | None = None) -> tuple[Path, Summary]:
    """Write the questions of a rendered dataset. The dataset is locked meanwhile: a render still
    writing it is named (or waited for, `wait`) instead of giving the questions of part of it."""
    if not Path(dataset).is_dir():
        raise ConfigError(str(dataset), [("<dataset>", "not a directory: render the dataset first")])
    with writer_lock(dataset, what="dataset", wait=wait, on_wait=on_wait):
        return _generate(Layout(dataset), preprompts, instructions, keys, templates, out)


def _generate(layout: Layout, preprompts, instructions, keys, templates, out) -> tuple[Path, Summary]:
    dataset = layout.root
    legends = layout.legends()
    if not legends:
        raise ConfigError(str(dataset), [("<dataset>", "no complete images (render the dataset first)")])
    plugin = legend_family(layout, legends)
    family = plugin.name
    # The family's templates and the shared preprompts, from the installed catalogue unless a
    # folder of one's own is given.
    where = Path(templates) / f"{family}.yaml" if templates else plugin.templates()
    family_t = _load(where, FamilyTemplates)
    common = _load(Path(templates) / "common.yaml" if templates else files(CATALOG) / "common.yaml", Common)
    problems = [("--preprompts", f"unknown preprompt {p!r}; expected {', '.join(PREPROMPTS)}")
                for p in preprompts if p not in PREPROMPTS]
    problems += [("--instructions", f"unknown instruction {i!r}; expected {', '.join(INSTRUCTIONS)}")
                 for i in instructions if i not in INSTRUCTIONS]
    keys = expand_keys(keys, list(family_t.questions))
    problems += [("--keys", f"unknown question key {k!r} for {family}") for k in keys if k not in family_t.questions]
    problems += [(f"questions.{k}", "no answer function for this key") for k in keys
                 if k in family_t.questions and k not in plugin.answers]
    if problems:
        raise ConfigError(str(where), problems)

    summary = Summary(images=len(legends), variants=len(preprompts) * len(instructions))
    rows = []
    for legend in legends:
        with reading(layout.legend(legend["name"]), "a legend"):
            rows += _questions(legend, plugin, keys, family_t, common, preprompts, instructions, where, summary)
    path = Path(out) if out else layout.root / QUESTIONS
    atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path, summary


def expand_keys(asked, known: list[str]) -> list[str]:
    """The keys asked, a pattern (`compass_*`) standing for the known keys it matches in their
    order; none asked: every known key. A pattern that matches nothing stays, to be named."""
    if not asked:
        return list(known)
    out: list[str] = []
    for k in asked:
        matched = fnmatch.filter(known, k) if any(ch in k for ch in "*?[") else [k]
        out += [m for m in matched or [k] if m not in out]
    return out


def legend_family(layout: Layout, legends: list[dict]):
    """The family of a dataset's images: one for all of them, and installed."""
    for legend in legends:
        if legend["family"] != legends[0]["family"]:
            raise InputError(layout.legend(legend["name"]), f"family {legend['family']!r}, but the dataset's first "
                             f"image is of family {legends[0]['family']!r}", key="family")
    try:
        return get_family(legends[0]["family"])
    except KeyError as err:
        raise InputError(layout.legend(legends[0]["name"]), str(err.args[0]), key="family") from None


def chance_of(answer: Answer, answer_type: str) -> float | None:
    """A guess's chance for a question as asked: the answer function's own figure, else 1 / options
    for multiple choice and 1/2 for yes / no; None for open answers (counts, labels, free text)."""
    if answer.chance is not None:
        return answer.chance
    if answer.choices:
        return 1 / len(answer.choices)
    return 0.5 if answer_type == "yes_no" else None


def _questions(legend: dict, plugin, keys: list[str], family_t: FamilyTemplates, common: Common, preprompts,
               instructions, where, summary: Summary) -> list[dict]:
    """The question rows of one image, counted in `summary`."""
    rows = []
    family = plugin.name
    context = plugin.question_context(legend)
    for key in keys:
        t = family_t.questions[key]
        result = ask(plugin.answers[key], legend, key)
        if isinstance(result, Skip):
            summary.skipped[key] += summary.variants
            summary.reasons.setdefault(key, Counter())[result.reason] += 1
            continue
        assert isinstance(result, Answer)
        for pp in preprompts:
            before, after = preprompt_parts(pp, family_t, common)
            for ins in instructions:
                question = render(getattr(t, ins), result.params, f"{where}: questions.{key}.{ins}")
                prompt = " ".join(render(part, context, f"{where}: preprompts.{pp}")
                                  for part in (before, question, after) if part)
                row = {
                    "id": f"{legend['name']}/{key}/{pp}/{ins}", "image": legend["image"], "family": family,
                    "task": t.task, "key": key, "levels": legend["levels"], "preprompt": pp,
                    "instruction": ins, "prompt": prompt, "answer": result.value,
                    "answer_type": t.answer_type, "params": result.params, "choices": result.choices,
                }
                chance = chance_of(result, t.answer_type)
                if chance is not None:
                    row["chance"] = chance
                if result.retrieval is not None:
                    row["retrieval"] = {"captions": list(result.retrieval.captions), "truth": result.retrieval.truth,
                                        "tags": list(result.retrieval.tags)}
                rows.append(row)
                summary.questions[key] += 1
    return rows
