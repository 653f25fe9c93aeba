"""A run's predictions joined with their questions, parsed and marked right or wrong."""

from __future__ import annotations

import json
from pathlib import Path

from byo.dataset import Layout
from byo.errors import ConfigError
from byo.eval.layout import PREDICTIONS, RUN_FILE
from byo.questions.load import QUESTIONS, Question, load_questions
from byo.score.parse import FAMILY_TYPES, Domains, context_for, parse_answer
from byo.score.vocab import POSITION_WORDS, position_cell

NUMERIC = ("integer", "row", "column")


def variant_name(preprompt: str, instruction: str) -> str:
    return f"{preprompt}/{instruction}"


def run_paths(run_dir: Path) -> tuple[Path, Path]:
    """(dataset directory, question file) of a run directory DATASET/runs/NAME."""
    run_dir = Path(run_dir)
    if not (run_dir / PREDICTIONS).is_file():
        raise ConfigError(str(run_dir), [("<run>", f"no {PREDICTIONS}: expected a run directory DATASET/runs/NAME "
                                          "written by byo eval")])
    dataset = run_dir.parent.parent
    questions = dataset / QUESTIONS
    info = run_info(run_dir)
    if info.get("questions") and Path(info["questions"]).is_file():
        questions = Path(info["questions"])
    return dataset, questions


def run_info(run_dir: Path) -> dict:
    path = Path(run_dir) / RUN_FILE
    return json.loads(path.read_text()) if path.is_file() else {}


def load_predictions(run_dir: Path) -> list[dict]:
    path = Path(run_dir) / PREDICTIONS
    rows, problems = [], []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            problems.append((f"line {number}", f"not valid JSON: {err}"))
            continue
        missing = [k for k in ("id", "status") if k not in row]
        if missing:
            problems.append((f"line {number}", f"missing {', '.join(missing)}"))
            continue
        rows.append(row)
    if problems:
        raise ConfigError(str(path), problems[:20])
    return rows


def truth_cell(answer) -> list[int] | None:
    if isinstance(answer, dict):
        return [int(answer["row"]), int(answer["column"])]
    if isinstance(answer, list | tuple) and len(answer) == 2:
        return [int(answer[0]), int(answer[1])]
    return None


SETS = ("label_set", "card_set")  # answers that are sets: exact set match, and P/R/F1


def is_correct(answer_type: str, value, truth) -> bool:
    if value is None:
        return False
    if answer_type in NUMERIC:
        return float(value) == float(truth)
    if answer_type == "cell":
        return list(value) == truth_cell(truth)
    if answer_type in SETS:
        return {str(v).lower() for v in value} == {str(t).lower() for t in truth}
    own = FAMILY_TYPES.get(answer_type)
    if own is not None and own.correct is not None:
        return own.correct(value, truth)
    return str(value).lower() == str(truth).lower()


def grid_position(answer_type: str, value) -> list[int] | None:
    """(row, column) of a cell or position-word answer, for localization errors."""
    if value is None:
        return None
    if answer_type == "cell":
        return truth_cell(value)
    if answer_type == "position_word" and value in POSITION_WORDS:
        return list(position_cell(value))
    return None


def legend_splits(questions: list[Question], dataset: Path) -> dict[str, str]:
    """image -> split part, from the legend's extras, of images whose questions of a family's own
    answer type do not carry it (their metrics are sliced by split)."""
    layout, out = Layout(dataset), {}
    for q in questions:
        if q.answer_type in FAMILY_TYPES and "split" not in q.params and q.image not in out:
            path = layout.legend(Path(q.image).stem)
            if path.is_file():
                split = json.loads(path.read_text()).get("extras", {}).get("split")
                if split is not None:
                    out[q.image] = str(split)
    return out


def _split(q: Question, from_legends: dict[str, str]) -> str | None:
    """The image's split part: the question's `split` parameter or level, or its legend's."""
    value = q.params.get("split") or q.levels.get("split") or from_legends.get(q.image)
    return str(value) if value is not None else None


def score_rows(questions: list[Question], predictions: list[dict], run: str,
               splits: dict[str, str] | None = None) -> list[dict]:
    """One row per prediction: the question, the raw answer, its parse and whether it is right."""
    by_id = {q.id: q for q in questions}
    unknown = [p["id"] for p in predictions if p["id"] not in by_id]
    if unknown:
        raise ConfigError(run, [("predictions", f"{len(unknown)} ids are not in the question file, e.g. {unknown[0]!r}")])
    domains = Domains.from_questions(questions)
    out = []
    for p in predictions:
        q = by_id[p["id"]]
        parsed = parse_answer(p.get("response"), context_for(q, domains), status=p["status"],
                              refusal=bool(p.get("refusal")))
        value = parsed.value if parsed.status == "ok" else None
        row = {
            "run": run, "model": p.get("model"), "provider": p.get("provider"), "reference": bool(p.get("reference")),
            "id": q.id, "image": q.image, "family": q.family, "task": q.task, "key": q.key,
            "answer_type": q.answer_type, "preprompt": q.preprompt, "instruction": q.instruction,
            "variant": variant_name(q.preprompt, q.instruction), "levels": q.levels, "params": q.params,
            "choices": q.choices, "prompt": q.prompt, "answer": q.answer, "response": p.get("response"),
            "request_status": p["status"], "request_error": p.get("error"),
            "status": parsed.status, "value": value, "method": parsed.method, "candidates": parsed.candidates,
            "note": parsed.note, "correct": is_correct(q.answer_type, value, q.answer),
            "error": None, "split": _split(q, splits or {}),
        }
        if q.answer_type in NUMERIC and value is not None:
            row["error"] = float(value) - float(q.answer)
        out.append(row)
    return out


def load_run(run_dir: Path) -> tuple[list[dict], dict]:
    """Scored rows of a run and facts about it (name, model, dataset, unanswered questions)."""
    run_dir = Path(run_dir)
    dataset, questions_path = run_paths(run_dir)
    questions = load_questions(questions_path, dataset)
    predictions = load_predictions(run_dir)
    rows = score_rows(questions, predictions, run_dir.name, legend_splits(questions, dataset))
    info = run_info(run_dir)
    first = predictions[0] if predictions else {}
    facts = {"run": run_dir.name, "run_dir": str(run_dir), "dataset": str(dataset), "questions": str(questions_path),
             "model": first.get("model"), "provider": first.get("provider"),
             "reference": bool(info.get("reference", first.get("reference"))),
             "n_predictions": len(predictions), "n_questions": len(questions),
             "unanswered": len(questions) - len({p["id"] for p in predictions})}
    return rows, facts
