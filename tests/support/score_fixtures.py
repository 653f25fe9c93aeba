"""A small fake dataset with two fake model runs, written without rendering: chess-like PNGs drawn
with Pillow, hand-made questions (three prompt variants) and predictions in realistic styles."""

from __future__ import annotations

import json
import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

PIECES = ["pawn", "rook", "knight", "bishop", "queen", "king"]
BLUR = {"none": 0, "low": 1.2, "high": 3.0}
COUNTS = [1, 2, 3, 4]
VARIANTS = [("neutral", "direct"), ("cot", "direct"), ("neutral", "declarative")]
COT_BEFORE = "First, think carefully, step by step, about the question being asked and the relevant elements."
COT_AFTER = "End your message with {answer: <answer>}."
BINDING = ["a red cube, a blue sphere and a green cone", "a blue cube, a red sphere and a green cone",
           "a green cube, a blue sphere and a red cone", "a red cube, a green sphere and a blue cone"]
QUESTIONS = {
    # key: (task, answer type, direct, declarative)
    "count_pieces": ("counting", "integer", "How many pieces are there on the chessboard?",
                     "The number of pieces on the chessboard is:"),
    "localize_row_one_piece": ("localization", "row", "On which row is the first piece? Rows are numbered from 0 "
                               "at the top of the board.", "Counting rows from 0 at the top, the first piece is on row:"),
    "localize_column_one_piece": ("localization", "column", "On which column is the first piece? Columns are "
                                  "numbered from 0 at the left of the board.",
                                  "Counting columns from 0 at the left, the first piece is on column:"),
    "identify_type_one_piece": ("identification", "label", "What type of chess piece is the first piece (pawn, rook, "
                                "knight, bishop, queen or king)?", "The type of the first piece is:"),
    "identify_type_several_pieces": ("identification", "label_set", "Which types of chess pieces are on the board? "
                                     "List each type once.", "The types of chess pieces on the board are:"),
    "localize_position_word_one_piece": ("localization", "position_word", "In which part of the board is the first "
                                         "piece: upper left, upper middle, upper right, middle left, center, middle "
                                         "right, lower left, lower middle or lower right?",
                                         "The part of the board where the first piece stands is:"),
    "exist_white_king": ("identification", "yes_no", "Is there a white king? Answer yes or no.",
                         "Whether there is a white king (yes or no):"),
    "crest_program": ("crest", "crest_program", "Write the program code of the crest.",
                      "The program code of the crest is:"),
    "binding_swap": ("combined", "multiple_choice", "Which caption describes the image, from left to right? "
                     "{options} Answer with the letter.",
                     "Of {options}, the letter of the caption that describes the image from left to right is:"),
}
WORDS = "upper middle lower".split(), "left middle right".split()


