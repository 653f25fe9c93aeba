"""Structured replies (`byo eval --structured`): JSON of the question's schema
(byo.questions.answer_schema), read without heuristics. A reply that is not JSON of the schema
is `unparsed` (with what is wrong), a refusal flagged by the provider is a `refusal`; nothing
is searched for in free text."""

from __future__ import annotations

import re

from byo.questions.answer_schema import NotAnAnswer, answer_schema, read_reply
from byo.score.parse.model import Parse, ParseContext

METHOD = "structured output"
_SPACES = re.compile(r"\s+")


def _label(value: str, ctx: ParseContext) -> str:
    """The vocabulary's label that `value` names exactly (the label or a synonym, case and spaces
    aside); the value itself when it names none."""
    said = _SPACES.sub(" ", value.strip().lower())
    if ctx.domain is not None:
        for label, synonyms in ctx.domain.terms.items():
            if said == label.lower() or said in (s.lower() for s in synonyms):
                return label
    return value.strip()


def parse_structured(response: str | None, ctx: ParseContext, *, status: str = "ok", refusal: bool = False) -> Parse:
    if status != "ok":
        return Parse(status="error", note=f"request status {status}")
    if refusal:
        return Parse(status="refusal", note="the provider flagged a refusal")
    try:
        value = read_reply(response, answer_schema(ctx.answer_type, ctx.choices, reasoning=ctx.cot))
    except NotAnAnswer as err:
        return Parse(status="unparsed", method=METHOD, note=f"not JSON of the answer's schema: {err}")
    if ctx.answer_type == "cell":
        value = [value["row"], value["column"]]
    elif ctx.answer_type == "label":
        value = _label(value, ctx)
    elif ctx.answer_type in ("label_set", "card_set"):
        value = sorted({_label(v, ctx) if ctx.answer_type == "label_set" else v for v in value})
    return Parse(status="ok", value=value, method=METHOD)
