"""Poker scenes (BYO-Eval): cards drawn by the project, players with hands, chip piles and the
river; overlapping rows and grids of cards."""

from byo.families.poker.family import PokerFamily

FAMILY = PokerFamily()
