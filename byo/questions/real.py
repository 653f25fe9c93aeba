"""Questions for real photographs (BYO-Eval's appendix E): a folder of photos with hand-written
labels is asked the questions of a synthetic dataset, word for word, so that a model's per-level
accuracy on the photos can be set against its accuracy on the renders (`byo correlate`).

The labels file (`labels.yaml` in the folder) names each photo, its levels and the true answer of
each question key it is asked:

    images:
      - image: images/IMG_0412.jpg
        levels: {content.count: 3}
        answers: {count_pieces: 3, count_identification_white_pieces: 2}

A photo that reproduces a render of the synthetic dataset names it, and takes its levels and the
answers of its questions (the paper rebuilt its scenes "using their legend as ground truth"); the
photo and its render are then a scene pair, which Figures 52 and 53 compare (`byo correlate`):

      - image: images/IMG_0413.jpg
        render: images/chess_000012.png

Levels or answers written beside a render must be the render's. A photo is asked every prompt
variant the synthetic dataset asks of a key it has an answer for; only keys whose question needs
nothing of the image (no row or card named in it) can be asked. Its questions carry the render
in `params.render`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import (
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    model_validator,
)

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
    render: str | None = Field(None, min_length=1)  # the synthetic image it reproduces, relative to that dataset
    levels: dict[str, Level] | None = None  # default: the render's, else none
    answers: dict[str, Any] | None = None  # default: the render's

    @model_validator(mode="after")
    def answers_or_render(self) -> Photo:
        if self.render is None and not self.answers:
            raise ValueError("expected the photo's answers, or the render it reproduces (render: images/...)")
        return self


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


def read_labels(path: str | Path) -> list[Photo]:
    """The photos of a labels file; ConfigError names each problem."""
    data = read_yaml(Path(path), str(path))
    try:
        return Labels.model_validate(data).images
    except ValidationError as err:
        raise ConfigError(str(path), validation_problems(err)) from None


def _rendered(synthetic: list[Question]) -> dict[str, tuple[dict, dict[str, Any]]]:
    """image -> (its levels, key -> its answer) of the synthetic dataset's questions."""
    out: dict[str, tuple[dict, dict[str, Any]]] = {}
    for q in synthetic:
        out.setdefault(q.image, (q.levels, {}))[1].setdefault(q.key, q.answer)
    return out


def _linked(photo: Photo, where: str, rendered: dict, askable: set[str], like: Path) -> tuple[dict, dict, list]:
    """(levels, answers, problems) of a photo: its own, or its render's when it names one."""
    if photo.render is None:
        return photo.levels or {}, photo.answers or {}, []
    if photo.render not in rendered:
        examples = ", ".join(list(rendered)[:3])
        return {}, {}, [(f"{where}.render", f"{like} asks no question of {photo.render!r} (its images: {examples}, "
                                            "...): expected the render the photo reproduces")]
    levels, answers = rendered[photo.render]
    problems = []
    if photo.levels is not None and photo.levels != levels:
        problems.append((f"{where}.levels", f"{photo.levels} differ from its render's {levels}: a photo reproduces "
                                            "its render (leave them out to take the render's)"))
    for key, answer in (photo.answers or {}).items():
        if key in answers and answers[key] != answer:
            problems.append((f"{where}.answers.{key}", f"{answer!r:.40} differs from its render's {answers[key]!r:.40}:"
                                                       " a photo reproduces its render (leave it out to take the "
                                                       "render's)"))
    taken = photo.answers if photo.answers else {k: v for k, v in answers.items() if k in askable}
    return levels, taken, problems


def real_questions(folder: str | Path, like: str | Path, labels: str | Path | None = None,
                   out: str | Path | None = None, force: bool = False) -> tuple[Path, int]:
    """Write FOLDER/questions.jsonl: the questions of the synthetic dataset `like` (its
    questions.jsonl), asked of each labelled photo. Returns (path, number of questions). A file
    byo did not write is not replaced without `force` (byo.core.outputs)."""
    folder, like = Path(folder), Path(like)
    path = Path(out) if out else folder / QUESTIONS
    check_file_output(path, force=force)
    labels_path = Path(labels) if labels else folder / LABELS
    photos = read_labels(labels_path)
    synthetic = load_questions(like / QUESTIONS, like)
    # Each key's prompt variants as the synthetic dataset asks them, when they need nothing of the image.
    variants: dict[str, dict[tuple[str, str], Question]] = {}
    for q in synthetic:
        if not q.params and not q.choices:
            variants.setdefault(q.key, {}).setdefault((q.preprompt, q.instruction), q)
    asked = {q.key for q in synthetic}
    rendered = _rendered(synthetic)
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
        levels, answers, wrong_link = _linked(photo, where, rendered, set(variants), like)
        problems += wrong_link
        if photo.render is not None and not answers and not wrong_link:
            problems.append((f"{where}.render", f"{photo.render} is asked no question a photo can be asked word for "
                                                "word (none that names nothing of the image)"))
        for key, answer in answers.items():
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
                             "task": q.task, "key": key, "levels": levels, "preprompt": pre, "instruction": ins,
                             "prompt": q.prompt, "answer": answer, "answer_type": q.answer_type,
                             "params": {"render": photo.render} if photo.render else {},
                             "choices": None, **({"chance": q.chance} if q.chance is not None else {})})
        if len(problems) >= 20:
            break
    if problems:
        raise ConfigError(str(labels_path), problems[:20])
    with writing_outputs([path], "byo real-questions"):
        atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path, len(rows)
