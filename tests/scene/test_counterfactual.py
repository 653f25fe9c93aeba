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


def test_a_render_against_itself_differs_nowhere_and_faint_grain_stays_below_a_visible_change():
    assert cf.difference(_region("disc"), _region("disc")) == 0
    # grain of 3 grey levels drawn afresh in each (a render's own grain: tests/render/test_counterfactual.py)
    noisy = cf.difference(_region("disc", grain=3.0, seed=1), _region("disc", grain=3.0, seed=2))
    assert 0 < noisy < cf.MIN_DIFFERENCE, noisy


def test_a_disc_and_a_square_differ_at_their_corners_until_a_blur_hides_them():
    sharp = cf.difference(_region("disc"), _region("square"))
    assert cf.visible(sharp), sharp
    blurred = cf.difference(_region("disc", blur=4.0), _region("square", blur=4.0))
    assert blurred < sharp and not cf.visible(blurred), blurred


def test_a_change_of_a_few_pixels_or_of_a_faint_shade_does_not_show():
    # the same square a shade darker: every one of its pixels changes, each by a faint shade
    assert not cf.visible(cf.difference(_region("square"), _region("square", ink=(196, 44, 44))))
    few = _region("disc")
    few[20:22, 20:22] = 255  # four pixels turned white: fewer than TOP_PIXELS change
    assert cf.difference(_region("disc"), few) < cf.MIN_DIFFERENCE
    assert cf.difference(_region("disc"), few, top=4) >= cf.MIN_DIFFERENCE  # ... though each plainly


def test_a_small_object_shows_when_half_of_it_changes():
    assert cf.presence_rank(1000) == cf.TOP_PIXELS
    assert cf.presence_rank(23) == 12 and cf.presence_rank(1) == 1


def test_presence_bands_and_the_lower_of_two_bands():
    assert cf.presence(cf.Measured(200, cf.MIN_DIFFERENCE + 5, {})) == "visible"
    assert cf.presence(cf.Measured(200, cf.MIN_DIFFERENCE * (1 + cf.HIDDEN_SHARE) / 2, {})) == "ambiguous"
    assert cf.presence(cf.Measured(200, cf.MIN_DIFFERENCE * cf.HIDDEN_SHARE / 2, {})) == "hidden"
    assert cf.lower("visible", "ambiguous") == "ambiguous" and cf.lower("hidden", "visible") == "hidden"


def test_the_region_is_the_union_widened_by_the_blur_and_kept_in_the_frame():
    assert cf.region([(10, 10, 20, 20), (15, 5, 30, 18), None], blur_px=4.0, size=(64, 48)) == (6, 1, 34, 24)
    assert cf.region([(0, 0, 5, 5)], blur_px=10.0, size=(64, 48)) == (0, 0, 12, 12)
    assert cf.region([None], blur_px=0.0, size=(64, 48)) is None


def test_measurements_round_trip_through_the_legend_and_unmeasured_attributes_are_not_judged():
    m = cf.Measured(120, 41.5, {"shape": {"sphere": 3.2, "cube": 38.0}, "material": {"metal": 25.1}})
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
    shows, faint = cf.MIN_DIFFERENCE + 10, cf.MIN_DIFFERENCE * (1 + cf.HIDDEN_SHARE) / 2
    legend = _legend(("cone", cf.Measured(100, shows, {})), ("cube", cf.Measured(100, faint, {})),
                     ("sphere", cf.Measured(100, 1.0, {})), ("cylinder", None))
    seen = {o["id"]: (o["visibility"], o["visible"]) for o in seen_as_rendered(legend)["objects"]}
    assert seen == {1: ("visible", True), 2: ("ambiguous", False), 3: ("hidden", False), 4: ("visible", True)}
    # a mask band already lower stays lower
    hidden = _legend(("cone", cf.Measured(100, shows, {})))
    hidden["objects"][0].update(visibility="hidden", visible=False)
    assert seen_as_rendered(hidden)["objects"][0]["visibility"] == "hidden"


@pytest.mark.parametrize("difference, readable", [(2.0, False), (60.0, True)])
def test_an_attribute_reads_when_every_alternative_shows(difference, readable):
    objects = _legend(("cone", cf.Measured(150, 50.0, {"shape": {"sphere": difference, "cube": 45.0}})))["objects"]
    assert measured_attribute(objects, "shape") and not measured_attribute(objects, "material")
    problem = attribute_unreadable(objects, "shape")
    if readable:
        assert problem is None
    else:
        rule, reason, ids = problem
        assert rule == "shape" and ids == (1,)
        assert "shape cone, would look the same as sphere: difference 2 < " in reason
