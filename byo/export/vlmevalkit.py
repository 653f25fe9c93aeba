"""`byo export DATASET --format vlmevalkit`: VLMEvalKit's TSV layout.

VLMEvalKit reads a dataset it does not know from `$LMUData/<NAME>.tsv`, and treats the whole
file as multiple choice when it has columns `A` and `B`. So the open questions go to
`<NAME>.tsv` (a custom VQA dataset) and the multiple-choice ones to `<NAME>_MCQ.tsv` (a custom
MCQ dataset, options in columns A, B, C, ...; the answer is the letter).

Columns: `index` (the question's line in questions.jsonl, from 0), `image` (base64 PNG; later
questions of the same image hold the index of the row that carries it, as VLMEvalKit allows
to save space), `question` (byo's full prompt), `answer`, the options, `category` (the
question key), `l2-category` (its task), and byo's `id`, `answer_type`, `preprompt`,
`instruction` and `levels` (JSON), which VLMEvalKit carries into its prediction files.
"""

from __future__ import annotations

import base64
import csv
import json
from pathlib import Path

from byo.export.source import Question, Source, task_name
from byo.families.base import option_labels
from byo.providers.reference import answer_text

INSTRUCTIONS = "README.md"


def _rows(source: Source, questions: list[tuple[int, Question]], letters: int) -> list[dict]:
    carrier: dict[str, int] = {}
    rows = []
    for index, q in questions:
        if q.image in carrier:
            image = str(carrier[q.image])
        else:
            carrier[q.image] = index
            image = base64.b64encode((source.root / q.image).read_bytes()).decode("ascii")
        row = {"index": index, "image": image, "question": q.prompt, "answer": answer_text(q.answer)}
        for i, letter in enumerate(option_labels(letters)):  # past Z: AA, AB, ... (a question of 50 options)
            row[letter] = q.choices[i] if q.choices and i < len(q.choices) else ""
        row.update({"category": q.key, "l2-category": q.task, "id": q.id, "answer_type": q.answer_type,
                    "preprompt": q.preprompt, "instruction": q.instruction,
                    "levels": json.dumps(q.levels, ensure_ascii=False)})
        rows.append(row)
    return rows


def write_tsv(path: Path, rows: list[dict]) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def instructions(name: str, files: dict[str, Path]) -> str:
    names = [p.stem for p in files.values()]
    copies = "\n".join(f"cp {p.name} \"$LMUData/\"" for p in files.values())
    return f"""# {name} for VLMEvalKit

VLMEvalKit evaluates a TSV it does not know as a custom dataset: put the files in `$LMUData`
(default `~/LMUData`) and name them with `--data`.

```sh
export LMUData=${{LMUData:-$HOME/LMUData}}
{copies}
python run.py --data {' '.join(names)} --model MODEL --mode infer
```

`{name}.tsv` holds the open questions (a custom VQA dataset){' and `' + name + '_MCQ.tsv` the multiple-choice ones (a custom MCQ dataset: options in columns A, B, ...)' if len(files) > 1 else ''}.
Score the predictions with byo's parser: VLMEvalKit writes `MODEL_<data>.xlsx` with the
`id` and `prediction` columns; turn them into one `{{"id": ..., "response": ...}}` line each, then

```sh
byo import-predictions predictions.jsonl --format jsonl --dataset DATASET --model MODEL
byo score DATASET/runs/jsonl-MODEL
```
"""


def export_vlmevalkit(source: Source, out: Path, **options) -> dict[str, Path]:
    name = options.get("task") or task_name(source.name)
    indexed = list(enumerate(source.questions))
    mcq = [(i, q) for i, q in indexed if q.answer_type == "multiple_choice" and q.choices]
    chosen = {i for i, _ in mcq}
    open_questions = [(i, q) for i, q in indexed if i not in chosen]
    files: dict[str, Path] = {}
    if open_questions:
        files["open"] = write_tsv(out / f"{name}.tsv", _rows(source, open_questions, 0))
    if mcq:
        letters = max(len(q.choices) for _, q in mcq)
        files["multiple choice"] = write_tsv(out / f"{name}_MCQ.tsv", _rows(source, mcq, letters))
    readme = out / INSTRUCTIONS
    readme.write_text(instructions(name, files))
    return {**files, "instructions": readme}
