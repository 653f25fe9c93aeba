"""Row, column and cell answers: "row 2", "the leftmost column", "(2, 3)", "row 2, column 3",
"rows={4} columns={5}"."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from byo.score import text
from byo.score.numbers import MAX_DIGITS, numbers, ordinals
from byo.score.parse.integer import find_numbers
from byo.score.parse.model import Mention, ParseContext


# --- a row or a column ----------------------------------------------------------------------
def _find_line(axis: str) -> Callable[[str, ParseContext], list[Mention]]:
    words = {"row": ("row", "rows"), "column": ("column", "columns", "col", "file")}[axis]
    named = re.compile(rf"\b(?:{'|'.join(words)})\s*(?:number|no\.|index|#)?\s*[:=]?\s*$")
    edge = re.compile({"row": r"\b(?:top|topmost|uppermost|highest)\s+row\b",
                       "column": r"\b(?:leftmost|left-most|far-left|far left)\s+column\b"}[axis], re.IGNORECASE)

    def find(span: str, ctx: ParseContext) -> list[Mention]:
        def anchor(s: str, start: int, end: int) -> bool:
            return bool(named.search(s[max(0, start - 20): start].lower()))

        found = find_numbers(span, ctx, anchor)
        found += [Mention(0, m.start(), m.end(), True) for m in edge.finditer(span)
                  if not text.negated(span, m.start())]
        return sorted(found, key=lambda x: x.start)

    return find


find_row = _find_line("row")
find_column = _find_line("column")


def ordinal_note(span: str) -> str | None:
    """Why an answer with only ordinals ("the third row") is ambiguous; None if it has none."""
    found = ordinals(span)
    return f"only an ordinal ({', '.join(span[o.start:o.end] for o in found)}): 0- or 1-based?" if found else None


# --- cells (row, column) --------------------------------------------------------------------
_PAIR = re.compile(r"[(\[]\s*(\d+)\s*[,;]\s*(\d+)\s*[)\]]|(?<![\w.,])(\d+)\s*,\s*(\d+)(?![\w.,]|,\s*\d)")
_ROW = re.compile(r"\brows?\s*(?:number|no\.|index|#)?\s*[:=]?\s*\{?\s*", re.IGNORECASE)  # "row 2", "rows={4}"
_COL = re.compile(r"\b(?:columns?|cols?)\s*(?:number|no\.|index|#)?\s*[:=]?\s*\{?\s*", re.IGNORECASE)


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


NEAR = 60  # characters between a row and its column, or a pair and a named cell


def find_cell(span: str, ctx: ParseContext) -> list[Mention]:
    """"row 2, column 3", "column 3 and row 2", "(2, 3)", "[2, 3]", "2,3": [row, column]."""
    echoes = text.echo_bigrams(ctx.prompt)
    rows, cols = _after(span, _ROW, echoes), _after(span, _COL, echoes)
    col_starts = [cs for cs, _ in cols]  # in order
    out, used = [], set()
    for start, r in rows:
        # The columns within NEAR characters (a window of the sorted starts), the nearest unused one.
        lo, hi = bisect.bisect_right(col_starts, start - NEAR), bisect.bisect_left(col_starts, start + NEAR)
        near = [(abs(cs - start), cs, c) for cs, c in cols[lo:hi] if cs not in used]
        if near:
            _, cs, c = min(near)
            used.add(cs)
            out.append(Mention([r, c], min(start, cs), anchored=True))
    named = sorted(x.start for x in out)
    for m in _PAIR.finditer(span):
        a, b = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if max(len(a), len(b)) > MAX_DIGITS:
            continue
        k = bisect.bisect_right(named, m.start() - NEAR)
        if not (k < len(named) and named[k] < m.start() + NEAR):
            out.append(Mention([int(a), int(b)], m.start()))
    return sorted(out, key=lambda x: x.start)
