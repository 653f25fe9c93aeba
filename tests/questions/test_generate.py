"""Prompt sets (`byo questions --prompts`): BYO-Eval's wording reads as the paper's, and no
preprompt of either set states anything a question asks, over every shipped config's questions
(the golden renders' legends: every config under dataset_configs/, no rendering here)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from golden_data import CONFIGS, GOLDEN, golden_name

from byo.cli import main
from byo.core.errors import ConfigError
from byo.questions.generate import INSTRUCTIONS, PREPROMPTS, generate
from byo.score.vocab import domain_for

# Appendix B.2 and B.3 of BYO-Eval, word for word (debiased preprompt, declarative instruction).
PAPER_CHESS_COUNT = (
    "This is not a real chess game. The number of each piece and their position can vary arbitrarily. Just focus "
    "on answering the following question based on the visual content. How many pieces are there in the image? "
    "Respond in a declarative format: 'The number of pieces in the image is:'")
PAPER_POKER_COUNT = (
    "This is not a real poker game. The cards and their position can vary arbitrarily. Just focus on answering the "
    "following question based on the visual content. How many cards are present in the entire scene (including all "
    "hands and community cards)? Respond in a declarative format: 'The number of cards in the image is:'")
# Figure 42: the helpful preprompt.
PAPER_CHESS_HELPFUL = (
    "Analyze the image carefully, be aware that this image may differ from a classical chessboard scene. How many "
    "pieces are there in the image? Respond in a declarative format: 'The number of pieces in the image is:'")
NUMBERS = ("integer", "row", "column", "cell")
NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred "
                "dozen").split()


def golden_copy(name: str, work: Path) -> Path:
    """A golden render as a dataset the question step reads (the goldens keep no file records)."""
    copy = work / name
    for sub in ("images", "masks", "legends"):
        shutil.copytree(GOLDEN / name / sub, copy / sub)
    for path in (copy / "legends").glob("*.json"):
        legend = json.loads(path.read_text())
        legend.pop("files", None)
        path.write_text(json.dumps(legend))
    return copy


def questions(dataset: Path, prompts: str, out: Path, **kw) -> list[dict]:
    path, _ = generate(dataset, prompts=prompts, out=out, **kw)
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_paper_prompt_set_reads_as_the_papers_examples(tmp_path):
    # Flagged rather than skipped where the tiny goldens do not read: the wording is under test.
    chess = questions(golden_copy("chess__count", tmp_path), "byo-eval", tmp_path / "c.jsonl",
                      preprompts=PREPROMPTS, instructions=INSTRUCTIONS, keys=["count_pieces"], unreadable="flag")
    poker = questions(golden_copy("poker__count", tmp_path), "byo-eval", tmp_path / "p.jsonl",
                      preprompts=PREPROMPTS, instructions=INSTRUCTIONS, keys=["count_total_cards"],
                      unreadable="flag")

    def prompt(rows, pp, ins):
        return {r["prompt"] for r in rows if r["preprompt"] == pp and r["instruction"] == ins}

    assert prompt(chess, "debiased", "declarative") == {PAPER_CHESS_COUNT}
    assert prompt(poker, "debiased", "declarative") == {PAPER_POKER_COUNT}
    assert prompt(chess, "helpful", "declarative") == {PAPER_CHESS_HELPFUL}
    # D.2.2: chain of thought before the question, its answer format included.
    (cot,) = prompt(chess, "cot", "direct")
    assert cot == ("First, think carefully, step by step, about the question being asked and the relevant elements "
                   "of the image to which the question refers. End your message with {answer : <answer>} How many "
                   "pieces are there in the image?")
    # The project's own set stays the default and differs.
    own = questions(tmp_path / "chess__count", "byo", tmp_path / "o.jsonl", preprompts=["debiased"],
                    instructions=["declarative"], keys=["count_pieces"])
    assert {r["prompt"] for r in own} != {PAPER_CHESS_COUNT}
    assert all(r["prompt"].endswith("The number of pieces on the chessboard is:") for r in own)


def test_the_paper_set_asks_its_grid_and_its_codes_missing_word_form(tmp_path):
    """Section 4.2 and Figure 6: Helpful, CoT and Neutral x Declarative and Missing Word, the missing
    word as the paper's code sends it ("? Complete this blank: ..."); the project's set still asks
    the neutral question alone."""
    dataset = golden_copy("chess__count", tmp_path)
    rows = questions(dataset, "byo-eval", tmp_path / "grid.jsonl", keys=["count_pieces"], unreadable="flag")
    assert {(r["preprompt"], r["instruction"]) for r in rows} == {
        (p, i) for p in ("neutral", "helpful", "cot") for i in ("declarative", "fill_blank")}
    assert {r["prompt"] for r in rows if r["preprompt"] == "neutral" and r["instruction"] == "fill_blank"} == {
        "How many pieces are there in the image? Complete this blank: There are ____ pieces in the image."}
    own = questions(dataset, "byo", tmp_path / "own.jsonl", keys=["count_pieces"], unreadable="flag")
    assert {(r["preprompt"], r["instruction"]) for r in own} == {("neutral", "direct")}
    assert main(["questions", str(dataset), "--prompts", "byo-eval", "--keys", "count_pieces", "--preprompts",
                 "debiased"]) == 0  # a named list replaces the grid's, the other keeps the grid's
    rows = [json.loads(line) for line in (dataset / "questions.jsonl").read_text().splitlines()]
    assert {(r["preprompt"], r["instruction"]) for r in rows} == {("debiased", "declarative"),
                                                                  ("debiased", "fill_blank")}


def test_the_command_line_takes_a_prompt_set_and_names_an_unworded_family(tmp_path, capsys):
    dataset = golden_copy("chess__count", tmp_path)
    assert main(["questions", str(dataset), "--prompts", "byo-eval", "--preprompts", "debiased",
                 "--instructions", "declarative", "--keys", "count_pieces"]) == 0
    rows = [json.loads(line) for line in (dataset / "questions.jsonl").read_text().splitlines()]
    assert {r["prompt"] for r in rows} == {PAPER_CHESS_COUNT}
    clevr = golden_copy("clevr__count", tmp_path)
    with pytest.raises(ConfigError) as err:
        generate(clevr, prompts="byo-eval")
    assert "no wording for family 'clevr'" in str(err.value) and "chess, poker" in str(err.value)


def _numerals(text: str) -> list[str]:
    words = re.findall(r"[a-z]+", text.lower())
    return re.findall(r"(?<![\w])\d+(?![\w])", text) + [w for w in words if w in NUMBER_WORDS]  # "3D" is no number


def _mentions(text: str, label: str) -> bool:
    return re.search(rf"(?<![a-z]){re.escape(label.lower())}s?(?![a-z])", text.lower()) is not None


def _preprompt(row: dict) -> str:
    """The text a question's prompt holds besides its question: what the preprompt said."""
    return row["_preprompt"]


