"""Turn a rendered dataset's legends into questions.jsonl: templates x preprompts x instructions."""

from __future__ import annotations

import copy
import fnmatch
import functools
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

import jinja2
import yaml
from pydantic import ValidationError, field_validator

from byo.core.dataset import RESOLVED_CONFIG, Layout, atomic_write_text
from byo.core.errors import ARGUMENTS, ConfigError, InputError
from byo.core.inputs import read_image, read_json, reading
from byo.core.locks import writer_lock
from byo.core.outputs import check_file_output, writing_outputs
from byo.core.schema import Strict, validation_problems
from byo.families import get_family
from byo.families.base import (
    ASKING,
    CATALOG,
    Answer,
    Skip,
    Unreadable,
    ask,
    box_size,
    seen_as_rendered,
)
from byo.questions.load import QUESTIONS, SUMMARY_FILE
from byo.questions.received import Receiver, at_size, worse_check
from byo.scene.config import MAX_OPTIONS, UNREADABLE_POLICIES
from byo.scene.evidence import measure_objects
from byo.scene.outline import OUTLINE_FIELD, outlines

PREPROMPTS = ("neutral", "debiased", "cot", "debiased_cot", "helpful")
INSTRUCTIONS = ("direct", "declarative", "fill_blank")
# Prompt sets: the project's own wording (the catalogue's files) and sets named after a paper,
# each a folder of the catalogue holding a common.yaml and the wording of the families it covers.
DEFAULT_PROMPTS = "byo"
PROMPT_SETS = {"byo": None, "byo-eval": "byo_eval"}
_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)


class Wording(Strict):
    """A question's three forms; `preprompts` replaces the family's text of a preprompt for this
    question (a paper may word its debiased preprompt differently for some tasks)."""

    direct: str
    declarative: str
    fill_blank: str
    preprompts: dict[str, str] = {}


class Template(Wording):
    task: str
    answer_type: str


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


class PromptSetFamily(Strict):
    """A prompt set's wording for one family: task and answer type stay the catalogue's, and a
    key the set does not word keeps the catalogue's wording."""

    family: str
    preprompts: FamilyPreprompts
    questions: dict[str, Wording] = {}


class Grid(Strict):
    """The prompt variants a set asks when none are named (--preprompts, --instructions)."""

    preprompts: list[str] = ["neutral"]
    instructions: list[str] = ["direct"]


class Common(Strict):
    preprompts: dict[str, Preprompt]
    # How each instruction style makes the text asked from a question's three forms (jinja2 with
    # `direct`, `declarative`, `fill_blank`): the project's own set asks one form, a paper's set
    # may append the declarative lead to the question. A list of names (the older form) asks each
    # style's own form.
    instructions: dict[str, str]

    @field_validator("instructions", mode="before")
    @classmethod
    def _named_forms(cls, value):
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return {name: "{{ " + name + " }}" for name in value}
        return value

    # The variants asked by default (a paper's set: the grid its experiments asked).
    grid: Grid = Grid()


