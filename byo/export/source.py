"""What every exporter reads: a dataset's questions, its resolved config, and one flat row per
question with typed columns (the Hugging Face `features` of the `hf` export)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from byo.core.dataset import RESOLVED_CONFIG, SOURCE_CONFIG
from byo.core.errors import ConfigError
from byo.core.inputs import read_image, read_json, read_text, reading
from byo.providers.reference import answer_text
from byo.questions.load import QUESTIONS, Question, load_questions

DEFAULT_SPLIT = "test"
# Columns whose values come from a small fixed set: Hugging Face class labels.
LABEL_COLUMNS = ("family", "task", "key", "answer_type", "preprompt", "instruction")


@dataclass
class Source:
    root: Path
    questions_path: Path
    questions: list[Question]
    config: dict | None  # config.resolved.json, when the dataset has one
    config_text: str | None  # config.yaml as written
    name: str
    split: str
    levels: dict[str, dict] = field(default_factory=dict)  # variable -> its feature

    @property
    def images(self) -> list[str]:
        """Distinct images, in question order."""
        return list(dict.fromkeys(q.image for q in self.questions))

    def variables(self) -> dict[str, dict]:
        return (self.config or {}).get("variables", {})


def load_source(dataset: str | Path) -> Source:
    """A rendered dataset with its questions, or exit 2 naming the file and what was expected."""
    root = Path(dataset)
    if not root.is_dir():
        raise ConfigError(str(root), [("<dataset>", "not a directory: expected a rendered dataset "
                                       "(byo render) with questions.jsonl (byo questions)")])
    questions_path = root / QUESTIONS
    if not questions_path.is_file():
        raise ConfigError(str(questions_path), [("<file>", "file not found: expected the question file "
                                                 f"written by `byo questions {root}`")])
    questions = load_questions(questions_path, root)
    config = config_text = None
    resolved = root / RESOLVED_CONFIG
    if resolved.is_file():
        config = read_json(resolved)
    if (root / SOURCE_CONFIG).is_file():
        config_text = read_text(root / SOURCE_CONFIG)
    with reading(resolved, "a resolved config"):
        info = (config or {}).get("dataset") or {}
        split = str(info.get("split") or DEFAULT_SPLIT)
        if not re.fullmatch(r"\w+", split):
            split = DEFAULT_SPLIT
        source = Source(root=root, questions_path=questions_path, questions=questions, config=config,
                        config_text=config_text, name=str(info.get("name") or root.resolve().name), split=split)
        source.levels = level_features(source)
    return source


def check_images(source: Source) -> None:
    """Every image the questions show decodes whole: an empty, cut or damaged one is named before
    anything is written (an export embeds or copies them as they are)."""
    for image in source.images:
        read_image(source.root / image)


# --- features, in the JSON form of `datasets.Features.to_dict()` ------------------------------
def value(dtype: str) -> dict:
    return {"dtype": dtype, "_type": "Value"}


def class_label(names: list[str]) -> dict:
    return {"names": names, "_type": "ClassLabel"}


IMAGE = {"_type": "Image"}


def _scalar_kind(values: list[Any]) -> str:
    if all(isinstance(v, bool) for v in values):
        return "bool"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "int64"
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return "float64"
    if all(isinstance(v, str) for v in values):
        return "label"
    return "json"


def level_features(source: Source) -> dict[str, dict]:
    """Each level variable: integers, floats and booleans keep their type; names become class
    labels (in the config's order of levels); anything else is a JSON string."""
    seen: dict[str, list] = {}
    for q in source.questions:
        for variable, v in q.levels.items():
            seen.setdefault(variable, []).append(v)
    out = {}
    for variable, values in seen.items():
        kind = _scalar_kind(values)
        if kind == "label":
            declared = source.variables().get(variable, {})
            order = [v for v in declared.get("levels") or declared.get("choices") or [] if isinstance(v, str)]
            names = list(dict.fromkeys([*order, *values]))
            out[variable] = class_label([n for n in names if n in set(values)])
        else:
            out[variable] = value("string" if kind == "json" else kind)
    return out


def features(source: Source) -> dict[str, dict]:
    """The columns of the `hf` export, one row per question variant."""
    labels = {c: class_label(list(dict.fromkeys(getattr(q, c) for q in source.questions))) for c in LABEL_COLUMNS}
    return {
        "id": value("string"),
        "image": IMAGE,
        "image_id": value("string"),
        "family": labels["family"],
        "task": labels["task"],
        "key": labels["key"],
        "preprompt": labels["preprompt"],
        "instruction": labels["instruction"],
        "prompt": value("string"),
        "answer": value("string"),
        "answer_json": value("string"),
        "answer_type": labels["answer_type"],
        "choices": [value("string")],
        # Parquet has no struct without fields: a dataset without variables has no `levels` column.
        **({"levels": dict(source.levels)} if source.levels else {}),
        "params": value("string"),
    }


def image_id(image: str) -> str:
    return PurePosixPath(image).stem


def encode(feature: dict, v: Any) -> Any:
    """A question's value as stored under `feature` (class labels as their index)."""
    if feature.get("_type") == "ClassLabel":
        return feature["names"].index(v)
    if feature.get("_type") == "Value" and feature["dtype"] == "string" and not isinstance(v, str):
        return json.dumps(v)
    if feature.get("_type") == "Value" and feature["dtype"] == "float64":
        return float(v)
    return v


def question_row(q: Question, feats: dict[str, dict]) -> dict:
    """One question as a row of plain values (the image column is left to the writer)."""
    levels = feats.get("levels", {})
    raw = {"id": q.id, "image_id": image_id(q.image), "family": q.family, "task": q.task, "key": q.key,
           "preprompt": q.preprompt, "instruction": q.instruction, "prompt": q.prompt,
           "answer": answer_text(q.answer), "answer_json": json.dumps(q.answer, ensure_ascii=False),
           "answer_type": q.answer_type, "choices": q.choices,
           "params": json.dumps(q.params, ensure_ascii=False)}
    row = {k: encode(feats[k], v) for k, v in raw.items() if k != "choices"}
    row["choices"] = q.choices
    if levels:
        row["levels"] = {var: encode(f, q.levels.get(var)) if var in q.levels else None for var, f in levels.items()}
    return row


def task_name(name: str) -> str:
    """A harness-friendly identifier: byo_<name> in lowercase letters, digits and underscores."""
    return "byo_" + (re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "dataset")
