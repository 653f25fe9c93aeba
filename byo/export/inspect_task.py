"""`byo export DATASET --format inspect`: an Inspect task.

OUT/
  task.py           the @task: one sample per question (image + prompt, target answer), byo's scorer
  questions.jsonl   the dataset's questions
  images/           the images the questions show

Run it with `inspect eval OUT/task.py --model PROVIDER/MODEL`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from byo.export.source import Source, task_name

TEMPLATES = Path(__file__).with_name("templates")
NAME_LINE, TASK_LINE = 'NAME = "byo_dataset"', "def byo_dataset() -> Task:"


def export_inspect(source: Source, out: Path, **options) -> dict[str, Path]:
    name = options.get("task") or task_name(source.name)
    for image in source.images:
        (out / image).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source.root / image, out / image)
    shutil.copyfile(source.questions_path, out / "questions.jsonl")
    template = (TEMPLATES / "inspect_task.py").read_text()
    if NAME_LINE not in template or TASK_LINE not in template:
        raise RuntimeError("the Inspect task template lost its NAME or task line")
    path = out / "task.py"
    path.write_text(template.replace(NAME_LINE, f"NAME = {name!r}").replace(TASK_LINE, f"def {name}() -> Task:"))
    return {"task": path, "questions": out / "questions.jsonl"}
