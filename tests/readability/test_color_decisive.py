"""The colour rule decides by the objects that decide the answer, for the keys whose question names
a colour (count_color, exist_color_shape, query_shape_unique_color): a brown cylinder rendered
between brown and red makes "how many red objects?" and "how many brown objects?" unreadable, not
"how many blue objects?" (reading it as red cannot change that count). The other colour keys keep
the rule over every object. The audit holds the questions to the same, by its own code. No render:
the image is drawn here, each object a flat square of its colour on black."""

from __future__ import annotations

import numpy as np
import pytest
from clevr_legends import unrendered_legends

from byo.families import get_family
from byo.families.api import MeasuredImage
from byo.families.base import Answer, Unreadable
from byo.families.clevr.audit import AUDITS
from byo.families.clevr.model import COLORS
from byo.scene import evidence

CLEVR = get_family("clevr")
PALETTE = {name: tuple(v / 255 for v in rgb) for name, rgb in COLORS.items()}
BETWEEN = (144, 60, 28)  # brown shifted a third of the way to red, 8-bit sRGB


@pytest.fixture(scope="module")
def drawn(tmp_path_factory) -> tuple[dict, np.ndarray, np.ndarray]:
    """(legend with each object's evidence, image, mask): a brown cylinder drawn BETWEEN, a green
    sphere and a yellow cube drawn their own colour."""
    data = {"dataset": {"name": "between", "family": "clevr", "seed": 5, "n_images": 1},
            "scene": {"resolution": [320, 240], "camera": {"elevation": 90}, "content": {"mode": "objects", "objects": [
                {"shape": s, "color": c, "position": p} for s, c, p in (
                    ("cylinder", "brown", [-1.5, -1.2]), ("sphere", "green", [1.5, -1.2]), ("cube", "yellow", [-1.5, 1.2]))]}}}
    (legend,) = unrendered_legends(tmp_path_factory.mktemp("between"), data)
    rgb, mask = np.zeros((240, 320, 3), np.uint8), np.zeros((240, 320), np.uint8)
    for o in legend["objects"]:
        x0, y0, x1, y1 = o["bbox"]
        mask[y0:y1, x0:x1] = o["id"]
        color = o["attributes"]["color"]
        rgb[y0:y1, x0:x1] = BETWEEN if color == "brown" else COLORS[color]
    found = evidence.measure_objects(rgb, mask, {o["id"]: [o["id"]] for o in legend["objects"]})
    legend = {**legend, "objects": [{**o, "rendered": found[o["id"]].to_json(digits=None)} for o in legend["objects"]]}
    return legend, rgb, mask


def _by_color(legend: dict, key: str) -> dict[str, Answer | Unreadable]:
    """For each colour the question may name, its answer (draws until each was drawn)."""
    out = {}
    for seed in range(300):
        result = CLEVR.answers[key](legend, np.random.default_rng(seed))
        answer = result.answer if isinstance(result, Unreadable) else result
        if isinstance(answer, Answer):
            out.setdefault(answer.params["color"], result)
    return out


def _brown(legend: dict) -> dict:
    return next(o for o in legend["objects"] if o["attributes"]["color"] == "brown")


def test_the_brown_cylinder_renders_between_brown_and_red(drawn):
    lab = _brown(drawn[0])["rendered"]["lab"]
    margin, _ = evidence.color_margin(lab, "brown", PALETTE)
    assert abs(margin) < evidence.COLOR_MARGIN
    assert evidence.read_as(lab, "brown", PALETTE) == ("red",)
    for o in drawn[0]["objects"]:
        if o is not _brown(drawn[0]):
            assert evidence.read_as(o["rendered"]["lab"], o["attributes"]["color"], PALETTE) == ()


def test_how_many_blue_is_asked_how_many_red_or_brown_is_not(drawn):
    legend = drawn[0]
    found = _by_color(legend, "count_color")
    assert isinstance(found["blue"], Answer) and found["blue"].value == 0
    assert isinstance(found["green"], Answer) and found["green"].value == 1
    brown = _brown(legend)
    for color, count in (("red", 0), ("brown", 1)):
        result = found[color]
        assert isinstance(result, Unreadable) and result.rule == "color", color
        assert result.objects == (brown["id"],) and result.answer.value == count
        assert f"object {brown['id']}" in result.reason and "renders as red: ΔE00 margin 0.4 < 1" in result.reason, result.reason


def test_the_other_colour_keys_decide_by_the_decisive_objects_or_by_every_object(drawn):
    legend = drawn[0]
    shape = _by_color(legend, "query_shape_unique_color")  # "what shape is the <colour> object?"
    assert isinstance(shape["green"], Answer) and shape["green"].value == "sphere"
    assert isinstance(shape["brown"], Unreadable)
    exists = {}
    for seed in range(300):
        result = CLEVR.answers["exist_color_shape"](legend, np.random.default_rng(seed))
        answer = result.answer if isinstance(result, Unreadable) else result
        exists.setdefault((answer.params["color"], answer.params["shape"]), result)
    assert isinstance(exists["blue", "cube"], Answer) and exists["blue", "cube"].value == "no"
    assert isinstance(exists["yellow", "cube"], Answer) and exists["yellow", "cube"].value == "yes"
    assert isinstance(exists["red", "cylinder"], Unreadable) and isinstance(exists["brown", "cylinder"], Unreadable)
    # "what colour is the sphere?" keeps the rule over every visible object
    query = CLEVR.answers["query_color_unique_shape"]
    assert all(isinstance(query(legend, np.random.default_rng(seed)), Unreadable) for seed in range(20))


def test_the_audit_holds_the_questions_to_the_same_objects(drawn):
    legend, rgb, mask = drawn
    image = MeasuredImage.measure(legend, mask, rgb=rgb)
    seen = image.with_status("visible")
    assert len(seen) == 3

    def audit(key: str, **params):
        return AUDITS[key]({"key": key, "params": params, "answer": None}, image, seen)

    assert audit("count_color", color="blue").value == 0
    assert audit("count_color", color="green").value == 1
    for color in ("red", "brown"):
        finding = audit("count_color", color=color)
        assert "unreadable (color)" in finding.reason and f"cylinder {_brown(legend)['id']}" in finding.reason, color
    assert audit("exist_color_shape", color="blue", shape="cube").value == "no"
    assert "unreadable (color)" in audit("exist_color_shape", color="red", shape="cylinder").reason
    assert audit("query_shape_unique_color", color="green").value == "sphere"
    assert "unreadable (color)" in audit("query_shape_unique_color", color="brown").reason
    assert "unreadable (color)" in audit("query_color_unique_shape", shape="sphere").reason
