"""A dataset of real renders for the sample viewer: the chess goldens' images, masks and legends in one
folder, their questions (every key, every prompt variant) cut to `n` rows, and fake runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from byo.questions.generate import INSTRUCTIONS, PREPROMPTS, generate

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
WORDS = ["upper left", "upper middle", "upper right", "middle left", "center", "middle right", "lower left",
         "lower middle", "lower right"]


def golden_chess_dataset(root: Path, n: int = 2000) -> Path:
    for sub in ("images", "masks", "legends"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for golden in sorted(GOLDEN.glob("chess__*")):
        for sub in ("images", "masks"):
            for f in (golden / sub).iterdir():
                shutil.copy(f, root / sub / f.name)
        for f in (golden / "legends").glob("*.json"):
            legend = json.loads(f.read_text())
            legend.pop("files", None)  # the goldens keep no text legends; a legend without records is complete
            (root / "legends" / f.name).write_text(json.dumps(legend))
    path, _ = generate(root, preprompts=list(PREPROMPTS), instructions=list(INSTRUCTIONS))
    lines = path.read_text().splitlines()
    assert len(lines) >= n, f"only {len(lines)} questions from the chess goldens"
    path.write_text("\n".join(lines[:n]) + "\n")
    return root


def wrong_value(q: dict, rng: np.random.Generator):
    truth = q["answer"]
    if q["answer_type"] in ("integer", "row", "column"):
        return truth + int(rng.choice([-2, -1, 1, 2])) if truth >= 2 else truth + int(rng.integers(1, 3))
    if q["answer_type"] == "position_word":
        return next(w for w in rng.permutation(WORDS) if w != truth)
    if truth in ("white", "black"):
        return "black" if truth == "white" else "white"
    return "nothing"


def fake_run(root: Path, name: str, model: str, skill: float, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    rows = []
    for line in (root / "questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        value = q["answer"] if rng.random() < skill else wrong_value(q, rng)
        text = str(value) if rng.random() < 0.5 else f"The answer is {value}."
        if rng.random() < 0.03:
            text = "I cannot tell from this image."
        rows.append({"id": q["id"], "provider": "fake", "model": model, "response": text, "status": "ok"})
    run = root / "runs" / name
    run.mkdir(parents=True, exist_ok=True)
    (run / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "run.json").write_text(json.dumps({"request": {"provider": "fake", "model": model}, "finished": True}))
    return run
