"""Multiple-choice answers: the letter of a choice, "(B)", "option C", or a choice's own text."""

from __future__ import annotations

import functools
import re

from byo.score import text
from byo.score.parse.model import Mention, ParseContext

_LETTER_PATTERNS = [
    re.compile(r"\(([A-Za-z])\)"),
    re.compile(r"(?<![\w(])([A-Z])\)"),
    re.compile(r"\b(?:option|choice|letter|answer|caption)\s*(?:is\s*)?:?\s*\(?([A-Za-z])\b(?!')", re.IGNORECASE),
    re.compile(r"^\s*([A-Z])\s*(?:[.:)\-]|$)"),
    re.compile(r"(?<![\w'])([A-Z])(?=\s*[.!]?\s*$)"),
    re.compile(r"(?<![\w'])([A-Z])(?=\s*(?:or|,|/)\s*\(?[A-Z]\)?(?![\w']))"),
]


@functools.lru_cache(maxsize=text.PROMPT_CACHE)
def _choice_pattern(choice: str) -> re.Pattern:
    """A choice's own text, as whole words."""
    body = r"\s+".join(re.escape(w) for w in choice.lower().split())
    return re.compile(rf"(?<![\w-]){body}(?![\w-])", re.IGNORECASE)


def find_choice(span: str, ctx: ParseContext) -> list[Mention]:
    choices = ctx.choices or []
    letters = [chr(65 + i) for i in range(len(choices))]
    found: dict[int, Mention] = {}
    for pattern in _LETTER_PATTERNS:
        for m in pattern.finditer(span):
            letter = m.group(1).upper()
            if letter in letters and not text.negated(span, m.start(1)):
                found.setdefault(m.start(1), Mention(letter, m.start(1), m.end(1)))
    spans = []
    for i, choice in enumerate(choices):
        for m in _choice_pattern(choice).finditer(span):
            spans.append((m.start(), m.end(), letters[i]))
    for start, end, letter in spans:  # a choice inside a longer choice's match is not a mention
        inside = any(s <= start and end <= e and (e - s) > (end - start) for s, e, _ in spans)
        overlaps_letter = any(start <= k < end for k in found)
        if not inside and not overlaps_letter and not text.negated(span, start):
            found.setdefault(start, Mention(letter, start, end))
    mentions = sorted(found.values(), key=lambda x: x.start)
    # "(B) a blue cube": a letter and its own text are one mention
    out: list[Mention] = []
    for m in mentions:
        if out and out[-1].value == m.value and m.start - out[-1].end < 80:
            continue
        out.append(m)
    return out
