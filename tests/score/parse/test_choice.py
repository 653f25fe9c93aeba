"""Multiple-choice answers (byo/score/parse/choice.py): an option named by its letter or by its
text (normalised: case, spacing and punctuation), two options named, a letter contradicting its
own text, letters the question does not offer.

Real answers are quoted from ../shared/real-answers (file and id named); the rest are issue
60's examples and COMPASS-style captions."""

from __future__ import annotations

from byo.score.parse import ParseContext, parse_answer

CAPTIONS = ["There is a red cube. There is a sphere.", "There is a blue cube. There is a sphere.",
            "There is a red cube. There is a cone."]
COMPASS = ParseContext("multiple_choice", "Which caption describes the image? (A) There is a red cube. There is a "
                       "sphere. (B) There is a blue cube. There is a sphere. (C) There is a red cube. There is a cone. "
                       "Answer with the letter.", choices=CAPTIONS)
YES_NO = ParseContext("multiple_choice", "Is there a cube? (A) Yes (B) No", choices=["Yes", "No"])
# blink_counting.jsonl: the options block its prompts hold
BLINK = ParseContext("multiple_choice", "Select from the following choices.\n(A) 4\n(B) 3\n(C) 5\n(D) 6",
                     choices=["4", "3", "5", "6"])


def read(response: str, ctx: ParseContext) -> tuple:
    p = parse_answer(response, ctx)
    return p.status, p.value


def test_an_option_named_by_its_text_whose_sentences_the_prompt_holds():
    """A multi-sentence caption is the option, not an echo of the prompt (it was unparsed)."""
    assert read("There is a red cube. There is a sphere.", COMPASS) == ("ok", "A")
    assert read("there is a BLUE cube, there is a sphere", COMPASS) == ("ok", "B")  # normalised
    assert read("The caption is: There is a red cube. There is a cone.", COMPASS) == ("ok", "C")
    assert read("(C) There is a red cube. There is a cone.", COMPASS) == ("ok", "C")


def test_a_reply_naming_two_options_is_ambiguous():
    assert read("There is a red cube. There is a sphere, or there is a blue cube. There is a sphere.",
                COMPASS)[0] == "ambiguous"
    assert read("Yes and no.", YES_NO)[0] == "ambiguous"


def test_a_letter_contradicting_its_own_text_is_ambiguous():
    p = parse_answer("A: No", YES_NO)  # issue 60, held-out set
    assert (p.status, p.method) == ("ambiguous", "contradiction") and "option B" in p.note
    assert parse_answer("(B) There is a red cube. There is a sphere.", COMPASS).status == "ambiguous"
    assert read("A: Yes", YES_NO) == ("ok", "A")
    # blink_counting.jsonl, "GPT4Turbo/val_Counting_61": (B) is 3, the letter and its text agree
    assert read("(B) 3", ParseContext("multiple_choice", "Select from the following choices.\n(A) 1\n(B) 3\n(C) 0\n"
                                      "(D) 2", choices=["1", "3", "0", "2"])) == ("ok", "B")


def test_letters_not_offered_are_no_answer():
    assert read("(C) Yes (D) No", YES_NO)[0] == "ambiguous"  # issue 60, held-out set: both texts, no option C, D
    assert read("(C) Yes", YES_NO) == ("ok", "A")  # the text names an option; the letter names none
    # blink_counting.jsonl, "GPT4V/val_Counting_84": (E) is no option; none of the offered ones fits
    real = ("In the image, there is only one person wearing a white hat, which is the tennis player in the "
            "foreground. Therefore, none of the provided choices (A) 4, (B) 3, (C) 5, or (D) 6 are correct. If the "
            "options were meant to include the number one, the correct choice would be (E) 1, but since that is not "
            "listed, I cannot provide a matching answer from the given choices.")
    p = parse_answer(real, BLINK)
    assert p.status == "refusal" and p.value is None


def test_none_of_the_options_is_a_refusal_not_an_ambiguity():
    # blink_counting.jsonl, "GPT4Turbo/val_Counting_84"
    real = ("In the image, there are two people wearing white hats. Therefore, none of the choices (A) 4, (B) 3, (C) "
            "5, or (D) 6 correctly describes the number of people wearing white hats in the image.")
    p = parse_answer(real, BLINK)
    assert (p.status, p.method) == ("refusal", "premise") and "none of the options" in p.note
