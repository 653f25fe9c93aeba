"""Identifiable, not just different (byo/scene/outline.py, byo/families/base.py `outline_unreadable`):
a shape is asked only where it can be named from the image alone. The truth's outline and each
alternative's, aligned on the object (centroid and second moments) and blurred as the image blurs
them, must differ; a moved highlight or a silhouette a pixel wider does not make a cone seen from
above anything but a disc. Configs at the extremes: elevation 90, 6 degrees, the strongest blur
out of focus, and the farthest camera."""

from __future__ import annotations

import json

import numpy as np
import pytest
from calibration_scene import calibration_config
from conftest import write_config

from byo.cli import main
from byo.core.dataset import Layout
from byo.families import get_family
from byo.questions.generate import generate
from byo.scene import outline

SHAPE_KEYS = ("count_shape", "exist_color_shape", "query_color_unique_shape", "query_shape_unique_color",
              "query_material_unique_shape", "query_size_unique_shape", "relate_left")


def _circle(r: float, n: int = 64, at=(20.0, 20.0)) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([at[0] + r * np.cos(t), at[1] + r * np.sin(t)])


def _square(half: float, at=(20.0, 20.0)) -> np.ndarray:
    return np.array([[at[0] - half, at[1] - half], [at[0] + half, at[1] - half], [at[0] + half, at[1] + half],
                     [at[0] - half, at[1] + half]])


def test_position_size_and_aspect_are_no_cue():
    # a disc beside a larger disc, a rectangle against a wider one: the same outline, aligned
    assert outline.outline_difference(_circle(6), _circle(9, at=(40.0, 10.0))) < outline.MIN_OUTLINE
    wide = _square(6) * [2.0, 1.0]
    assert outline.outline_difference(_square(6), wide) < outline.MIN_OUTLINE


def test_a_square_is_told_from_a_disc_sharp_but_not_under_a_disc_of_blur_as_wide():
    assert outline.outline_difference(_square(8), _circle(8)) >= 5 * outline.MIN_OUTLINE
    assert outline.outline_difference(_square(8), _circle(8), blur_px=16.0) < outline.MIN_OUTLINE


@pytest.fixture(scope="module")
def extremes(tmp_path_factory) -> dict[str, Layout]:
    """Sharp at 90, 6 and 35 degrees; the strongest blur focused in front of the objects; the
    farthest camera preset (5 m), rendered once, questions written."""
    configs = {"sharp": calibration_config("sharp", [90, 6, 35]),
               "blurred": calibration_config("blurred", [35], blur={"fstop": "very_high", "focus_distance": 0.3}),
               "far": calibration_config("far", [35], camera={"distance": "high"})}
    out = {}
    for name, config in configs.items():
        tmp = tmp_path_factory.mktemp(name)
        assert main(["render", str(write_config(tmp, config)), "-o", str(tmp / "ds"), "--in-process"]) == 0
        generate(tmp / "ds")
        out[name] = Layout(tmp / "ds")
    return out


def _by_elevation(layout: Layout) -> dict[int, dict]:
    return {int(lg["levels"]["camera.elevation"]): lg for lg in layout.legends()}


def _questions(layout: Layout, legend: dict) -> list[dict]:
    """The image's questions that rest on a shape: "is there a yellow cube?" with nothing yellow
    reads from colour alone."""
    colors = {o["attributes"]["color"] for o in legend["objects"]}
    rows = map(json.loads, (layout.root / "questions.jsonl").read_text().splitlines())
    return [r for r in rows if r["image"] == legend["image"] and r["key"] in SHAPE_KEYS
            and not (r["key"] == "exist_color_shape" and r["params"]["color"] not in colors)]


def _names(q: dict, shape: str, color: str) -> bool:
    return q["params"].get("shape") == shape or q["params"].get("color") == color or q["answer"] in (shape, color)


def _outlines(legend: dict) -> dict[str, dict[str, float]]:
    found = outline.outlines(legend, get_family("clevr"))
    return {o["kind"]: found[o["id"]]["shape"] for o in legend["objects"]}


@pytest.mark.render
def test_a_cone_seen_from_above_is_a_disc_and_is_not_asked_as_a_cone(extremes):
    top = _by_elevation(extremes["sharp"])[90]
    shapes = _outlines(top)
    assert shapes["cone"]["sphere"] < outline.MIN_OUTLINE and shapes["cylinder"]["sphere"] < outline.MIN_OUTLINE
    assert shapes["cube"]["sphere"] >= outline.MIN_OUTLINE  # a square stays a square
    for q in _questions(extremes["sharp"], top):
        assert not _names(q, "cone", "red") and not _names(q, "cylinder", "blue"), q


@pytest.mark.render
def test_a_cylinder_side_on_under_10_degrees_is_not_asked(extremes):
    low = _by_elevation(extremes["sharp"])[6]
    shapes = _outlines(low)
    assert shapes["cylinder"]["cube"] < outline.MIN_OUTLINE and shapes["cube"]["cylinder"] < outline.MIN_OUTLINE
    for q in _questions(extremes["sharp"], low):
        assert not _names(q, "cylinder", "blue") and not _names(q, "cube", "green"), q


@pytest.mark.render
def test_at_35_degrees_every_shape_is_asked_as_before(extremes):
    mid = _by_elevation(extremes["sharp"])[35]
    assert all(d >= outline.MIN_OUTLINE for shapes in _outlines(mid).values() for d in shapes.values())
    assert {q["key"] for q in _questions(extremes["sharp"], mid)} >= {"count_shape", "query_shape_unique_color"}


@pytest.mark.render
def test_under_the_strongest_blur_a_cube_is_not_told_from_a_cylinder(extremes):
    legend = next(iter(extremes["blurred"].legends()))
    shapes = _outlines(legend)
    assert shapes["cube"]["cylinder"] < outline.MIN_OUTLINE and shapes["cylinder"]["cube"] < outline.MIN_OUTLINE
    assert _questions(extremes["blurred"], legend) == []


@pytest.mark.render
def test_at_the_farthest_camera_dots_have_no_shape(extremes):
    legend = next(iter(extremes["far"].legends()))
    assert all(max(b[2] - b[0], b[3] - b[1]) < outline.MIN_RESOLVED_PX for b in (o["bbox"] for o in legend["objects"]))
    assert all(d == 0.0 for shapes in _outlines(legend).values() for d in shapes.values())
    assert _questions(extremes["far"], legend) == []
