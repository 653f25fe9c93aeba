"""Inspect task of a BYO Render dataset, written by `byo export --format inspect`.

    inspect eval task.py --model PROVIDER/MODEL

Each sample is one question variant: the image and the prompt as the user's message, the true
answer as the target. The scorer parses the answer with byo's own parser and judges it as
`byo score` does (`byo.export.scoring`), so install byo into the Inspect environment
(`pip install PATH/TO/byo-render`, which brings no bpy). `byo import-predictions LOG
--format inspect --dataset DATASET` turns the log into a byo run.
"""

import json
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText, GenerateConfig
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    SampleScore,
    Score,
    Target,
    accuracy,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState, generate

from byo.export import scoring

NAME = "byo_dataset"
HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions.jsonl"
MAX_TOKENS = 1024  # chain-of-thought prompts need room


def question_to_sample(q) -> Sample:
    image = ContentImage(image=str(HERE / q.image))
    answer = q.answer if isinstance(q.answer, str) else json.dumps(q.answer)
    return Sample(id=q.id, input=[ChatMessageUser(content=[image, ContentText(text=q.prompt)])], target=answer,
                  metadata={"key": q.key, "task": q.task, "answer_type": q.answer_type, "levels": q.levels,
                            "preprompt": q.preprompt, "instruction": q.instruction, "image": q.image})


@metric
def parse_rate():
    """Answers that byo parsed to one value / all questions."""

    def compute(scores: list[SampleScore]) -> float:
        return scoring.parse_rate([s.score.metadata for s in scores])

    return compute


@scorer(metrics=[accuracy(), stderr(), parse_rate()])
def byo_scorer():
    judge = scoring.Scorer.from_file(QUESTIONS)

    async def score(state: TaskState, target: Target) -> Score:
        record = judge.score(str(state.sample_id), state.output.completion)
        value = record["value"]
        return Score(value=CORRECT if record["correct"] else INCORRECT,
                     answer=value if isinstance(value, str) or value is None else json.dumps(value),
                     explanation=f"byo parse: {record['status']} ({record['method'] or 'no value'})",
                     metadata=record)

    return score


@task
def byo_dataset() -> Task:
    questions = scoring.read_questions(QUESTIONS)
    return Task(dataset=MemoryDataset([question_to_sample(q) for q in questions], name=NAME),
                solver=generate(), scorer=byo_scorer(), config=GenerateConfig(temperature=0, max_tokens=MAX_TOKENS))
