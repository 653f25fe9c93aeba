"""Label vocabularies with synonyms and plurals, and finding their mentions in text.

A question's vocabulary is the first known domain that holds every true answer of its key
(`domain_for`); a key with answers no domain knows gets a vocabulary of its own answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from byo.families import family_names, get_family
from byo.families.base import POSITION_WORDS, Domain, domain, plural, singular

YES_NO = domain("yes_no", yes="yes|yeah|yep|yup|true|correct|affirmative",
                no="no|nope|false|incorrect|negative")
# Every family's label domains (in family order), then the shared ones.
DOMAINS = [*(d for name in family_names() for d in get_family(name).vocabulary), YES_NO]


NONE = ("none", "nothing", "no container", "no enclosing container", "without a container", "not enclosed")


def from_answers(answers: list[str]) -> Domain:
    """The answers themselves as labels ("none" also as "nothing", "no container"...)."""
    labels = dict.fromkeys(str(a).lower() for a in answers)
    return Domain("answers", {a: NONE if a == "none" else (a,) for a in labels})


def domain_for(answers: list) -> Domain:
    """The first domain whose labels include every answer (lists are flattened)."""
    flat = [str(x).lower() for a in answers for x in (a if isinstance(a, list) else [a])]
    for known in DOMAINS:
        if flat and all(a in known.terms for a in flat):
            return known
    return from_answers(flat)


@dataclass(frozen=True)
class LabelMention:
    value: str
    start: int
    end: int


def _forms(term: str) -> list[str]:
    """A term, its plural, and the singular of a plural term ("bolts" names "a bolt" too)."""
    forms = {term}
    if " " not in term and "-" not in term and len(term) > 3:
        forms |= {plural(term), singular(term)}
    return sorted(forms, key=len, reverse=True)


@dataclass
class Matcher:
    """Finds canonical labels by whole words, the longest match first, never inside another word."""

    pattern: re.Pattern
    lookup: dict[str, str]

    @classmethod
    def build(cls, terms: dict[str, tuple[str, ...]]) -> Matcher:
        lookup = {}
        for canonical, synonyms in terms.items():
            for s in synonyms:
                for form in _forms(s.lower()):
                    lookup.setdefault(form, canonical)
        alternatives = sorted(lookup, key=len, reverse=True)
        body = "|".join(r"\s+".join(re.escape(w) for w in a.split()) for a in alternatives)
        return cls(re.compile(rf"(?<![\w-])(?:{body})(?![\w-])", re.IGNORECASE), lookup)

    def find(self, text: str) -> list[LabelMention]:
        return [LabelMention(self.lookup[" ".join(m.group(0).lower().split())], m.start(), m.end())
                for m in self.pattern.finditer(text)]


# --- grid position words (3 x 3) ----------------------------------------------------------
VERTICAL = {"upper": "upper|top", "middle": "middle|center|centre|central", "lower": "lower|bottom"}
HORIZONTAL = {"left": "left", "middle": "middle|center|centre|central", "right": "right"}


def _position_terms() -> dict[str, tuple[str, ...]]:
    terms: dict[str, list[str]] = {p: [] for p in POSITION_WORDS}
    for v, vs in VERTICAL.items():
        for h, hs in HORIZONTAL.items():
            canonical = "center" if (v, h) == ("middle", "middle") else f"{v} {h}"
            for a in vs.split("|"):
                for b in hs.split("|"):
                    for sep in (" ", "-", " and "):
                        terms[canonical] += [f"{a}{sep}{b}", f"{b}{sep}{a}"]
    terms["center"] += ["center", "centre", "middle", "central"]
    sides = {"left": "middle left", "right": "middle right", "top": "upper middle", "bottom": "lower middle",
             "upper": "upper middle", "lower": "lower middle"}
    for side, canonical in sides.items():  # "the middle of the left side"
        for mid in ("middle", "center", "centre"):
            for tail in ("", " side", " edge", " half"):
                terms[canonical].append(f"{mid} of the {side}{tail}")
    for v in ("upper", "lower"):  # "top center" reads as the upper middle
        terms[f"{v} middle"] += [f"{a} {b}" for a in VERTICAL[v].split("|") for b in ("centre", "center")]
    return {k: tuple(dict.fromkeys(v)) for k, v in terms.items()}


POSITION_DOMAIN = Domain("position_word", _position_terms())


def position_cell(word: str) -> tuple[int, int]:
    """(row, column) of a position word in the 3 x 3 grid."""
    return divmod(POSITION_WORDS.index(word), 3)
