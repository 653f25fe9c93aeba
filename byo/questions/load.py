"""Question files: DATASET/questions.jsonl, one question per line, validated before any request."""

from __future__ import annotations

import json
import math
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from byo.core.errors import ConfigError, InputError
from byo.core.inputs import decode, read_bytes
from byo.core.paths import inside
from byo.core.schema import validation_problems

QUESTIONS = "questions.jsonl"
# Beside it: what byo questions asked, skipped and flagged, per key and per level, and why.
SUMMARY_FILE = "questions_summary.json"


class UnreadableFlag(BaseModel):
    """A question asked although a readability rule finds the image does not show its answer
    (questions.unreadable: flag): scored apart, never mixed into accuracy."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: str
    reason: str


class RetrievalSet(BaseModel):
    """A question's candidate captions (byo.families.base.Retrieval), for models that rank them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    captions: list[str] = Field(min_length=2)
    truth: int = Field(ge=0)
    tags: list[str]
    order_seed: int | None = None  # the seed that drew the captions' order (byo.families.base.candidate_order)

    @field_validator("tags")
    @classmethod
    def one_tag_per_caption(cls, tags: list[str], info: ValidationInfo) -> list[str]:
        captions = info.data.get("captions") or []
        if len(tags) != len(captions):
            raise ValueError(f"{len(tags)} tags for {len(captions)} captions: expected one tag per caption")
        if info.data.get("truth", 0) >= len(captions):
            raise ValueError(f"truth {info.data['truth']} is not the index of one of the {len(captions)} captions")
        return tags


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    image: str  # relative to the dataset directory
    family: str
    task: str
    key: str  # the question key: what the blind baseline groups by
    levels: dict[str, Any]
    preprompt: str
    instruction: str
    prompt: str  # the full text sent to the model
    answer_type: str
    answer: Any  # ground truth: a JSON value of the shape its answer type scores
    params: dict[str, Any] = {}  # the template parameters drawn from the legend
    choices: list[str] | None = None  # multiple-choice options (the answer is then a letter)
    chance: float | None = Field(None, ge=0, le=1)  # a guess's chance as asked (none for open answers)
    retrieval: RetrievalSet | None = None  # candidate captions, for image-text models to rank
    unreadable: UnreadableFlag | None = None  # flagged: the image does not show the answer
    # byo questions --for MODEL: the models that receive the image too small to decide it, and why
    unreadable_for: dict[str, UnreadableFlag] | None = None

    @field_validator("answer")
    @classmethod
    def answer_of_its_type(cls, answer: Any, info: ValidationInfo) -> Any:
        """The answer has the shape its answer type scores (a number for a count...)."""
        problem = answer_problem(info.data.get("answer_type", ""), answer)
        if problem:
            raise ValueError(problem)
        return answer


NUMBERS = ("integer", "row", "column")
TEXTS = ("label", "position_word", "yes_no", "multiple_choice", "card")
SETS = ("label_set", "card_set")


def answer_problem(answer_type: str, answer: Any) -> str | None:
    """What is wrong with `answer` for the scorer of `answer_type`, if anything (answer types of a
    family's own are the family's to check)."""
    def number(v) -> bool:
        return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)

    if answer_type in NUMBERS and not number(answer):
        return f"expected a number (answer type {answer_type}), got {answer!r:.60}"
    if answer_type in TEXTS and not isinstance(answer, str):
        return f"expected text (answer type {answer_type}), got {answer!r:.60}"
    if answer_type in SETS and not (isinstance(answer, list) and all(isinstance(v, str) for v in answer)):
        return f"expected a list of texts (answer type {answer_type}), got {answer!r:.60}"
    if answer_type == "cell":
        pair = [answer.get("row"), answer.get("column")] if isinstance(answer, dict) else answer
        if not (isinstance(pair, list) and len(pair) == 2 and all(number(v) and v == int(v) for v in pair)):
            return f"expected [row, column] (answer type cell), got {answer!r:.60}"
    return None


def image_problem(image: str, dataset: Path) -> str | None:
    """What is wrong with a question's image path, if anything: it must name a file inside the
    dataset (no absolute path, no '..', no link leading out)."""
    path = inside(dataset, image)
    if path is None:
        written = PurePosixPath(image)
        lexical = bool(image) and not written.is_absolute() and ".." not in written.parts  # so a link leads out
        return (f"{image[:100]!r} leads outside the dataset (a symbolic link): expected a file inside it" if lexical
                else f"{image[:100]!r} is outside the dataset: expected a relative path inside it")
    if not path.is_file():
        return f"{path} does not exist"
    return None


def read_question(line: str, where: str) -> tuple[Question | None, list[tuple[str, str]]]:
    """The question on a line, or what is wrong with it."""
    try:  # pydantic's own JSON parser: the fast way for a valid line
        return Question.model_validate_json(line), []
    except ValidationError:
        pass  # the slow way says what is wrong
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as err:
        return None, [(where, f"not valid JSON: {err}")]
    except RecursionError:
        return None, [(where, "JSON nested too deeply")]
    if not isinstance(raw, dict):
        return None, [(where, "expected a JSON object")]
    try:
        return Question.model_validate(raw), []
    except ValidationError as err:
        return None, [(f"{where}: {key}", msg) for key, msg in validation_problems(err)]


def load_questions(path: str | Path, dataset: str | Path) -> list[Question]:
    """Every line must be a valid question with a unique id and an existing image inside `dataset`."""
    path, dataset = Path(path), Path(dataset)
    file = str(path)
    if not path.exists():
        raise ConfigError(file, [("<file>", "file not found (questions are written by the question step)")])
    data = read_bytes(path)
    if b"\x00" in data:
        raise InputError(path, "a binary file, expected questions as JSON lines")
    lines = decode(data, path).splitlines()
    problems: list[tuple[str, str]] = []
    questions: list[Question] = []
    seen: dict[str, int] = {}
    image_problems: dict[str, str | None] = {}  # many questions share an image: each is checked once
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        q, wrong = read_question(line, where)
        if q is None:
            problems += wrong
            continue
        if q.id in seen:
            problems.append((f"{where}: id", f"{q.id!r} is already the id of line {seen[q.id]}"))
        seen.setdefault(q.id, number)
        if q.image not in image_problems:  # each image's problem once, on the first line naming it
            image_problems[q.image] = image_problem(q.image, dataset)
            if image_problems[q.image]:
                problems.append((f"{where}: image", image_problems[q.image]))
        questions.append(q)
        if len(problems) >= 20:
            problems.append(("...", "stopped after 20 problems"))
            break
    if problems:
        raise ConfigError(file, problems)
    if not questions:
        raise ConfigError(file, [("<file>", "no questions")])
    return questions
