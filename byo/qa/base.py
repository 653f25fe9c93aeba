"""One small answer function per question key, registered per family."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Answer:
    value: Any  # JSON value: int, str, list of str...
    params: dict[str, Any] = field(default_factory=dict)  # template parameters
    choices: list[str] | None = None  # multiple-choice options; `value` is then the letter


@dataclass(frozen=True)
class Skip:
    reason: str  # why the question is ill-defined for this image


AnswerFn = Callable[[dict, np.random.Generator], Answer | Skip]
REGISTRY: dict[str, dict[str, AnswerFn]] = {}
CONTEXT: dict[str, Callable[[dict], dict]] = {}  # family -> parameters of its preprompts
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def answers(family: str, key: str):
    def register(fn: AnswerFn) -> AnswerFn:
        REGISTRY.setdefault(family, {})[key] = fn
        return fn

    return register


def context(family: str):
    def register(fn: Callable[[dict], dict]) -> Callable[[dict], dict]:
        CONTEXT[family] = fn
        return fn

    return register


def rng_for(legend: dict, key: str) -> np.random.Generator:
    """Parameter draws depend on the image and the key only (not on which other keys are asked)."""
    return np.random.default_rng([legend["seed"], zlib.crc32(key.encode())])


def visible(legend: dict) -> list[dict]:
    """Objects that count: those the render showed with at least the visibility threshold."""
    return [o for o in legend["objects"] if o.get("visible", True)]


def multiple_choice(correct: str, distractors: list[str], rng: np.random.Generator,
                    params: dict | None = None) -> Answer:
    options = [correct, *dict.fromkeys(d for d in distractors if d != correct)]
    order = rng.permutation(len(options))
    shuffled = [options[k] for k in order]
    letter = LETTERS[shuffled.index(correct)]
    text = " ".join(f"({LETTERS[i]}) {o}" for i, o in enumerate(shuffled))
    return Answer(letter, {**(params or {}), "options": text}, shuffled)


def plural(noun: str) -> str:
    return noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")
