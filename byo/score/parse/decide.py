"""The decision: which of the values an answer mentions is its answer, and with what status.

How the stages go is told in the package's docstring (byo.score.parse).
"""

from __future__ import annotations

import bisect
import itertools
import re
from typing import Any

from byo.score import text
from byo.score.parse.kinds import KINDS
from byo.score.parse.model import Kind, Mention, Parse, ParseContext


def _key(value: Any) -> Any:
    """A hashable stand-in for a mention's value (cells are lists)."""
    return tuple(_key(v) for v in value) if isinstance(value, list) else value


def _distinct(mentions: list[Mention]) -> list[Any]:
    """The values mentioned, each once, in order of first mention."""
    seen: dict[Any, Any] = {}
    for m in mentions:
        seen.setdefault(_key(m.value), m.value)
    return list(seen.values())


def _ok(value, method: str, **kw) -> Parse:
    return Parse(status="ok", value=value, method=method, **kw)


def _decide_marked(span: str, mentions: list[Mention], kind: Kind, method: str) -> Parse:
    values = _distinct(mentions)
    if kind.is_set:
        return _ok(sorted(values), method)
    if len(values) == 1:
        return _ok(values[0], method)
    if _alternatives(span, mentions, last_only=False):
        return Parse(status="ambiguous", method=method, candidates=values, note=f"the {method} span hedges")
    anchored = _distinct([m for m in mentions if m.anchored])
    if len(anchored) == 1:
        return _ok(anchored[0], f"{method}+anchored")
    return Parse(status="ambiguous", method=method, candidates=values, note=f"several answers in the {method} span")


_FIRST_SENTENCE_END = re.compile(r"(?<=[.!?;])\s|\n")
_NOT_WORD = re.compile(r"[\W_]+")
_CLAUSE_BREAK = re.compile(r"[.!?](?:\s|$)|[,;:\n]")
_AND = re.compile(r"\band\b", re.IGNORECASE)
_BETWEEN = re.compile(r"\bbetween\s+(?:\w+\s+)?$", re.IGNORECASE)


class _Parentheses:
    """Whether a position of a text is inside parentheses: more opened than closed before it
    (counted once for the whole text)."""

    def __init__(self, body: str):
        self.positions = [m.start() for m in _PAREN.finditer(body)]
        self.depth = list(itertools.accumulate(1 if body[i] == "(" else -1 for i in self.positions))

    def __contains__(self, start: int) -> bool:
        k = bisect.bisect_left(self.positions, start)
        return k > 0 and self.depth[k - 1] > 0


_PAREN = re.compile(r"[()]")


def _leading(body: str, mentions: list[Mention], kind: Kind) -> Mention | None:
    first = mentions[0]
    if body[: first.start].strip(" \t\n\"'([{-:"):
        return None
    first_sentence = _FIRST_SENTENCE_END.split(body, maxsplit=1)[0]
    in_first = [m for m in mentions if m.end <= len(first_sentence)]
    if len(_distinct(in_first)) != 1:
        return None  # "Yes and no."
    alone = not _NOT_WORD.sub("", first_sentence[: first.start] + first_sentence[first.end:])
    return first if (kind.leading or alone) else None


def _after_cue(body: str, cues, kind: Kind, ctx: ParseContext, whole: bool = False):
    """The value after the last cue that is followed by one (all of its values if `whole`). Each
    cue's span stops where the next cue's begins: the text after that was looked at already (so
    the search goes over the answer once, however many cues it has)."""
    breaks = [m.end() for m in _CLAUSE_BREAK.finditer(body)]
    marks = _Marks(body)
    stop = len(body)
    for cue in reversed(cues):
        start = _clause_start(breaks, cue.start())  # "..., 5 in all": the number may come before the cue
        if marks.between(start, cue.start()):  # another cue earlier in the clause: start at this one
            start = cue.start()
        end = text.sentence_end(body, start)
        found = kind.find(body[start: min(end, max(stop, cue.end()))], ctx)
        if found:
            values = _distinct(found)
            if whole:
                return values
            return found[-1] if len(values) == 1 else None
        stop = min(stop, start)
    return None


class _Marks:
    """The conclusion and revision cues of a text, found once, to ask whether one lies between two
    positions."""

    def __init__(self, body: str):
        found = sorted((m.start(), m.end()) for pattern in (text.CONCLUSION, text.REVISION)
                       for m in pattern.finditer(body))
        self.starts = [a for a, _ in found]
        self.least_end = list(itertools.accumulate(reversed([b for _, b in found]), min))[::-1]  # from k on

    def between(self, start: int, end: int) -> bool:
        k = bisect.bisect_left(self.starts, start)
        return k < len(self.starts) and self.least_end[k] <= end


