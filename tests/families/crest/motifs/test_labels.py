"""Crest labels round-trip (program code <-> factors <-> KDL <-> English) for every library
entry, and the benchmark's metrics: pure Python."""

from __future__ import annotations

import itertools

import pytest

from byo.families.crest.motifs import labels, library
from byo.families.crest.motifs.grammar import ARRANGEMENTS, MODIFIERS, Crest, GrammarError


def every_crest(depth: int = 1):
    """Every crest the grammar allows with up to `depth` containers (depth 1: 5,000+ crests)."""
    motifs = [m.id for m in library.MOTIFS]
    for m in motifs:
        for r in ARRANGEMENTS:
            yield Crest((), r, m)
    for cs in itertools.permutations([c.id for c in library.CONTAINERS], depth):
        for r, m in itertools.product(MODIFIERS, motifs):
            yield Crest(cs, r, m)


def assert_round_trip(crest: Crest) -> None:
    lab = labels.labels(crest)
    assert labels.parse_program(lab["program"]) == crest
    assert Crest.from_factors(crest.factors()) == crest
    assert labels.parse_kdl(lab["kdl"]) == crest
    assert labels.parse_analysis(lab["analysis"]) == crest
    assert labels.parse_english(lab["english"]) == crest
    assert "".join(lab["analysis"]) == lab["kdl"] and len(lab["reading"].split()) == len(lab["analysis"])


def test_every_library_entry_round_trips_in_every_crest():
    crests = list(every_crest())
    assert len(crests) == 3 * len(library.MOTIFS) * (1 + 2 * len(library.CONTAINERS))
    seen = {key: set() for key in ("program", "kdl", "english")}
    for crest in crests:
        assert_round_trip(crest)
        lab = labels.labels(crest)
        for key, values in seen.items():
            values.add(lab[key])
    assert all(len(v) == len(crests) for v in seen.values())  # no two crests share a label


def test_nested_containers_round_trip():
    motifs = [m.id for m in library.MOTIFS[::7]]
    for cs in itertools.permutations([c.id for c in library.CONTAINERS[:6]], 2):
        for r, m in itertools.product(MODIFIERS, motifs):
            assert_round_trip(Crest(cs, r, m))
    crest = Crest(("07", "01"), "peeking", library.motif("kikyo").id)
    assert labels.kdl(crest) == "平角に丸に覗き桔梗"
    assert labels.english(crest) == "peeking bellflower in a circle in a square"


# KamonBench's Figure 2: "crab in a circle", "bean crab in a circle", "peeking crab in a circle", "three
# stacked crabs in a circle", "three bottoms-together crabs in a circle", "three heads-together crabs in a circle"
@pytest.mark.parametrize("modifier, kdl, english, program", [
    ("none", "丸に桔梗", "bellflower in a circle", "C:01 X:0 M:0008"),
    ("peeking", "丸に覗き桔梗", "peeking bellflower in a circle", "C:01 X:1 M:0008"),
    ("bean", "丸に豆桔梗", "bean bellflower in a circle", "C:01 X:2 M:0008"),
    ("three_stacked", "丸に三つ盛り桔梗", "three stacked bellflowers in a circle", "C:01 X:3 M:0008"),
    ("bottoms_together", "丸に尻合せ三つ桔梗", "three bottoms-together bellflowers in a circle", "C:01 X:4 M:0008"),
    ("heads_together", "丸に頭合せ三つ桔梗", "three heads-together bellflowers in a circle", "C:01 X:5 M:0008"),
])
def test_label_formats(modifier, kdl, english, program):
    crest = Crest(("01",), modifier, "0008")
    assert (labels.kdl(crest), labels.english(crest), labels.program(crest)) == (kdl, english, program)


def test_containerless_and_component_labels():
    crest = Crest((), "three_stacked", library.motif("mitsudomoe").id)
    assert labels.analysis(crest) == ["三つ盛り", "三つ巴"]
    assert labels.program(crest) == "X:3 M:0004"
    assert labels.english(crest) == "three stacked trios of commas"
    assert labels.english(Crest(("11",), "none", "0001")) == "black disk in an octagon"
    for c in [*library.MOTIFS, *library.CONTAINERS]:
        lab = labels.component_labels(c)
        assert labels.parse_component(lab["program"]) is c and lab["kdl"] == c.ja


def test_parsers_normalize_and_reject():
    assert labels.parse_kdl("丸 に 三つ盛り 桔梗") == Crest(("01",), "three_stacked", "0008")
    assert labels.normalize("キキョウ") == "ききょう"
    assert labels.parse_program("X:3 M:0008 C:01") == Crest(("01",), "three_stacked", "0008")
    for bad in ("C:01 M:0008", "C:01 X:3 X:3 M:0008", "C:01 X:9 M:0008", "C:99 X:0 M:0008", "X:0 M:0008", ""):
        assert labels.program_factors(bad) is None, bad
    with pytest.raises(GrammarError):
        labels.parse_kdl("桔梗")  # a containerless crest needs an arrangement
    with pytest.raises(GrammarError):
        labels.parse_english("bellflower in a triangle")
    with pytest.raises(GrammarError, match="segmented"):
        labels.parse_analysis(["丸に", "桔梗"])
