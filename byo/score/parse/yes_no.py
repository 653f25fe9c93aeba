"""Yes/no answers."""

from __future__ import annotations

import re

from byo.score.parse.labels import matcher
from byo.score.parse.model import Mention, ParseContext
from byo.score.vocab import DOMAINS

YES_NO = next(d for d in DOMAINS if d.name == "yes_no")


_NOT_AN_ANSWER = re.compile(r"\s+(?:doubt|question|problem|matter|way|idea)\b", re.IGNORECASE)


def find_yes_no(span: str, ctx: ParseContext) -> list[Mention]:
    """Yes/no words; "no doubt", "no problem" are not answers."""
    return [Mention(m.value, m.start, m.end) for m in matcher(YES_NO).find(span)
            if not (m.value == "no" and _NOT_AN_ANSWER.match(span, m.end))]