def _clause_start(breaks: list[int], pos: int) -> int:
    """The end of the last clause break at or before `pos` (`breaks`: the ends of all, in order)."""
    k = bisect.bisect_right(breaks, pos)
    return breaks[k - 1] if k else 0


def _conclusion(body: str, kind: Kind, ctx: ParseContext, whole: bool = False):
    return _after_cue(body, list(text.CONCLUSION.finditer(body)), kind, ctx, whole)


def _revision(body: str, kind: Kind, ctx: ParseContext):
    return _after_cue(body, list(text.REVISION.finditer(body)), kind, ctx)


_ALTERNATIVE = re.compile(r"^[\s,?.)]*(?:or|or perhaps|or maybe|or possibly|to|-|and|/)[\s(]*(?:\w+\s+)?$", re.IGNORECASE)


def _alternatives(body: str, mentions: list[Mention], last_only: bool) -> bool:
    """"3 or 4", "row 2 or 3", "between 3 and 5", "A or B": the answer hedges between values."""
    pairs = list(zip(mentions, mentions[1:], strict=False))
    if last_only:
        pairs = pairs[-1:]
    for a, b in pairs:
        if a.value == b.value:
            continue
        gap = body[a.end: b.start]
        if _AND.search(gap) and not _BETWEEN.search(body[max(0, a.start - 20): a.start]):
            continue  # "3 white and 2 black": not a hedge
        if _ALTERNATIVE.match(gap):
            return True
    return False


def parse_answer(response: str | None, ctx: ParseContext, *, status: str = "ok", refusal: bool = False) -> Parse:
    if status != "ok":
        return Parse(status="error", note=f"request status {status}")
    kind = KINDS.get(ctx.answer_type)
    if kind is None:
        return Parse(status="unparsed", note=f"no parser for answer type {ctx.answer_type!r}")
    raw = text.clean(response)
    if refusal:
        return Parse(status="refusal", note="the provider flagged a refusal")
    if not raw:
        return Parse(status="unparsed", note="empty answer")
    unechoed = ""
    for method in ("structured", "cue", "template"):  # each looked for only when the ones before found nothing
        if method == "structured":
            spans = text.structured_spans(raw)
        elif method == "cue":
            unechoed = text.strip_echo(raw, ctx.prompt, ctx.choices)
            spans = text.cue_spans(unechoed)
        else:
            spans = text.template_spans(raw, ctx.prompt)
        for span in reversed(spans):  # the last marked answer wins
            if span.strip().lower() in ("<answer>", "answer", "____", ""):
                continue
            mentions = kind.find(span, ctx) or (kind.fallback(span, ctx) if kind.fallback else [])
            if mentions:
                return _decide_marked(span, mentions, kind, method)
    if text.is_refusal(raw):
        return Parse(status="refusal", note="the answer declines")
    body = unechoed
    mentions = kind.find(body, ctx)
    if not mentions and kind.fallback:
        mentions = kind.fallback(body, ctx)
    if not mentions:
        note = kind.unfound(body) if kind.unfound else None
        if note:
            return Parse(status="ambiguous", note=note)
        return Parse(status="unparsed", note="no answer of this type found")
    values = _distinct(mentions)
    if kind.is_set:
        concluded = _conclusion(body, kind, ctx, whole=True)
        return _ok(sorted(concluded), "conclusion") if concluded else _ok(sorted(values), "set")
    if len(values) == 1:
        return _ok(values[0], "only")
    anchored = _distinct([m for m in mentions if m.anchored])
    if ctx.cot:  # the reasoning ends with the answer
        if _alternatives(body, mentions, last_only=True):
            return Parse(status="ambiguous", candidates=values, note="the answer hedges between values")
        if found := (_revision(body, kind, ctx) or _conclusion(body, kind, ctx)):
            return _ok(found.value, "conclusion", candidates=values)
        if len(anchored) == 1:
            return _ok(anchored[0], "anchored", candidates=values)
        return _ok(mentions[-1].value, "last", candidates=values)
    if _alternatives(body, mentions, last_only=False):
        return Parse(status="ambiguous", candidates=values, note="the answer hedges between values")
    if lead := _leading(body, mentions, kind):
        return _ok(lead.value, "leading", candidates=values)
    inside = _Parentheses(body)
    if len(main := _distinct([m for m in mentions if m.start not in inside])) == 1:
        return _ok(main[0], "outside parentheses", candidates=values)
    if revised := _revision(body, kind, ctx):
        return _ok(revised.value, "revision", candidates=values)
    if len(anchored) == 1:
        return _ok(anchored[0], "anchored", candidates=values)
    if concluded := _conclusion(body, kind, ctx):
        return _ok(concluded.value, "conclusion", candidates=values)
    return Parse(status="ambiguous", candidates=values, note="several different answers")
