"""The visibility band and the counterfactual check decided on the image as the model receives it."""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from byo.families.base import seen_as_rendered
from byo.questions.received import AS_RENDERED, AT_RECEIVED, at_size, received_floor
from byo.scene import counterfactual as cf


def _region(shape: str, size: int = 48) -> np.ndarray:
    """A region render: a disc or a square (half the region wide) of red ink on mid-grey."""
    yy, xx = np.mgrid[:size, :size] - (size - 1) / 2
    inside = np.hypot(xx, yy) <= size / 4 if shape == "disc" else np.maximum(abs(xx), abs(yy)) <= size / 4 * 0.886
    return np.where(inside[..., None], np.array((200, 40, 40), float), 128.0).round().astype(np.uint8)


def test_a_difference_measured_at_a_received_scale_is_the_rendered_one_resampled():
    disc, square = _region("disc"), _region("square")
    assert cf.at_scale(disc, square, 1.0) == cf.difference(disc, square)  # received whole: as rendered
    # a disc told from a square at its corners: plain at 48 px, gone once a 12 px disc is received
    assert cf.visible(cf.at_scale(disc, square, 1.0)) and not cf.visible(cf.at_scale(disc, square, 0.25))
    blank = np.full_like(disc, 128)
    # a removal is measured at half the object's received pixels: a 1/4-size disc still shows
    assert cf.visible(cf.at_scale(disc, blank, 0.25, removal_area=28))
    assert cf.resampled(disc, 0.25).shape == (12, 12, 3)


def test_the_measurements_at_a_received_size_round_trip_through_the_legend():
    at = cf.AtReceived((96, 54), 27, 9.5, {"type": {"pawn": 3.0}})
    m = cf.Measured(108, 57.2, {"type": {"pawn": 30.0}}, {2: 0.1}, {"openai:gpt-4o": at})
    assert cf.Measured.from_json(m.to_json()) == m
    assert "received" not in cf.Measured(108, 57.2, {}).to_json()  # legends rendered for no model: as before


def _legend(presence: float, received: dict | None, floor: int = 20) -> tuple[dict, np.ndarray, np.ndarray]:
    """A 64x48 image of one 8 x 8 px object (64 mask pixels) whose removal measured `presence`
    as rendered, with `received` (model -> AtReceived) measured on its renders resampled."""
    mask = np.zeros((48, 64), np.uint8)
    mask[20:28, 28:36] = 1
    rgb = np.full((48, 64, 3), 128, np.uint8)
    rgb[mask == 1] = (200, 40, 40)
    check = cf.Measured(64, presence, {"shape": {"cube": 30.0}}, {}, received or {})
    obj = {"id": 1, "kind": "sphere", "attributes": {"shape": "sphere"}, "bbox": [28, 20, 36, 28],
           "pixel_coords": [32.0, 24.0, 5.0], "visible_pixels": 64, "visibility": "visible", "visible": True,
           cf.LEGEND_FIELD: check.to_json()}
    legend = {"width": 64, "height": 48, "setup": {"resolution": [64, 48], "min_visible_pixels": floor,
                                                   "hidden_below_pixels": 5}, "objects": [obj]}
    return legend, rgb, mask


def test_presence_and_attributes_are_decided_on_the_check_measured_at_the_received_size():
    faint = cf.AtReceived((32, 24), 16, cf.MIN_DIFFERENCE * cf.HIDDEN_SHARE / 2, {"shape": {"cube": 2.0}})
    legend, rgb, mask = _legend(40.0, {"m:half": faint})
    small = at_size(legend, rgb, mask, (32, 24))
    assert small.check == AT_RECEIVED
    (o,) = seen_as_rendered(small.legend)["objects"]
    assert o["presence"] == "hidden" and not o["visible"]  # shown as rendered, not as received
    assert cf.measured(o).alternatives == {"shape": {"cube": 2.0}}  # the received shape check, not the rendered
    # another size than the one measured: presence as rendered, the attributes set aside
    other = at_size(legend, rgb, mask, (48, 36))
    assert other.check == AS_RENDERED
    (o,) = seen_as_rendered(other.legend)["objects"]
    assert o["presence"] == "visible" and cf.measured(o).alternatives == {}


def test_the_visibility_band_is_measured_on_the_received_mask():
    legend, rgb, mask = _legend(40.0, None, floor=20)
    (o,) = at_size(legend, rgb, mask, (32, 24)).legend["objects"]
    assert o["visible_pixels"] == 16 and o["visibility"] == "ambiguous"  # 64 px rendered, 16 received; floor 20
    (o,) = at_size(legend, rgb, mask, (16, 12)).legend["objects"]
    assert o["visible_pixels"] == 4 and o["visibility"] == "hidden" and not o["visible"]  # under 5


def test_a_floor_that_is_clevrs_share_of_the_image_is_that_share_of_the_received_one():
    legend, rgb, mask = _legend(40.0, None, floor=8)  # 200 px at 320x240 is 8 px at 64x48
    assert received_floor(legend, (32, 24)) == (2, 1)  # the same share of a quarter of the pixels
    (o,) = at_size(legend, rgb, mask, (32, 24)).legend["objects"]
    assert o["visibility"] == "visible"
    legend["setup"]["min_visible_pixels"] = 9  # a floor of the config's own, in pixels: kept
    assert received_floor(legend, (32, 24))[0] == 9


def test_a_mask_resampled_nearest_keeps_its_ids():
    legend, rgb, mask = _legend(40.0, None)
    small = at_size(legend, rgb, mask, (32, 24))
    assert set(np.unique(small.mask)) == {0, 1} and ndimage.label(small.mask)[1] == 1
