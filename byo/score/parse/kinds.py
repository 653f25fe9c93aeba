"""The answer types: how each is found (KINDS), and a question's parse context (Domains, context_for)."""

from __future__ import annotations

from dataclasses import dataclass, field

from byo.families import family_names, get_family
from byo.families.base import AnswerType
from byo.score.parse.cards import find_card
from byo.score.parse.choice import find_choice
from byo.score.parse.grid import find_cell, find_column, find_row, ordinal_note
from byo.score.parse.integer import find_integer
from byo.score.parse.labels import find_label, find_position
from byo.score.parse.model import Kind, Mention, ParseContext
from byo.score.parse.yes_no import find_yes_no
from byo.score.vocab import Domain, domain_for

KINDS: dict[str, Kind] = {
    "integer": Kind(find_integer),
    "row": Kind(find_row, unfound=ordinal_note),
    "column": Kind(find_column, unfound=ordinal_note),
    "cell": Kind(find_cell),
    "label": Kind(find_label, leading=True),
    "label_set": Kind(find_label, is_set=True),
    "position_word": Kind(find_position, leading=True),
    "yes_no": Kind(find_yes_no, leading=True),
    "multiple_choice": Kind(find_choice, leading=True),
    "card": Kind(find_card, leading=True),
    "card_set": Kind(find_card, is_set=True),
}


def _family_kind(answer_type: AnswerType) -> Kind:
    """A family's own answer type as a parser kind: its finders, given the key's true answers."""

    def find(span: str, ctx: ParseContext) -> list[Mention]:
        return [Mention(v, s, e) for v, s, e in answer_type.find(span, ctx.domain.labels if ctx.domain else [])]

    def fallback(span: str, ctx: ParseContext) -> list[Mention]:
        return [Mention(v, s, e) for v, s, e in answer_type.fallback(span)]

    return Kind(find, fallback=fallback if answer_type.fallback else None)


FAMILY_TYPES: dict[str, AnswerType] = {
    name: t for family in family_names() for name, t in get_family(family).answer_types.items()}
KINDS.update({name: _family_kind(t) for name, t in FAMILY_TYPES.items()})
ANSWER_TYPES = tuple(KINDS)
LABELLED = ("label", "label_set")  # shared types whose vocabulary comes from the key's answers


def exact_labels(answers) -> Domain:
    """The answers themselves, as written, as a vocabulary (for a family's own answer types)."""
    return Domain("answers", {str(a): (str(a),) for a in dict.fromkeys(answers)})


# --- from a question row ----------------------------------------------------------------------
@dataclass
class Domains:
    """Label vocabularies per question key, from all true answers of that key."""

    by_key: dict[str, Domain] = field(default_factory=dict)

    @classmethod
    def from_questions(cls, questions) -> Domains:
        answers: dict[str, list] = {}
        for q in questions:
            if q.answer_type in LABELLED or q.answer_type in FAMILY_TYPES:
                answers.setdefault(q.key, []).append(q.answer)
        out = cls()
        for key, values in answers.items():
            own = next(q.answer_type for q in questions if q.key == key) in FAMILY_TYPES
            out.by_key[key] = exact_labels(values) if own else domain_for(values)
        return out


def context_for(question, domains: Domains | None = None) -> ParseContext:
    domain = (domains.by_key.get(question.key) if domains else None)
    if domain is None and question.answer_type in LABELLED:
        domain = domain_for([question.answer])
    if domain is None and question.answer_type in FAMILY_TYPES:
        domain = exact_labels([question.answer])
    return ParseContext(answer_type=question.answer_type, prompt=question.prompt, preprompt=question.preprompt,
                        choices=question.choices, domain=domain)
