"""Chess labels and their synonyms, for parsing answers."""

from byo.families.api import domain

VOCABULARY = (
    domain("piece_type", pawn="pawn", rook="rook|castle|tower", knight="knight|horse", bishop="bishop",
           queen="queen", king="king"),
    domain("piece_color", white="white|ivory|cream|light-colored|light-coloured",
           black="black|ebony|dark-colored|dark-coloured"),
)
