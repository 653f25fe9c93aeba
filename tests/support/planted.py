"""Planted runs without rendering: chess counting questions (the real question format) answered by a
fake model whose chance of a right answer follows a known curve, scored by the real scorer."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image

from byo.questions.load import Question
from byo.score.rows import score_rows

COUNTS = list(range(1, 17))  # chess_count's content.count levels (1..21 in the shipped config)
PROMPT = "How many pieces are there on the chessboard?"


def logistic_curve(threshold: float, slope: float = 1.0, lapse: float = 0.02, chance: float = 0.0) -> Callable:
    """P(right | count): falls through `threshold`, halfway between chance and 1 - lapse."""
    return lambda x: chance + (1 - chance - lapse) / (1 + math.exp(slope * (x - threshold)))


def count_questions(images_per_count: int = 20, counts=COUNTS, variants=(("neutral", "direct"),),
                    key: str = "count_pieces") -> list[Question]:
    out = []
    for count in counts:
        for i in range(images_per_count):
            name = f"chess_count_{count:02d}_{i:04d}"
            for pre, ins in variants:
                out.append(Question(id=f"{name}/{key}/{pre}/{ins}", image=f"images/{name}.png", family="chess",
                                    task="counting", key=key, levels={"content.count": count}, preprompt=pre,
                                    instruction=ins, prompt=PROMPT, answer=count, answer_type="integer"))
    return out


def planted_predictions(questions: list[Question], p_right: Callable, rng: np.random.Generator,
                        model: str = "planted") -> list[dict]:
    """A right answer with probability p_right(true count), else one off by 1 to 3, in a few styles."""
    rows = []
    for q in questions:
        truth = q.answer
        if rng.random() < p_right(truth):
            value = truth
        else:
            value = max(0, truth + int(rng.choice([-3, -2, -1, 1, 2, 3])))
            value = value if value != truth else truth + 1
        text = [f"{value}", f"There are {value} pieces.", f"The answer is {value}."][int(rng.integers(3))]
        rows.append({"id": q.id, "provider": "fake", "model": model, "response": text, "status": "ok"})
    return rows


def planted_rows(p_right: Callable, seed: int, images_per_count: int = 20, run: str = "planted", **kwargs) -> list[dict]:
    questions = count_questions(images_per_count, **kwargs)
    return score_rows(questions, planted_predictions(questions, p_right, np.random.default_rng(seed), run), run)


def write_dataset(root: Path, questions: list[Question]) -> Path:
    """The question file and a tiny PNG per image (the scorer checks that images exist)."""
    (root / "images").mkdir(parents=True, exist_ok=True)
    for image in sorted({q.image for q in questions}):
        Image.new("RGB", (8, 8), (len(image) * 7 % 256, 90, 30)).save(root / image)
    (root / "questions.jsonl").write_text("".join(q.model_dump_json() + "\n" for q in questions))
    return root


def write_run(root: Path, name: str, predictions: list[dict]) -> Path:
    run = root / "runs" / name
    run.mkdir(parents=True, exist_ok=True)
    (run / "predictions.jsonl").write_text("".join(json.dumps(p) + "\n" for p in predictions))
    (run / "run.json").write_text(json.dumps({"request": {"provider": "fake", "model": predictions[0]["model"]},
                                              "finished": True}))
    return run


def exact_predictions(questions: list[Question], share_right: float, rng: np.random.Generator,
                      model: str) -> list[dict]:
    """Right on exactly round(share_right * n) questions drawn at random, wrong on the others."""
    right = set(rng.permutation(len(questions))[: round(share_right * len(questions))].tolist())
    return planted_predictions(questions, lambda count: 1.0, rng, model) if share_right == 1 else [
        p for i, q in enumerate(questions)
        for p in planted_predictions([q], lambda count, hit=i in right: float(hit), rng, model)]


def same_model_predictions(questions: list[Question], share_right: float, flip: float, run_seed: int,
                           model: str = "same-vlm") -> list[dict]:
    """One model's run: which questions it gets right is the model's (a fixed draw), and each run
    flips a share `flip` of its verdicts at random (sampling at a temperature): runs of one model
    with different seeds."""
    known = np.random.default_rng(12345).random(len(questions)) < share_right
    rng = np.random.default_rng(run_seed)
    right = known ^ (rng.random(len(questions)) < flip)
    return [p for q, hit in zip(questions, right, strict=True)
            for p in planted_predictions([q], lambda count, hit=hit: float(hit), rng, model)]
