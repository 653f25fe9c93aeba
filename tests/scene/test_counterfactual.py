"""The counterfactual readability check's measure and decisions (byo/scene/counterfactual.py), on
synthetic renders of one region: two images differ where a person would see it, not where
sampling grain or a blur below a pixel's worth changes them; and the shared rules the question
generator and the audit read from a legend's measurements."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage

from byo.families.base import attribute_unreadable, measured_attribute, seen_as_rendered
from byo.scene import counterfactual as cf


def _region(shape: str, blur: float = 0.0, grain: float = 0.0, seed: int = 0, ink=(200, 40, 40)) -> np.ndarray:
    """A 48 x 48 px region: a 24 px disc or square of `ink` on a mid-grey table, blurred by a
    Gaussian of `blur` px, with per-pixel noise of `grain` grey levels."""
    yy, xx = np.mgrid[:48, :48] - 23.5
    inside = (np.hypot(xx, yy) <= 12) if shape == "disc" else (np.maximum(abs(xx), abs(yy)) <= 10.6)
    image = np.where(inside[..., None], np.array(ink, float), 128.0)
    if blur:
        image = ndimage.gaussian_filter(image, (blur, blur, 0))
    if grain:
        image = image + np.random.default_rng(seed).normal(0, grain, image.shape)
    return image.clip(0, 255).round().astype(np.uint8)


def test_a_render_against_itself_differs_nowhere_and_grain_stays_below_a_visible_change():
    assert cf.differing_pixels(_region("disc"), _region("disc")) == 0
    # two renders of one region with the same seed differ only where the change reaches: here,
    # grain of 6 grey levels drawn afresh, as a change of the region would draw it
    noisy = cf.differing_pixels(_region("disc", grain=6.0, seed=1), _region("disc", grain=6.0, seed=2))
    assert noisy < cf.MIN_PIXELS


def test_a_disc_and_a_square_differ_at_their_corners_until_a_blur_hides_them():
    sharp = cf.differing_pixels(_region("disc"), _region("square"))
    area = int(np.pi * 12**2)
    assert cf.visible(sharp, area), sharp
    blurred = cf.differing_pixels(_region("disc", blur=6.0), _region("square", blur=6.0))
    assert blurred < sharp and not cf.visible(blurred, area), blurred


def test_presence_bands_and_the_lower_of_two_bands():
    area = 200
    assert cf.presence(cf.Measured(area, 180, {})) == "visible"
    half = int(cf.MIN_SHARE * area / 2) + 1  # twice it shows, once it does not
    assert cf.presence(cf.Measured(area, half, {})) == "ambiguous"
    assert cf.presence(cf.Measured(area, 2, {})) == "hidden"
    assert cf.lower("visible", "ambiguous") == "ambiguous" and cf.lower("hidden", "visible") == "hidden"


def test_a_change_needs_both_enough_pixels_and_enough_of_the_object():
    assert not cf.visible(cf.MIN_PIXELS - 1, 1)  # a tiny object: the pixel floor decides
    big = 1000
    assert not cf.visible(int(cf.MIN_SHARE * big) - 1, big) and cf.visible(int(cf.MIN_SHARE * big), big)


def test_the_region_is_the_union_widened_by_the_blur_and_kept_in_the_frame():
    assert cf.region([(10, 10, 20, 20), (15, 5, 30, 18), None], blur_px=4.0, size=(64, 48)) == (6, 1, 34, 24)
    assert cf.region([(0, 0, 5, 5)], blur_px=10.0, size=(64, 48)) == (0, 0, 12, 12)
    assert cf.region([None], blur_px=0.0, size=(64, 48)) is None


def test_measurements_round_trip_through_the_legend_and_unmeasured_attributes_are_not_judged():
    m = cf.Measured(120, 130, {"shape": {"sphere": 3, "cube": 90}, "material": {"metal": 40}})
    legend_object = {cf.LEGEND_FIELD: m.to_json()}
    assert cf.measured(legend_object) == m
    assert cf.measured({}) is None
    assert cf.unreadable_values(m, "shape") == ["sphere"]
    assert cf.unreadable_values(m, "shape", ["cube"]) == []
    assert cf.unreadable_values(m, "size") is None


def _legend(*objects) -> dict:
    return {"objects": [{"id": k + 1, "kind": kind, "attributes": {"color": "red", "shape": kind},
                         "visibility": "visible", "visible": True, **({cf.LEGEND_FIELD: m.to_json()} if m else {})}
                        for k, (kind, m) in enumerate(objects)]}


def test_presence_folds_into_the_visibility_band_the_questions_read():
    legend = _legend(("cone", cf.Measured(100, 90, {})), ("cube", cf.Measured(100, 12, {})),
                     ("sphere", cf.Measured(100, 1, {})), ("cylinder", None))
    seen = {o["id"]: (o["visibility"], o["visible"]) for o in seen_as_rendered(legend)["objects"]}
    assert seen == {1: ("visible", True), 2: ("ambiguous", False), 3: ("hidden", False), 4: ("visible", True)}
    # a mask band already lower stays lower
    hidden = _legend(("cone", cf.Measured(100, 90, {})))
    hidden["objects"][0].update(visibility="hidden", visible=False)
    assert seen_as_rendered(hidden)["objects"][0]["visibility"] == "hidden"


@pytest.mark.parametrize("differing, readable", [(2, False), (60, True)])
def test_an_attribute_reads_when_every_alternative_shows(differing, readable):
    objects = _legend(("cone", cf.Measured(150, 150, {"shape": {"sphere": differing, "cube": 140}})))["objects"]
    assert measured_attribute(objects, "shape") and not measured_attribute(objects, "material")
    problem = attribute_unreadable(objects, "shape")
    if readable:
        assert problem is None
    else:
        rule, reason, ids = problem
        assert rule == "shape" and ids == (1,)
        assert "shape cone, would look the same as sphere: 2 px differ" in reason
