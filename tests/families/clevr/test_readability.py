"""CLEVR's questions on legends that carry the counterfactual check's measurements (no render): a
question is asked only if every value that would change its answer shows in the image, and the
audit holds it to the same (byo/scene/counterfactual.py decides; tests/render/test_counterfactual.py
renders the measurements)."""

from __future__ import annotations

import numpy as np
import pytest
from clevr_legends import unrendered_legends

from byo.families import get_family
from byo.families.api import MeasuredImage
from byo.families.base import Answer, Unreadable, ask, seen_as_rendered
from byo.families.clevr.audit import AUDITS
from byo.scene import counterfactual as cf

SHOWS, HIDDEN = cf.MIN_DIFFERENCE + 20, cf.MIN_DIFFERENCE / 2
CLEVR = get_family("clevr")


@pytest.fixture(scope="module")
def legend(tmp_path_factory) -> dict:
    """Four objects, one of each shape, seen as from directly above: the cone, the cylinder and the
    sphere render alike (discs), each of them unlike the cube, and the cube unlike each of them."""
    data = {"dataset": {"name": "top", "family": "clevr", "seed": 3, "n_images": 1},
            "scene": {"resolution": [320, 240], "camera": {"elevation": 90},
                      "content": {"mode": "objects", "objects": [
                          {"shape": s, "color": c, "position": p} for s, c, p in (
                              ("cone", "red", [-1.5, -1.2]), ("cylinder", "blue", [1.5, -1.2]),
                              ("sphere", "yellow", [-1.5, 1.2]), ("cube", "green", [1.5, 1.2]))]}}}
    (legend,) = unrendered_legends(tmp_path_factory.mktemp("top"), data)
    round_shapes = ("cone", "cylinder", "sphere")
    for o in legend["objects"]:
        shapes = {s: (HIDDEN if o["kind"] in round_shapes and s in round_shapes else SHOWS)
                  for s in ("cube", *round_shapes) if s != o["kind"]}
        o[cf.LEGEND_FIELD] = cf.Measured(1000, SHOWS, {"shape": shapes, "material": {"x": SHOWS},
                                                        "size": {"x": SHOWS}}).to_json()
    return legend


def _answer(legend: dict, key: str, seed: int):
    """The answer of `key` drawn with the parameters of `seed` (the rng decides which shape is asked)."""
    return CLEVR.answers[key](legend, np.random.default_rng(seed))


def _by_shape(legend: dict, key: str) -> dict[str, Answer | Unreadable]:
    """For each shape the question may name, its answer (draws until each shape was drawn)."""
    out = {}
    for seed in range(200):
        result = _answer(legend, key, seed)
        answer = result.answer if isinstance(result, Unreadable) else result
        out.setdefault(answer.params["shape"], result)
    return out


def test_how_many_cubes_is_asked_and_how_many_cones_is_not(legend):
    found = _by_shape(legend, "count_shape")
    assert isinstance(found["cube"], Answer) and found["cube"].value == 1
    for shape in ("cone", "cylinder", "sphere"):
        assert isinstance(found[shape], Unreadable) and found[shape].rule == "shape", shape
        assert "would look the same as" in found[shape].reason


def test_what_color_is_the_cube_is_asked_and_the_cone_not(legend):
    found = _by_shape(legend, "query_color_unique_shape")
    assert isinstance(found["cube"], Answer) and found["cube"].value == "green"
    assert isinstance(found["cone"], Unreadable)


def test_what_shape_is_the_red_object_is_not_asked_and_the_green_one_is(legend):
    found = {}
    for seed in range(200):
        result = _answer(legend, "query_shape_unique_color", seed)
        answer = result.answer if isinstance(result, Unreadable) else result
        found.setdefault(answer.params["color"], result)
    assert isinstance(found["green"], Answer) and found["green"].value == "cube"
    assert all(isinstance(found[c], Unreadable) for c in ("red", "blue", "yellow"))


def test_without_the_measurements_the_size_and_blur_rule_decides(legend):
    bare = {**legend, "objects": [{k: v for k, v in o.items() if k != cf.LEGEND_FIELD} for o in legend["objects"]]}
    found = _by_shape(bare, "count_shape")
    assert all(isinstance(a, Answer) for a in found.values())  # 24 px sharp objects: the rule reads them


def test_the_audit_holds_asked_questions_to_the_same_renders(legend):
    mask = np.zeros((240, 320), np.uint8)
    for o in legend["objects"]:
        x0, y0, x1, y1 = o["bbox"]
        mask[y0:y1, x0:x1] = o["id"]
    image = MeasuredImage.measure(legend, mask)
    seen = image.objects
    for shape, expected in (("cube", 1), ("cone", None)):
        q = {"key": "count_shape", "params": {"shape": shape}, "answer": 1}
        finding = AUDITS["count_shape"](q, image, seen)
        if expected is None:
            assert "unreadable (shape)" in finding.reason
        else:
            assert finding.value == expected


def test_an_object_whose_removal_does_not_show_is_not_counted(legend):
    faint = {**legend, "objects": [
        {**o, cf.LEGEND_FIELD: {**o[cf.LEGEND_FIELD], cf.PRESENCE: 1.0}} if o["kind"] == "cube" else o
        for o in legend["objects"]]}
    counted = ask(CLEVR.answers["count_objects"], seen_as_rendered(faint), "count_objects")
    # the image shows 3; hidden is not absent: the count rests on not seeing the cube, and is not asked
    assert isinstance(counted, Unreadable) and counted.rule == "hidden" and counted.answer.value == 3