@functools.lru_cache(maxsize=64)
def _parse_templates(text: str):
    """A templates file's data, parsed once per text (every question step reads the same few files)
    with libyaml where PyYAML has it."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 (a safe loader)


def _load(path, model):
    """`path`: a file or a package resource (importlib.resources)."""
    try:
        return model.model_validate(copy.deepcopy(_parse_templates(path.read_text())))
    except FileNotFoundError:
        raise ConfigError(str(path), [("<file>", "question templates not found")]) from None
    except UnicodeDecodeError:
        raise ConfigError(str(path), [("<file>", "not UTF-8 text: expected question templates (YAML)")]) from None
    except yaml.YAMLError as err:
        raise ConfigError(str(path), [("<file>", f"not valid YAML: {str(err)[:200]}")]) from None
    except ValidationError as err:
        raise ConfigError(str(path), validation_problems(err)) from None


def preprompt_parts(name: str, family: FamilyTemplates, common: Common,
                    template: Wording | None = None) -> tuple[str, str]:
    """Text before and after the question for a preprompt variant (`template`: the question's own
    preprompt texts, if it has any)."""
    cot = common.preprompts["cot"]
    own = template.preprompts if template is not None else {}
    debiased = own.get("debiased", family.preprompts.debiased)
    parts = {
        "neutral": ("", ""),
        "debiased": (debiased, ""),
        "cot": (cot.before, cot.after),
        "debiased_cot": (f"{debiased} {cot.before}", cot.after),
        "helpful": (own.get("helpful", family.preprompts.helpful), ""),
    }
    return parts[name]


def instruction_text(template: Wording, instruction: str, common: Common, params: dict[str, Any], where: str) -> str:
    """The text asked for a question in an instruction style: the style's composition of the
    question's three forms, each filled with the question's parameters."""
    forms = {f: render(getattr(template, f), params, f"{where}.{f}") for f in INSTRUCTIONS}
    return render(common.instructions[instruction], forms, f"{where}: instructions.{instruction}")


def load_templates(plugin, prompts: str = DEFAULT_PROMPTS, templates: str | Path | None = None):
    """(where, family templates, common texts) of a family in a prompt set: the catalogue's files,
    or a folder of one's own (`templates`), with a named set's wording laid over them."""
    family = plugin.name
    where = Path(templates) / f"{family}.yaml" if templates else plugin.templates()
    family_t = _load(where, FamilyTemplates)
    common = _load(Path(templates) / "common.yaml" if templates else files(CATALOG) / "common.yaml", Common)
    if prompts not in PROMPT_SETS:
        raise ConfigError(ARGUMENTS, [("prompts", f"unknown prompt set {prompts!r}; expected "
                                                f"{', '.join(PROMPT_SETS)}")])
    folder = PROMPT_SETS[prompts]
    if folder is None:
        return where, family_t, common
    base = Path(templates) if templates else None
    set_dir = base / folder if base else files(CATALOG) / folder
    own = (base / folder if base else plugin.templates().parent / folder) / plugin.template_file
    if not own.is_file():
        covered = sorted(p.name.removesuffix(".yaml") for p in set_dir.iterdir()
                         if p.name.endswith(".yaml") and p.name != "common.yaml") if set_dir.is_dir() else []
        raise ConfigError(str(own), [("`prompts`", f"the prompt set {prompts!r} has no wording for family {family!r}; "
                                                   f"it words {', '.join(covered) or 'no family'}")])
    worded = _load(own, PromptSetFamily)
    unknown = [(f"questions.{k}", f"not a question key of {family} (keys: {', '.join(family_t.questions)})")
               for k in worded.questions if k not in family_t.questions]
    if unknown:
        raise ConfigError(str(own), unknown)
    questions = {k: Template(task=t.task, answer_type=t.answer_type,
                             **(worded.questions[k] if k in worded.questions else t).model_dump(
                                 include={"direct", "declarative", "fill_blank", "preprompts"}))
                 for k, t in family_t.questions.items()}
    merged = FamilyTemplates(family=family, preprompts=worded.preprompts, questions=questions)
    return own, merged, _load(set_dir / "common.yaml", Common)


@functools.lru_cache(maxsize=4096)
def _template(text: str) -> jinja2.Template:
    """A template compiled once: a dataset asks the same few texts of every image."""
    return _ENV.from_string(text)


def render(text: str, params: dict[str, Any], where: str) -> str:
    try:
        out = _template(text).render(**params)
    except jinja2.UndefinedError as err:
        raise ConfigError(where, [("template", f"{err.message}; parameters given: {sorted(params) or 'none'}")]) from None
    return " ".join(out.split())


@dataclass
class Summary:
    images: int = 0
    variants: int = 0
    policy: str = "skip"  # what was done with unreadable questions (questions.unreadable)
    questions: Counter = field(default_factory=Counter)  # key -> questions written
    skipped: Counter = field(default_factory=Counter)  # key -> questions skipped (images x variants)
    flagged: Counter = field(default_factory=Counter)  # key -> questions written flagged as unreadable
    reasons: dict[str, Counter] = field(default_factory=dict)  # key -> why skipped (images)
    # per variable and level: "asked" / "skipped" / "flagged" -> questions, and why skipped or flagged
    levels: dict[str, dict[str, Counter]] = field(default_factory=dict)
    why: dict[str, dict[str, Counter]] = field(default_factory=dict)
    # per key, variable and level: "asked" / "skipped" / "flagged" -> questions (the report marks the
    # levels where most of a key's questions were skipped, next to its accuracy curve)
    key_levels: dict[str, dict[str, dict[str, Counter]]] = field(default_factory=dict)
    examples: list[dict] = field(default_factory=list)  # skipped / flagged cases: image, key, rule, reason
    not_applicable: list[str] = field(default_factory=list)  # keys of other designs (Family.key_modes), left out
    # --for MODEL: per model, the questions its received size makes undecidable, and examples of them
    received: dict[str, dict] = field(default_factory=dict)

    def count(self, levels: dict, outcome: str, n: int, reason: str | None = None, key: str | None = None) -> None:
        for variable, level in levels.items():
            shown = json.dumps(level) if not isinstance(level, str) else level
            self.levels.setdefault(variable, {}).setdefault(shown, Counter())[outcome] += n
            if key is not None:
                self.key_levels.setdefault(key, {}).setdefault(variable, {}).setdefault(shown, Counter())[outcome] += n
            if reason:
                self.why.setdefault(variable, {}).setdefault(shown, Counter())[f"{outcome}: {reason}"] += n

    def to_json(self) -> dict:
        return {"images": self.images, "variants": self.variants, "policy": self.policy,
                "keys": {k: {"questions": self.questions[k], "skipped": self.skipped[k], "flagged": self.flagged[k],
                             "why_skipped": dict(self.reasons.get(k, {}))}
                         for k in sorted(set(self.questions) | set(self.skipped))},
                "levels": {v: {lv: dict(c) for lv, c in levels.items()} for v, levels in self.levels.items()},
                "why": {v: {lv: dict(c) for lv, c in levels.items()} for v, levels in self.why.items()},
                "key_levels": {k: {v: {lv: dict(c) for lv, c in levels.items()} for v, levels in variables.items()}
                               for k, variables in sorted(self.key_levels.items())},
                "unreadable": self.examples, "not_applicable": self.not_applicable,
                **({"received": self.received} if self.received else {})}


def unreadable_policy(layout: Layout, given: str | None) -> str:
    """The question policy for unreadable questions: `given` (--unreadable), else the dataset
    config's `questions.unreadable`, else skip."""
    if given is not None:
        if given not in UNREADABLE_POLICIES:
            raise ConfigError(ARGUMENTS, [("unreadable", f"unknown policy {given!r}; expected "
                                                   f"{', '.join(UNREADABLE_POLICIES)}")])
        return given
    policy = config_questions(layout).get("unreadable", "skip")
    if policy not in UNREADABLE_POLICIES:
        raise InputError(layout.root / RESOLVED_CONFIG, f"{policy!r}: expected {', '.join(UNREADABLE_POLICIES)}",
                         key="questions.unreadable")
    return policy


