"""byo's parser and metrics for other harnesses: score one answer to one question by its id.

The exported lmms-eval `utils.py` and the Inspect task call this, so an answer is parsed and
judged exactly as `byo score` does it (`parse_answer` with the question's context and the
label vocabularies of the whole question file, then `is_correct`). It imports no harness and
no bpy.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from byo.export.source import Question
from byo.score.metrics import nmae_term
from byo.score.parse import Domains, context_for, parse_answer
from byo.score.rows import is_correct


def read_questions(path: str | Path) -> list[Question]:
    """Every question of a question file, without checking that the images are beside it."""
    lines = Path(path).read_text().splitlines()
    return [Question.model_validate(json.loads(line)) for line in lines if line.strip()]


class Scorer:
    """Scores answers by question id, with the vocabularies of the whole question set."""

    def __init__(self, questions: Iterable[Question]):
        self.questions = list(questions)
        self.by_id = {q.id: q for q in self.questions}
        self.domains = Domains.from_questions(self.questions)

    @classmethod
    def from_file(cls, path: str | Path) -> Scorer:
        return cls(read_questions(path))

    def score(self, question_id: str, response: str | None, *, status: str = "ok") -> dict:
        """The parse of one answer and whether it is right: a JSON-safe record."""
        q = self.by_id.get(question_id)
        if q is None:
            raise KeyError(f"{question_id!r} is not a question id of this dataset")
        parsed = parse_answer(response, context_for(q, self.domains), status=status)
        value = parsed.value if parsed.status == "ok" else None
        term = None
        if q.answer_type == "integer" and value is not None:
            term = nmae_term(float(value), float(q.answer))
        return {"id": q.id, "key": q.key, "answer_type": q.answer_type, "status": parsed.status,
                "value": value, "method": parsed.method, "correct": is_correct(q.answer_type, value, q.answer),
                "nmae": term}


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def accuracy(records: Sequence[dict]) -> float | None:
    """Right answers / all questions (what `byo score` calls accuracy)."""
    return _mean([float(r["correct"]) for r in records])


def parse_rate(records: Sequence[dict]) -> float | None:
    """Answers parsed to one value / all questions."""
    return _mean([float(r["status"] == "ok") for r in records])


def nmae(records: Sequence[dict]) -> float | None:
    """Mean |prediction - truth| / max(|truth|, 1) over the parsed integer answers."""
    return _mean([r["nmae"] for r in records if r.get("nmae") is not None])
