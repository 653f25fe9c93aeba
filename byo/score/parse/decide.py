"""The decision: which of the values an answer mentions is its answer, and with what status.

How the stages go is told in the package's docstring (byo.score.parse).
"""

from __future__ import annotations

import bisect
import itertools
import re
from typing import Any

from byo.families.base import option_index
from byo.providers.reasoning import split_reasoning
from byo.score import text
from byo.score.parse.choice import contradiction
from byo.score.parse.kinds import KINDS
from byo.score.parse.model import Kind, Mention, Parse, ParseContext
from byo.score.parse.yes_no import statement


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
    if method == "cue" and not _NOT_WORD.sub("", span[: mentions[0].start]):
        return _ok(mentions[0].value, f"{method}+first")  # "the answer is (B) 2. There are two..."
    anchored = _distinct([m for m in mentions if m.anchored])
    if len(anchored) == 1:
        return _ok(anchored[0], f"{method}+anchored")
    return Parse(status="ambiguous", method=method, candidates=values, note=f"several answers in the {method} span")


_FIRST_SENTENCE_END = re.compile(r"(?<=[.!?;])\s|\n")
_NOT_WORD = re.compile(r"[\W_]+")
_CLAUSE_BREAK = re.compile(r"[.!?](?:\s|$)|[,;:\n]")
_CLAUSE_END = re.compile(r"[.!?](?:\s|$)|[,;:\n]|\s-\s")
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


_SET_APART = re.compile(r"[ \t]*(?:[,.;:!]|-\s|\n|$)")  # "Yes, ...", "No. ...", "Yes - ...", "Yes" alone


def _leading(body: str, mentions: list[Mention], kind: Kind, ctx: ParseContext) -> Mention | None:
    """The value the answer starts with: alone in its first sentence, or (a label, yes/no, choice
    or card) the only value of it; a yes or no set apart at the start ("Yes, there are no
    cracks") whatever words follow."""
    first = mentions[0]
    if body[: first.start].strip(" \t\n\"'([{-:"):
        return None
    if ctx.answer_type == "yes_no" and _SET_APART.match(body, first.end):
        return first
    first_sentence = _FIRST_SENTENCE_END.split(body, maxsplit=1)[0]
    in_first = [m for m in mentions if m.end <= len(first_sentence)]
    if len(_distinct(in_first)) != 1:
        return None  # "Yes and no."
    alone = not _NOT_WORD.sub("", first_sentence[: first.start] + first_sentence[first.end:])
    return first if (kind.leading or alone) else None


def _first_sentence(body: str, mentions: list[Mention]) -> Mention | None:
    """A direct answer that states its one value in its first sentence, then explains ("The box
    holds bolts. Screws would have pointed tips...")."""
    end = text.sentence_end(body, 0)
    first = [m for m in mentions if m.start < end]
    while first and (last := max(m.end for m in first)) > end:  # a value of several sentences (a caption)
        end = text.sentence_end(body, last)
        first = [m for m in mentions if m.start < end]
    return first[0] if first and len(_distinct(first)) == 1 else None


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
        end = min(text.sentence_end(body, start), max(stop, cue.end()))
        found = [m for m in kind.find(body[start: end], ctx) if not m.elsewhere]
        if found and whole:
            return _distinct(found)
        if found:  # "4 squares in total - the outer one and 3 inside it": the cue's own clause first
            clause_end = _CLAUSE_END.search(body, cue.end(), end)
            own = [m for m in found if start + m.start < (clause_end.start() if clause_end else end)]
            return (_one(own) if own else None) or _one(found)
        stop = min(stop, start)
    return None


def _one(found: list[Mention]) -> Mention | None:
    """The one value of a span: its only value, else its only anchored value."""
    if len(_distinct(found)) == 1:
        return found[-1]
    anchored = [m for m in found if m.anchored]
    return anchored[-1] if anchored and len(_distinct(anchored)) == 1 else None


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
_STEP = re.compile(r"[\n:;]|[.!?]\s")  # a range ("3-4", "3 to 4") does not run over a line or a sentence end


def _alternatives(body: str, mentions: list[Mention], last_only: bool) -> bool:
    """"3 or 4", "row 2 or 3", "between 3 and 5", "A or B": the answer hedges between values. Not a
    list ("- 1 square\n- 2 squares") nor a sum ("5 - 1 = 4")."""
    pairs = list(zip(mentions, mentions[1:], strict=False))
    if last_only:
        pairs = pairs[-1:]
    for a, b in pairs:
        if a.value == b.value:
            continue
        gap = body[a.end: b.start]
        if _AND.search(gap) and not _BETWEEN.search(body[max(0, a.start - 20): a.start]):
            continue  # "3 white and 2 black": not a hedge
        if not _ALTERNATIVE.match(gap):
            continue
        if re.search(r"-|\bto\b|/", gap) and not re.search(r"\bor\b", gap, re.IGNORECASE):
            if _STEP.search(gap) or re.match(r"\s*=", body[b.end: b.end + 3]):
                continue  # a list item's dash, a sum
        return True
    return False


