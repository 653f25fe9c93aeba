"""Numbers in text: digits and English number words, found as whole tokens with their spans.

Never substring matching: "1" is not found in "10", "8x8" or "1st". A sign is read: "-2" is -2
(a wrong count of 2), not 2. Words: "zero" to
"ninety-nine", "a hundred" / "one hundred and five", "a dozen", "half a dozen", "a single",
"no" / "none" meaning 0 ("no black pieces"; not "No, ..."), and the multiplicatives "once",
"twice", "thrice" ("the lines cross twice"; not "once again", "once you look", "twice as many").
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}
TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i >= 2}
ORDINALS = {w: i for i, w in enumerate(
    "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split())}
# "one" that is a pronoun, not a count.
PRONOUN_ONE = re.compile(r"\b(?:the|this|that|which|each|every|any|no|a|another)\s+one\b|\bone\s+(?:of|another)\b",
                         re.IGNORECASE)
# "no" not followed by something it counts.
NO_NOT_COUNT = {"doubt", "more", "less", "longer", "way", "matter", "idea", "problem", "clear", "visible", "image",
                "one", "answer", "other"}

MULTIPLICATIVES = {"once": 1, "twice": 2, "thrice": 3}
# What follows "once" when it counts ("they meet once in the middle", "once."): a preposition, a
# conjunction or punctuation; "once you look", "once again", "once the lines..." are conjunctions.
_ONCE_COUNTS = re.compile(r"\s*(?:$|[^\w\s]|(?:in|at|on|near|within|along|per|and|or|but|only|where|here|inside|over|"
                          r"across|around|between|before|after|throughout|exactly|each|overall|total|in total)\b)",
                          re.IGNORECASE)
_NOT_A_COUNT_BEFORE = re.compile(r"\b(?:at|all at|for|more than|than)\s+$", re.IGNORECASE)

_DIGITS = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![\w]|\.\d|,\d)")
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")


@dataclass(frozen=True)
class NumberMention:
    value: int | float
    start: int
    end: int


def _word_value(word: str) -> int | None:
    w = word.lower()
    if w in UNITS:
        return UNITS[w]
    if w in TENS:
        return TENS[w]
    if "-" in w:
        a, _, b = w.partition("-")
        if a in TENS and b in UNITS and 0 < UNITS[b] < 10:
            return TENS[a] + UNITS[b]
    return None


def _words(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(0).lower(), m.start(), m.end()) for m in _WORD.finditer(text)]


def _below_hundred(words, i: int, text: str) -> tuple[int, int] | None:
    """(value, index of the last word) of "seven", "twenty-one" or "twenty one" at word i."""
    value = _word_value(words[i][0])
    if value is None:
        return None
    if value in TENS.values() and i + 1 < len(words) and text[words[i][2]: words[i + 1][1]].strip() in ("", "-"):
        unit = UNITS.get(words[i + 1][0])
        if unit is not None and 0 < unit < 10:
            return value + unit, i + 1
    return value, i


def _multiplicative(text: str, word: str, start: int, end: int) -> bool:
    """Whether "once" / "twice" / "thrice" at text[start:end] counts: not "at once", "more than
    once" (no count), "twice as many" (a ratio), "once you look" (a conjunction)."""
    if _NOT_A_COUNT_BEFORE.search(text[max(0, start - 12): start]):
        return False
    if word == "once":
        return bool(_ONCE_COUNTS.match(text, end))
    return not re.match(r"\s+as\b", text[end:], re.IGNORECASE)


