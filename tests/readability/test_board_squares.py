"""The board's squares (docs/readability.md): "how many squares? 64" is asked only where the
checker resolves in the image. The question generator decides from the legend (the blur disc at
each square against its projected side, byo/families/chess/squares.py); `byo audit` measures the
squares' centres in the image with code of its own (byo/audit/readable.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import write_config

from byo.audit import readable
from byo.cli import main
from byo.core.dataset import Layout
from byo.core.inputs import read_image
from byo.families.chess import squares
from byo.families.chess.model import SQUARES_READABLE_MAX_BLUR

pytestmark = pytest.mark.render


@pytest.fixture(scope="module")
def boards(tmp_path_factory) -> Layout:
    """The default 8 x 8 board at 128 x 96, sharp, at f/1 and at the strongest blur (f/0.5),
    focused half way to it."""
    tmp = tmp_path_factory.mktemp("squares")
    config = {"dataset": {"name": "sq", "family": "chess", "seed": 102, "n_images": 1},
              "scene": {"resolution": [128, 96], "render": {"samples": 8, "denoise": "off"}, "content": {"count": 1}},
              "variables": {"blur.fstop": {"type": "varying_all", "levels": ["none", "high", "very_high"]}},
              "questions": {"keys": ["count_squares"]}}
    root = tmp / "ds"
    assert main(["render", str(write_config(tmp, config)), "-o", str(root), "--in-process"]) == 0
    return Layout(root)


def _by_level(layout: Layout) -> dict[str, dict]:
    return {lg["levels"]["blur.fstop"]: lg for lg in layout.legends()}


def test_under_the_strongest_blur_the_squares_are_not_counted_and_the_reason_names_the_numbers(boards):
    assert main(["questions", str(boards.root)]) == 0
    asked = {json.loads(line)["image"] for line in (boards.root / "questions.jsonl").read_text().splitlines()}
    legends = _by_level(boards)
    assert legends["none"]["image"] in asked and legends["high"]["image"] in asked
    assert legends["very_high"]["image"] not in asked
    summary = json.loads((boards.root / "questions_summary.json").read_text())
    case = next(c for c in summary["unreadable"] if c["image"] == legends["very_high"]["image"])
    assert case["key"] == "count_squares" and case["rule"] == "squares"
    side, disc = squares.square_blur(legends["very_high"])
    worst = float((disc / side).max())
    assert worst > SQUARES_READABLE_MAX_BLUR
    assert f"{worst:.2f} times the side" in case["reason"] and f"{disc.max():.1f} px" in case["reason"], case


def test_the_audit_measures_the_squares_in_the_image_and_calls_the_smear_ill_posed(boards):
    legends = _by_level(boards)
    found = {}
    for level, legend in legends.items():
        rgb, mask = read_image(boards.image(legend["name"]), "RGB"), read_image(boards.mask(legend["name"]), "L")
        b = legend["extras"]["board"]
        grid = np.asarray(legend["landmarks"]["board_corners"], float)[:, :2].reshape(b["rows"] + 1, b["columns"] + 1, 2)
        found[level] = readable.square_contrast(rgb, mask, grid, np.asarray(b["dark_squares"]))[0]
    # sharp: light and dark centres apart; f/1 blurred, still apart; f/0.5: the checker inverts
    assert found["none"] > 0.5 and found["high"] >= readable.MIN_SQUARE_CONTRAST > found["very_high"], found
    assert main(["questions", str(boards.root), "--unreadable", "ask"]) == 0
    assert main(["audit", str(boards.root)]) == 1
    report = json.loads((boards.root / "audit.json").read_text())
    assert report["totals"]["ok"] == 2 and report["totals"]["ill_posed"] == 1
    finding = report["findings"][0]
    assert finding["image"] == legends["very_high"]["image"] and finding["reason"].startswith("unreadable (squares)")
    assert main(["questions", str(boards.root), "--unreadable", "flag"]) == 0
    assert main(["audit", str(boards.root)]) == 0
    assert json.loads((boards.root / "audit.json").read_text())["totals"]["flagged"] == 1
