"""The answer types: how each is found (KINDS), and a question's parse context (Domains, context_for)."""

from __future__ import annotations

from dataclasses import dataclass, field

from byo.families.crest import metrics as crest
from byo.score.parse.cards import find_card
from byo.score.parse.choice import find_choice
from byo.score.parse.crests import crest_free_text, find_crest_label, find_program
from byo.score.parse.grid import find_cell, find_column, find_row, ordinal_note
from byo.score.parse.integer import find_integer
from byo.score.parse.labels import find_label, find_position
from byo.score.parse.model import Kind, ParseContext
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
    "crest_program": Kind(find_program),
    "crest_kdl": Kind(find_crest_label, fallback=crest_free_text),
    "crest_english": Kind(find_crest_label, fallback=crest_free_text),
}
ANSWER_TYPES = tuple(KINDS)


# --- from a question row ----------------------------------------------------------------------
@dataclass
class Domains:
    """Label vocabularies per question key, from all true answers of that key."""

    by_key: dict[str, Domain] = field(default_factory=dict)

    @classmethod
    def from_questions(cls, questions) -> Domains:
        answers: dict[str, list] = {}
        for q in questions:
            if q.answer_type in ("label", "label_set", "crest_english", "crest_kdl"):
                answers.setdefault(q.key, []).append(q.answer)
        out = cls()
        for key, values in answers.items():
            crest_type = next(q.answer_type for q in questions if q.key == key).startswith("crest")
            out.by_key[key] = crest.label_domain(values) if crest_type else domain_for(values)
        return out


def context_for(question, domains: Domains | None = None) -> ParseContext:
    domain = (domains.by_key.get(question.key) if domains else None)
    if domain is None and question.answer_type in ("label", "label_set"):
        domain = domain_for([question.answer])
    if domain is None and question.answer_type in ("crest_english", "crest_kdl"):
        domain = crest.label_domain([question.answer])
    return ParseContext(answer_type=question.answer_type, prompt=question.prompt, preprompt=question.preprompt,
                        choices=question.choices, domain=domain)
