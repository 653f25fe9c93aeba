"""Questions for real photographs (BYO-Eval's appendix E): a folder of photos with hand-written
labels is asked the questions of a synthetic dataset, word for word, so that a model's per-level
accuracy on the photos can be set against its accuracy on the renders (`byo correlate`).

The labels file (`labels.yaml` in the folder) names each photo, its levels and the true answer of
each question key it is asked:

    images:
      - image: images/IMG_0412.jpg
        levels: {content.count: 3}
        answers: {count_pieces: 3, count_identification_white_pieces: 2}

A photo is asked every prompt variant the synthetic dataset asks of a key it has an answer for;
only keys whose question needs nothing of the image (no row or card named in it) can be asked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import Field, StrictBool, StrictFloat, StrictInt, StrictStr, ValidationError

from byo.core.dataset import atomic_write_text
from byo.core.errors import ConfigError
from byo.core.outputs import check_file_output, writing_outputs
from byo.core.schema import Strict, validation_problems
from byo.questions.load import QUESTIONS, Question, answer_problem, image_problem, load_questions
from byo.scene.config import read_yaml

LABELS = "labels.yaml"


COUNTS = ("integer", "row", "column")  # answer types that count from 0 (rows and columns from 1)
Level = StrictStr | StrictInt | StrictFloat | StrictBool  # one level of a variable, as a config gives it


class Photo(Strict):
    image: str = Field(min_length=1)  # relative to the folder
    levels: dict[str, Level] = {}
    answers: dict[str, Any] = Field(min_length=1)


def label_problem(answer_type: str, answer: Any) -> str | None:
    """What is wrong with a hand-written answer, if anything: the answer type's checks, and no
    count below 0 (no row or column below 1)."""
    wrong = answer_problem(answer_type, answer)
    if wrong is None and answer_type in COUNTS:
        least = 0 if answer_type == "integer" else 1
        if answer < least or answer != int(answer):
            return f"expected a whole number >= {least} (answer type {answer_type}), got {answer!r:.60}"
    return wrong


class Labels(Strict):
    images: list[Photo] = Field(min_length=1)


def real_questions(folder: str | Path, like: str | Path, labels: str | Path | None = None,
                   out: str | Path | None = None, force: bool = False) -> tuple[Path, int]:
    """Write FOLDER/questions.jsonl: the questions of the synthetic dataset `like` (its
    questions.jsonl), asked of each labelled photo. Returns (path, number of questions). A file
    byo did not write is not replaced without `force` (byo.core.outputs)."""
    folder, like = Path(folder), Path(like)
    path = Path(out) if out else folder / QUESTIONS
    check_file_output(path, force=force)
    labels_path = Path(labels) if labels else folder / LABELS
    data = read_yaml(labels_path, str(labels_path))
    try:
        photos = Labels.model_validate(data).images
    except ValidationError as err:
        raise ConfigError(str(labels_path), validation_problems(err)) from None
    synthetic = load_questions(like / QUESTIONS, like)
    # Each key's prompt variants as the synthetic dataset asks them, when they need nothing of the image.
    variants: dict[str, dict[tuple[str, str], Question]] = {}
    for q in synthetic:
        if not q.params and not q.choices:
            variants.setdefault(q.key, {}).setdefault((q.preprompt, q.instruction), q)
    asked = {q.key for q in synthetic}
    problems = []
    rows = []
    seen: dict[str, int] = {}
    for i, photo in enumerate(photos):
        where = f"images[{i}]"
        problem = image_problem(photo.image, folder)
        if problem:
            problems.append((f"{where}.image", problem))
        elif photo.image in seen:
            problems.append((f"{where}.image", f"{photo.image!r} is already labelled at images[{seen[photo.image]}]: "
                                               "expected each photo once, with all its answers"))
        seen.setdefault(photo.image, i)
        for key, answer in photo.answers.items():
            if key not in asked:
                problems.append((f"{where}.answers.{key}", f"{like} asks no question {key!r} (it asks "
                                                           f"{', '.join(sorted(asked))})"))
                continue
            if key not in variants:
                problems.append((f"{where}.answers.{key}", "its questions name something of each image (a row, a "
                                                           "card...): a photo cannot be asked them word for word"))
                continue
            for (pre, ins), q in variants[key].items():
                wrong = label_problem(q.answer_type, answer)
                if wrong:
                    problems.append((f"{where}.answers.{key}", wrong))
                    break
                rows.append({"id": f"real_{i:04d}/{key}/{pre}/{ins}", "image": photo.image, "family": q.family,
                             "task": q.task, "key": key, "levels": photo.levels, "preprompt": pre, "instruction": ins,
                             "prompt": q.prompt, "answer": answer, "answer_type": q.answer_type, "params": {},
                             "choices": None, **({"chance": q.chance} if q.chance is not None else {})})
        if len(problems) >= 20:
            break
    if problems:
        raise ConfigError(str(labels_path), problems[:20])
    with writing_outputs([path], "byo real-questions"):
        atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path, len(rows)