def config_questions(layout: Layout) -> dict:
    """The dataset config's `questions` section (empty when it has none)."""
    resolved = layout.root / RESOLVED_CONFIG
    config = read_json(resolved) if resolved.is_file() else {}
    section = config.get("questions") if isinstance(config, dict) else None
    return section if isinstance(section, dict) else {}


def options_cap(layout: Layout, given: int | None) -> int | None:
    """The most options a chat model is shown for a question with a candidate set: `given`
    (--options), else the dataset config's `questions.options`, else None (the family's default)."""
    where, value = ("options", given) if given is not None else (
        "questions.options", config_questions(layout).get("options"))
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= MAX_OPTIONS:
        expected = f"an integer from 2 to {MAX_OPTIONS} (the options a chat model is shown)"
        if where == "options":
            raise ConfigError(ARGUMENTS, [("options", f"{value!r}: expected {expected}")])
        raise InputError(layout.root / RESOLVED_CONFIG, f"{value!r}: expected {expected}", key=where)
    return value


def default_keys(layout: Layout) -> list[str] | None:
    """The config's questions.keys, checked."""
    keys = config_questions(layout).get("keys")
    if keys is not None and not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
        raise InputError(layout.root / RESOLVED_CONFIG, f"{keys!r}: expected a list of question keys",
                         key="questions.keys")
    return keys


