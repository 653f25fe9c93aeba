"""Parsing and scoring rate of `byo score` on a large run: 100k predictions by default.

The dataset is made of the golden datasets' real questions (tests/golden: chess, CLEVR, crests,
poker; every preprompt and instruction, written by the question step), plus card questions from
the poker catalogue, repeated over copies of their images until there are enough. The answers
are what models write: right or wrong, digits or number words, cards as "queen of hearts", "QH",
"Q♥" or "10 of clubs", choices by letter or by text, echoed prompts, chain of thought ending in
{answer: ...}, hedges, refusals and failed requests. Run with `make bench`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml
from figures import QUICK, ROOT, Section

from byo.families.base import option_index, option_labels
from byo.questions.generate import INSTRUCTIONS, PREPROMPTS, generate, render
from byo.score.run import score_run

GOLDEN = ROOT / "tests" / "golden"
# Two scenes of each family; every answer type of the question catalogue but cards shows up.
GOLDEN_SETS = ("chess__count", "chess__localization_4x4", "clevr__relational", "clevr__single_object",
               "crest__composite", "crest__modifiers", "poker__count", "poker__localization_3x3")
RANKS = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "10": "ten", "9": "nine", "8": "eight",
         "7": "seven", "6": "six", "5": "five", "4": "four", "3": "three", "2": "two"}
SUITS = {"S": ("spades", "♠"), "H": ("hearts", "♥"), "D": ("diamonds", "♦"), "C": ("clubs", "♣")}
CARDS = [rank + suit for rank in RANKS for suit in SUITS]
WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen twenty").split()
REFUSALS = ("I'm sorry, but I can't determine that from the image.", "It's hard to say from this picture.",
            "I am unable to identify that in the image.")
NUMERIC = ("integer", "row", "column")


# --- questions ---------------------------------------------------------------------------------
def golden_questions(work: Path) -> list[dict]:
    """The question step run on copies of the golden datasets (their legends without the file
    records, which the goldens do not keep), with every preprompt and instruction."""
    out = []
    for name in GOLDEN_SETS:
        copy = work / name
        for sub in ("images", "masks", "legends"):
            shutil.copytree(GOLDEN / name / sub, copy / sub)
        for path in (copy / "legends").glob("*.json"):
            legend = json.loads(path.read_text())
            legend.pop("files", None)
            path.write_text(json.dumps(legend))
        path, _ = generate(copy, preprompts=PREPROMPTS, instructions=INSTRUCTIONS, out=work / f"{name}.jsonl")
        for line in path.read_text().splitlines():
            q = json.loads(line)
            q["image"] = str(copy / q["image"])  # absolute for now: copied into the dataset below
            out.append(q)
    return out + card_questions(out, random.Random(0))


def card_questions(questions: list[dict], rng: random.Random) -> list[dict]:
    """identify_card and identify_cards from the poker catalogue, in every prompt variant of each
    poker image's count_total_cards question (the golden scenes are too small to read a card)."""
    templates = yaml.safe_load((ROOT / "questions" / "poker.yaml").read_text())["questions"]
    count = templates["count_total_cards"]
    out = []
    for q in questions:
        if q["key"] != "count_total_cards":
            continue
        asked = render(count[q["instruction"]], {}, "count_total_cards")
        for key, answer in (("identify_card", rng.choice(CARDS)), ("identify_cards", rng.sample(CARDS, 3))):
            t = templates[key]
            out.append({**q, "id": q["id"].replace("count_total_cards", key), "key": key, "task": t["task"],
                        "answer_type": t["answer_type"], "answer": answer,
                        "prompt": q["prompt"].replace(asked, render(t[q["instruction"]], {}, key))})
    return out


