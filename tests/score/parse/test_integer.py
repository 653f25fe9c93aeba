"""Integer answers (byo/score/parse/integer.py, byo/score/numbers.py, the rules of decide.py that
read counts): signs, numbers echoed from the question, a calculation's result over its working,
a stated total over its breakdown, list numbering, ranges.

Real answers are quoted from ../shared/real-answers (file and id named; MIT and Apache-2.0
sources, see its README); where that corpus has no answer of a class, the answer is the one
issue 60 quotes from its held-out set."""

from __future__ import annotations

import pytest

from byo.score.numbers import numbers
from byo.score.parse import ParseContext, parse_answer
from byo.score.rows import is_correct


def read(response: str, prompt: str, preprompt: str = "neutral") -> tuple:
    p = parse_answer(response, ParseContext("integer", prompt, preprompt))
    return p.status, p.value, p.method


# --- signs ------------------------------------------------------------------------------------
@pytest.mark.parametrize("response, value", [
    ("-2", -2),  # issue 60, held-out set: scored right for a truth of 2
    ("The number of cards in the image is: -3", -3),  # issue 60, held-out set
    ("x = -2", -2),
])
def test_a_minus_sign_makes_a_count_negative_and_wrong(response, value):
    status, got, _ = read(response, "How many cards are in the image?")
    assert (status, got) == ("ok", value)
    assert not is_correct("integer", got, abs(value))


def test_a_dash_that_is_no_sign():
    assert [n.value for n in numbers("3-4 cards, or 10 - 2")] == [3, 4, 10, 2]  # a range, a difference
    assert read("- 2 cards\n- 3 cards", "How many cards are in the image?")[:2] == ("ok", 3)  # a list's dashes


# --- echoes -----------------------------------------------------------------------------------
def test_numbers_echoed_from_the_question_are_not_answers():
    # issue 60, held-out set: read as ambiguous [2, 1] ("one store" echoes the question)
    prompt = "How many items sold less than 5 units in at least one store?"
    assert read("There are 2 items sold less than 5 units in at least one store", prompt)[:2] == ("ok", 2)
    # percentages and number words beside the question's own words
    prompt = "How many bars are above 50% of the maximum?"
    assert read("Three bars are above 50% of the maximum.", prompt)[:2] == ("ok", 3)
    assert read("Two bars are above fifty % of the maximum.", prompt)[:2] == ("ok", 2)


def test_an_echo_that_is_the_only_number_is_the_answer():
    assert read("5 units", "How many items sold less than 5 units?")[:2] == ("ok", 5)


# --- the final statement over earlier working ---------------------------------------------------
def test_a_calculations_result_that_ends_the_answer():
    # issue 60, held-out set: "9 - 5 = **4**" read as 9
    prompt = "There are 9 apples and 5 are eaten. How many apples are left?"
    assert read("Start with 9 apples.\nSubtract 5.\n9 - 5 = **4**", prompt) == ("ok", 4, "result")
    assert read("There are 9 apples. 5 are eaten. 9 - 5 = **4**", prompt)[:2] == ("ok", 4)  # 9, 5: echoes
    # vision_ai_checkup.jsonl, "ChatGPT-4o/aerial_count.png/Count the shipping containers"
    real = ("There are a total of **39 shipping containers** visible in the image, arranged in three horizontal "
            "rows:\n\n- **Top row:** 13 containers  \n- **Middle row:** 13 containers  \n- **Bottom row:** 13 "
            "containers  \n  \nSo, 13 + 13 + 13 = **39 containers**.")
    assert read(real, "How many shipping containers are in the image?")[:2] == ("ok", 39)


# --- the total over its breakdown, list numbering ------------------------------------------------
def test_the_total_over_its_breakdown_when_the_question_asks_the_total():
    # blindtest_original.jsonl, "nested/gpt-4o/nested_squares_depth_4_image_4_thickness_2.png"
    real = ("The image contains 10 squares. Here is a breakdown:\n\n1. 5 individual squares.\n2. 4 squares formed "
            "by combining each adjacent pair of squares. \n3. 1 large square formed by combining all five squares."
            "\n\nSo, there are \\(5 + 4 + 1 = 10\\) squares in total.")
    assert read(real, "Count total number of squares in the image.")[:2] == ("ok", 10)
    # issue 60, held-out set: a total, then what it is made of, then what is left of it
    prompt = "How many brown things are there in total?"
    assert read("3 brown things: two cubes and one sphere.", prompt)[:2] == ("ok", 3)


@pytest.mark.parametrize("response, prompt, value", [
    # blindtest_original.jsonl, "nested/gpt-4o/nested_squares_depth_2_image_2_thickness_4.png"
    ("The image contains 3 squares:\n1. An outer large square.\n2. A middle square inside the outer square.\n3. An "
     "inner square inside the middle square.", "Count total number of squares in the image.", 3),
    # blindtest_original.jsonl, "lines/gpt-4o/image_45_thickness_3.png"
    ("The image shows two red lines and two blue lines.\n\nThere is a total of three intersections:\n\n1. The upper "
     "red line intersects the lower blue line.\n2. The lower red line intersects the lower blue line.\n3. The lower "
     "red line intersects the upper blue line.\n\nTherefore, there are three line intersections in the image.",
     "How many line intersections are there in the image?", 3),
])
def test_list_numbering_is_no_count(response, prompt, value):
    assert read(response, prompt)[:2] == ("ok", value)


# --- ranges -----------------------------------------------------------------------------------
def test_a_range_is_a_hedge():
    # vision_ai_checkup.jsonl, "Gemma 3 27b/pallet_stack.png/Pallet stacking"
    real = ("Based on the image, it appears there are approximately **10-12 pallets** stacked in the pile on the "
            "right. It's difficult to be precise due to the way they are stacked and partially obscured, but that "
            "seems to be a reasonable estimate.")
    status, value, method = read(real, "How many pallet are stacked?")
    assert (status, value, method) == ("ambiguous", None, "hedge")
