"""Crest renders with the bpy wheel: flat (exact to the pixel) and 3D, tiny images."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import crest_config, write_config
from PIL import Image

from byo.families.crest.motifs.grammar import Crest, crest_geometry, layers
from byo.families.crest.motifs.raster import rasterize
from byo.render.executors.inprocess import InProcess
from byo.render.runner import render_dataset
from byo.scene.measure import read_mask
from byo.scene.setup import ResolvedSetup

pytestmark = pytest.mark.render

MODIFIER_LEVELS = ["none", "peeking", "bean", "three_stacked", "bottoms_together", "heads_together"]


def pixels(path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


def legends(out) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((out / "legends").glob("*.json"))]


@pytest.fixture(scope="module")
def flat_pair(tmp_path_factory):
    """The six modifiers on one motif and container, rendered twice."""
    tmp = tmp_path_factory.mktemp("flat")
    cfg = write_config(tmp, crest_config("flat", content={"container": "maru", "motif": "ogi"}, variables={
        "content.modifier": {"type": "varying_all", "levels": MODIFIER_LEVELS}}))
    outs = []
    for name in ("a", "b"):
        report = render_dataset(str(cfg), str(tmp / name), executor=InProcess(), show_progress=False)
        assert not report.failed
        outs.append(tmp / name)
    return outs


def test_flat_crests_are_deterministic_to_the_pixel(flat_pair):
    a, b = flat_pair
    for legend in legends(a):
        assert np.array_equal(pixels(a / legend["image"]), pixels(b / legend["image"]))
        assert np.array_equal(read_mask(a / legend["mask"]), read_mask(b / legend["mask"]))
    assert [lg["objects"] for lg in legends(a)] == [lg["objects"] for lg in legends(b)]


def test_flat_crests_are_two_colors_matching_geometry_mask_and_labels(flat_pair):
    out = flat_pair[0]
    images = []
    for legend in legends(out):
        image = pixels(out / legend["image"])
        assert {tuple(c) for c in image.reshape(-1, 3)} == {(0, 0, 0), (255, 255, 255)}
        ink = image[..., 0] == 0
        mask = read_mask(out / legend["mask"])
        assert (ink != (mask > 0)).sum() <= 0.01 * ink.sum()  # the mask is the drawn crest
        crest = Crest.from_factors(legend["extras"]["crest"])
        assert crest.modifier == legend["levels"]["content.modifier"]
        # The render is the layout's geometry sampled at pixel centres (0.22 m = 2.2 canvas units
        # across the frame): Workbench without anti-aliasing is exact.
        expected = rasterize(crest_geometry(layers(crest)), 64, extent=1.1)
        assert (expected != ink).sum() <= 2, legend["name"]
        for o in legend["objects"]:
            assert o["visible_pixels"] == int((mask == o["id"]).sum()) > 0
        projector = ResolvedSetup.model_validate(legend["setup"]).projector()
        ours = projector.project([o["location"] for o in legend["objects"]])
        assert np.allclose(ours[:, :2], [o["pixel_coords"][:2] for o in legend["objects"]], atol=0.02)
        # Landmarks: the canvas corners, 1 canvas unit = 64 / 2.2 px from the centre.
        corners = np.array(legend["landmarks"]["canvas_corners"])[:, :2]
        assert np.allclose(corners, 32 + 64 / 2.2 * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]), atol=0.02)
        images.append(ink)
    for i in range(len(images)):  # the six modifiers look different
        for j in range(i):
            assert (images[i] != images[j]).sum() > 20
    rows = [json.loads(line) for line in (out / "crest_labels.jsonl").read_text().splitlines()]
    assert [r["kdl"] for r in rows[:3]] == ["丸に扇", "丸に覗き扇", "丸に豆扇"]


def test_3d_presentations_and_a_component_image(tmp_path):
    cfg = crest_config("solid", seed=2, resolution=[64, 48],
                       camera={"projection": "perspective", "distance": 0.75, "elevation": 15.0,
                               "target": [0, 0, 0.15]},
                       render={"engine": "cycles", "samples": 2, "denoise": "off", "dither": 1.0},
                       table={"enabled": True}, floor={"enabled": True},
                       background={"color": [0.5, 0.5, 0.5], "strength": 0.3},
                       content={"presentation": "3d", "container": "maru", "modifier": "three_stacked"},
                       variables={"content.carrier.kind": {"type": "varying_all",
                                                           "levels": ["plaque", "banner", "lantern"]}})
    out = tmp_path / "solid"
    assert not render_dataset(str(write_config(tmp_path, cfg)), str(out), executor=InProcess(),
                              show_progress=False).failed
    for legend in legends(out):
        assert [o["kind"] for o in legend["objects"]] == ["container", "motif", "motif", "motif"]
        assert all(o["visible_pixels"] > 0 for o in legend["objects"])
        image = pixels(out / legend["image"]).astype(float)
        assert image.std() > 10  # a lit scene, not a flat two-colour image
        x0, y0, x1, y1 = legend["objects"][0]["bbox"]
        assert 20 < (x0 + x1) / 2 < 44 and 12 < (y0 + y1) / 2 < 36
    component = crest_config("component", resolution=[48, 48], content={"mode": "container", "container": "kikko"})
    out = tmp_path / "component"
    assert not render_dataset(str(write_config(tmp_path, component, "component.yaml")), str(out), executor=InProcess(),
                              show_progress=False).failed
    (legend,) = legends(out)
    assert legend["extras"]["program"] == "C:10" and legend["objects"][0]["visible_pixels"] > 200
    # A part too small for the image is kept and flagged: the layout cannot move it.
    tiny = crest_config("tiny", resolution=[16, 16], content={"container": "maru", "modifier": "bean",
                                                              "motif": "hitotsuya"})
    out = tmp_path / "tiny"
    assert not render_dataset(str(write_config(tmp_path, tiny, "tiny.yaml")), str(out), executor=InProcess(),
                              show_progress=False).failed
    (legend,) = legends(out)
    assert [o["visible"] for o in legend["objects"]] == [True, False]


def test_crest_sheet_of_a_rendered_dataset(flat_pair, tmp_path):
    from byo.cli import main

    assert main(["crest-sheet", str(flat_pair[0]), "-o", str(tmp_path / "sheet.png"), "--columns", "3"]) == 0
    with Image.open(tmp_path / "sheet.png") as im:
        assert im.width > 3 * 64 and im.height > 2 * 64
