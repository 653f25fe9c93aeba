"""Multiple-choice answers: the letter of a choice, "(B)", "option C", or a choice's own text; a
choice that is a number also as said in words ("four people" for "(A) 4"). Past 26 options the
labels go on AA, AB, ... (byo.families.base.option_label); two-letter labels are then read in
capitals, or in parentheses."""

from __future__ import annotations

import bisect
import functools
import itertools
import re

from byo.families.base import option_label, option_labels
from byo.score import text
from byo.score.numbers import numbers
from byo.score.parse.model import Mention, ParseContext

_LETTER_PATTERNS = [
    re.compile(r"\(([A-Za-z])\)"),
    re.compile(r"(?<![\w(])([A-Z])\)"),
    re.compile(r"\b(?:option|choice|letter|answer|caption)\s*(?:is\s*)?:?\s*\(?([A-Za-z])\b(?!')", re.IGNORECASE),
    re.compile(r"^\s*([A-Z])\s*(?:[.:)\-]|$)"),
    re.compile(r"(?<![\w'])([A-Z])(?=\s*[.!]?\s*$)"),
    re.compile(r"(?<![\w'])([A-Z])(?=\s*(?:or|,|/)\s*\(?[A-Z]\)?(?![\w']))"),
]
# The same for a question of more than 26 options, whose labels run on to AA, AB, ...
_LONG_PATTERNS = [
    re.compile(r"\(([A-Za-z]{1,2})\)"),
    re.compile(r"(?<![\w(])([A-Z]{1,2})\)"),
    re.compile(r"\b(?:option|choice|letter|answer|caption)\s*(?:is\s*)?:?\s*\(?([A-Za-z])\b(?!')", re.IGNORECASE),
    re.compile(r"\b(?i:option|choice|letter|answer|caption)\s*(?i:is\s*)?:?\s*\(?([A-Z]{2})\b(?!')"),
    re.compile(r"^\s*([A-Z]{1,2})\s*(?:[.:)\-]|$)"),
    re.compile(r"(?<![\w'])([A-Z]{1,2})(?=\s*[.!]?\s*$)"),
    re.compile(r"(?<![\w'])([A-Z]{1,2})(?=\s*(?:or|,|/)\s*\(?[A-Z]{1,2}\)?(?![\w']))"),
]


@functools.lru_cache(maxsize=text.PROMPT_CACHE)
def _choice_pattern(choice: str) -> re.Pattern:
    """A choice's own text, as whole words, whatever the case, spacing and punctuation between
    them (text.words_pattern); a choice without a word (":)") as it is written."""
    body = text.words_pattern(choice) or re.escape(choice.strip())
    return re.compile(rf"(?<![\w-]){body}(?![\w-])", re.IGNORECASE)


def _inside_longer(spans: list[tuple[int, int, str]], longest_end: list[int], k: int) -> bool:
    """Whether spans[k] lies inside a longer span (spans sorted by start; `longest_end[j]` the
    furthest end of spans[:j + 1])."""
    start, end, _ = spans[k]
    # Longer spans holding it start at or before it: those before it in order, or at the same start.
    j = bisect.bisect_right(spans, (start, float("inf"), "")) - 1  # the last span starting at `start`
    if j > k and spans[j][1] >= end and spans[j][1] - spans[j][0] > end - start:
        return True  # a longer one starting at the same place
    before = bisect.bisect_left(spans, (start, -1, "")) - 1  # the last span starting before it
    return before >= 0 and longest_end[before] >= end


@functools.lru_cache(maxsize=text.PROMPT_CACHE)
def _numeric_choices(choices: tuple[str, ...]) -> dict[int | float, str]:
    """value -> letter of the choices that are a number alone ("4", "four"), each value once."""
    out: dict = {}
    for i, choice in enumerate(choices):
        found = numbers(choice)
        if len(found) == 1 and not text.clean(choice[: found[0].start] + choice[found[0].end:]).strip(" .()"):
            out.setdefault(found[0].value, option_label(i))
    return out


def find_choice(span: str, ctx: ParseContext) -> list[Mention]:
    choices = ctx.choices or []
    letters = option_labels(len(choices))
    found: dict[int, Mention] = {}
    for pattern in _LONG_PATTERNS if len(choices) > 26 else _LETTER_PATTERNS:
        for m in pattern.finditer(span):
            letter = m.group(1).upper()
            if letter in letters and not text.negated(span, m.start(1)):
                found.setdefault(m.start(1), Mention(letter, m.start(1), m.end(1)))
    spans = []
    for i, choice in enumerate(choices):
        if not choice.strip():
            continue
        for m in _choice_pattern(choice).finditer(span):
            spans.append((m.start(), m.end(), letters[i]))
    spans.sort()
    letter_at = sorted(found)
    longest_end = list(itertools.accumulate((e for _, e, _ in spans), max))  # of the spans up to k
    for k, (start, end, letter) in enumerate(spans):  # a choice inside a longer choice's match is not a mention
        overlaps_letter = (j := bisect.bisect_left(letter_at, start)) < len(letter_at) and letter_at[j] < end
        if not overlaps_letter and not _inside_longer(spans, longest_end, k) and not text.negated(span, start):
            found.setdefault(start, Mention(letter, start, end))
    by_number = _numeric_choices(tuple(choices))
    if by_number and not found:  # a value in words only where no choice is named otherwise
        for n in numbers(span):
            said = span[n.start: n.end]
            letter = by_number.get(n.value)
            if letter is None or (said[0].isdigit() and said != str(n.value)):  # not "001"
                continue
            if not text.negated(span, n.start):
                found.setdefault(n.start, Mention(letter, n.start, n.end))
    mentions = sorted(found.values(), key=lambda x: x.start)
    # "(B) a blue cube": a letter and its own text are one mention
    out: list[Mention] = []
    for m in mentions:
        if out and out[-1].value == m.value and m.start - out[-1].end < 80:
            continue
        out.append(m)
    return out


_AFTER_LETTER = re.compile(r"[\s).:\-]*")


def contradiction(span: str, ctx: ParseContext) -> str | None:
    """A letter followed by another option's text ("A: No" where (A) is Yes and (B) No): which
    option the answer means is in doubt. Returns a note naming both, or None."""
    choices = ctx.choices or []
    letters = option_labels(len(choices))
    for pattern in _LONG_PATTERNS[:2] if len(choices) > 26 else (*_LETTER_PATTERNS[:2], _LETTER_PATTERNS[3]):
        for m in pattern.finditer(span):
            letter = m.group(1).upper()
            if letter not in letters:
                continue
            at = _AFTER_LETTER.match(span, m.end()).end()
            said = [k for k, c in enumerate(choices) if c.strip() and _choice_pattern(c).match(span, at)]
            if said and letters.index(letter) not in said:
                longest = max(said, key=lambda k: len(choices[k]))
                return f"the letter {letter} is followed by the text of option {letters[longest]}"
    return None
