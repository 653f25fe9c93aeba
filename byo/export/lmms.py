"""`byo export DATASET --format lmms-eval`: a task folder for lmms-eval.

OUT/
  <task>.yaml       the task: the `hf` export as its dataset, byo's functions from utils.py
  utils.py          doc_to_visual, doc_to_text, process_results and the aggregations
  questions.jsonl   the dataset's questions, read by the scorer (answers and vocabularies)
  hf/               the `hf` export (Parquet with the images, and its dataset card)

Run it with `lmms-eval --include_path OUT --tasks <task> ...`. The YAML names the dataset's
Parquet files relative to itself (lmms-eval reads `dataset_kwargs.data_files` of its local
`parquet` builder from the YAML's folder), so the folder can be moved or copied as it is.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from byo.export.hf import DATA, export_hf
from byo.export.source import Source, task_name

TEMPLATES = Path(__file__).with_name("templates")
MAX_NEW_TOKENS = 1024  # chain-of-thought prompts need room


class _Function(str):
    """A YAML scalar written as lmms-eval's `!function utils.NAME`."""


def _function(dumper: yaml.SafeDumper, data: _Function):
    return dumper.represent_scalar("!function", str(data))


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Function, _function)


def task_config(source: Source, name: str, data_files: list[str]) -> dict:
    """The task's YAML. `data_files`: the `hf` export's Parquet files, relative to the YAML."""
    metrics = [{"metric": "byo_accuracy", "aggregation": _Function("utils.byo_accuracy"), "higher_is_better": True},
               {"metric": "byo_parse_rate", "aggregation": _Function("utils.byo_parse_rate"),
                "higher_is_better": True}]
    if any(q.answer_type == "integer" for q in source.questions):
        metrics.append({"metric": "byo_nmae", "aggregation": _Function("utils.byo_nmae"), "higher_is_better": False})
    return {
        "task": name,
        "dataset_path": "parquet",
        "dataset_kwargs": {"data_files": {source.split: data_files}},
        "test_split": source.split,
        "output_type": "generate_until",
        "doc_to_visual": _Function("utils.doc_to_visual"),
        "doc_to_text": _Function("utils.doc_to_text"),
        "doc_to_target": "answer",
        # `until: []`: the default stop string "\n\n" would cut chain-of-thought answers short.
        "generation_kwargs": {"max_new_tokens": MAX_NEW_TOKENS, "temperature": 0, "do_sample": False, "until": []},
        "process_results": _Function("utils.process_results"),
        "metric_list": metrics,
        "lmms_eval_specific_kwargs": {"default": {"pre_prompt": "", "post_prompt": ""}},
        "metadata": {"version": 1.0, "byo_dataset": source.name},
    }


def export_lmms(source: Source, out: Path, *, final: Path | None = None, **options) -> dict[str, Path]:
    """The task folder in `out` (moved to `final` afterwards: its paths are relative, so either)."""
    name = options.get("task") or task_name(source.name)
    hf = out / "hf"
    hf.mkdir(exist_ok=True)
    export_hf(source, hf, **options)
    shutil.copyfile(source.questions_path, out / "questions.jsonl")
    shutil.copyfile(TEMPLATES / "lmms_utils.py", out / "utils.py")
    config = out / f"{name}.yaml"
    shards = sorted(p.relative_to(out).as_posix() for p in (hf / DATA).glob("*.parquet"))
    config.write_text(yaml.dump(task_config(source, name, shards), Dumper=_Dumper,
                                sort_keys=False, allow_unicode=True, width=120))
    return {"task": config, "utils": out / "utils.py", "dataset": hf}
