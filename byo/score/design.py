"""What an experiment's design makes of its questions, for `byo run`'s results: the keys whose answer
the design fixes (the same answer on every image: a prior answers them, so they are reported apart,
never pooled into "all questions"), and accuracy per level of every varied variable and per cell of
every two crossed, with n, over the other keys.

A fixed answer is found in the rendered dataset, not read from the config (a deviation from "fixed
by the config": a family does not declare which keys its settings decide): a key whose every
question, on at least MIN_IMAGES_FIXED images, has one answer (`query_size_unique_shape` where the
config allows `sizes: [large]` only; a yes/no key answered "yes" everywhere). On fewer images one
answer says little, and the key is pooled as usual.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence

from byo.core.stats import clustered_proportion
from byo.score.bins import Bins
from byo.score.tables import Levels

MIN_IMAGES_FIXED = 3


def fixed_answers(rows: Sequence[dict], min_images: int = MIN_IMAGES_FIXED) -> dict[str, dict]:
    """{key: {"answer", "images", "questions"}} for each key whose answer is the same on every
    question, over at least `min_images` images."""
    seen: dict[str, tuple[set, set, list]] = {}
    for r in rows:
        answers, images, questions = seen.setdefault(r["key"], (set(), set(), []))
        answers.add(json.dumps(r["answer"], sort_keys=True, default=str))
        images.add(r["image"])
        questions.append(r["id"])
    return {key: {"answer": json.loads(next(iter(answers))), "images": len(images), "questions": len(set(questions))}
            for key, (answers, images, questions) in seen.items() if len(answers) == 1 and len(images) >= min_images}


def _accuracy(rows: Sequence[dict]) -> dict:
    p = clustered_proportion([bool(r["correct"]) for r in rows], [r["image"] for r in rows])
    return {"n": p["n"], "images": p["clusters"], "accuracy": p["value"], "accuracy_lo": p["lo"],
            "accuracy_hi": p["hi"]}


def pooled(rows: Sequence[dict], fixed: dict[str, dict]) -> dict:
    """All questions but those of the keys with a fixed answer, with the clustered interval."""
    return _accuracy([r for r in rows if r["key"] not in fixed])


def level_cells(rows: Sequence[dict], fixed: dict[str, dict], bins: Bins | None = None) -> list[dict]:
    """Accuracy per level of each varied variable, then per cell of each pair of them crossed, over
    the keys without a fixed answer (every prompt variant pooled): {"variable", "level",
    "variable2", "level2", "n", "images", "accuracy", "accuracy_lo", "accuracy_hi"}. `bins`: a
    variable's levels pooled into ranges (a paper's protocol: Table 3's 1-4 / 5-9 / 10-21)."""
    kept = [r for r in rows if r["key"] not in fixed]
    levels = Levels(kept, bins)
    labels = [{v: levels.of(r, v) for v in levels.variables} for r in kept]
    out = []
    for v in levels.variables:
        for level in levels.order[v]:
            cell = [r for r, lab in zip(kept, labels, strict=True) if lab[v] == level]
            if cell:
                out.append({"variable": v, "level": level, "variable2": "", "level2": "", **_accuracy(cell)})
    for a, b in itertools.combinations(levels.variables, 2):
        for la in levels.order[a]:
            for lb in levels.order[b]:
                cell = [r for r, lab in zip(kept, labels, strict=True) if lab[a] == la and lab[b] == lb]
                if cell:
                    out.append({"variable": a, "level": la, "variable2": b, "level2": lb, **_accuracy(cell)})
    return out