def with_evidence(layout: Layout, legend: dict) -> dict:
    """The legend with each object's readability evidence in the rendered image (`rendered`,
    byo.scene.evidence), measured from the dataset's image and mask files, and each object's
    presence, where the render measured it, folded into its visibility (seen_as_rendered)."""
    rgb = read_image(layout.image(legend["name"]), "RGB")
    mask = read_image(layout.mask(legend["name"]), "L")
    return evidence_in(layout, legend, rgb, mask)


def evidence_in(layout: Layout, legend: dict, rgb, mask) -> dict:
    """`with_evidence` on given pixels and mask (an image as a model receives it)."""
    parts: dict[int, list[int]] = {}
    for p in legend.get("parts", []):
        parts.setdefault(p["object"], []).append(p["id"])
    try:
        found = measure_objects(rgb, mask, {o["id"]: [o["id"], *parts.get(o["id"], [])] for o in legend["objects"]})
    except ValueError as err:
        raise InputError(layout.mask(legend["name"]), str(err)) from None
    seen = seen_as_rendered({**legend, "objects": [{**o, "rendered": found[o["id"]].to_json(digits=None)} if o["id"] in found
                                                   else o for o in legend["objects"]]})
    return with_outlines(seen, (mask.shape[1], mask.shape[0]))


def with_outlines(legend: dict, size: tuple[int, int]) -> dict:
    """The legend with each object's outline evidence (byo/scene/outline.py: how its outline,
    aligned on it, differs from each other value's in an image of `size`), where its family
    draws its points: an attribute is asked only where it can be named from the image alone."""
    try:
        family = get_family(legend["family"])
    except KeyError:
        return legend
    found = outlines(legend, family, size=size)
    return {**legend, "objects": [{**o, OUTLINE_FIELD: found[o["id"]]} if o["id"] in found else o
                                  for o in legend["objects"]]} if found else legend


def generate(dataset: str | Path, *, preprompts=None, instructions=None, keys=None,
             templates: str | Path | None = None, out: str | Path | None = None, wait: bool = False,
             on_wait: Callable[[str], None] | None = None, unreadable: str | None = None,
             prompts: str = DEFAULT_PROMPTS, options: int | None = None, force: bool = False,
             received: dict[str, Receiver] | None = None) -> tuple[Path, Summary]:
    """Write the questions of a rendered dataset (and beside them SUMMARY_FILE: what was asked,
    skipped and flagged, per key and per level). The dataset is locked meanwhile: a render still
    writing it is named (or waited for, `wait`) instead of giving the questions of part of it.
    `unreadable`: skip, flag or ask questions a readability rule finds unreadable (default: the
    config's questions.unreadable, else skip); `prompts`: the prompt set (PROMPT_SETS), whose grid
    gives the preprompts and instructions not named (`None`); `options`: the most options a chat
    model is shown for a question with a candidate set (default: the config's questions.options,
    else the family's own count); `received`: per model (`--for MODEL`), its rule from the sent
    size to the size it receives (byo.questions.received): each question it cannot decide there is
    marked `unreadable_for` it, and counted per model in the summary."""
    if not Path(dataset).is_dir():
        raise ConfigError(str(dataset), [("<dataset>", "not a directory: render the dataset first")])
    # Elsewhere than the dataset's own files (-o), a file byo did not write is not replaced; no link anywhere.
    target = Path(out) if out is not None else Path(dataset) / QUESTIONS
    own = {(Path(dataset) / name).resolve() for name in (QUESTIONS, SUMMARY_FILE)}
    for path in (target, target.with_name(SUMMARY_FILE)):
        check_file_output(path, force=force, own_place=out is None or path.resolve() in own)
    with writer_lock(dataset, what="dataset", wait=wait, on_wait=on_wait, wait_flag="`wait`"):
        return _generate(Layout(dataset), preprompts, instructions, keys, templates, out, unreadable, prompts,
                         options, received)


