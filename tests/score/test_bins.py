"""`--bins VARIABLE=LO-HI,...`: a bad range is named, by the parser and by `byo score`."""

from __future__ import annotations

import pytest

from byo.cli import main
from byo.score.bins import parse_bins


@pytest.mark.parametrize("spec, problem", [("content.count", "expected VARIABLE="), ("c=1-4,3-9", "overlaps"),
                                           ("c=4-1", "LO <= HI"), ("c=a-b", "with numbers")])
def test_bad_bins_are_named(spec, problem, capsys):
    with pytest.raises(ValueError, match=problem):
        parse_bins(spec)
    with pytest.raises(SystemExit) as exit_:
        main(["score", "nowhere", "--bins", spec])
    assert exit_.value.code == 2 and problem in capsys.readouterr().err


def test_named_and_written_ranges_parse():
    assert parse_bins("content.count=byo-eval") == ("content.count", [(1.0, 4.0), (5.0, 9.0), (10.0, 21.0)])
    assert parse_bins(" blur.fstop = 0.5-1, 2-4 ") == ("blur.fstop", [(0.5, 1.0), (2.0, 4.0)])
