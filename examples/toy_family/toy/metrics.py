"""An answer type of the family's own, `toy_word` (a number written as a word), with the table
of metrics it carries: how byo score finds it in a reply, and what byo report shows of it."""

import re

from byo.families.api import AnswerType, Column, ReportTable

WORDS = ("zero", "one", "two", "three", "four", "five")
_WORD = re.compile(r"\b(" + "|".join(WORDS) + r")\b", re.IGNORECASE)


def find_words(text: str, labels) -> list[tuple[str, int, int]]:
    """Every number word in a reply, as (value, start, end)."""
    return [(m.group(1).lower(), m.start(), m.end()) for m in _WORD.finditer(text)]


def measure(rows: list[dict], train: list) -> list[dict]:
    """Scored rows of one key and prompt variant -> one metric row per slice."""
    parsed = [r for r in rows if r["status"] == "ok"]
    return [{"slice": "all", "n": len(rows), "parse_rate": len(parsed) / len(rows),
             "exact": sum(r["correct"] for r in rows) / len(rows)}]


TABLE = ReportTable(
    name=__package__,  # the table is named after the package, as the family is
    title="Toy cubes", definition="toy: number words, exact match over all questions",
    note="Counts written as words: the share parsed and the share exactly right.",
    columns=(Column("slice", "slice", "text"), Column("n", "n", "int"), Column("parse rate", "parse_rate"),
             Column("exact", "exact")),
    measure=measure)
ANSWER_TYPES = {"toy_word": AnswerType(find=find_words, table=TABLE)}
