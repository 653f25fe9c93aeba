"""Which questions people are asked, in which order, and what the page is told of each.

- **Variant.** A person answers each question once, in the prompt variant a model received: the
  file's first variant unless `--variant PREPROMPT/INSTRUCTION` (or `all`) says otherwise.
- **Sample.** `--per-level N` keeps at most N questions of each question key at each combination
  of levels, drawn with a generator seeded from the dataset, the run and N: every annotator of a
  run answers the same questions, so that their agreement can be measured.
- **Order.** Each annotator gets an order of their own, a permutation seeded from the dataset and
  the annotator's name: the same person meets the same order after any restart.
- **What the page sees** is an `Item`: the id, the image, the prompt as sent to a model, the answer
  type and the input that fits it. The truth, the levels and the template parameters are dropped
  here and never reach the browser. The label options of a key are the whole vocabulary domain of
  its family that holds the key's answers (all piece types, all colours), never the answers
  themselves; a key whose answers no domain holds gets a free-text field.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from byo.core.errors import ConfigError
from byo.families import get_family
from byo.families.base import POSITION_WORDS, Domain, option_labels
from byo.questions.load import Question
from byo.score.parse.cards import RANKS, SUITS
from byo.score.vocab import DOMAINS

ALL_VARIANTS = "all"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
NAME_RULE = "1 to 40 letters, digits, '.', '_' or '-', starting with a letter or digit"
NUMBER_TYPES = ("integer", "row", "column")
LABEL_TYPES = ("label", "label_set")


def check_name(value: str) -> str | None:
    """What is wrong with an annotator or run name, if anything."""
    if not isinstance(value, str) or not NAME.fullmatch(value):
        return f"expected {NAME_RULE}, got {str(value)[:60]!r}"
    return None


def seed(*parts: str) -> int:
    """A generator seed from text: the same parts give the same seed on every machine."""
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:8], "big")


def variant_of(q: Question) -> str:
    return f"{q.preprompt}/{q.instruction}"


@dataclass(frozen=True)
class Item:
    """A question as the page is told it: no answer, no levels, no parameters."""

    id: str
    image: str
    prompt: str
    answer_type: str
    input: dict[str, Any]

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "image": self.image, "prompt": self.prompt, "answer_type": self.answer_type,
                "input": self.input}


def _family_domains(family: str) -> tuple[Domain, ...]:
    try:
        return get_family(family).vocabulary
    except (KeyError, TypeError):  # a question file of a family not installed here
        return ()


def label_options(questions: list[Question]) -> dict[str, list[str] | None]:
    """Per label key: the labels of the first domain (the question's family's first) holding every
    answer of the key in the question file, or None when no known domain does (free text)."""
    answers: dict[str, set[str]] = {}
    families: dict[str, str] = {}
    for q in questions:
        if q.answer_type in LABEL_TYPES:
            values = q.answer if isinstance(q.answer, list) else [q.answer]
            answers.setdefault(q.key, set()).update(str(v).lower() for v in values)
            families.setdefault(q.key, q.family)
    out: dict[str, list[str] | None] = {}
    for key, values in answers.items():
        domains = [*_family_domains(families[key]), *DOMAINS]
        found = next((d for d in domains if values and values <= set(d.terms)), None)
        out[key] = list(found.labels) if found else None
    return out


def input_for(q: Question, labels: dict[str, list[str] | None]) -> dict[str, Any]:
    """The input that fits the answer type; what the page draws and what `answers` accepts."""
    t = q.answer_type
    if t in NUMBER_TYPES:
        return {"kind": "number", "min": 0}
    if t == "cell":
        return {"kind": "cell", "min": 0}
    if t == "yes_no":
        return {"kind": "choice", "options": ["yes", "no"]}
    if t == "position_word":
        return {"kind": "grid3", "options": list(POSITION_WORDS)}
    if t == "multiple_choice" and q.choices:
        return {"kind": "letter", "options": option_labels(len(q.choices)),
                "texts": list(q.choices)}
    if t in ("card", "card_set"):
        return {"kind": "card" if t == "card" else "cards", "ranks": list(RANKS), "suits": list(SUITS)}
    if t in LABEL_TYPES and labels.get(q.key):
        return {"kind": "choice" if t == "label" else "multi", "options": labels[q.key]}
    return {"kind": "text", "max_length": 2000}


@dataclass
class Selection:
    """The questions of a run, in file order, and what the page may be told of each."""

    questions: list[Question]
    variant: str
    per_level: int | None
    borderline: int | None = None  # --borderline N: the questions nearest each rule's threshold (borderline.py)
    items: dict[str, Item] = field(default_factory=dict)
    sha256: str = ""

    def __post_init__(self):
        labels = label_options(self.questions)
        self.items = {q.id: Item(q.id, q.image, q.prompt, q.answer_type, input_for(q, labels))
                      for q in self.questions}
        text = "".join(q.model_dump_json() + "\n" for q in self.questions)
        self.sha256 = hashlib.sha256(text.encode()).hexdigest()

    @property
    def ids(self) -> list[str]:
        return [q.id for q in self.questions]

    def fingerprint(self) -> str:
        """A hash of the questions asked (ids, prompts and truths): a run resumes only on the same."""
        return self.sha256

    def lines(self, order: list[str]) -> str:
        """The question file of an annotator's run, in their order (with the truth: for byo score)."""
        by_id = {q.id: q for q in self.questions}
        return "".join(json.dumps(by_id[i].model_dump(), ensure_ascii=False) + "\n" for i in order)

    def order(self, dataset_name: str, annotator: str) -> list[str]:
        """The annotator's own order: a permutation seeded from the dataset and the name."""
        rng = np.random.default_rng(seed("order", dataset_name, annotator))
        ids = self.ids
        return [ids[i] for i in rng.permutation(len(ids))]


def borderline_only(selection: Selection, ids: set[str], n: int) -> Selection:
    """`selection` narrowed to the questions of a borderline sheet (`ids`, byo.human.borderline)."""
    return Selection([q for q in selection.questions if q.id in ids], selection.variant, selection.per_level, n)


def select(questions: list[Question], *, variant: str | None, per_level: int | None, dataset_name: str,
           run: str, where: str) -> Selection:
    """The questions asked: one prompt variant (or all), sampled per key and level when asked."""
    variants = list(dict.fromkeys(variant_of(q) for q in questions))
    chosen = variant or variants[0]
    if chosen != ALL_VARIANTS:
        if chosen not in variants:
            raise ConfigError(where, [("`variant`", f"no question has the variant {chosen!r}; expected one of "
                                       f"{', '.join(variants)} or {ALL_VARIANTS!r}")])
        questions = [q for q in questions if variant_of(q) == chosen]
    if per_level is not None:
        groups: dict[tuple[str, str], list[int]] = {}
        for i, q in enumerate(questions):
            groups.setdefault((q.key, json.dumps(q.levels, sort_keys=True, default=str)), []).append(i)
        rng = np.random.default_rng(seed("per-level", dataset_name, run, str(per_level)))
        kept: set[int] = set()
        for members in groups.values():
            picked = rng.choice(len(members), size=min(per_level, len(members)), replace=False)
            kept.update(members[int(k)] for k in picked)
        questions = [q for i, q in enumerate(questions) if i in kept]
    return Selection(questions, chosen, per_level)
