"""The decision (byo/score/parse/decide.py, byo/score/text.py): only the answer's first turn is
read; an answer without a value that says the question does not apply is a refusal. Real answers
are quoted from ../shared/real-answers (file and id named); the new-turn answer is issue 60's."""

from __future__ import annotations

import pytest

from byo.score.parse import ParseContext, parse_answer
from byo.score.parse.decide import RULES
from byo.score.vocab import domain_for


def test_only_the_first_turn_is_read():
    ctx = ParseContext("integer", "How many cubes are there?")
    # issue 60, held-out set: the model wrote a question of its own and answered it
    for reply in ("The answer is 0.\n\nQuestion: How many spheres are there?\nThe answer is 1.",
                  "The answer is 0. Question: How many spheres? The answer is 1."):
        p = parse_answer(reply, ctx)
        assert (p.status, p.value) == ("ok", 0)
    # a reply that opens by restating the question is one turn
    p = parse_answer("Question: How many cubes are there?\nAnswer: 3", ctx)
    assert (p.status, p.value) == ("ok", 3)


@pytest.mark.parametrize("response, ctx", [
    # blindtest_circled_letters.jsonl, "circled/Sonnet/768"
    ("There is no letter being circled in this image. The image consists of a white background with a string of "
     "uppercase letters and numbers in red color: \"0HyUiKaRbNqWeOpXcZvM\".",
     ParseContext("label", "Which letter is being circled?")),
    # vision_ai_checkup.jsonl, "Mistral Small 3.1 24b/belt_empty.png/Conveyor belt empty"
    ("I don't see a conveyor belt in the image.", ParseContext("yes_no", "Is the conveyor belt empty? Return either "
                                                                "yes or no.")),
])
def test_an_answer_that_says_the_question_does_not_apply_is_a_refusal(response, ctx):
    p = parse_answer(response, ctx)
    assert (p.status, p.value, p.method) == ("refusal", None, "premise") and "premise" in RULES


def test_a_negated_thing_that_is_the_answer_is_no_refusal():
    # "there is no dent" answers "is there a dent?": no (the question names no dent as given)
    p = parse_answer("There is no dent.", ParseContext("yes_no", "Is there a dent in the door?"))
    assert (p.status, p.value) == ("ok", "no")
    # a count of 0, not a refusal
    p = parse_answer("There are no cubes.", ParseContext("integer", "How many cubes are there?"))
    assert (p.status, p.value) == ("ok", 0)


def test_a_letter_names_the_answers_own_option_where_the_question_offers_none():
    """issue 60, held-out set: "(C) Yes (D) No" written for a yes/no question offering no
    options: the letters are no option of the question; the list alone names both answers, and a
    marked letter picks the answer's own option."""
    ctx = ParseContext("yes_no", "Is there a cube?")
    assert parse_answer("(C) Yes (D) No", ctx).status == "ambiguous"
    p = parse_answer("(C) Yes (D) No\n\nAnswer: D", ctx)
    assert (p.status, p.value) == ("ok", "no")
    assert parse_answer("Answer: (A)", ctx).status == "unparsed"  # no list of its own: nothing to name


def test_an_ambiguous_answer_naming_an_absent_thing_stays_ambiguous_for_the_judge():
    """Only an answer without any value is a refusal for naming what is absent: one with several
    values stays ambiguous (and goes to the judge), "none of the options" aside."""
    ctx = ParseContext("label", "What colour is the cube?", domain=domain_for(["red", "blue", "green"]))
    assert parse_answer("There are red and blue cubes; no cube is green.", ctx).status == "ambiguous"
