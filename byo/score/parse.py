"""Parse a free-form answer into a value of the question's answer type, with a status.

Statuses: `ok` (one answer), `ambiguous` (several different answers and no rule picks one),
`refusal` (the model declined), `unparsed` (no answer found), `error` (the request failed).

The stages, first hit wins:
1. structured answers: `{answer: 5}`, `<answer>5</answer>`, `\\boxed{5}`, JSON (the last one);
2. cue phrases: "the answer is 5", "Answer: C" (the last one);
3. the echoed prompt: the blank of a fill-in-the-blank sentence, the text after a declarative lead;
4. a refusal, if the model declined and gave none of the above;
5. the whole answer, without sentences echoed from the prompt and without numbers echoed from
   it ("row 3" when the question names row 3): one distinct value. Otherwise, direct prompts:
   the value the answer starts with, a value outside parentheses, a corrected value ("after
   checking again, 7"), a value anchored to the question ("5 pieces", "row 2"), the value after
   the last conclusion cue ("so", "in total"). Chain-of-thought prompts: the corrected or
   concluded value, an anchored value, else the last one. A hedge ("3 or 4") or anything else
   is ambiguous.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from byo.families.crest import metrics as crest
from byo.score import text
from byo.score.numbers import numbers, ordinals
from byo.score.vocab import DOMAINS, POSITION_DOMAIN, Domain, Matcher, domain_for

Status = Literal["ok", "ambiguous", "refusal", "unparsed", "error"]
STATUSES = ("ok", "ambiguous", "refusal", "unparsed", "error")


class Parse(BaseModel):
    status: Status
    value: Any = None  # int | float | str | list[str] (sorted set) | [row, column]
    method: str | None = None  # which stage found it
    candidates: list[Any] = []  # the distinct values seen, when ambiguous
    note: str | None = None


@dataclass
class ParseContext:
    answer_type: str
    prompt: str = ""
    preprompt: str = "neutral"
    choices: list[str] | None = None
    domain: Domain | None = None  # labels of a label / label_set / crest_english / crest_kdl question

    @property
    def cot(self) -> bool:
        return "cot" in self.preprompt


@dataclass(frozen=True)
class Mention:
    value: Any
    start: int
    end: int = 0
    anchored: bool = False  # tied to the question: "5 pieces" for a count of pieces, "row 2" for a row


@dataclass
class Kind:
    find: Callable[[str, ParseContext], list[Mention]]
    is_set: bool = False
    leading: bool = False  # an answer that starts with a value means that value
    fallback: Callable[[str, ParseContext], list[Mention]] | None = None


# --- numbers ----------------------------------------------------------------------------
def _prev_word(s: str, start: int) -> str:
    words = re.findall(r"[A-Za-z]+", s[max(0, start - 30): start])
    return words[-1].lower() if words else ""


def _counted_nouns(prompt: str) -> set[str]:
    """What the question counts ("pieces", "objects", "squares", "rows"), singular and plural."""
    p = text.clean(prompt).lower()
    phrases = re.findall(r"how many ([a-z][a-z -]*?)\s+(?:are|is|does|do|can|were|there)\b", p)
    phrases += re.findall(r"number of ([a-z][a-z -]*?)\s+(?:on|in|of|is|are|between|that)\b", p)
    phrases += re.findall(r"____ ([a-z]+)", p)
    heads = {ph.split()[-1] for ph in phrases if ph.split()}
    out = set()
    for h in heads:
        out |= {h, h.rstrip("s"), h[:-2] if h.endswith("es") else h, h + "s"}
    return {w for w in out if len(w) > 2}


def _numbers(span: str, ctx: ParseContext, anchor: Callable[[str, int, int], bool]) -> list[Mention]:
    echoes = text.echo_bigrams(ctx.prompt)
    out = []
    for n in numbers(span):
        prev = _prev_word(span, n.start)
        if (prev, str(n.value)) in echoes:
            continue  # the question's own number ("row 3"), not an answer
        out.append(Mention(n.value, n.start, n.end, anchor(span, n.start, n.end)))
    return out


def find_integer(span: str, ctx: ParseContext) -> list[Mention]:
    nouns = _counted_nouns(ctx.prompt)

    def anchor(s: str, start: int, end: int) -> bool:
        after = re.findall(r"[A-Za-z]+", s[end: end + 40].lower())[:3]
        return any(w in nouns for w in after) or after[:1] in (["total"], ["altogether"], ["overall"]) \
            or after[:2] in (["in", "total"], ["in", "all"])

    return _numbers(span, ctx, anchor)


def _find_line(axis: str) -> Callable[[str, ParseContext], list[Mention]]:
    words = {"row": ("row", "rows"), "column": ("column", "columns", "col", "file")}[axis]

    def find(span: str, ctx: ParseContext) -> list[Mention]:
        def anchor(s: str, start: int, end: int) -> bool:
            before = s[max(0, start - 20): start].lower()
            return bool(re.search(rf"\b(?:{'|'.join(words)})\s*(?:number|no\.|index|#)?\s*[:=]?\s*$", before))

        found = _numbers(span, ctx, anchor)
        edge = {"row": r"\b(?:top|topmost|uppermost|highest)\s+row\b",
                "column": r"\b(?:leftmost|left-most|far-left|far left)\s+column\b"}[axis]
        found += [Mention(0, m.start(), m.end(), True) for m in re.finditer(edge, span, re.IGNORECASE)
                  if not text.negated(span, m.start())]
        return sorted(found, key=lambda x: x.start)

    return find


def _ordinal_note(span: str) -> str | None:
    found = ordinals(span)
    return f"only an ordinal ({', '.join(span[o.start:o.end] for o in found)}): 0- or 1-based?" if found else None


# --- cells (row, column) --------------------------------------------------------------------
_PAIR = re.compile(r"[(\[]\s*(\d+)\s*[,;]\s*(\d+)\s*[)\]]|(?<![\w.,])(\d+)\s*,\s*(\d+)(?![\w.,]|,\s*\d)")
_ROW = re.compile(r"\brows?\s*(?:number|no\.|index|#)?\s*[:=]?\s*", re.IGNORECASE)
_COL = re.compile(r"\b(?:columns?|cols?)\s*(?:number|no\.|index|#)?\s*[:=]?\s*", re.IGNORECASE)


def _after(span: str, cue: re.Pattern, echoes: set) -> list[tuple[int, int]]:
    out = []
    for m in cue.finditer(span):
        found = numbers(span[m.end(): m.end() + 25])
        if found and found[0].start == 0 and isinstance(found[0].value, int):
            word = m.group(0).split()[0].lower().rstrip("s")
            if (word, str(found[0].value)) in {(w.rstrip("s"), n) for w, n in echoes}:
                continue
            out.append((m.start(), found[0].value))
    return out


def find_cell(span: str, ctx: ParseContext) -> list[Mention]:
    """"row 2, column 3", "column 3 and row 2", "(2, 3)", "[2, 3]", "2,3": [row, column]."""
    echoes = text.echo_bigrams(ctx.prompt)
    rows, cols = _after(span, _ROW, echoes), _after(span, _COL, echoes)
    out, used = [], set()
    for start, r in rows:
        near = [(abs(cs - start), cs, c) for cs, c in cols if cs not in used and abs(cs - start) < 60]
        if near:
            _, cs, c = min(near)
            used.add(cs)
            out.append(Mention([r, c], min(start, cs), anchored=True))
    for m in _PAIR.finditer(span):
        a, b = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if not any(x.anchored and abs(x.start - m.start()) < 60 for x in out):
            out.append(Mention([int(a), int(b)], m.start()))
    return sorted(out, key=lambda x: x.start)


# --- labels -------------------------------------------------------------------------------
_MATCHERS: dict[tuple, Matcher] = {}


def _matcher(domain: Domain) -> Matcher:
    key = (domain.name, tuple(domain.terms.items()))
    if key not in _MATCHERS:
        _MATCHERS[key] = Matcher.build(domain.terms)
    return _MATCHERS[key]


def find_label(span: str, ctx: ParseContext) -> list[Mention]:
    domain = ctx.domain or DOMAINS[0]
    return [Mention(m.value, m.start, m.end) for m in _matcher(domain).find(span) if not text.negated(span, m.start)]


def find_position(span: str, ctx: ParseContext) -> list[Mention]:
    return [Mention(m.value, m.start, m.end) for m in _matcher(POSITION_DOMAIN).find(span)
            if not text.negated(span, m.start)]


YES_NO = next(d for d in DOMAINS if d.name == "yes_no")


_NOT_AN_ANSWER = re.compile(r"\s+(?:doubt|question|problem|matter|way|idea)\b", re.IGNORECASE)


def find_yes_no(span: str, ctx: ParseContext) -> list[Mention]:
    """Yes/no words; "no doubt", "no problem" are not answers."""
    return [Mention(m.value, m.start, m.end) for m in _matcher(YES_NO).find(span)
            if not (m.value == "no" and _NOT_AN_ANSWER.match(span, m.end))]


# --- multiple choice ----------------------------------------------------------------------
_LETTER_PATTERNS = [
    re.compile(r"\(([A-Za-z])\)"),
    re.compile(r"(?<![\w(])([A-Z])\)"),
    re.compile(r"\b(?:option|choice|letter|answer|caption)\s*(?:is\s*)?:?\s*\(?([A-Za-z])\b(?!')", re.IGNORECASE),
    re.compile(r"^\s*([A-Z])\s*(?:[.:)\-]|$)"),
    re.compile(r"(?<![\w'])([A-Z])(?=\s*[.!]?\s*$)"),
    re.compile(r"(?<![\w'])([A-Z])(?=\s*(?:or|,|/)\s*\(?[A-Z]\)?(?![\w']))"),
]


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
        body = r"\s+".join(re.escape(w) for w in choice.lower().split())
        for m in re.finditer(rf"(?<![\w-]){body}(?![\w-])", span, re.IGNORECASE):
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


# --- playing cards ------------------------------------------------------------------------
RANK_WORDS = {"ace": "A", "king": "K", "queen": "Q", "jack": "J", "ten": "10", "nine": "9", "eight": "8",
              "seven": "7", "six": "6", "five": "5", "four": "4", "three": "3", "two": "2", "deuce": "2"}
SUIT_WORDS = {"spade": "S", "heart": "H", "diamond": "D", "club": "C"}
SUIT_SYMBOLS = {"♠": "S", "♤": "S", "♥": "H", "♡": "H", "♦": "D", "♢": "D", "♣": "C", "♧": "C"}
_RANK = r"(?:10|[2-9]|[AKQJT])"
_CARD_WORDS = re.compile(r"\b(" + "|".join(RANK_WORDS) + r"|10|[2-9])s?\s+of\s+(" + "|".join(SUIT_WORDS) + r")s?\b",
                         re.IGNORECASE)
_CARD_SYMBOL = re.compile(rf"(?<![\w])({_RANK})\s?([♠♤♥♡♦♢♣♧])")
_CARD_CODE = re.compile(rf"(?<![\w-])({_RANK})([SHDC])(?![\w-])")  # AS, 10H, TD: upper case only


def card_code(rank: str, suit: str) -> str:
    """Canonical card: rank (A K Q J 10 9 ... 2) then suit (S H D C), e.g. "AS", "10H"."""
    rank = RANK_WORDS.get(rank.lower(), rank.upper())
    return ("10" if rank == "T" else rank) + suit


def find_card(span: str, ctx: ParseContext) -> list[Mention]:
    """Card names in any common notation: "ace of spades", "A♠", "AS", "10H", "TD"."""
    found = {}
    for m in _CARD_WORDS.finditer(span):
        found[m.start()] = Mention(card_code(m.group(1), SUIT_WORDS[m.group(2).lower()]), m.start(), m.end())
    for m in _CARD_SYMBOL.finditer(span):
        found.setdefault(m.start(), Mention(card_code(m.group(1), SUIT_SYMBOLS[m.group(2)]), m.start(), m.end()))
    for m in _CARD_CODE.finditer(span):
        found.setdefault(m.start(), Mention(card_code(m.group(1), m.group(2)), m.start(), m.end()))
    return [m for _, m in sorted(found.items()) if not text.negated(span, m.start)]


# --- crests -------------------------------------------------------------------------------
def find_program(span: str, ctx: ParseContext) -> list[Mention]:
    return [Mention(value, start, end) for value, start, end in crest.program_runs(span)]


def find_crest_label(span: str, ctx: ParseContext) -> list[Mention]:
    labels = ctx.domain.labels if ctx.domain else []
    return [Mention(v, s, e) for v, s, e in crest.find_labels(span, labels, ctx.answer_type)]


def crest_free_text(span: str, ctx: ParseContext) -> list[Mention]:
    return [Mention(value, start, start + len(value)) for value, start in crest.free_text(span, ctx.answer_type)]


KINDS: dict[str, Kind] = {
    "integer": Kind(find_integer),
    "row": Kind(_find_line("row")),
    "column": Kind(_find_line("column")),
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


# --- the stages ------------------------------------------------------------------------------
def _distinct(mentions: list[Mention]) -> list[Any]:
    out: list[Any] = []
    for m in mentions:
        if m.value not in out:
            out.append(m.value)
    return out


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


def _in_parentheses(body: str, start: int) -> bool:
    before = body[:start]
    return before.count("(") > before.count(")")


def _leading(body: str, mentions: list[Mention], kind: Kind) -> Mention | None:
    first = mentions[0]
    if body[: first.start].strip(" \t\n\"'([{-:"):
        return None
    first_sentence = re.split(r"(?<=[.!?;])\s|\n", body, maxsplit=1)[0]
    in_first = [m for m in mentions if m.end <= len(first_sentence)]
    if len(_distinct(in_first)) != 1:
        return None  # "Yes and no."
    alone = not re.sub(r"[\W_]+", "", first_sentence[: first.start] + first_sentence[first.end:])
    return first if (kind.leading or alone) else None


def _after_cue(body: str, cues, kind: Kind, ctx: ParseContext, whole: bool = False):
    """The value after the last cue that is followed by one (all of its values if `whole`)."""
    for cue in reversed(cues):
        start = _clause_start(body, cue.start())  # "..., 5 in all": the number may come before the cue
        if text.CONCLUSION.search(body, start, cue.start()) or text.REVISION.search(body, start, cue.start()):
            start = cue.start()
        found = kind.find(text.to_sentence_end(body, start), ctx)
        if found:
            values = _distinct(found)
            if whole:
                return values
            return found[-1] if len(values) == 1 else None
    return None


def _clause_start(body: str, pos: int) -> int:
    breaks = list(re.finditer(r"[.!?](?:\s|$)|[,;:\n]", body[:pos]))
    return breaks[-1].end() if breaks else 0


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
        if re.search(r"\band\b", gap, re.IGNORECASE) and not re.search(r"\bbetween\s+(?:\w+\s+)?$",
                                                                       body[max(0, a.start - 20): a.start], re.I):
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
    unechoed = text.strip_echo(raw, ctx.prompt, ctx.choices)
    stages = (("structured", text.structured_spans(raw)), ("cue", text.cue_spans(unechoed)),
              ("template", text.template_spans(raw, ctx.prompt)))
    for method, spans in stages:
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
        note = _ordinal_note(body) if ctx.answer_type in ("row", "column") else None
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
    if len(main := _distinct([m for m in mentions if not _in_parentheses(body, m.start)])) == 1:
        return _ok(main[0], "outside parentheses", candidates=values)
    if revised := _revision(body, kind, ctx):
        return _ok(revised.value, "revision", candidates=values)
    if len(anchored) == 1:
        return _ok(anchored[0], "anchored", candidates=values)
    if concluded := _conclusion(body, kind, ctx):
        return _ok(concluded.value, "conclusion", candidates=values)
    return Parse(status="ambiguous", candidates=values, note="several different answers")


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
