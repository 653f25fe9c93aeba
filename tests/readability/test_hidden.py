"""Hidden is not absent (byo/families/base.py `hidden_decides`): a question whose answer would change
if an object the image does not show were counted is not asked ("How many white pieces? 0" with a
white king on the board under the strongest blur); the object stays in the legend, and the reason
says why it is unreadable. Stylised chess on a 4x4 board, sharp and at f/0.5."""

from __future__ import annotations

import json

import pytest
from conftest import write_config

from byo.cli import main
from byo.core.dataset import Layout
from byo.families import get_family
from byo.families.base import Answer, Unreadable, ask, rng_for
from byo.questions.generate import generate, with_evidence

pytestmark = pytest.mark.render

PIECES = [{"type": "king", "color": "white", "cell": [0, 0]}, {"type": "queen", "color": "white", "cell": [2, 3]},
          {"type": "rook", "color": "red", "cell": [3, 1]}, {"type": "bishop", "color": "blue", "cell": [1, 2]}]


@pytest.fixture(scope="module")
def boards(tmp_path_factory) -> Layout:
    tmp = tmp_path_factory.mktemp("hidden")
    config = {"dataset": {"name": "hidden", "family": "chess", "seed": 3, "n_images": 1},
              "scene": {"resolution": [96, 72], "render": {"samples": 4, "denoise": "off", "min_visible_pixels": 10,
                                                           "on_hidden": "flag"},
                        "content": {"style": "stylised", "max_rotation": 0, "board": {"rows": 4, "columns": 4},
                                    "colors": ["white", {"name": "red", "rgb": [0.75, 0.12, 0.1]},
                                               {"name": "blue", "rgb": [0.12, 0.25, 0.75]}],
                                    "pieces": PIECES}},
              "variables": {"blur.fstop": {"type": "varying_all", "levels": ["none", "very_high"]}}}
    assert main(["render", str(write_config(tmp, config)), "-o", str(tmp / "ds"), "--in-process"]) == 0
    generate(tmp / "ds")
    return Layout(tmp / "ds")


def _legend(layout: Layout, fstop) -> dict:
    return next(lg for lg in layout.legends() if lg["levels"]["blur.fstop"] == fstop)


def test_no_question_asked_rests_on_not_seeing_a_hidden_piece(boards):
    family = get_family("chess")
    legend = with_evidence(boards, _legend(boards, "very_high"))
    hidden = [k for k, o in enumerate(legend["objects"]) if o["visibility"] == "hidden"]
    assert {legend["objects"][k]["attributes"]["type"] for k in hidden} >= {"king"}  # the white king does not show
    asked = {json.loads(r)["key"] for r in (boards.root / "questions.jsonl").read_text().splitlines()
             if json.loads(r)["image"] == legend["image"]}
    assert asked  # some questions stay
    for key in asked:
        result = ask(family.answers[key], legend, key)
        assert isinstance(result, Answer), key
        for k in hidden:
            seen = [{**o, "visible": True, "visibility": "visible"} if j == k else o
                    for j, o in enumerate(legend["objects"])]
            other = family.answers[key]({**legend, "objects": seen}, rng_for(legend, key))
            other = other.answer if isinstance(other, Unreadable) else other
            if isinstance(other, Answer) and other.params == result.params:
                assert other.value == result.value, (key, legend["objects"][k]["attributes"])


def test_how_many_white_pieces_is_not_asked_when_the_white_king_is_hidden_and_the_reason_names_it(boards):
    summary = json.loads((boards.root / "questions_summary.json").read_text())
    cases = [e for e in summary["unreadable"] if e["rule"] == "hidden"]
    assert cases and all(e["levels"] == {"blur.fstop": "very_high"} for e in cases)
    assert all("white king (object 1)" in e["reason"] and "ΔE00" in e["reason"] and 1 in e["objects"] for e in cases)
    rows = [json.loads(r) for r in (boards.root / "questions.jsonl").read_text().splitlines()]
    white = {lg["levels"]["blur.fstop"]: {r["answer"] for r in rows if r["image"] == lg["image"]
                                          and r["key"] == "count_identification_white_pieces"}
             for lg in boards.legends()}
    assert white == {"none": {2}, "very_high": set()}  # "How many white pieces? 0" is not asked
    assert len(_legend(boards, "very_high")["objects"]) == 4  # the legend keeps every piece


def test_a_count_that_rests_on_not_seeing_the_king_is_unreadable_under_the_rule_hidden(boards):
    legend = with_evidence(boards, _legend(boards, "very_high"))
    # only the king unseen: the queen and the bishop at the edge of visibility counted as seen
    legend = {**legend, "objects": [o if o["attributes"]["type"] == "king" else {**o, "visible": True,
                                                                                  "visibility": "visible"}
                                    for o in legend["objects"]]}
    key = "count_identification_white_pieces"
    result = ask(get_family("chess").answers[key], legend, key)
    assert isinstance(result, Unreadable) and result.rule == "hidden" and result.objects == (1,)
    assert result.answer.value == 1  # what the image shows: one white piece, where two stand
