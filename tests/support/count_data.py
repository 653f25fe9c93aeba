"""A chess-like count dataset of counts 1..21 (BYO-Eval's Figure 4 / Table 3 range), drawn with
Pillow, its questions in four prompt variants, and runs written as byo eval writes them."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image, ImageDraw

COUNTS = range(1, 22)
PER_LEVEL = 3
VARIANTS = [("neutral", "declarative"), ("neutral", "fill_blank"), ("helpful", "declarative"),
            ("helpful", "fill_blank")]
LEAD = "The number of pieces in the image is:"
BLANK = "There are ____ pieces in the image."


def make_count_dataset(root: Path) -> list[dict]:
    rows = []
    for count in COUNTS:
        for k in range(PER_LEVEL):
            name = f"count_{count:02d}_{k}"
            image = f"images/{name}.png"
            (root / "images").mkdir(parents=True, exist_ok=True)
            im = Image.new("RGB", (64, 48), (190, 160, 120))
            d = ImageDraw.Draw(im)
            for i in range(count):
                x, y = 4 + 8 * (i % 7), 4 + 12 * (i // 7)
                d.ellipse([x, y, x + 6, y + 6], fill=(250, 250, 250))
            im.save(root / image)
            for pre, ins in VARIANTS:
                ask = "How many pieces are there in the image?"
                ask += f" Respond in a declarative format: '{LEAD}'" if ins == "declarative" else \
                    f" Respond in a missing-word format: '{BLANK}'"
                if pre == "helpful":
                    ask = "Analyze the image carefully. " + ask
                rows.append({"id": f"{name}/count_pieces/{pre}/{ins}", "image": image, "family": "chess",
                             "task": "counting", "key": "count_pieces", "levels": {"content.count": count},
                             "preprompt": pre, "instruction": ins, "prompt": ask, "answer": count,
                             "answer_type": "integer", "params": {}, "choices": None})
    (root / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rows


def write_run(root: Path, questions: list[dict], name: str, model: str, answer) -> Path:
    """`answer(question) -> the reply text`."""
    run = root / "runs" / name
    run.mkdir(parents=True, exist_ok=True)
    rows = [{"id": q["id"], "provider": "fake", "model": model, "reference": False, "prompt": q["prompt"],
             "response": answer(q), "status": "ok", "error": None, "finish_reason": "stop", "refusal": False,
             "tokens": None, "cost_usd": None, "latency_s": 0.1, "attempts": 1, "parameters": {},
             "image": {"path": q["image"]}} for q in questions]
    (run / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "run.json").write_text(json.dumps({"request": {"provider": "fake", "model": model}, "reference": False}))
    return run


def slipping(q: dict) -> str:
    """Right up to 4 pieces; above, one too many on the declarative prompts of every other image."""
    count = q["answer"]
    off = count > 4 and q["instruction"] == "declarative" and q["id"].split("/")[0].endswith(("_0", "_2"))
    return f"{LEAD} {count + 1 if off else count}"