def make_dataset(root: Path, n: int, work: Path) -> list[dict]:
    """At least `n` questions: the golden images copied (hard links) under new names, each with its
    questions, until there are enough; the first `n` are written to root/questions.jsonl."""
    by_image: dict[str, list[dict]] = {}
    for q in golden_questions(work):
        by_image.setdefault(q["image"], []).append(q)
    sources = list(by_image)
    (root / "images").mkdir(parents=True)
    questions: list[dict] = []
    copy = 0
    while len(questions) < n:
        source = sources[copy % len(sources)]
        name = f"bench_{copy:06d}"
        image = f"images/{name}.png"
        try:
            os.link(source, root / image)
        except OSError:
            shutil.copyfile(source, root / image)
        for q in by_image[source]:
            _, key, pre, ins = q["id"].rsplit("/", 3)
            questions.append({**q, "id": f"{name}/{key}/{pre}/{ins}", "image": image})
        copy += 1
    questions = questions[:n]
    (root / "questions.jsonl").write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions))
    return questions


# --- answers -----------------------------------------------------------------------------------
def card_text(code: str, rng: random.Random) -> str:
    rank, suit = code[:-1], code[-1]
    name, symbol = SUITS[suit]
    return rng.choice([f"{RANKS[rank]} of {name}", f"{RANKS[rank].capitalize()} of {name.capitalize()}",
                       f"{rank if rank.isdigit() else RANKS[rank]} of {name}", code, f"{rank}{symbol}"])


def reasoning(rng: random.Random) -> str:
    """Chain of thought that differs from answer to answer, as a model's does."""
    return (f"Looking at the {rng.choice(['left', 'right', 'back', 'front', 'middle'])} of the image first, I see "
            f"{rng.randint(1, 9)} {rng.choice(['objects', 'shapes', 'items', 'things'])} at about "
            f"{rng.randint(10, 95)}% of its width. Then I go over the rest of the scene "
            f"{rng.choice(['carefully', 'again', 'once more', 'closely'])}.")


def value_text(q: dict, value, rng: random.Random) -> str:
    kind = q["answer_type"]
    if kind in NUMERIC:
        return WORDS[value] if value < len(WORDS) and rng.random() < 0.3 else str(value)
    if kind == "card":
        return card_text(value, rng)
    if kind == "card_set":
        return ", ".join(card_text(c, rng) for c in value)
    if kind == "label_set":
        return ", ".join(value[:-1]) + (" and " if len(value) > 1 else "") + value[-1]
    if kind == "multiple_choice":
        choice = q["choices"][option_index(value)]
        return rng.choice([value, f"({value})", f"({value}) {choice}", choice])
    if kind == "yes_no":
        return rng.choice([value.capitalize(), f"{value.capitalize()}, there is."])
    return str(value)


def wrong_value(q: dict, rng: random.Random, answers: dict[str, list]):
    kind, truth = q["answer_type"], q["answer"]
    if kind in NUMERIC:
        return max(0, truth + rng.choice([-2, -1, 1, 1, 2]))
    if kind == "multiple_choice":
        return rng.choice([label for label in option_labels(len(q["choices"])) if label != truth])
    if kind == "yes_no":
        return "no" if truth == "yes" else "yes"
    if kind == "card":
        return rng.choice([c for c in CARDS if c != truth])
    if kind in ("card_set", "label_set"):
        return [*truth[:-1], rng.choice(CARDS)] if kind == "card_set" else truth[:-1] or truth
    others = [a for a in answers[q["key"]] if a != truth]
    return rng.choice(others) if others else truth


def respond(q: dict, rng: random.Random, answers: dict[str, list]) -> tuple[str | None, str]:
    """(response, request status): right 70% of the time, in the style the prompt invites."""
    draw = rng.random()
    if draw < 0.01:
        return None, "timeout"
    if draw < 0.04:
        return rng.choice(REFUSALS), "ok"
    value = q["answer"] if rng.random() < 0.7 else wrong_value(q, rng, answers)
    said = value_text(q, value, rng)
    if "cot" in q["preprompt"]:
        thought = reasoning(rng)
        return rng.choice([f"{thought} So the answer is {said}. {{answer: {said}}}",
                           f"{thought}\n\n**Answer:** {said}", f"{thought} {{answer: {said}}}"]), "ok"
    if q["instruction"] == "fill_blank" and "____" in q["prompt"]:
        sentence = q["prompt"][q["prompt"].rfind(". ", 0, q["prompt"].index("____")) + 1:].strip()
        return sentence.replace("____", said), "ok"
    if q["instruction"] == "declarative":
        return f"{q['prompt'].rsplit('. ', 1)[-1]} {said}", "ok"
    if q["answer_type"] in NUMERIC and rng.random() < 0.05:
        return f"{said} or {value_text(q, wrong_value(q, rng, answers), rng)}", "ok"  # a hedge
    return rng.choice([said, f"{said}.", f"**{said}**", f"The answer is {said}."]), "ok"


