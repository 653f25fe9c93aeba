"""Few-shot requests (`byo eval --shots K`): before each question, K solved examples of the same
question key and prompt variant, each an image, its prompt and its true answer, in the
provider's multi-image format (alternating user and assistant turns).

The examples come from a named split of the dataset (`--shots-from train`: images whose legend,
or question, says split train), from another dataset directory (`--shots-from PATH`, its
questions.jsonl), or by default from the whole dataset. They are drawn reproducibly: a
generator seeded by `--shots-seed` and the question's id shuffles the candidates, and the first
K whose image is not the image under test (by path and by content) are taken. The examples are
part of the request, so of its cache key."""

from __future__ import annotations

import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from byo.core.dataset import Layout
from byo.core.errors import ARGUMENTS, ConfigError
from byo.core.inputs import read_json
from byo.questions.load import QUESTIONS, Question, load_questions

SPLITS = ("train", "val", "test")
MAX_SHOTS = 64


def answer_text(answer) -> str:
    """A true answer as an example's reply: text as it is, numbers as digits, lists joined with
    commas, a grid cell as "row R, column C"."""
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    if isinstance(answer, dict) and set(answer) == {"row", "column"}:
        return f"row {answer['row']}, column {answer['column']}"
    if isinstance(answer, list):
        return ", ".join(answer_text(a) for a in answer)
    if isinstance(answer, float) and answer.is_integer():
        return str(int(answer))
    return str(answer)


def image_split(q: Question, dataset: Path) -> str | None:
    """The split of a question's image: its `split` parameter or level, else its legend's
    (a family drawing one per image records it in extras.split)."""
    value = q.params.get("split") or q.levels.get("split")
    if value is None:
        path = Layout(dataset).legend(Path(q.image).stem)
        if path.is_file():
            legend = read_json(path)
            if isinstance(legend, dict):
                value = (legend.get("extras") or {}).get("split") or legend.get("split")
    return str(value) if value is not None else None


@dataclass(frozen=True)
class Example:
    question: Question
    dataset: Path  # where its image is


class Shots:
    """The example pool of an evaluation, grouped by question key and prompt variant."""

    def __init__(self, k: int, source: str | None, seed: int, dataset: Path, questions: list[Question],
                 all_questions: list[Question]):
        self.k, self.seed, self.dataset = k, seed, Path(dataset)
        if source is None or source in SPLITS:
            self.source_dir, pool = self.dataset, all_questions
            if source is not None:
                pool = [q for q in pool if image_split(q, self.dataset) == source]
            self.source = source or "all"
        else:
            self.source_dir = Path(source)
            if not (self.source_dir / QUESTIONS).is_file():
                raise ConfigError(ARGUMENTS, [("shots_from", f"{source} is neither a split "
                                             f"({', '.join(SPLITS)}) nor a dataset directory with "
                                             f"{QUESTIONS}")])
            pool = load_questions(self.source_dir / QUESTIONS, self.source_dir)
            self.source = str(self.source_dir)
        self.pool: dict[tuple, list[Question]] = defaultdict(list)
        for q in pool:
            self.pool[self.group(q)].append(q)
        short = next((q for q in questions if len(self.candidates(q)) < k), None)
        if short is not None:
            raise ConfigError(ARGUMENTS, [("shots", f"{k} examples per question, but question "
                                         f"{short.id!r} (key {short.key}, prompt {short.preprompt}/"
                                         f"{short.instruction}) has {len(self.candidates(short))} "
                                         f"candidates in {self.source}")])

    @staticmethod
    def group(q: Question) -> tuple:
        return (q.key, q.preprompt, q.instruction)

    def candidates(self, q: Question) -> list[Question]:
        same = self.source_dir.resolve() == self.dataset.resolve()
        return [c for c in self.pool.get(self.group(q), ()) if not (same and c.image == q.image)]

    def order(self, q: Question) -> list[Example]:
        """Every candidate example of `q`, in its seeded order (the caller takes the first K whose
        image differs from the image under test)."""
        found = self.candidates(q)
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([self.seed, zlib.crc32(q.id.encode())])))
        return [Example(found[i], self.source_dir) for i in rng.permutation(len(found))]

    def identity(self) -> dict:
        return {"k": self.k, "from": self.source, "seed": self.seed}
