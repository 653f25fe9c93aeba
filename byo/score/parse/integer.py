"""Integer answers (counts), and the numbers of an answer that are not echoed from the question.

A count is tied to what the question counts ("anchored"): its noun, that noun's synonyms and
plurals ("5 pieces", "two intersection points"), the event a "how many times" question asks
about ("they cross twice", "intersect at one point"), or a total ("7 in total"). A negated
existence of it is a count of 0 ("the lines do not intersect", "no visible cracks"). A number
followed by another word is about something else ("two separate segments") unless it is anchored.
List numbering ("1. The outer square") and the operands of a sum ("13 + 13 = 26") are working,
not answers: only the sum's result is found.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from byo.families.base import plural, singular
from byo.score import text
from byo.score.numbers import numbers
from byo.score.parse.model import Mention, ParseContext

_WORD = re.compile(r"[A-Za-z]+")
_IRREGULAR = {"people": "person", "persons": "person", "men": "man", "women": "woman", "children": "child",
              "feet": "foot", "teeth": "tooth", "mice": "mouse", "met": "meet"}  # for `stem`


@dataclass(frozen=True)
class Synonyms:
    """Words that name the same thing to count: nouns ("intersection") and, for an event, verbs
    ("intersect"); a question about one counts the others."""

    nouns: tuple[str, ...]
    verbs: tuple[str, ...] = ()

    def stems(self) -> set[str]:
        return {stem(w) for w in (*self.nouns, *self.verbs)}


CONTACT = Synonyms(("intersection", "crossing", "point", "contact", "intersection point", "crossing point"),
                   ("intersect", "cross", "meet", "touch", "overlap"))
SYNONYMS = (
    CONTACT,
    Synonyms(("person", "people", "individual", "human")),
    Synonyms(("object", "item", "thing")),
    Synonyms(("piece", "chessman")),
    Synonyms(("crack", "fracture", "split")),
    Synonyms(("dent", "indentation")),
    Synonyms(("hole", "opening")),
)
# Not the thing counted, whatever the question: "no more", "no other squares", "not any additional".
_OTHER = frozenset({"other", "additional", "more", "further", "extra", "else", "new", "separate", "distinct"})


def stem(word: str) -> str:
    """A word's stem for matching plurals and derived forms: "boxes" and "box", "intersections",
    "intersecting" and "intersect", "people" and "person"."""
    w = word.lower().removesuffix("'s")
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    for suffix, repl in (("ions", ""), ("ion", ""), ("ings", ""), ("ing", ""), ("ies", "y"), ("ed", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: len(w) - len(suffix)] + repl
    if re.search(r"(?:s|x|z|ch|sh)es$", w) and len(w) > 4:
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        return w[:-1]
    return w


def noun_forms(noun: str) -> set[str]:
    """A noun (the last word of a phrase) in the singular and the plural: "box", "boxes"."""
    words = noun.lower().split()
    one = singular(words[-1])
    head = " ".join([*words[:-1], ""])
    return {noun.lower(), head + one, head + plural(one)}


@dataclass(frozen=True)
class Asked:
    """What a counting question counts: `nouns`, the words that name it after a number ("5
    boxes", "two intersection points"); `stems`, every form of it and of its verbs, for a
    negated existence ("the lines do not intersect"); `events`, the stems of the verbs a count
    follows ("they cross twice", "intersect at one point")."""

    nouns: frozenset[str]
    stems: frozenset[str]
    events: frozenset[str]


# After the verb of "how many times does the path cross the river": an object, a preposition, the end.
_AFTER_VERB = frozenset("the a an each one with on in at over into onto across through along around past by to "
                        "from together".split())
_DETERMINERS = frozenset("the a an this that these those its their".split())


def _verb(clause: str) -> str | None:
    """The verb of a question's clause after "how many times do(es)": the first word after the
    subject that an object, a preposition or the clause's end follows ("the green path cross the
    river" -> "cross", "the red and blue lines intersect" -> "intersect")."""
    words = clause.replace(",", " ").split()
    for k in range(1, len(words)):
        if words[k] not in _DETERMINERS and words[k] != "and" and (k + 1 == len(words) or words[k + 1] in _AFTER_VERB):
            return words[k]
    return None


@functools.lru_cache(maxsize=text.PROMPT_CACHE)
def asked(prompt: str) -> Asked:
    """What the question counts: "how many X are...", "the number of X in...", "count the X
    where...", "how many times do ... VERB?"; with the nouns' synonyms."""
    p = text.clean(prompt).lower()
    phrases = re.findall(r"how many ([a-z][a-z -]*?)\s+(?:are|is|does|do|can|could|were|was|there|have|has|did|will|"
                         r"would|in|on|of|visible|stacked|missing|shown|left|remain)\b", p)
    phrases += re.findall(r"number of ([a-z][a-z -]*?)\s+(?:on|in|of|is|are|between|that|where|which|visible)\b", p)
    phrases += re.findall(r"\bcount (?:the |all )?(?:total )?(?!(?:the )?number\b)([a-z][a-z -]*?)\s+(?:on|in|of|that|where|which|"
                          r"visible|you)\b", p)
    phrases += re.findall(r"____ ([a-z]+)", p)
    heads = {words[-1] for words in map(str.split, phrases) if words and words[-1] != "times"}
    heads |= {w for words in map(str.split, phrases) for w in words[:-1] if stem(w) in CONTACT.stems()}
    verbs = {v for clause in re.findall(r"how many times (?:do|does|did|can|will|would|have|has)\s+([a-z][a-z ,-]*)", p)
             if (v := _verb(clause))}
    nouns, stems, events = set(), set(), {stem(v) for v in verbs}
    for h in heads:
        nouns |= noun_forms(h)
        stems.add(stem(h))
    for group in SYNONYMS:
        if group.stems() & (stems | events):
            nouns |= {f for n in group.nouns for f in noun_forms(n)}
            stems |= group.stems()
            events |= {stem(v) for v in group.verbs}
    return Asked(frozenset(nouns), frozenset(stems | events), frozenset(events))


def _prev_word(s: str, start: int) -> str:
    words = _WORD.findall(s[max(0, start - 30): start])
    return words[-1].lower() if words else ""


_NEXT_TOKEN = re.compile(r"\s*(%|[A-Za-z]+)")


def _next_token(s: str, end: int) -> str:
    """The word right after a number, or "%" ("50%", "50 %")."""
    m = _NEXT_TOKEN.match(s, end)
    return m.group(1).lower() if m else ""


@functools.lru_cache(maxsize=text.PROMPT_CACHE)
def echo_pairs(prompt: str) -> frozenset[tuple]:
    """The question's numbers with the word before and the word (or "%") after each, by value
    ("less than 5 units", "at least one store", "50%"): the same value between the same words in
    an answer ("in at least 1 store") is the question's number, not an answer."""
    p = text.clean(prompt)
    out = set()
    for n in numbers(p):
        out.add(("before", _prev_word(p, n.start), n.value))
        if after := _next_token(p, n.end):
            out.add(("after", n.value, after))
    return frozenset(out)


def find_numbers(span: str, ctx: ParseContext, anchor: Callable[[str, int, int], bool]) -> list[Mention]:
    """The numbers of the span, less the question's own: a digit after the word it follows in the
    question ("row 3"); and, where other numbers remain, a number (in digits or words, a
    percentage) beside the same word as in the question ("less than 5 units", "in at least one
    store"). `anchor` tells which are tied to what is asked."""
    echoes = text.echo_bigrams(ctx.prompt)
    pairs = echo_pairs(ctx.prompt) if ctx.prompt else frozenset()
    out, echoed = [], []
    for n in numbers(span):
        prev = _prev_word(span, n.start)
        if (prev, str(n.value)) in echoes:
            continue  # the question's own number ("row 3"), not an answer
        mention = Mention(n.value, n.start, n.end, anchor(span, n.start, n.end))
        after = _next_token(span, n.end)
        if ("before", prev, n.value) in pairs or (after and ("after", n.value, after) in pairs):
            echoed.append(mention)
        else:
            out.append(mention)
    return out if out else echoed


# --- working that is not an answer ---------------------------------------------------------------
_LIST_NUMBER = re.compile(r"(?m)^[ \t]*\(?(\d{1,2})[.)]\s+(?=\S)")  # "1. The outer square", "2) ..."
_OPERAND = r"(?<![\d.])\d++(?:\.\d++)?(?:\s*\([^()\n]{0,60}\))?"  # possessive: a run of digits is read once
# "13 + 13 + 13 = 39", "8 (wooden) + 2 (cages) = 10", "3 x 4 = 12": the operands before "=".
_SUM = re.compile(rf"{_OPERAND}(?:\s*[-+×x*/]\s*{_OPERAND})+\s*=")


def _working(span: str) -> list[tuple[int, int]]:
    """(start, end) of list numbers (lines numbered in sequence: a line "4. Two are red" alone is no
    list) and of a sum's operands."""
    numbered = [(int(m.group(1)), m.start(1), m.end(1)) for m in _LIST_NUMBER.finditer(span)]
    values = {n for n, _, _ in numbered}
    spans = [(a, b) for n, a, b in numbered if n - 1 in values or n + 1 in values]
    spans += [(m.start(), m.end() - 1) for m in _SUM.finditer(span)]
    return spans


# --- what a number is about --------------------------------------------------------------------
_TOTAL_AFTER = (["total"], ["altogether"], ["overall"], ["in", "total"], ["in", "all"])
# After a count, words that do not name what is counted ("3 near the front", "5 in all", "2 of them").
_FUNCTION = frozenset(
    "a an the in on at of to from by for with without near into onto over under above below behind between among "
    "and or but nor so if then than as is are was were be been being it its this that these those there here which "
    "who where when while because since per each every all both only just exactly about around approximately roughly "
    "nearly almost more less times time total altogether overall visible seen shown present left right top bottom "
    "up down i we you they he she me us them my our your their".split())
_CLAUSE_END = re.compile(r"[.,;:!?()\n]|\s-\s")
# "intersect at two points", "cross each other once", "meet at 1 point", "touch only twice"
_EVENT_BEFORE = re.compile(r"\b([a-z]+)(?:\s+(?:each other|one another|with each other))?"
                           r"(?:\s+(?:at|in|only|exactly|just|precisely|about|a total of|a|of))*\s+$", re.IGNORECASE)
_NOT_ONE = re.compile(r"\bnot\s+(?:even\s+)?$", re.IGNORECASE)  # before "one", "a single"
_NEGATOR = re.compile(
    r"\b(?:(?:do|does|did|will|would|could|should)\s+not|don't|doesn't|didn't|won't|never|(?:is|are|was|were)\s+not"
    r"|isn't|aren't|wasn't|weren't|no)\b", re.IGNORECASE)


def _words_after(span: str, end: int, n: int) -> list[str]:
    rest = span[end: end + 60]
    stop = _CLAUSE_END.search(rest)
    return [w.lower() for w in _WORD.findall(rest[: stop.start() if stop else len(rest)])[:n]]


def _negated_existence(span: str, who: Asked) -> list[Mention]:
    """0 for "do not intersect", "never touch", "there are no visible cracks", "does not have any
    dents": a negator, then within three words of its clause a form of what is counted (not
    "no other squares")."""
    out = []
    for m in _NEGATOR.finditer(span):
        for w in list(_WORD.finditer(span, m.end(), min(len(span), m.end() + 50)))[:3]:
            if _CLAUSE_END.search(span, m.end(), w.start()):
                break
            word = w.group(0).lower()
            if word in _OTHER:
                break
            if stem(word) in who.stems:
                out.append(Mention(0, m.start(), w.end(), anchored=True))
                break
    return out


def find_integer(span: str, ctx: ParseContext) -> list[Mention]:
    who = asked(ctx.prompt)
    working = _working(span)

    def anchor(s: str, start: int, end: int) -> bool:
        after = _words_after(s, end, 3)
        if any(w in who.nouns for w in after) or after[:1] in _TOTAL_AFTER[:3] or after[:2] in _TOTAL_AFTER[3:]:
            return True
        event = _EVENT_BEFORE.search(s[max(0, start - 40): start])
        return bool(event) and stem(event.group(1)) in who.events

    out = []
    for m in find_numbers(span, ctx, anchor):
        if any(a <= m.start and m.end <= b for a, b in working):
            continue
        if _NOT_ONE.search(span[max(0, m.start - 20): m.start]) and m.value == 1:
            m = Mention(0, m.start, m.end, anchored=True)  # "not a single crack", "not one"
        elif not m.anchored:
            after = _words_after(span, m.end, 1)
            if after and after[0] not in _FUNCTION:
                m = Mention(m.value, m.start, m.end, elsewhere=True)  # "two separate segments"
        out.append(m)
    out += [z for z in _negated_existence(span, who) if not any(z.start <= m.start < z.end for m in out)]
    return sorted(out, key=lambda x: x.start)