# --- degenerate answers ----------------------------------------------------------------------
LOOP_NGRAM = 6  # words in the sequences compared
LOOP_SHARE = 0.5  # a text whose word sequences are mostly repeats of earlier ones loops
_TOKEN = re.compile(r"\w+")


def loops(body: str) -> bool:
    """Whether the answer is degenerate: most of its 6-word sequences repeat earlier ones ("A. 6
    B. 5 C. 4 D. 3 A. 6 B. 5 ..."), as when a model's decoding falls into a loop."""
    words = _TOKEN.findall(body.lower())
    grams = list(zip(*(words[k:] for k in range(LOOP_NGRAM)), strict=False))
    if len(grams) < 3 * LOOP_NGRAM:
        return False
    seen: set = set()
    repeats = 0
    for g in grams:
        repeats += g in seen
        seen.add(g)
    return repeats >= LOOP_SHARE * len(grams)


# --- the whole answer ------------------------------------------------------------------------
_LAST_LINE = re.compile(r"\n\s*([^\n]{1,60}?)\s*$")


def _final_line(body: str, kind: Kind, ctx: ParseContext, *, anchored: bool = False) -> Mention | None:
    """The value alone on the answer's last line ("...\n\n5"): a direct answer after its working;
    with `anchored`, also the one value of a last line that ties it to what is asked ("= 42
    containers")."""
    m = _LAST_LINE.search(body)
    if not m:
        return None
    line = m.group(1)
    found = kind.find(line, ctx)
    if len(found) != 1:
        return None
    if anchored:
        return found[0] if found[0].anchored else None
    rest = line[: found[0].start] + " " + line[found[0].end:]
    k = option_index(found[0].value) if ctx.choices and isinstance(found[0].value, str) else None
    if k is not None and k < len(ctx.choices):  # "(C) 0": the choice's own text
        rest = rest.replace(ctx.choices[k], " ", 1)
    return None if _NOT_WORD.sub("", rest) else found[0]


_NUMERAL = re.compile(r"\d")


def _result(body: str, kind: Kind, ctx: ParseContext) -> Mention | None:
    """The result of a calculation that ends the answer ("9 - 5 = 4", "... so 3 x 4 = 12 boxes."):
    the value after its last "=", when no other number follows it (a count)."""
    if ctx.answer_type != "integer":
        return None
    at = body.rfind("=")
    if at < 0:
        return None
    after = body[at + 1:]
    found = kind.find(after, ctx)
    if len(found) != 1 or _NUMERAL.search(after[found[0].end:]) or len(after) - found[0].end > 80:
        return None
    return found[0]


def _total(body: str, mentions: list[Mention]) -> Mention | None:
    """A stated total before its breakdown ("2 squares: one inside a larger square", "28 containers.
    14 in the top row and 14 below"): the first anchored value, when no anchored value after it
    is larger."""
    anchored = [m for m in mentions if m.anchored and isinstance(m.value, int | float)]
    if not anchored or any(m.value > anchored[0].value for m in anchored[1:]):
        return None
    return anchored[0]


def _hedge(values) -> Parse:
    return Parse(status="ambiguous", method="hedge", candidates=values, note="the answer hedges between values")


def parse_answer(response: str | None, ctx: ParseContext, *, status: str = "ok", refusal: bool = False) -> Parse:
    if status != "ok":
        return Parse(status="error", note=f"request status {status}")
    kind = KINDS.get(ctx.answer_type)
    if kind is None:
        return Parse(status="unparsed", note=f"no parser for answer type {ctx.answer_type!r}")
    raw = text.first_turn(text.clean(split_reasoning(response)[0]))  # never a <think> block, nor a turn of its own
    if refusal:
        return Parse(status="refusal", note="the provider flagged a refusal")
    if not raw:
        return Parse(status="unparsed", note="empty answer")
    unechoed = text.strip_echo(raw, ctx.prompt, ctx.choices)
    if ctx.choices and ctx.answer_type == "multiple_choice" and (note := contradiction(unechoed, ctx)):
        return Parse(status="ambiguous", method="contradiction", note=note)
    for method in MARKED:  # each looked for only when the ones before found nothing
        if method == "structured":
            spans = text.structured_spans(raw)
        elif method == "braces":
            spans = text.brace_spans(unechoed)
        elif method == "cue":
            spans = text.cue_spans(unechoed)
        else:
            spans = text.template_spans(raw, ctx.prompt)
        for span in reversed(spans):  # the last marked answer wins
            if span.strip().lower() in ("<answer>", "answer", "____", ""):
                continue
            mentions = kind.find(span, ctx) or (kind.fallback(span, ctx) if kind.fallback else [])
            if not mentions and not ctx.choices and (own := text.own_option(span, raw)):
                span = own  # "(A) Yes (B) No ... Answer: (A)": the text of the answer's own option A
                mentions = kind.find(span, ctx)
            if mentions:
                return _decide_marked(span, mentions, kind, method)
    if text.is_refusal(raw):
        return Parse(status="refusal", method="refusal", note="the answer declines")
    parse = _whole(unechoed, kind, ctx)
    if parse.status == "unparsed" and ctx.answer_type == "yes_no" and (said := statement(raw, ctx.prompt)):
        return _ok(said, "statement")
    if parse.status in ("unparsed", "ambiguous") and parse.method != "loop" and ctx.answer_type != "integer" and (
            why := text.denies_premise(unechoed, ctx.prompt, ctx.choices, found=parse.status == "ambiguous")):
        return Parse(status="refusal", method="premise", candidates=parse.candidates, note=why)
    return parse


