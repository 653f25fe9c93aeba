"""The crest vocabulary: every motif and container of the library by its English name, with its
plural, Japanese name, reading and romanization as synonyms, so that an open answer naming any
of them is read (open recall over the whole inventory)."""

from __future__ import annotations

from byo.families.api import domain
from byo.families.crest.motifs import library

NONE = ("none", "nothing", "no container", "no enclosing container", "without a container", "not enclosed")


def _terms(components) -> dict[str, str]:
    return {c.en.lower(): "|".join(dict.fromkeys((c.en.lower(), c.en_plural.lower(), c.ja, c.reading,
                                                  c.romaji.lower())))
            for c in components}


MOTIF_NAMES = domain("crest_motif", **_terms(library.MOTIFS))
CONTAINER_NAMES = domain("crest_container", **_terms(library.CONTAINERS), none="|".join(NONE))
VOCABULARY = (MOTIF_NAMES, CONTAINER_NAMES)
