"""Integer answers (counts), and the numbers of an answer that are not echoed from the question."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from byo.score import text
from byo.score.numbers import numbers
from byo.score.parse.model import Mention, ParseContext

_WORD = re.compile(r"[A-Za-z]+")


def _prev_word(s: str, start: int) -> str:
    words = _WORD.findall(s[max(0, start - 30): start])
    return words[-1].lower() if words else ""


@functools.lru_cache(maxsize=text.PROMPT_CACHE)
def _counted_nouns(prompt: str) -> frozenset[str]:
    """What the question counts ("pieces", "objects", "squares", "rows"), singular and plural."""
    p = text.clean(prompt).lower()
    phrases = re.findall(r"how many ([a-z][a-z -]*?)\s+(?:are|is|does|do|can|were|there)\b", p)
    phrases += re.findall(r"number of ([a-z][a-z -]*?)\s+(?:on|in|of|is|are|between|that)\b", p)
    phrases += re.findall(r"____ ([a-z]+)", p)
    heads = {ph.split()[-1] for ph in phrases if ph.split()}
    out = set()
    for h in heads:
        out |= {h, h.rstrip("s"), h[:-2] if h.endswith("es") else h, h + "s"}
    return frozenset(w for w in out if len(w) > 2)


def find_numbers(span: str, ctx: ParseContext, anchor: Callable[[str, int, int], bool]) -> list[Mention]:
    """The numbers of the span, less the question's own ("row 3"); `anchor` tells which are tied to it."""
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
        after = _WORD.findall(s[end: end + 40].lower())[:3]
        return any(w in nouns for w in after) or after[:1] in (["total"], ["altogether"], ["overall"]) \
            or after[:2] in (["in", "total"], ["in", "all"])

    return find_numbers(span, ctx, anchor)
