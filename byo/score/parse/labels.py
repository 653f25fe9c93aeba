"""Label, label set and position word answers: the terms of the question's vocabulary."""

from __future__ import annotations

import re

from byo.score import text
from byo.score.parse.model import Mention, ParseContext
from byo.score.vocab import DOMAINS, POSITION_DOMAIN, Domain, Matcher

_MATCHERS: dict[tuple, Matcher] = {}


def matcher(domain: Domain) -> Matcher:
    """The domain's term matcher, built once per vocabulary."""
    key = (domain.name, tuple(domain.terms.items()))
    if key not in _MATCHERS:
        _MATCHERS[key] = Matcher.build(domain.terms)
    return _MATCHERS[key]


_QUOTED = re.compile(r"[\"'(\[]")
# "the letter k", "the letter being circled in the image is k", "letter: 'k'"
_NAMED_LETTER = re.compile(r"\b(?:letter|character|char)(?:\s*:|(?:\s+[^\s.,;:!?]+){0,8}?\s+is)?\s*[\"'(\[]?\s*$",
                           re.IGNORECASE)
_WORD_AFTER = re.compile(r"\s+[a-z]")


def _a_letter(span: str, start: int, end: int) -> bool:
    """Whether a one-letter label at span[start:end] names the letter: "B", "'c'", "(e)", "the
    letter k", or the whole answer; not the article "a", the pronoun "I" or "A red circle..."."""
    said = span[start:end]
    if not span[:start].strip(" \"'([*") and not span[end:].strip(" \"')].!*"):
        return True
    if _NAMED_LETTER.search(span[max(0, start - 80): start]):
        return True
    if start and _QUOTED.match(span[start - 1]) and re.match(r"[.,]?[\"')\]]", span[end: end + 2]):
        return True
    return said.isupper() and not (said in "AI" and _WORD_AFTER.match(span, end))


def find_label(span: str, ctx: ParseContext) -> list[Mention]:
    """The vocabulary's terms in the span; a one-letter term only where it names a letter."""
    domain = ctx.domain or DOMAINS[0]
    return [Mention(m.value, m.start, m.end) for m in matcher(domain).find(span)
            if not text.negated(span, m.start) and (m.end - m.start > 1 or _a_letter(span, m.start, m.end))]


def find_position(span: str, ctx: ParseContext) -> list[Mention]:
    return [Mention(m.value, m.start, m.end) for m in matcher(POSITION_DOMAIN).find(span)
            if not text.negated(span, m.start)]