@pytest.fixture(scope="module")
def every_shipped_question(tmp_path_factory):
    """Every question of every shipped config's golden images, in both prompt sets where the set
    words the family, every preprompt and instruction; each row with its preprompt's text."""
    work = tmp_path_factory.mktemp("leaks")
    out = []
    for config in CONFIGS:
        name = golden_name(config)
        dataset = golden_copy(name, work)
        for prompts in ("byo", "byo-eval"):
            try:
                rows = questions(dataset, prompts, work / f"{name}.{prompts}.jsonl", preprompts=PREPROMPTS,
                                 instructions=INSTRUCTIONS)
            except ConfigError as err:
                assert prompts == "byo-eval" and "no wording for family" in str(err)
                continue
            neutral = {(r["image"], r["key"], r["instruction"]): r["prompt"] for r in rows if r["preprompt"] == "neutral"}
            for r in rows:
                question = neutral[(r["image"], r["key"], r["instruction"])]
                assert question in r["prompt"], r["id"]
                r["_preprompt"] = r["prompt"].replace(question, " ", 1)
                r["_set"], r["_config"] = prompts, name
                out.append(r)
    return out


def test_no_preprompt_states_anything_a_question_asks(every_shipped_question):
    rows = every_shipped_question
    assert {r["_set"] for r in rows} == {"byo", "byo-eval"}
    # nearly every shipped config asks something of its 64x48 golden (the counterfactual check may skip
    # every question of one whose objects are a few pixels wide)
    assert len({r["_config"] for r in rows}) >= len(CONFIGS) - 2
    truths: dict[str, list] = {}
    for r in rows:
        truths.setdefault(r["key"], []).append(r["answer"])
    # Each key's possible labels: the vocabulary the scorer parses it with.
    labels_of_key = {k: set(domain_for(v).labels) | {str(x).lower() for a in v for x in (a if isinstance(a, list) else [a])}
                     for k, v in truths.items()}
    texts: dict[tuple, set[str]] = {}
    for r in rows:
        said = _preprompt(r)
        # Before a question answered by a number, no number at all: not a count, not a grid size
        # (the board's squares, or the 8 x 8 prior on a 4 x 4 board), not a row.
        if r["answer_type"] in NUMBERS:
            assert not _numerals(said), (r["_set"], r["id"], said)
        # A label the answer is, only where the preprompt names other labels of the key as well
        # (a list of the possible values says nothing about this image).
        answers = r["answer"] if isinstance(r["answer"], list) else [r["answer"]]
        for a in (a for a in answers if isinstance(a, str) and len(a) > 1):
            if _mentions(said, a):
                others = [b for b in labels_of_key[r["key"]] - {a.lower()} if _mentions(said, b)]
                assert others, (r["_set"], r["id"], a, said)
        texts.setdefault((r["_set"], r["_config"], r["key"], r["preprompt"]), set()).add(said)
    # The same words for every image of a dataset: nothing in a preprompt comes from the image.
    varying = {k: v for k, v in texts.items() if len(v) > 1}
    assert not varying, varying


def test_a_template_folder_of_the_older_form_still_reads(tmp_path):
    """`instructions: [direct, declarative, fill_blank]` (a list of names) asks each style's own form."""
    folder = tmp_path / "templates"
    folder.mkdir()
    catalog = Path(__file__).resolve().parents[2] / "questions"
    shutil.copy(catalog / "chess.yaml", folder / "chess.yaml")
    common = (catalog / "common.yaml").read_text()
    common = common[:common.index("instructions:")] + "instructions: [direct, declarative, fill_blank]\n"
    (folder / "common.yaml").write_text(common)
    dataset = golden_copy("chess__count", tmp_path)
    kw = {"preprompts": ["debiased"], "instructions": ["declarative", "fill_blank"], "keys": ["count_pieces"]}
    older = questions(dataset, "byo", tmp_path / "old.jsonl", templates=folder, **kw)
    now = questions(dataset, "byo", tmp_path / "now.jsonl", **kw)
    assert [r["prompt"] for r in older] == [r["prompt"] for r in now]
