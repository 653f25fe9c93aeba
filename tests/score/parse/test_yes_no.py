"""Yes/no answers (byo/score/parse/yes_no.py, the leading rule of decide.py): a yes or no set
apart at the start of the answer is its answer, whatever words follow. Real answers are quoted
from ../shared/real-answers (file and id named)."""

from __future__ import annotations

import pytest

from byo.score.parse import ParseContext, parse_answer


@pytest.mark.parametrize("response, prompt, value", [
    # vision_ai_checkup.jsonl, "Mistral Small 3.1 24b/background.png/Background object identification"
    ("No, there is no box in the background.", "Is there a box in the background? Yes or no?", "no"),
    # vision_ai_checkup.jsonl, "Mistral Small 3.1 24b/warehouse_forklift.png/Proximity to a forklift"
    ("No.\n\nBased on the image, there is no person visible next to the forklift.  The person in the forklift is "
     "toward the rear of the forklift, while the side view does not show a person next to it.",
     "Is there a person next to the forklift? Yes or no.", "no"),
    ("Yes, there are no cracks in the wood.", "Is the wood free of cracks? Answer yes or no.", "yes"),
    ("**Yes** - no cracks are visible.", "Is the wood free of cracks? Answer yes or no.", "yes"),
])
def test_a_leading_yes_or_no_is_not_overridden_by_a_later_word(response, prompt, value):
    p = parse_answer(response, ParseContext("yes_no", prompt))
    assert (p.status, p.value) == ("ok", value)


def test_yes_and_no_together_stay_ambiguous():
    assert parse_answer("Yes and no.", ParseContext("yes_no", "Is the wood cracked?")).status == "ambiguous"


@pytest.mark.parametrize("response, prompt, value", [
    # issue 60, held-out set: statements instead of yes/no
    ("there are fewer metallic fighters than rubber objects", "Are there fewer metallic fighters than rubber "
     "objects?", "yes"),
    ("The function is not convex", "Is the function convex?", "no"),
    ("The conveyor belt isn't empty: two boxes sit on it.", "Is the conveyor belt empty? Return either yes or no.",
     "no"),
])
def test_a_statement_that_restates_the_question_is_its_yes_or_no(response, prompt, value):
    p = parse_answer(response, ParseContext("yes_no", prompt))
    assert (p.status, p.value, p.method) == ("ok", value, "statement")


@pytest.mark.parametrize("response, prompt", [
    ("It is unclear whether the function is convex.", "Is the function convex?"),  # hedges
    ("The cube is blue.", "Is the cube red?"),  # says something else: for a judge
])
def test_a_statement_that_does_not_restate_the_question_stays_unparsed(response, prompt):
    assert parse_answer(response, ParseContext("yes_no", prompt)).status == "unparsed"