class QuestionMaker:
    """The questions of a dataset's images, one legend at a time, as `byo questions` writes them:
    the family's templates and the shared preprompts loaded and checked once, every question counted
    in `summary`. byo adapt asks the questions of each trial as soon as its image is rendered."""

    def __init__(self, layout: Layout, plugin, *, preprompts=None, instructions=None, keys=None,
                 templates: str | Path | None = None, unreadable: str | None = None, prompts: str = DEFAULT_PROMPTS,
                 options: int | None = None, images: int = 0, received: dict[str, Receiver] | None = None):
        self.layout, self.plugin = layout, plugin
        self.received = dict(received or {})  # --for MODEL: the model's rule, sent size -> received size
        family = plugin.name
        # The family's templates and the shared preprompts, from the installed catalogue unless a
        # folder of one's own is given, in the prompt set asked for.
        self.where, self.family_t, self.common = load_templates(plugin, prompts, templates)
        preprompts = list(preprompts or self.common.grid.preprompts)  # None: the prompt set's grid
        instructions = list(instructions or self.common.grid.instructions)
        problems = [("`preprompts`", f"unknown preprompt {p!r}; expected {', '.join(PREPROMPTS)}")
                    for p in preprompts if p not in PREPROMPTS]
        problems += [("`instructions`", f"unknown instruction {i!r}; expected {', '.join(self.common.instructions)}")
                     for i in instructions if i not in self.common.instructions]
        self.asked = keys or default_keys(layout)  # None: every key of the family
        self.keys = expand_keys(self.asked, list(self.family_t.questions), plugin.opt_in_keys)
        problems += [("`keys`", f"unknown question key {k!r} for {family}") for k in self.keys
                     if k not in self.family_t.questions]
        problems += [(f"questions.{k}", "no answer function for this key") for k in self.keys
                     if k in self.family_t.questions and k not in plugin.answers]
        if problems:
            raise ConfigError(str(self.where), problems)
        self.preprompts, self.instructions = list(preprompts), list(instructions)
        self.summary = Summary(images=images, variants=len(preprompts) * len(instructions),
                               policy=unreadable_policy(layout, unreadable))
        self.asking = {ASKING: {"options": cap}} if (cap := options_cap(layout, options)) is not None else {}

    def of(self, legend: dict) -> list[dict]:
        """The question rows of one image, its readability measured from the dataset's files."""
        with reading(self.layout.legend(legend["name"]), "a legend"):
            if not self.received:
                seen = {**with_evidence(self.layout, legend), **self.asking}
                return _questions(seen, self.plugin, self.keys, self.family_t, self.common, self.preprompts,
                                  self.instructions, self.where, self.summary)
            rgb = read_image(self.layout.image(legend["name"]), "RGB")
            mask = read_image(self.layout.mask(legend["name"]), "L")
            seen = {**evidence_in(self.layout, legend, rgb, mask), **self.asking}
            rows = _questions(seen, self.plugin, self.keys, self.family_t, self.common, self.preprompts,
                              self.instructions, self.where, self.summary)
            for model, receive in self.received.items():
                self._decide_for(model, receive, legend, rgb, mask, rows)
            return rows

    def _decide_for(self, model: str, receive: Receiver, legend: dict, rgb, mask, rows: list[dict]) -> None:
        """Mark the rows `model` cannot decide at the size it receives (`unreadable_for`), and
        count them in the summary with the objects' heights rendered and received."""
        sent = (mask.shape[1], mask.shape[0])
        size = receive(*sent)
        entry = self.summary.received.setdefault(model, {"sent": list(sent), "received": None, "undecidable": 0,
                                                         "examples": []})
        entry["received"] = list(size) if size is not None else None
        if size is None or (size[0] >= sent[0] and size[1] >= sent[1]):
            return  # unknown (said so: received null), or received whole
        small = at_size(legend, rgb, mask, size)
        entry["counterfactual"] = worse_check(entry.get("counterfactual"), small.check)  # received, rendered, none
        probe = Summary(variants=1, policy="flag")
        seen = {**evidence_in(self.layout, small.legend, small.rgb, small.mask), **self.asking}
        decided = {r["id"] for r in _questions(seen, self.plugin, self.keys, self.family_t, self.common,
                                               self.preprompts, self.instructions, self.where, probe)
                   if "unreadable" not in r}
        why = {e["key"]: (e["rule"], e["reason"]) for e in probe.examples}
        why.update({k: ("skipped", next(iter(c))) for k, c in probe.reasons.items() if k not in why})
        heights = {o["id"]: (box_size(o)[1], box_size(s)[1]) for o, s in zip(legend["objects"], small.legend["objects"],
                                                                          strict=True)}
        for row in rows:
            if row["id"] in decided or "unreadable" in row:
                continue
            rule, reason = why.get(row["key"], ("skipped", "not asked at this size"))
            row.setdefault("unreadable_for", {})[model] = {"rule": rule, "reason": reason}
            entry["undecidable"] += 1
            if len(entry["examples"]) < 50 and row["preprompt"] == self.preprompts[0] \
                    and row["instruction"] == self.instructions[0]:
                entry["examples"].append({"name": legend["name"], "key": row["key"], "levels": legend["levels"],
                                          "rule": rule, "reason": reason,
                                          "height_px": {str(k): {"rendered": r, "received": s}
                                                        for k, (r, s) in heights.items()}})

    def write(self, rows: list[dict], out: str | Path | None = None) -> Path:
        """The question file (and beside it SUMMARY_FILE) of `rows`."""
        path = Path(out) if out else self.layout.root / QUESTIONS
        with writing_outputs([path, path.with_name(SUMMARY_FILE)] if out else [], "byo questions"):
            atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
            atomic_write_text(path.with_name(SUMMARY_FILE) if out else self.layout.root / SUMMARY_FILE,
                              json.dumps(self.summary.to_json(), indent=1, ensure_ascii=False) + "\n")
        return path