MARKED = ("structured", "braces", "cue", "template")
# The rules that decide a parse (Parse.method); "structured+anchored", "cue+first" and the like:
# a marked span with several values, decided by its one anchored value or the value right after
# its cue. The order they are tried in: the package's docstring.
RULES = {
    "structured": "a structured answer: {answer: 5}, <answer>5</answer>, \\boxed{5}, JSON",
    "braces": "a value alone in braces, as the prompt asked: {5}, rows={4}",
    "cue": "after a cue: \"the answer is\", \"Answer:\" (cue+first: the value right after it)",
    "template": "the blank of an echoed fill-in-the-blank sentence, or after an echoed declarative lead",
    "refusal": "the answer declines",
    "only": "the only value the answer gives",
    "loop": "degenerate text that repeats itself: unparsed",
    "hedge": "the answer hedges between values (\"3 or 4\", \"10-12\"): ambiguous",
    "revision": "a corrected value (\"after checking again, 7\")",
    "result": "the result of a calculation that ends the answer (\"9 - 5 = 4\"): the value after its last \"=\"",
    "final line": "the value alone on the last line of the answer (after the conclusion: its one value tied to "
                  "what is asked, \"= 42 containers\")",
    "conclusion": "after the last conclusion cue (\"therefore\", \"in total\", \"so\")",
    "leading": "the value the answer starts with",
    "first sentence": "a label, yes/no, choice or card: the one value of the first sentence that names one",
    "anchored": "the only value tied to what is asked (\"5 pieces\", \"they cross twice\", \"do not intersect\")",
    "total": "a stated total before its breakdown",
    "outside parentheses": "the only value outside parentheses",
    "last": "chain of thought: the last value",
    "set": "every value of a set answer",
    "statement": "yes/no: the first sentence restates the question as a statement (\"The function is not convex\": "
                 "no)",
    "premise": "no value, and the answer says the question does not apply: none of the options fits, or what it "
               "asks about is not in the image (\"There is no letter being circled\"): a refusal",
    "contradiction": "multiple choice: a letter followed by another option's text (\"A: No\" where (B) is No): ambiguous",
    "judge": "byo score --judge: a language model read what the rules left unparsed or ambiguous (byo.score.judge)",
}


def _whole(body: str, kind: Kind, ctx: ParseContext) -> Parse:
    """The answer as a whole, without sentences echoed from the prompt (the rules of RULES from "only" on)."""
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
    if loops(body):
        return Parse(status="unparsed", method="loop", candidates=values, note="the answer loops")
    anchored = _distinct([m for m in mentions if m.anchored])
    if ctx.cot:  # the reasoning ends with the answer
        if _alternatives(body, mentions, last_only=True):
            return _hedge(values)
        if found := _revision(body, kind, ctx):
            return _ok(found.value, "revision", candidates=values)
        if found := _result(body, kind, ctx):
            return _ok(found.value, "result", candidates=values)
        if found := _final_line(body, kind, ctx):
            return _ok(found.value, "final line", candidates=values)
        if found := _conclusion(body, kind, ctx):
            return _ok(found.value, "conclusion", candidates=values)
        if len(anchored) == 1:
            return _ok(anchored[0], "anchored", candidates=values)
        return _ok(mentions[-1].value, "last", candidates=values)
    if kind.leading:  # a label, yes/no, choice or card: said first, then explained
        if found := _leading(body, mentions, kind, ctx):
            return _ok(found.value, "leading", candidates=values)
        if found := _first_sentence(body, mentions):
            return _ok(found.value, "first sentence", candidates=values)
    if _alternatives(body, mentions, last_only=False):
        return _hedge(values)
    if found := _revision(body, kind, ctx):
        return _ok(found.value, "revision", candidates=values)
    if found := _result(body, kind, ctx):
        return _ok(found.value, "result", candidates=values)
    if found := _final_line(body, kind, ctx):
        return _ok(found.value, "final line", candidates=values)
    if found := _conclusion(body, kind, ctx):
        return _ok(found.value, "conclusion", candidates=values)
    if found := _final_line(body, kind, ctx, anchored=True):
        return _ok(found.value, "final line", candidates=values)
    if found := _leading(body, mentions, kind, ctx):
        return _ok(found.value, "leading", candidates=values)
    if len(anchored) == 1:
        return _ok(anchored[0], "anchored", candidates=values)
    if found := _total(body, mentions):
        return _ok(found.value, "total", candidates=values)
    inside = _Parentheses(body)
    if len(main := _distinct([m for m in mentions if m.start not in inside])) == 1:
        return _ok(main[0], "outside parentheses", candidates=values)
    return Parse(status="ambiguous", candidates=values, note="several different answers")
