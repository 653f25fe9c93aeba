"""Crest answers: a crest program, or its description in KDL or English (byo.families.crest.metrics does the matching)."""

from __future__ import annotations

from byo.families.crest import metrics as crest
from byo.score.parse.model import Mention, ParseContext


def find_program(span: str, ctx: ParseContext) -> list[Mention]:
    return [Mention(value, start, end) for value, start, end in crest.program_runs(span)]


def find_crest_label(span: str, ctx: ParseContext) -> list[Mention]:
    labels = ctx.domain.labels if ctx.domain else []
    return [Mention(v, s, e) for v, s, e in crest.find_labels(span, labels, ctx.answer_type)]


def crest_free_text(span: str, ctx: ParseContext) -> list[Mention]:
    return [Mention(value, start, start + len(value)) for value, start in crest.free_text(span, ctx.answer_type)]
