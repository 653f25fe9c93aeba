"""Card names in any common notation (for poker answers): a generated corpus of 200+ per type."""

from __future__ import annotations

import itertools
import random

import pytest

from byo.score.parse import ParseContext, parse_answer
from byo.score.rows import is_correct

RANKS = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "10": "ten", "9": "nine", "7": "seven", "2": "two"}
SUITS = {"S": ("spades", "♠"), "H": ("hearts", "♥"), "D": ("diamonds", "♦"), "C": ("clubs", "♣")}


def notations(rank: str, suit: str) -> list[str]:
    word, symbol = SUITS[suit]
    numeric = {"A": "ace", "K": "king", "Q": "queen", "J": "jack"}.get(rank, rank)
    return [f"{RANKS[rank]} of {word}", f"{RANKS[rank].title()} of {word.title()}", f"{rank}{symbol}",
            f"{rank}{suit}", f"{numeric} of {word}"]


SINGLE = [
    "{c}", "The card is the {c}.", "It is the {c}", "{{answer: {c}}}", "I can see one card: the {c}.",
    "Looking at the table, the face-up card appears to be the {c}. So the answer is {c}.",
    "The only card visible is the {c}; no other card is shown.",
]
REFUSALS = ["I cannot tell which card this is.", "Sorry, I can't identify the card in this image."]


def single_corpus() -> list[tuple[str, str, str]]:
    rng = random.Random(7)
    out = []
    for (rank, suit), template in itertools.product(itertools.product(RANKS, SUITS), SINGLE):
        card = f"{rank}{suit}"
        out.append((template.format(c=rng.choice(notations(rank, suit))), "ok", card))
    out += [(r, "refusal", None) for r in REFUSALS]
    out += [("It could be the AS or the KH.", "ambiguous", None), ("A red card.", "unparsed", None)]
    return out


def set_corpus() -> list[tuple[str, str, list[str]]]:
    rng = random.Random(8)
    cards = [f"{r}{s}" for r in RANKS for s in SUITS]
    out = []
    for _ in range(200):
        hand = rng.sample(cards, rng.randint(1, 4))
        written = [rng.choice(notations(c[:-1], c[-1])) for c in hand]
        listing = ", ".join(written[:-1]) + (" and " if len(written) > 1 else "") + written[-1]
        template = rng.choice(["The cards on the table are {l}.", "{l}", "I see {l}.",
                               "Step by step: the river shows {l}. {{answer: {l}}}"])
        out.append((template.format(l=listing), "ok", sorted(hand)))
    out += [(r, "refusal", None) for r in REFUSALS]
    return out


@pytest.mark.parametrize(("answer", "status", "card"), single_corpus())
def test_single_card(answer, status, card):
    parsed = parse_answer(answer, ParseContext("card"))
    assert (parsed.status, parsed.value) == (status, card), answer


@pytest.mark.parametrize(("answer", "status", "cards"), set_corpus())
def test_card_sets(answer, status, cards):
    parsed = parse_answer(answer, ParseContext("card_set"))
    assert (parsed.status, parsed.value) == (status, cards), answer
    if cards:
        assert is_correct("card_set", parsed.value, list(reversed(cards)))


def test_corpus_sizes():
    assert len(single_corpus()) >= 200 and len(set_corpus()) >= 200
