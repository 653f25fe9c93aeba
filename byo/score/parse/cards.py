"""Playing card answers, one card or a set: "ace of spades", "A♠", "AS", "10H", "TD"."""

from __future__ import annotations

import re

from byo.score import text
from byo.score.parse.model import Mention, ParseContext

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")  # a card code's rank, then...
SUITS = ("S", "H", "D", "C")  # ...its suit
RANK_WORDS = {"ace": "A", "king": "K", "queen": "Q", "jack": "J", "ten": "10", "nine": "9", "eight": "8",
              "seven": "7", "six": "6", "five": "5", "four": "4", "three": "3", "two": "2", "deuce": "2"}
SUIT_WORDS = {"spade": "S", "heart": "H", "diamond": "D", "club": "C"}
SUIT_SYMBOLS = {"♠": "S", "♤": "S", "♥": "H", "♡": "H", "♦": "D", "♢": "D", "♣": "C", "♧": "C"}
_RANK = r"(?:10|[2-9]|[AKQJT])"
_CARD_WORDS = re.compile(r"\b(" + "|".join(RANK_WORDS) + r"|10|[2-9])s?\s+of\s+(" + "|".join(SUIT_WORDS) + r")s?\b",
                         re.IGNORECASE)
_CARD_SYMBOL = re.compile(rf"(?<![\w])({_RANK})\s?([♠♤♥♡♦♢♣♧])")
_CARD_CODE = re.compile(rf"(?<![\w-])({_RANK})([SHDC])(?![\w-])")  # AS, 10H, TD: upper case only


def card_code(rank: str, suit: str) -> str:
    """Canonical card: rank (A K Q J 10 9 ... 2) then suit (S H D C), e.g. "AS", "10H"."""
    rank = RANK_WORDS.get(rank.lower(), rank.upper())
    return ("10" if rank == "T" else rank) + suit


def find_card(span: str, ctx: ParseContext) -> list[Mention]:
    """Card names in any common notation: "ace of spades", "A♠", "AS", "10H", "TD"."""
    found = {}
    for m in _CARD_WORDS.finditer(span):
        found[m.start()] = Mention(card_code(m.group(1), SUIT_WORDS[m.group(2).lower()]), m.start(), m.end())
    for m in _CARD_SYMBOL.finditer(span):
        found.setdefault(m.start(), Mention(card_code(m.group(1), SUIT_SYMBOLS[m.group(2)]), m.start(), m.end()))
    for m in _CARD_CODE.finditer(span):
        found.setdefault(m.start(), Mention(card_code(m.group(1), m.group(2)), m.start(), m.end()))
    return [m for _, m in sorted(found.items()) if not text.negated(span, m.start)]