def position_word(r: int, c: int, size: int = 4) -> str:
    v, h = WORDS[0][min(2, 3 * r // size)], WORDS[1][min(2, 3 * c // size)]
    return "center" if (v, h) == ("middle", "middle") else f"{v} {h}"


def draw_image(path: Path, pieces: list[tuple[str, int, int]], blur: float) -> None:
    im = Image.new("RGB", (240, 180), (196, 164, 120))
    d = ImageDraw.Draw(im)
    for i in range(4):
        for j in range(4):
            x, y = 60 + 30 * j, 30 + 30 * i
            d.rectangle([x, y, x + 29, y + 29], fill=(238, 238, 210) if (i + j) % 2 == 0 else (118, 150, 86))
    for k, (kind, r, c) in enumerate(pieces):
        x, y = 60 + 30 * c + 15, 30 + 30 * r + 15
        fill = (250, 250, 250) if k % 2 == 0 else (30, 30, 30)
        d.ellipse([x - 10, y - 10, x + 10, y + 10], fill=fill, outline=(90, 90, 90))
        d.text((x - 3, y - 6), kind[0].upper(), fill=(200, 30, 30))
    if blur:
        im = im.filter(ImageFilter.GaussianBlur(blur))
    path.parent.mkdir(parents=True, exist_ok=True)
    im.save(path)


def make_dataset(root: Path, seed: int = 3) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    index = 0
    for blur in BLUR:
        for count in COUNTS:
            name = f"fake_{index:06d}"
            cells = rng.sample([(r, c) for r in range(4) for c in range(4)], count)
            pieces = [(rng.choice(PIECES), r, c) for r, c in cells]
            image = f"images/{name}.png"
            draw_image(root / image, pieces, BLUR[blur])
            levels = {"blur.fstop": blur, "content.count": count}
            kind, r, c = pieces[0]
            order = rng.sample(range(len(BINDING)), len(BINDING))
            choices = [BINDING[k] for k in order]
            options = " ".join(f"({chr(65 + i)}) {o}" for i, o in enumerate(choices))
            answers = {"count_pieces": count, "localize_row_one_piece": r, "localize_column_one_piece": c,
                       "identify_type_one_piece": kind,
                       "identify_type_several_pieces": sorted({p[0] for p in pieces}),
                       "localize_position_word_one_piece": position_word(r, c),
                       "exist_white_king": "yes" if any(p[0] == "king" and k % 2 == 0
                                                        for k, p in enumerate(pieces)) else "no",
                       "binding_swap": chr(65 + order.index(0)),
                       "crest_program": f"C:0{1 + index % 2} X:{index % 3} M:00{10 + index % 5}"}
            for key, (task, answer_type, direct, declarative) in QUESTIONS.items():
                for pre, ins in VARIANTS:
                    question = (direct if ins == "direct" else declarative).format(options=options)
                    prompt = f"{COT_BEFORE} {question} {COT_AFTER}" if pre == "cot" else question
                    rows.append({"id": f"{name}/{key}/{pre}/{ins}", "image": image, "family": "chess", "task": task,
                                 "key": key, "levels": levels, "preprompt": pre, "instruction": ins,
                                 "prompt": prompt, "answer": answers[key], "answer_type": answer_type,
                                 "params": {"split": "train" if index < 6 else "test"} if key == "crest_program"
                                 else {}, "choices": choices if answer_type == "multiple_choice" else None})
            index += 1
    (root / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rows


def _respond(q: dict, rng: random.Random, skill: float) -> tuple[str | None, str]:
    """A realistic answer: right with probability `skill` (less under blur), in one of several styles."""
    blur_penalty = {"none": 0.0, "low": 0.1, "high": 0.3}[q["levels"]["blur.fstop"]]
    right = rng.random() < skill - blur_penalty
    truth, kind = q["answer"], q["answer_type"]
    if rng.random() < 0.03:
        return None, "timeout"
    if rng.random() < (1 - skill) * 0.15:
        return rng.choice(["I'm sorry, but I can't determine that from the image.", "It's hard to say.",
                           "The board has several pieces on it."]), "ok"
    if kind in ("integer", "row", "column"):
        value = truth if right else max(0, truth + rng.choice([-2, -1, 1, 1, 2, 3]))
        text = rng.choice([f"{value}", f"There are {value} pieces.", f"Row {value}", f"Column {value}",
                           f"The answer is {value}."]) if kind == "integer" else f"{kind.capitalize()} {value}."
        if kind == "integer":
            text = rng.choice([f"{value}", f"There are {value} pieces.", f"The answer is {value}."])
    elif kind == "label":
        value = truth if right else rng.choice([p for p in PIECES if p != truth])
        text = rng.choice([f"{value.capitalize()}.", f"It's a {value}.", f"The piece is a {value}."])
    elif kind == "label_set":
        value = truth if right else sorted(set(truth[:-1]) | {rng.choice(PIECES)})
        text = "The types are " + ", ".join(value) + "."
    elif kind == "position_word":
        words = [f"{v} {h}" for v in WORDS[0] for h in WORDS[1]]
        value = truth if right else rng.choice([w for w in words if w != truth])
        text = f"The piece is in the {value.replace('middle middle', 'center')}."
    elif kind == "yes_no":
        value = truth if right else ("no" if truth == "yes" else "yes")
        text = rng.choice([f"{value.capitalize()}.", f"{value.capitalize()}, I think."])
    elif kind == "crest_program":
        tokens = truth.split()
        value = truth if right else " ".join(tokens[:-1] + [f"M:00{rng.randint(10, 14)}"])
        text = rng.choice([value, f"Program: {value}", f"The code is {value}."])
    else:
        value = truth if right else rng.choice([c for c in "ABCD" if c != truth])
        text = rng.choice([f"{value}", f"({value})", f"The answer is {value}."])
    if q["preprompt"] == "cot":
        text = f"Let me look at the board carefully, square by square. {text} {{answer: {value}}}"
        if isinstance(value, list):
            text = f"Let me look at each piece. So the types are {', '.join(value)}."
    return text, "ok"


def make_run(root: Path, questions: list[dict], name: str, model: str, skill: float, seed: int) -> Path:
    rng = random.Random(seed)
    run = root / "runs" / name
    run.mkdir(parents=True, exist_ok=True)
    rows = []
    for q in questions:
        text, status = _respond(q, rng, skill)
        rows.append({"id": q["id"], "provider": "fake", "model": model, "reference": False, "prompt": q["prompt"],
                     "response": text if status == "ok" else None, "status": status,
                     "error": None if status == "ok" else "no response within 60 s", "finish_reason": "stop",
                     "refusal": False, "tokens": None, "cost_usd": None, "latency_s": 0.1, "attempts": 1,
                     "parameters": {}, "image": {"path": q["image"]}})
    (run / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "run.json").write_text(json.dumps({"request": {"provider": "fake", "model": model}, "reference": False}))
    return run


def make_fake_runs(root: Path) -> tuple[Path, Path]:
    questions = make_dataset(root)
    return (make_run(root, questions, "fake-sharp", "sharp-vlm", 0.9, seed=1),
            make_run(root, questions, "fake-blurry", "blurry-vlm", 0.6, seed=2))