def _generate(layout: Layout, preprompts, instructions, keys, templates, out, unreadable=None,
              prompts=DEFAULT_PROMPTS, options=None, received=None) -> tuple[Path, Summary]:
    dataset = layout.root
    legends = layout.legends()
    if not legends:
        raise ConfigError(str(dataset), [("<dataset>", "no complete images (render the dataset first)")])
    maker = QuestionMaker(layout, legend_family(layout, legends), preprompts=preprompts, instructions=instructions,
                          keys=keys, templates=templates, unreadable=unreadable, prompts=prompts, options=options,
                          images=len(legends), received=received)
    if not maker.asked:  # every key of the family: those of another design are left out, not skipped
        maker.summary.not_applicable = [k for k in maker.keys if not any(maker.plugin.applies(k, lg) for lg in legends)]
        maker.keys = [k for k in maker.keys if k not in maker.summary.not_applicable]
    rows = [row for legend in legends for row in maker.of(legend)]
    return maker.write(rows, out), maker.summary


def expand_keys(asked, known: list[str], opt_in: tuple[str, ...] = ()) -> list[str]:
    """The keys asked, a pattern (`compass_*`) standing for the known keys it matches in their
    order; none asked: every known key but those an `opt_in` pattern matches. A pattern that
    matches nothing stays, to be named."""
    if not asked:
        return [k for k in known if not any(fnmatch.fnmatchcase(k, p) for p in opt_in)]
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
        flag = None
        if isinstance(result, Unreadable):
            why = f"unreadable ({result.rule})"
            if summary.policy != "ask":
                summary.examples.append({"image": legend["image"], "name": legend["name"], "key": key,
                                         "policy": summary.policy, "rule": result.rule, "reason": result.reason,
                                         "objects": list(result.objects), "levels": legend["levels"]})
            if summary.policy == "skip":  # the reason by rule; each case's own is in the summary's examples
                result = Skip(why)
            elif summary.policy == "flag":
                flag = {"rule": result.rule, "reason": result.reason}
                summary.flagged[key] += summary.variants
                summary.count(legend["levels"], "flagged", summary.variants, why, key)
                result = result.answer
            else:
                result = result.answer
        if isinstance(result, Skip):
            summary.skipped[key] += summary.variants
            summary.reasons.setdefault(key, Counter())[result.reason] += 1
            summary.count(legend["levels"], "skipped", summary.variants, result.reason, key)
            continue
        assert isinstance(result, Answer)
        if flag is None:
            summary.count(legend["levels"], "asked", summary.variants, key=key)
        for pp in preprompts:
            before, after = preprompt_parts(pp, family_t, common, t)
            for ins in instructions:
                question = instruction_text(t, ins, common, result.params, f"{where}: questions.{key}")
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
                if flag is not None:
                    row["unreadable"] = flag
                if result.retrieval is not None:
                    row["retrieval"] = {"captions": list(result.retrieval.captions), "truth": result.retrieval.truth,
                                        "tags": list(result.retrieval.tags), "order_seed": result.retrieval.order_seed}
                rows.append(row)
                summary.questions[key] += 1
    return rows