def write_run(root: Path, questions: list[dict], seed: int = 1) -> Path:
    """A finished run of a fake model: predictions.jsonl with rows shaped like byo eval's, run.json."""
    rng = random.Random(seed)
    answers: dict[str, list] = {}
    for q in questions:
        answers.setdefault(q["key"], []).append(q["answer"])
    run = root / "runs" / "bench-vlm"
    run.mkdir(parents=True)
    with (run / "predictions.jsonl").open("w") as out:
        for q in questions:
            text, status = respond(q, rng, answers)
            tokens = {"input": 120, "output": len((text or "").split()) + 1}
            tokens["total"] = tokens["input"] + tokens["output"]
            row = {"id": q["id"], "provider": "openai-compatible", "model": "bench-vlm", "reference": False,
                   "prompt": q["prompt"], "response": text, "status": status,
                   "error": None if status == "ok" else "no response within 60 s",
                   "finish_reason": "stop" if text else None, "refusal": False if text else None,
                   "tokens": tokens if text else None, "cost_usd": None, "latency_s": round(rng.uniform(0.3, 2), 4),
                   "attempts": 1, "parameters": {"temperature": 0.0, "max_tokens": None, "seed": None, "detail": None},
                   "image": {"path": q["image"], "format": "png", "downscaled": False}}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    (run / "run.json").write_text(json.dumps({"questions": str(root / "questions.jsonl"), "finished": True,
                                              "n_questions": len(questions), "reference": False}))
    return run


# Reading a run and parsing its answers alone, as byo score does it, in a fresh process.
PARSE_ONLY = """
import sys, time
from byo.score.rows import load_run
from byo.score.run import cycle_collector_paused
started = time.perf_counter()
with cycle_collector_paused():
    load_run(sys.argv[1])
print(time.perf_counter() - started)
"""


def timed(work, children: bool = False) -> dict:
    """Wall and CPU seconds of `work()` (CPU of the child processes it waits for, if `children`)."""
    who = resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF

    def cpu() -> float:
        usage = resource.getrusage(who)
        return usage.ru_utime + usage.ru_stime

    wall, used = time.perf_counter(), cpu()
    result = work()
    return {"result": result, "wall_s": time.perf_counter() - wall, "cpu_s": cpu() - used}


