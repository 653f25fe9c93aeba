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
