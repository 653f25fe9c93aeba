"""Datasets of BYO-Eval's tasks with hand-set answers, written without rendering: a tiny PNG per
image, the questions as `byo questions` writes them, runs whose replies are set question by
question (count_data.write_run), and the report's tables read back as text."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from PIL import Image

PREPROMPTS = {"helpful": "Analyze the image carefully, be aware that this image may differ from a classical "
                         "chessboard scene. ", "neutral": ""}
LEADS = {"integer": "The number is:", "row": "The row is:", "column": "The column is:", "label": "The piece is:"}


def question(image: str, key: str, task: str, answer_type: str, answer, levels: dict, ask: str,
             preprompt: str = "helpful") -> dict:
    """One question of `image` in the variant PREPROMPT/declarative."""
    prompt = f"{PREPROMPTS[preprompt]}{ask} Respond in a declarative format: '{LEADS[answer_type]}'"
    return {"id": f"{Path(image).stem}/{key}/{preprompt}/declarative", "image": image, "family": "chess",
            "task": task, "key": key, "levels": levels, "preprompt": preprompt, "instruction": "declarative",
            "prompt": prompt, "answer": answer, "answer_type": answer_type, "params": {}, "choices": None}


def write_questions(root: Path, questions: list[dict]) -> list[dict]:
    (root / "images").mkdir(parents=True, exist_ok=True)
    for image in dict.fromkeys(q["image"] for q in questions):
        Image.new("RGB", (32, 24), (190, 160, 120)).save(root / image)
    (root / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return questions


class _Tables(HTMLParser):
    """Every <table> of an HTML fragment as rows of cell texts (header rows included)."""

    def __init__(self):
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append(" ".join(" ".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def section(html: str, name: str) -> str:
    return re.search(rf'<section id="{name}">(.*?)</section>', html, re.S).group(1)


def tables_in(fragment: str) -> list[list[list[str]]]:
    parser = _Tables()
    parser.feed(fragment)
    return parser.tables


def tables_after(fragment: str, heading: str) -> list[list[list[str]]]:
    """The tables between the <h3> that starts with `heading` and the next <h3>."""
    start = re.search(rf"<h3>{re.escape(heading)}\b", fragment).end()
    stop = fragment.find("<h3>", start)
    return tables_in(fragment[start: stop if stop != -1 else len(fragment)])
