"""Small datasets whose questions carry candidate captions (`retrieval`), for the ranking path of
byo eval and the retrieval metrics of byo score."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

COLORS = {"red": (200, 30, 30), "blue": (30, 30, 200), "green": (30, 180, 30), "yellow": (220, 210, 40)}
SHAPES = ("cube", "sphere", "cylinder", "cone")


def make_retrieval_dataset(root: Path, n: int = 12, *, variants: tuple[str, ...] = ("neutral",),
                           size: tuple[int, int] = (40, 30)) -> Path:
    """`n` images; per image one question of key `pick_caption` whose candidate set is the true
    caption and 2 to 4 others (the size varies with the image), asked in each prompt variant."""
    (root / "images").mkdir(parents=True, exist_ok=True)
    lines = []
    colors = list(COLORS)
    for i in range(n):
        color, shape = colors[i % 4], SHAPES[i // 4 % 4]
        image = f"images/ret_{i:06d}.png"
        Image.new("RGB", size, tuple((c + 7 * i) % 256 for c in COLORS[color])).save(root / image)
        others = [f"a {c} {s}" for c in colors for s in SHAPES if (c, s) != (color, shape)]
        k = 2 + i % 3
        negatives = [others[(i * 5 + 3 * j) % len(others)] for j in range(k)]
        captions = list(dict.fromkeys([f"a {color} {shape}", *negatives]))
        truth = i % len(captions)
        captions[0], captions[truth] = captions[truth], captions[0]
        letters = "ABCDEFGH"
        options = " ".join(f"({letters[j]}) {c}" for j, c in enumerate(captions))
        for variant in variants:
            lines.append(json.dumps({
                "id": f"ret_{i:06d}/pick_caption/{variant}/direct", "image": image, "family": "clevr",
                "task": "identification", "key": "pick_caption", "levels": {"content.count": 1 + i % 2},
                "preprompt": variant, "instruction": "direct",
                "prompt": f"Which caption describes the image? {options} Answer with the letter.",
                "answer": letters[truth], "answer_type": "multiple_choice", "choices": captions,
                "chance": 1 / len(captions),
                "retrieval": {"captions": captions, "truth": truth,
                              "tags": ["truth" if j == truth else "swap:colour" for j in range(len(captions))]},
            }))
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n")
    return root
