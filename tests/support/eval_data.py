"""Small datasets in the question-file format of the question step, for evaluation tests, and
how the tests evaluate them against the fake VLM server (tests/support/fake_vlm.py)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from PIL import Image

from byo.eval.run import EvalSettings, evaluate

# Keys the providers' clients are given in tests (the fake server takes any).
FAKE_KEYS = {"OPENAI_API_KEY": "sk-test-openai", "GROQ_API_KEY": "gsk-test-groq"}


def evaluate_fake(dataset, provider, url, **kwargs):
    """`byo eval` of `dataset` with `provider` at `url` (the fake server's), quietly."""
    kwargs.setdefault("model", "fake-vlm")
    kwargs.setdefault("timeout", 5)
    return evaluate(EvalSettings(dataset=dataset, provider=provider, base_url=url, **kwargs), show_progress=False)

STYLES = ("right", "wrong", "words", "cot", "refuse")
WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def make_dataset(root: Path, n: int = 12, size: tuple[int, int] = (32, 24), name: str = "demo") -> Path:
    """`n` distinct PNGs and one counting question per image; the answer is 2 + i % 5."""
    (root / "images").mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(n):
        image = f"images/{name}_{i:06d}.png"
        # Distinct for every i: the first 256 colours vary red and green, later ones blue too.
        Image.new("RGB", size, (i * 37 % 256, i * 11 % 256, 200 - i // 256 % 200)).save(root / image)
        count = 2 + i % 5
        instruction = "Answer with a single number."
        question = "How many objects are on the table?"
        lines.append(json.dumps({
            "id": f"{name}_{i:06d}-count", "image": image, "family": "clevr", "task": "count",
            "key": "count.total" if i % 3 else "count.cubes", "levels": {"content.count": count},
            "preprompt": "Look at the image.", "instruction": instruction,
            "prompt": f"Look at the image. {question} {instruction}", "answer": count, "answer_type": "integer",
        }))
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n")
    return root


def truth_by_image(root: Path) -> dict[str, int]:
    """sha256 of each image -> its ground-truth answer."""
    out = {}
    for line in (root / "questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        out[hashlib.sha256((root / q["image"]).read_bytes()).hexdigest()] = q["answer"]
    return out


def styled_answer(truth: int, style: str) -> str:
    """How a model might reply: right, wrong, in words, with chain-of-thought, or refusing."""
    return {
        "right": str(truth),
        "wrong": str(truth + 1),
        "words": f"There are {WORDS.get(truth, truth)} objects.",
        "cot": f"I see a cube, then more shapes. Counting them one by one gives {truth}. Answer: {truth}",
        "refuse": "I'm sorry, but I can't help with identifying that.",
    }[style]


def answerer(root: Path, style: str | None = None):
    """An `answer(seen)` for FakeVLM: each image's truth in a style (cycled by image when None)."""
    truths = truth_by_image(root)
    order = sorted(truths)

    def answer(seen) -> str:
        truth = truths[seen.image_sha256]
        return styled_answer(truth, style or STYLES[order.index(seen.image_sha256) % len(STYLES)])

    return answer
