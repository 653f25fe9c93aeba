"""Chess scenes (BYO-Eval): a procedural board of any size with procedural pieces on it."""

from byo.families.chess.family import ChessFamily

FAMILY = ChessFamily()
