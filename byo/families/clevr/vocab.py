"""CLEVR labels and their synonyms, for parsing answers."""

from byo.families.api import domain

VOCABULARY = (
    domain("clevr_color", gray="gray|grey|silver", red="red", blue="blue", green="green", brown="brown",
           purple="purple|violet", cyan="cyan|teal|turquoise|aqua", yellow="yellow|gold|golden"),
    domain("shape", cube="cube|block|box|cuboid", sphere="sphere|ball|orb", cylinder="cylinder", cone="cone"),
    domain("material", rubber="rubber|matte|matt", metal="metal|metallic|shiny"),
    domain("size", small="small|little|tiny", large="large|big|huge"),
)
