"""Poker labels and their synonyms, for parsing answers: the players' mat colours (the answer
to "which player holds the most cards?")."""

from byo.families.api import domain

VOCABULARY = (
    domain("mat_color", red="red|scarlet|crimson", blue="blue|navy", yellow="yellow|gold|golden",
           purple="purple|violet", orange="orange", white="white|ivory", pink="pink",
           black="black"),
)