# Long answers: what a runaway model writes, at growing lengths. Parsing must stay linear: the
# seconds per MB must not grow with the length.
LONG_SHAPES = {
    "chain of thought": lambda n: ("Counting again, I see 3 cubes and 2 spheres, so 5. " * (n // 52 + 1))[:n]
    + " The answer is 5.",
    "unclosed braces": lambda n: "{" * n,
    "unclosed JSON": lambda n: '{"answer": ' * (n // 11),
    "repeated cues": lambda n: "The answer is " * (n // 14),
    "nested boxed": lambda n: "\\boxed{" * (n // 7),
    "numbers": lambda n: " ".join(str(i % 97) for i in range(n // 3)),
}
LONG_SIZES = (50_000, 200_000) if QUICK else (100_000, 200_000, 1_000_000)


def long_answers(section: Section) -> None:
    from byo.eval.layout import MAX_ANSWER_CHARS, cap_answer
    from byo.score.parse import ParseContext, parse_answer

    ctx = ParseContext("integer", "How many objects are there in the image? Answer with a number.", "cot")
    rows, worst = [], 0.0
    for name, make in LONG_SHAPES.items():
        per_mb = []
        for n in LONG_SIZES:
            text = make(n)
            started = time.perf_counter()
            parse_answer(text, ctx)
            seconds = time.perf_counter() - started
            per_mb.append(seconds / (len(text) / 1e6))
            rows.append([name, len(text), round(seconds, 4), round(per_mb[-1], 3)])
        worst = max(worst, per_mb[-1] / per_mb[0])
    section.table("long answers", [("answer", ""), ("characters", ""), ("parse", "s"), ("per MB", "s")], rows)
    section.figure("long_growth", round(worst, 2), "x", f"seconds per MB at {LONG_SIZES[-1]:,} characters over "
                   f"{LONG_SIZES[0]:,}, the worst answer shape (1: linear)", at_most=3)
    huge = LONG_SHAPES["chain of thought"](10_000_000)
    started = time.perf_counter()
    stored, cut = cap_answer(huge, MAX_ANSWER_CHARS)
    parsed = parse_answer(stored, ctx)
    section.figure("ten_mb_answer_s", round(time.perf_counter() - started, 3), "s",
                   f"a 10 MB answer cut to the default --max-answer-chars {MAX_ANSWER_CHARS:,} (its head and tail "
                   f"kept) and parsed: {parsed.status} {parsed.value}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--predictions", type=int, default=2_000 if QUICK else 100_000)
    parser.add_argument("--bootstrap", type=int, default=1000, help="byo score's --bootstrap (its default)")
    parser.add_argument("--json", type=Path, help="write the section here (bench/results/score.json)")
    args = parser.parse_args()
    n = args.predictions
    section = Section("score", f"byo score: parsing and scoring {n:,} predictions",
                      "A run of a fake model over real questions of the golden datasets (chess, CLEVR, crests, "
                      "poker; every preprompt and instruction) repeated over copies of their images, with answers "
                      "in the styles models write. Timed once the files are written: `byo score` as a command, "
                      "then in one process all that it does (reading the run, parsing every answer, metric tables "
                      f"with {args.bootstrap} bootstrap resamples, writing parsed.jsonl, scores.json and the CSV "
                      "tables), then reading and parsing alone in a process of its own.")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "dataset"
        questions = make_dataset(root, n, Path(tmp) / "golden")
        run = write_run(root, questions)

        command = timed(lambda: subprocess.run([sys.executable, "-m", "byo.cli", "score", str(run), "--bootstrap",
                                                str(args.bootstrap)], check=True, capture_output=True), children=True)
        scored = timed(lambda: score_run(run, n_boot=args.bootstrap))  # the first in this process
        parse_s = float(subprocess.run([sys.executable, "-c", PARSE_ONLY, str(run)], check=True, text=True,
                                       capture_output=True).stdout)
        scores = scored["result"][0]
        images = len({q["image"] for q in questions})

    statuses = Counter(r["status"] for r in scores.rows)
    section.figure("predictions", n, "", "predictions scored")
    section.figure("images", images, "", "images (bootstrap clusters)")
    section.figure("command_s", round(command["wall_s"], 2), "s",
                   "`byo score RUN` as a command: Python's start and imports included")
    section.figure("command_cpu_s", round(command["cpu_s"], 2), "s", "its CPU time (user + system)")
    section.figure("score_s", round(scored["wall_s"], 2), "s", "parsing and scoring in one process (score_run)",
                   at_most=None if n < 100_000 else 10)
    section.figure("score_cpu_s", round(scored["cpu_s"], 2), "s", "its CPU time")
    section.figure("score_rate", round(n / scored["wall_s"]), "predictions/s", "parsing and scoring rate")
    section.figure("parse_s", round(parse_s, 2), "s", "of which reading the run and parsing every answer "
                   "(load_run, timed in a process of its own)")
    section.figure("parse_rate", round(n / parse_s), "predictions/s", "reading and parsing rate")
    section.figure("accuracy", round(scores.overall["accuracy"], 3), "", "accuracy of the fake model")
    kinds = Counter(q["answer_type"] for q in questions)
    section.table("answer types", [("answer type", ""), ("predictions", "")], sorted(kinds.items()))
    section.table("parse statuses", [("status", ""), ("predictions", "")], sorted(statuses.items()))
    long_answers(section)
    section.write(args.json)


if __name__ == "__main__":
    main()
