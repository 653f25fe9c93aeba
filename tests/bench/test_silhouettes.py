"""The chess visibility threshold is the one the silhouette bench published (docs/piece_silhouettes.json):
the pixels the smallest piece covers at the height from which every piece's outline is resolved."""

from __future__ import annotations

import json
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import silhouettes  # noqa: E402

from byo.families.chess.model import MIN_VISIBLE_PIXELS, TYPE_READABLE_MAX_ELEVATION  # noqa: E402


def _number(key: str):
    """A JSON key as the bench wrote it: a height (int), a blur ratio (float) or a name."""
    try:
        return int(key)
    except ValueError:
        try:
            return float(key)
        except ValueError:
            return key


def test_the_chess_threshold_is_the_benchs():
    results = json.loads((ROOT / "docs" / "piece_silhouettes.json").read_text())
    for data in results["styles"].values():  # JSON keys are text
        for table in ("by_height", "by_blur", "coverage"):
            data[table] = {int(e): {_number(k): v for k, v in row.items()} for e, row in data[table].items()}
    height, smallest, pixels = silhouettes.visibility_rule(results)
    assert pixels == MIN_VISIBLE_PIXELS
    # From that height up, every view up to the type rule's elevation reads at least SEEN...
    views = [(d, e) for d in results["styles"].values() for e in results["elevations"] if e <= TYPE_READABLE_MAX_ELEVATION]
    assert all(d["by_height"][e][h] >= silhouettes.SEEN for d, e in views for h in results["heights"] if h >= height)
    # ...and one height lower, some view does not.
    lower = max(h for h in results["heights"] if h < height)
    assert any(d["by_height"][e][lower] < silhouettes.SEEN for d, e in views)
    assert pixels == round(smallest * height**2)
