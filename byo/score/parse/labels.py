"""Label, label set and position word answers: the terms of the question's vocabulary."""

from __future__ import annotations

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


def find_label(span: str, ctx: ParseContext) -> list[Mention]:
    domain = ctx.domain or DOMAINS[0]
    return [Mention(m.value, m.start, m.end) for m in matcher(domain).find(span) if not text.negated(span, m.start)]


def find_position(span: str, ctx: ParseContext) -> list[Mention]:
    return [Mention(m.value, m.start, m.end) for m in matcher(POSITION_DOMAIN).find(span)
            if not text.negated(span, m.start)]
