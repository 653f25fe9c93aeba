"""The failure classes found by running the parser on real models' answers (bench/real_answers.py):
one test per class, each with sentences of the project's own (none copied from that corpus), and
the rule that decided each parse (Parse.method, one of decide.RULES)."""

from __future__ import annotations

import pytest

from byo.score.numbers import numbers
from byo.score.parse import ParseContext, exact_labels, parse_answer
from byo.score.parse.decide import RULES
from byo.score.vocab import domain_for

CROSSINGS = ParseContext("integer", "How many times does the green path cross the river?")
JUNCTIONS = ParseContext("integer", "How many road junctions are there in the map?")
CUBES = ParseContext("integer", "How many cubes are there in the image?")
PIECES = ParseContext("integer", "How many pieces are there on the chessboard?")
SCRATCHES = ParseContext("integer", "How many scratches are on the door? Return only a number.")
PAWNS_COT = ParseContext("integer", "Think step by step. How many pawns are on the board?", "cot")


def parsed(text: str, ctx: ParseContext) -> tuple:
    p = parse_answer(text, ctx)
    return p.status, p.value


@pytest.mark.parametrize("text, value", [
    ("The green path crosses the river twice.", 2),
    ("It crosses the river once, near the old mill.", 1),
    ("The path goes over the water thrice.", 3),
    ("Once.", 1),
])
def test_multiplicatives_are_counts(text, value):
    assert parsed(text, CROSSINGS) == ("ok", value)


def test_multiplicatives_that_are_not_counts():
    assert [n.value for n in numbers("Once you follow it, the path meets the river at 4 places.")] == [4]
    assert [n.value for n in numbers("There are twice as many trees as rocks, 6 rocks in all.")] == [6]
    assert [n.value for n in numbers("Checked once again, and more than once: 3.")] == [3]


@pytest.mark.parametrize("text", [
    "The green path and the river do not cross anywhere on the map.",
    "The path never crosses the river; it stays on the eastern bank.",
    "Looking closely, the path doesn't cross the river at all.",
])
def test_a_negated_event_is_zero(text):
    assert parsed(text, CROSSINGS) == ("ok", 0)


@pytest.mark.parametrize("text, ctx", [
    ("There are no visible scratches, only 2 small stickers near the handle.", SCRATCHES),
    ("I can see 1 dent in the panel, but there are no visible scratches.", SCRATCHES),
    ("The door does not have any scratches. It has 3 hinges.", SCRATCHES),
    ("Not a single scratch is visible, though I see 2 stickers.", SCRATCHES),
])
def test_a_negated_noun_is_zero_for_that_noun(text, ctx):
    p = parse_answer(text, ctx)
    assert (p.status, p.value) == ("ok", 0) and p.method == "anchored"


@pytest.mark.parametrize("text, value", [
    ("The path and the river never meet. They are two separate blue and green strokes.", 0),
    ("Three roads are drawn on the map, and they meet at two junctions.", 2),
    ("I count 5 road junctions; the map also shows 2 rivers and 1 lake.", 5),
])
def test_the_number_of_the_asked_noun_beats_a_number_of_another(text, value):
    ctx = CROSSINGS if "river never" in text else JUNCTIONS
    assert parsed(text, ctx) == ("ok", value)


@pytest.mark.parametrize("text, value", [
    ("There are 3 cubes: one large cube at the back and two small cubes in front.", 3),
    ("The image shows 7 cubes - 4 red cubes on the left and 3 green cubes on the right.", 7),
    ("I see 12 pieces on the board. The top row has 5 pieces and the bottom row has 7 pieces.", 12),
])
def test_a_stated_total_beats_its_breakdown(text, value):
    ctx = PIECES if "pieces" in text else CUBES
    p = parse_answer(text, ctx)
    assert (p.status, p.value) == ("ok", value) and p.method == "total"


@pytest.mark.parametrize("text, value, rule", [
    ("The top row has 2 pieces and the next row has 3 pieces. Therefore, there are 5 pieces in total.", 5,
     "conclusion"),
    ("Left side: 4 pieces. Right side: 6 pieces. In total, 10 pieces.", 10, "conclusion"),
    ("First I counted 8 pieces, then 9 pieces when looking at the corners.\n\n9", 9, "final line"),
    ("Row one holds 1 piece, row two holds 2 pieces. The answer is 3.", 3, "cue"),
    ("Counting by rank:\n- rank 1: 4 pieces\n- rank 2: 5 pieces\nAdding them, the total count of pieces is:\n"
     "4 (rank 1) + 5 (rank 2) = 9 pieces.", 9, "result"),
])
def test_a_conclusion_beats_the_working(text, value, rule):
    p = parse_answer(text, PIECES)
    assert (p.status, p.value, p.method) == ("ok", value, rule)


@pytest.mark.parametrize("text, value", [
    ("Counting the cubes:\n- 1 cube at the front.\n- 2 cubes in the middle.\n- 3 cubes at the back.\n"
     "Therefore, there are 6 cubes.", 6),
    ("The cubes by colour: 2 + 3 + 1 = 6 cubes.", 6),
    ("Groups of cubes:\n1. The red ones.\n2. The blue ones.\nSo, 8 - 2 = 6 cubes in all.", 6),
])
def test_list_lines_and_sums_are_not_hedges(text, value):
    assert parsed(text, CUBES) == ("ok", value)


def test_real_hedges_stay_ambiguous():
    for text in ("There are about 6-7 cubes.", "Maybe 4 or 5 cubes.", "Between 3 and 4 cubes."):
        p = parse_answer(text, CUBES)
        assert p.status == "ambiguous" and p.method == "hedge", text


