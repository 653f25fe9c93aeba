"""What the parser works with: the question's context, the mentions a kind finds, and the parse result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from byo.families.base import Domain

Status = Literal["ok", "ambiguous", "refusal", "unparsed", "error"]
STATUSES = ("ok", "ambiguous", "refusal", "unparsed", "error")


class Parse(BaseModel):
    status: Status
    value: Any = None  # int | float | str | list[str] (sorted set) | [row, column]
    method: str | None = None  # the rule that decided it (byo.score.parse.decide.RULES)
    candidates: list[Any] = Field(default_factory=list)  # the distinct values seen, when ambiguous
    note: str | None = None


@dataclass
class ParseContext:
    answer_type: str
    prompt: str = ""
    preprompt: str = "neutral"
    choices: list[str] | None = None
    domain: Domain | None = None  # labels of a label / label_set question or of a family's own answer type

    @property
    def cot(self) -> bool:
        return "cot" in self.preprompt


@dataclass(frozen=True)
class Mention:
    value: Any
    start: int
    end: int = 0
    anchored: bool = False  # tied to the question: "5 pieces" for a count of pieces, "row 2" for a row
    elsewhere: bool = False  # about something else: "two separate segments" for a count of intersections


@dataclass
class Kind:
    find: Callable[[str, ParseContext], list[Mention]]
    is_set: bool = False
    leading: bool = False  # an answer that starts with a value means that value
    fallback: Callable[[str, ParseContext], list[Mention]] | None = None
    unfound: Callable[[str], str | None] | None = None  # why an answer without a value is ambiguous, if it is