def word_numbers(text: str) -> list[NumberMention]:
    """Number words, each phrase once: "twenty one" -> 21, "one hundred and five" -> 105."""
    pronoun_spans = [(m.start(), m.end()) for m in PRONOUN_ONE.finditer(text)]
    starts = [a for a, _ in pronoun_spans]

    def pronoun(at: int) -> bool:  # inside "the one", "one of" (the matches do not overlap)
        k = bisect.bisect_right(starts, at)
        return k > 0 and at < pronoun_spans[k - 1][1]

    words = _words(text)
    out: list[NumberMention] = []

    def adjacent(i: int) -> bool:  # word i + 1 follows word i with only spaces between
        return i + 1 < len(words) and text[words[i][2]: words[i + 1][1]].strip() == ""

    i = 0
    while i < len(words):
        w, start, end = words[i]
        nxt = words[i + 1][0] if i + 1 < len(words) else None
        if w == "half" and nxt == "a" and i + 2 < len(words) and words[i + 2][0] == "dozen":
            out.append(NumberMention(6, start, words[i + 2][2]))
            i += 3
            continue
        if w in ("a", "one") and nxt == "dozen" and adjacent(i):
            out.append(NumberMention(12, start, words[i + 1][2]))
            i += 2
            continue
        if w == "dozen":
            out.append(NumberMention(12, start, end))
            i += 1
            continue
        if w == "a" and nxt in ("single", "hundred") and adjacent(i):
            if nxt == "single":
                out.append(NumberMention(1, start, words[i + 1][2]))
                i += 2
                continue
            value, j = 1, i
        elif w in MULTIPLICATIVES:
            if _multiplicative(text, w, start, end):
                out.append(NumberMention(MULTIPLICATIVES[w], start, end))
            i += 1
            continue
        elif w in ("none", "zero"):
            out.append(NumberMention(0, start, end))
            i += 1
            continue
        elif w == "no":
            if nxt and adjacent(i) and nxt not in NO_NOT_COUNT:
                out.append(NumberMention(0, start, end))
            i += 1
            continue
        else:
            found = _below_hundred(words, i, text)
            if found is None or (w == "one" and pronoun(start)):
                i += 1
                continue
            value, j = found
        if adjacent(j) and words[j + 1][0] == "hundred":
            value, j = value * 100, j + 1
            k = j + 2 if j + 1 < len(words) and words[j + 1][0] == "and" else j + 1
            tail = _below_hundred(words, k, text) if k < len(words) else None
            if tail is not None:
                value, j = value + tail[0], tail[1]
        out.append(NumberMention(value, start, words[j][2]))
        i = j + 1
    return out


MAX_DIGITS = 15  # longer runs of digits are no count an answer gives (and Python caps int() at 4300)


_MINUS = "-\u2212"  # a hyphen-minus, a minus sign
_BEFORE_SIGN = " \t\n:=([{\"'"  # what may come before a sign: "is: -3", "x = -2", "(-1)"


def digit_numbers(text: str) -> list[NumberMention]:
    """Numbers in digits; a minus sign right before one makes it negative ("-2", "is: -3") where
    the sign starts a word (not the dash of a range, "3-4", nor a list's dash, "- 2 cubes")."""
    out = []
    for m in _DIGITS.finditer(text):
        raw = m.group(1)
        if len(raw) > MAX_DIGITS:
            continue
        value = float(raw) if "." in raw else int(raw)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        start = m.start(1)
        if start and text[start - 1] in _MINUS and (start == 1 or text[start - 2] in _BEFORE_SIGN):
            value, start = -value, start - 1
        out.append(NumberMention(value, start, m.end(1)))
    return out


def numbers(text: str) -> list[NumberMention]:
    """Every number in `text`, digits and words, in order of appearance."""
    found = digit_numbers(text) + word_numbers(text)
    return sorted(found, key=lambda n: n.start)


def ordinals(text: str) -> list[NumberMention]:
    """"third", "3rd": kept apart, because "the third row" is ambiguous with 0-based numbering."""
    out = [NumberMention(ORDINALS[w], s, e) for w, s, e in _words(text) if w in ORDINALS]
    out += [NumberMention(int(m.group(1)), m.start(), m.end())
            for m in re.finditer(r"(?<![\w.])(\d+)(?:st|nd|rd|th)\b", text, re.IGNORECASE)
            if len(m.group(1)) <= MAX_DIGITS]
    return sorted(out, key=lambda n: n.start)
