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


def _scene(centres, ink, blur: float, size=(48, 96)) -> np.ndarray:
    """A mid-grey table with 10 px squares of `ink` (one colour per centre) at `centres` (x), in a
    row, blurred by a Gaussian of `blur` px."""
    h, w = size
    image = np.full((h, w, 3), 128.0)
    for x, colour in zip(centres, ink, strict=True):
        image[h // 2 - 5:h // 2 + 5, x - 5:x + 5] = colour
    if blur:
        image = ndimage.gaussian_filter(image, (blur, blur, 0))
    return image.clip(0, 255).round().astype(np.uint8)


def _humps(gap: int, blur: float, ink=((220, 220, 220), (220, 220, 220))):
    """Two squares `gap` px apart (edge to edge): each one's Hump (its region, the difference of
    the image without it, the image there), regions widened by the blur."""
    a, b = 40, 40 + 10 + gap
    both = _scene([a, b], ink, blur)
    pad = int(np.ceil(2 * blur)) + 2
    out = []
    for x, left in ((a, [b]), (b, [a])):
        without = _scene(left, [ink[1] if x == a else ink[0]], blur)
        box = (x - 5 - pad, 24 - 5 - pad, x + 5 + pad, 24 + 5 + pad)
        crop = np.s_[box[1]:box[3], box[0]:box[2]]
        out.append((box, cf.pixel_differences(both[crop], without[crop]), both[crop]))
    return out


def test_two_objects_far_apart_are_told_apart_and_a_blur_merges_them_into_one_hump():
    far = _humps(gap=12, blur=0.0)
    assert cf.merge_ratio(*far) < 0.2
    assert cf.told_apart(cf.merge_ratio(*_humps(gap=12, blur=1.0)))
    merged = cf.merge_ratio(*_humps(gap=4, blur=6.0), pooling=cf.pooling_px(4 * 6.0))
    assert merged >= cf.MAX_MERGE and not cf.told_apart(merged), merged
    # the saddle falls as the gap opens, at one blur
    ratios = [cf.merge_ratio(*_humps(gap, 4.0), pooling=cf.pooling_px(16.0)) for gap in (2, 8, 16, 24)]
    assert ratios == sorted(ratios, reverse=True) and ratios[0] > ratios[-1], ratios


def test_sharp_objects_that_touch_are_told_apart_by_the_edge_between_them_when_their_colours_differ():
    red_blue = ((200, 40, 40), (40, 60, 200))
    assert cf.told_apart(cf.merge_ratio(*_humps(gap=0, blur=0.0, ink=red_blue)))
    assert not cf.told_apart(cf.merge_ratio(*_humps(gap=0, blur=0.0)))  # one white bar: one blob
    # regions that do not overlap are apart without a measurement
    a, b = _humps(gap=12, blur=0.0)
    assert cf.merge_ratio((( 0, 0, 10, 10), *a[1:]), ((20, 20, 30, 30), *b[1:])) == 0.0


def test_the_first_merged_pair_of_the_objects_named_and_merges_round_trip_through_the_legend():
    found = {1: cf.Measured(120, 30.0, {}, {2: 0.9, 3: 0.2}), 2: cf.Measured(100, 25.0, {}, {1: 0.9}),
             3: cf.Measured(80, 20.0, {}, {1: 0.2})}
    assert cf.merged_pair(found) == (1, 2, 0.9)
    assert cf.merged_pair({k: found[k] for k in (1, 3)}) is None  # 2 is not among those counted
    assert cf.merged_pair({1: None, 3: found[3]}) is None
    back = cf.Measured.from_json(found[1].to_json())
    assert back == found[1] and found[1].to_json()[cf.MERGE_FIELD] == {"2": 0.9, "3": 0.2}
    assert cf.MERGE_FIELD not in cf.Measured(10, 20.0, {"shape": {"cube": 30.0}}).to_json()


def test_regions_that_do_not_overlap_share_their_renders_where_that_is_cheaper():
    # a column of 10 px regions 11 px apart: the union adds 110 px per render saved, under the budget
    column = [(0, 0, 10, 10), (0, 21, 10, 31), (0, 42, 10, 52)]
    assert cf.groups(column) == [[0, 1, 2]]
    assert cf.within_budget(column)
    # closer than the margin (half the larger side): they do not share
    assert cf.groups([(0, 0, 10, 10), (0, 14, 10, 24)]) == [[0], [1]]
    # apart but far: the union's empty pixels cost more than the renders saved
    assert cf.groups([(0, 0, 10, 10), (60, 0, 70, 10)]) == [[0], [1]]
    # the greedy colouring, largest first: a region overlapping two of the column takes the
    # third, and the first two share
    boxes = [*column, (0, 5, 10, 25)]
    assert sorted(map(sorted, cf.groups(boxes))) == [[0, 1], [2, 3]]
    assert cf.crop(np.arange(100).reshape(10, 10), (2, 3, 12, 13), (4, 5, 6, 8)).tolist() == [[22, 23], [32, 33], [42, 43]]


@pytest.mark.parametrize(("attribute", "difference", "rank", "blur", "settles"), [
    ("shape", 7.9, cf.TOP_PIXELS, 0.0, True),  # clearly hidden
    ("shape", cf.SETTLED_BELOW, cf.TOP_PIXELS, 0.0, False),  # the band's lower edge: rendered again
    ("shape", cf.MIN_DIFFERENCE, cf.TOP_PIXELS, 0.0, False),
    ("shape", 23.9, cf.TOP_PIXELS, 0.0, False),
    ("shape", cf.SETTLED_FROM, cf.TOP_PIXELS, 0.0, True),  # clearly visible
    ("shape", 40.0, cf.TOP_PIXELS, 9.0, True),  # an attribute's blur does not matter
    (cf.PRESENCE, 30.0, cf.TOP_PIXELS, 0.0, True),
    (cf.PRESENCE, 2.0, cf.TOP_PIXELS, 0.0, False),  # hidden or ambiguous: a second threshold at 7
    (cf.PRESENCE, 30.0, cf.TOP_PIXELS, cf.MERGE_MIN_BLUR_PX, False),  # blurred: kept for the merge maps
    (cf.PRESENCE, 30.0, 12, 0.0, False),  # a small object's rank: noisier than the calibrated one
])
def test_the_first_pass_settles_only_changes_clearly_on_one_side_of_the_threshold(attribute, difference, rank, blur,
                                                                                 settles):
    assert (cf.may_settle(attribute, rank, blur) and cf.settled(attribute, difference)) is settles
