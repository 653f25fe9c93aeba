"""bench/real_answers.py on a small corpus of the project's own sentences, in the format of
../shared/real-answers: the figures it reports, worked out by hand; a missing corpus is skipped."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

BENCH = ROOT / "bench" / "real_answers.py"


def row(source: str, i: int, answer_type: str, prompt: str, response: str, gold, source_correct, **extra) -> dict:
    return {"id": f"{source}/{i}", "source": source, "model": "m1" if i % 2 else "m2", "answer_type": answer_type,
            "prompt": prompt, "preprompt": "neutral", "choices": None, "labels": None, "gold": gold,
            "response": response, "source_correct": source_correct, **extra}


CORPUS = {
    "counts": [
        row("counts", 1, "integer", "How many cubes are there?", "There are three cubes.", 3, True),
        # the source's judge took the first number (2 spheres); the answer says no cubes: reviewed as right
        row("counts", 2, "integer", "How many cubes are there?", "I see 2 spheres and no cubes.", 0, False),
        row("counts", 3, "integer", "How many cubes are there?", "", 4, False),  # empty: not read, wrong
    ],
    "mixed": [
        row("mixed", 1, "multiple_choice", "How many cones?", "The answer is (C).", "C", True,
            choices=["2", None, "4"]),
        row("mixed", 2, "label", "What colour is the cone?", "Maybe red or blue.", "red", False,
            labels=["red", "blue"]),
        row("mixed", 3, "yes_no", "Is the cone red?", "Yes, the cone is red.", "yes", None),  # no verdict kept
    ],
}
REVIEW = {"verdicts": {"counts/2": {"correct": True, "source_error": "first number", "why": "says no cubes"}}}


def run(tmp_path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH), *map(str, args)], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


def test_the_figures_per_source_and_overall(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, rows in CORPUS.items():
        (corpus / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    review = tmp_path / "review.json"
    review.write_text(json.dumps(REVIEW))
    out = tmp_path / "real_answers.json"
    done = run(tmp_path, corpus, "--json", out, "--review", review)
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    assert doc["section"] == "real_answers" and {"title", "about", "machine", "figures", "tables"} <= set(doc)
    figures = {k: v["value"] for k, v in doc["figures"].items()}
    # counts: 2 of 3 answers read as one value, both right; the empty one is left out of the parse rate
    # and is wrong for every judge; the reviewed verdict of counts/2 replaces the source's False.
    assert figures["counts_parse_rate"] == 100.0 and figures["counts_agreement"] == 100.0
    # mixed: the choice and the yes/no are one value, the hedge is a reading: 3 of 3 read; the yes/no
    # has no verdict, so agreement is over 2 (both agree: right choice, wrong hedge).
    assert figures["mixed_parse_rate"] == 100.0 and figures["mixed_agreement"] == 100.0
    per_source = next(t for t in doc["tables"] if t["name"] == "per source")
    names = [c["name"] for c in per_source["columns"]]
    rows = {r[0]: dict(zip(names, r, strict=True)) for r in per_source["rows"]}
    assert rows["counts"]["one value"] == round(100 * 2 / 3, 2) and rows["counts"]["accuracy"] == round(100 * 2 / 3, 2)
    assert rows["counts"]["source agreement"] == round(100 * 2 / 3, 2)  # counts/2 disagrees with the source
    assert rows["counts"]["empty"] == 1 and rows["mixed"]["hedge"] == 1 and rows["mixed"]["with verdict"] == 2
    assert rows["all"]["n"] == 6 and rows["all"]["verdict agreement"] == 100.0
    def table(name: str) -> dict:
        t = next(t for t in doc["tables"] if t["name"] == name)
        cols = [c["name"] for c in t["columns"]]
        return {r[0]: dict(zip(cols, r, strict=True)) for r in t["rows"]}

    rules = table("per deciding rule")  # the class of reading: the rule that read each answer
    assert rules["cue"]["n"] == 1 and rules["anchored"]["n"] == 1 and rules["hedge"]["hedge"] == 1
    assert rules["anchored"]["verdict agreement"] == 100.0  # the reviewed verdict of counts/2
    types = table("per answer type")  # the class of question
    assert types["integer"]["n"] == 3 and types["integer"]["empty"] == 1 and types["integer"]["one value"] == round(
        100 * 2 / 3, 2)
    assert types["yes_no"]["with verdict"] == 0 and types["multiple_choice"]["accuracy"] == 100.0


def test_a_missing_corpus_is_skipped_with_a_message(tmp_path):
    done = run(tmp_path, tmp_path / "nowhere", "--json", tmp_path / "out.json")
    assert done.returncode == 0 and "skipped" in done.stdout
    assert not (tmp_path / "out.json").exists()
