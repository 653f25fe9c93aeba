"""Structured answers (`byo eval --structured`): the JSON schema of a question's answer, built from
its answer type, which a provider that supports it enforces on the reply (OpenAI's and
OpenAI-compatible servers' `response_format`, Ollama's `format`), and the reading of a reply
against it, without heuristics: the reply is JSON of that schema, or it is not an answer.

The schema is an object with one required property, `answer` (and, for a chain-of-thought
prompt, a `reasoning` string before it, so that the model can still think first):

| answer type | `answer` | read as |
|---|---|---|
| integer, row, column | integer | the number |
| cell | {"row": integer, "column": integer} | [row, column] |
| yes_no | "yes" or "no" | itself |
| multiple_choice | one of the options' letters | the letter |
| position_word | one of the nine position words | itself |
| card | one of the 52 card codes (AS, 10H, ...) | itself |
| card_set | an array of distinct card codes | the sorted set |
| label | a string | the vocabulary's label it names (its label or a synonym, case and spaces aside), else the string |
| label_set | an array of strings | the sorted set of such labels |
| a family's own type (crest_program ...) | a string | the string |

A label is not given as an enum: the free-form question does not list the vocabulary, and
neither does the schema (it would turn an open question into a choice).
"""

from __future__ import annotations

import json
from typing import Any

from byo.families.base import POSITION_WORDS, option_labels

RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
CARD_CODES = tuple(rank + suit for suit in "SHDC" for rank in RANKS)
INTEGER_TYPES = ("integer", "row", "column")


def value_schema(answer_type: str, choices: list[str] | None) -> dict:
    """The schema of the `answer` property."""
    if answer_type in INTEGER_TYPES:
        return {"type": "integer"}
    if answer_type == "cell":
        return {"type": "object", "properties": {"row": {"type": "integer"}, "column": {"type": "integer"}},
                "required": ["row", "column"], "additionalProperties": False}
    if answer_type == "yes_no":
        return {"type": "string", "enum": ["yes", "no"]}
    if answer_type == "multiple_choice":
        return {"type": "string", "enum": option_labels(len(choices or [])) or option_labels(4)}
    if answer_type == "position_word":
        return {"type": "string", "enum": list(POSITION_WORDS)}
    if answer_type == "card":
        return {"type": "string", "enum": list(CARD_CODES)}
    if answer_type == "card_set":
        return {"type": "array", "items": {"type": "string", "enum": list(CARD_CODES)}}
    if answer_type == "label_set":
        return {"type": "array", "items": {"type": "string"}}
    return {"type": "string"}  # label, and a family's own answer types


def answer_schema(answer_type: str, choices: list[str] | None = None, *, reasoning: bool = False) -> dict:
    """The JSON schema of a reply (strict: every property required, no others)."""
    properties = {"reasoning": {"type": "string"}} if reasoning else {}
    properties["answer"] = value_schema(answer_type, choices)
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def schema_for(question) -> dict:
    """The schema of a question (a Question of questions.jsonl): chain-of-thought preprompts get a
    `reasoning` property before the answer."""
    return answer_schema(question.answer_type, question.choices, reasoning="cot" in question.preprompt)


class NotAnAnswer(ValueError):
    """A reply that is not JSON of the question's schema."""


def _check(value: Any, schema: dict, where: str) -> None:
    """`value` against the small subset of JSON Schema `answer_schema` uses."""
    kind = schema["type"]
    python = {"integer": int, "string": str, "array": list, "object": dict}[kind]
    if not isinstance(value, python) or isinstance(value, bool):
        raise NotAnAnswer(f"{where}: expected {kind}, got {type(value).__name__}")
    if "enum" in schema and value not in schema["enum"]:
        raise NotAnAnswer(f"{where}: {str(value)[:40]!r} is not one of the allowed values")
    if kind == "array":
        for i, item in enumerate(value):
            _check(item, schema["items"], f"{where}[{i}]")
    if kind == "object":
        missing = [k for k in schema["required"] if k not in value]
        extra = [k for k in value if k not in schema["properties"]]
        if missing or extra:
            raise NotAnAnswer(f"{where}: " + ", ".join([*(f"{k} missing" for k in missing),
                                                         *(f"{k} not allowed" for k in extra)]))
        for k, sub in schema["properties"].items():
            _check(value[k], sub, f"{where}.{k}")


def read_reply(text: str | None, schema: dict) -> Any:
    """The `answer` of a reply that is JSON of `schema`; NotAnAnswer otherwise."""
    if not text or not text.strip():
        raise NotAnAnswer("empty reply")
    try:
        reply = json.loads(text)
    except json.JSONDecodeError as err:
        raise NotAnAnswer(f"not JSON: {err.msg} at character {err.pos}") from None
    _check(reply, schema, "reply")
    return reply["answer"]


def as_structured(answer_type: str, answer: Any) -> Any:
    """A true answer (as questions.jsonl holds it) in the schema's form: what a perfect reply says."""
    if answer_type == "cell":
        row, column = (answer["row"], answer["column"]) if isinstance(answer, dict) else answer
        return {"row": int(row), "column": int(column)}
    return answer