@pytest.mark.parametrize("text, ctx, value", [
    ("{4} - the board shows four pieces: two kings and two rooks.", PIECES, 4),
    ("Looking at the image I count {6} cubes in two rows of three.", CUBES, 6),
    ("rows={7} columns={3}", ParseContext("cell", "Count the rows and columns. Answer as rows={n} columns={m}."),
     [7, 3]),
])
def test_values_in_braces(text, ctx, value):
    assert parsed(text, ctx) == ("ok", value)


def test_an_example_echoed_from_the_prompt_is_not_the_answer():
    ctx = ParseContext("integer", "How many cubes are there? Put the number in curly brackets, e.g., {8}.")
    assert parsed("Put the number in curly brackets, e.g., {8}. My count is {5}.", ctx) == ("ok", 5)


@pytest.mark.parametrize("text, value", [
    ("There are four apples on the plate.", "A"),
    ("I can count three apples in the bowl.", "B"),
    ("Just one apple is visible.", "D"),
])
def test_a_choice_value_said_in_words(text, value):
    ctx = ParseContext("multiple_choice", "How many apples are there?", choices=["4", "3", "2", "1"])
    assert parsed(text, ctx) == ("ok", value)


def test_a_choice_named_by_letter_beats_numbers_in_words():
    ctx = ParseContext("multiple_choice", "How many apples are there?", choices=["4", "3", "2", "1"])
    assert parsed("The correct answer is (C) 2. One apple is red and one is green.", ctx) == ("ok", "C")
    assert parsed("I see three apples, one of them cut. So the answer to how many apples there are is (B).",
                  ctx) == ("ok", "B")


@pytest.mark.parametrize("text, value", [
    ("The crate holds washers. There are no visible hinges or hooks.", "washers"),
    ("Only hooks are in the crate, neither washers nor hinges.", "hooks"),
    ("The crate contains hinges, which are distinct from both hooks and washers.", "hinges"),
])
def test_negated_alternatives_in_label_answers(text, value):
    ctx = ParseContext("label", "Does the crate hold washers, hinges or hooks?",
                       domain=exact_labels(["washers", "hinges", "hooks"]))
    assert parsed(text, ctx) == ("ok", value)


def test_a_label_said_first_then_explained():
    ctx = ParseContext("label", "What colour is the cube?", domain=domain_for(["red", "blue", "green"]))
    p = parse_answer("The cube is green. A red or blue cube would look darker under this light.", ctx)
    assert (p.status, p.value, p.method) == ("ok", "green", "first sentence")


@pytest.mark.parametrize("text", [
    "A. 4 B. 3 C. 2 D. 1 A. 4 B. 3 C. 2 D. 1 A. 4 B. 3 C. 2 D. 1 A. 4 B. 3 C. 2 D. 1 A. 4 B. 3",
    "the cube is red the cube is blue the cube is red the cube is blue the cube is red the cube is blue "
    "the cube is red the cube is blue the cube is red the cube is blue",
    "row 2 row 3 row 2 row 3 row 2 row 3 row 2 row 3 row 2 row 3 row 2 row 3 row 2 row 3 row 2 row 3",
])
def test_degenerate_loops_are_unparsed(text):
    ctxs = {"A.": ParseContext("multiple_choice", "How many?", choices=["4", "3", "2", "1"]),
            "the": ParseContext("label", "What colour is the cube?", domain=domain_for(["red", "blue"])),
            "row": ParseContext("row", "Which row holds the king?")}
    p = parse_answer(text, ctxs[text.split()[0]])
    assert (p.status, p.method) == ("unparsed", "loop")


@pytest.mark.parametrize("text, value", [
    ('The letter inside the ring is "q."', "q"),
    ("The letter being circled in the word is h.", "h"),
    ("A red ring is drawn around the letter B.", "b"),
])
def test_one_letter_labels_are_letters_not_articles(text, value):
    ctx = ParseContext("label", "Which letter is circled?", domain=domain_for(list("abhiq")))
    assert parsed(text, ctx) == ("ok", value)


def test_declining_for_lack_of_information_is_a_refusal_and_an_idiom_is_not():
    assert parsed("I don't have enough information to tell the colour of the cube.", CUBES)[0] == "refusal"
    assert parsed("I cannot confirm whether the pieces are chess pieces.", PIECES)[0] == "refusal"
    assert parsed("You can't help but notice the 3 cubes stacked at the back.", CUBES) == ("ok", 3)


def test_chain_of_thought_ends_with_its_final_line():
    text = "The first rank holds 3 pawns.\nThe second rank holds 4 pawns.\nAdding them up: 3 + 4 = 7.\n\n7"
    p = parse_answer(text, PAWNS_COT)
    assert (p.status, p.value, p.method) == ("ok", 7, "final line")


def test_every_parse_names_a_rule():
    answers = ["5", "There are 5 cubes. Actually, after checking again, 6.", "{answer: 3}", "maybe 3 or 4 cubes",
               "I'm sorry, but I can't determine that.", "The answer is 2.", "There are 3 cubes: two red cubes and a "
               "blue cube.", "The answer is 4. Two cubes are red and 2 are blue.", "I count 2, 3, 4... so 4."]
    methods = {parse_answer(text, CUBES).method for text in answers}
    assert methods == {"only", "revision", "structured", "hedge", "refusal", "cue", "total", "cue+first",
                       "conclusion"}
    assert all(m.split("+")[0] in RULES for m in methods)
