"""CLEVR-style specs, splits, relations and the camera math: pure Python."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from conftest import clevr_config, write_config

from byo.core.errors import ConfigError
from byo.families import load_config
from byo.families.clevr.model import object_label_split, relation_label_split
from byo.scene.camera import Projector, orbit_location
from byo.scene.plan import jobs
from byo.scene.spec import SceneSpec, sample_spec


def specs(tmp_path, n=20, **kw):
    cfg = load_config(write_config(tmp_path, clevr_config(n_images=n, **kw)))
    family = cfg.family
    return [sample_spec(cfg, j) for j in jobs(cfg)], cfg, family


def test_spec_is_plain_serializable_and_deterministic(tmp_path):
    first, cfg, family = specs(tmp_path, n=3)
    again = [sample_spec(cfg, j) for j in reversed(jobs(cfg))][::-1]
    dumped = [s.model_dump_json() for s in first]
    assert dumped == [s.model_dump_json() for s in again]
    assert SceneSpec.model_validate(json.loads(dumped[0])) == first[0]


def test_retry_attempt_moves_objects_but_keeps_what_they_are(tmp_path):
    _, cfg, family = specs(tmp_path, n=1)
    job = jobs(cfg)[0]
    a, b = sample_spec(cfg, job, 0), sample_spec(cfg, job, 1)
    assert [o.attributes for o in a.objects] == [o.attributes for o in b.objects]
    assert [o.location for o in a.objects] != [o.location for o in b.objects]
    assert a.setup == b.setup


def test_presets_resolve_and_blur_focuses_in_front_of_the_scene(tmp_path):
    (spec,), _, _ = specs(tmp_path, n=1, camera={"distance": "high", "elevation": "medium", "azimuth": 0},
                          blur={"fstop": "very_high"}, lighting={"intensity": "low"})
    cam = spec.setup.camera
    assert (cam.distance, cam.elevation) == (5.0, 60.0)
    assert spec.setup.blur.fstop == 0.5
    assert spec.setup.blur.focus_distance == pytest.approx(2.5)  # half the way to the scene centre
    assert spec.setup.lighting_multiplier == 0.6


def test_camera_jitter_is_seeded_and_bounded(tmp_path):
    found, _, _ = specs(tmp_path, n=10, camera={"distance": 2.0, "jitter": {"distance": 0.1, "azimuth": 15}})
    distances = [s.setup.camera.distance for s in found]
    assert len(set(distances)) == 10 and all(1.8 <= d <= 2.2 for d in distances)


def test_projector_centres_the_target_and_orients_left_right():
    loc = orbit_location((0, 0, 0), 3.0, 30.0, 0.0)
    proj = Projector(loc, (0, 0, 0), 0.0, 50.0, 36.0, (640, 480))
    centre, right_pt, up_pt = proj.project([(0, 0, 0), (0.5, 0, 0), (0, 0, 0.5)])
    assert centre[:2] == pytest.approx((320, 240))
    assert right_pt[0] > 320 and up_pt[1] < 240  # +x appears right, +z appears up
    proj_back = Projector(orbit_location((0, 0, 0), 3.0, 30.0, 180.0), (0, 0, 0), 180.0, 50.0, 36.0, (640, 480))
    assert proj_back.project([(0.5, 0, 0)])[0][0] < 320  # from the other side +x is on the left


def test_relationships_follow_projected_x(tmp_path):
    found, _, _ = specs(tmp_path, n=15, content={"mode": "random", "count": [3, 10]},
                        camera={"azimuth": 0, "elevation": 30})
    for spec in found:
        px = spec.setup.projector().project([o.location for o in spec.objects])[:, 0]
        rel = spec.extras["relationships"]
        coords = np.array([o.location for o in spec.objects])
        left = np.array(spec.extras["directions"]["left"])
        for i, j in itertools.permutations(range(len(spec.objects)), 2):
            assert (j in rel["left"][i]) == (px[j] < px[i])
            # CLEVR's own rule (3D direction, eps 0.2 CLEVR units) gives the same answer.
            assert (j in rel["left"][i]) == ((coords[j] - coords[i]) @ left / spec.extras["scale"] > 0.2)
            assert (j in rel["right"][i]) == (px[j] > px[i])
            assert abs(px[i] - px[j]) >= 0.01 * 64  # x_margin keeps every pair apart


def test_relational_label_matches_the_view(tmp_path):
    found, _, _ = specs(tmp_path, n=20, content={"mode": "relational", "extent": 1.5, "sizes": ["large"]},
                        variables={"camera.azimuth": {"type": "varying_among_range", "min": 0.0, "max": 360.0}})
    for spec in found:
        px = spec.setup.projector().project([o.location for o in spec.objects])[:, 0]
        left, right = spec.extras["left_to_right"]
        assert spec.objects[0].kind == left and spec.objects[1].kind == right and left != right
        assert px[0] < px[1]
        assert spec.extras["labels"][0] == f"{left} left {right}"


@pytest.mark.parametrize("split", ["train", "ood_val", "ood_test"])
def test_split_content_only_uses_that_splits_labels(tmp_path, split):
    found, _, _ = specs(tmp_path, n=25, content={"mode": "single_object", "split": split, "extent": 1.0})
    for spec in found:
        o = spec.objects[0]
        assert object_label_split(o.attributes["color"], o.kind) == split == spec.extras["label_split"]
    found, _, _ = specs(tmp_path, n=25, content={"mode": "two_object", "split": split, "extent": 1.5})
    for spec in found:  # both objects from the split: no OOD-val object in an OOD-test image
        a, b = spec.objects
        assert a.kind != b.kind and a.attributes["color"] != b.attributes["color"]
        assert object_label_split(a.attributes["color"], a.kind) == object_label_split(b.attributes["color"], b.kind)
        assert spec.extras["label_split"] == split == object_label_split(a.attributes["color"], a.kind)
    found, _, _ = specs(tmp_path, n=25, content={"mode": "relational", "split": split, "extent": 1.5})
    for spec in found:  # the arrangement of a label of the split; the split's phrasings of it
        left, right = spec.extras["left_to_right"]
        assert spec.extras["split_labels"] and spec.extras["label_split"] == split
        assert set(spec.extras["split_labels"]) <= {f"{left} left {right}", f"{right} right {left}"}
        assert all(relation_label_split(label) == split for label in spec.extras["split_labels"])


def test_a_custom_color_has_no_study_split(tmp_path):
    content = {"mode": "single_object", "split": "ood_test", "colors": ["red", {"name": "orange", "rgb": [1, 0.5, 0]}]}
    with pytest.raises(ConfigError, match="orange belong to no split"):
        specs(tmp_path, n=1, content=content)


def test_color_binding_uses_distinct_shapes_and_colors(tmp_path):
    found, _, _ = specs(tmp_path, n=10, content={"mode": "color_binding", "count": 3, "extent": 2.0})
    for spec in found:
        assert len({o.kind for o in spec.objects}) == 3 == len({o.attributes["color"] for o in spec.objects})
        px = spec.setup.projector().project([o.location for o in spec.objects])[:, 0]
        by_x = [spec.objects[k] for k in np.argsort(px)]
        assert spec.extras["binding_left_to_right"] == [
            {"color": o.attributes["color"], "shape": o.kind} for o in by_x]


def test_explicit_objects_keep_their_positions(tmp_path):
    content = {"mode": "objects", "objects": [
        {"shape": "cube", "color": "red", "position": [-1.5, 0.0], "rotation": 10},
        {"shape": "cone", "color": {"name": "orange", "rgb": [1.0, 0.5, 0.0]}, "size": "small",
         "material": "metal", "position": [1.5, 0.5]}]}
    (spec,), _, _ = specs(tmp_path, n=1, content=content)
    assert spec.objects[0].location[:2] == (-0.15, 0.0) and spec.objects[0].rotation == 10
    assert spec.objects[1].attributes["rgb"] == [1.0, 0.5, 0.0]
    assert spec.objects[1].location[2] == pytest.approx(0.035)  # rests on the ground


def test_orthographic_projection_ignores_depth():
    loc = orbit_location((0, 0, 0), 3.0, 90.0, 0.0)  # straight down; image up is +y
    proj = Projector(loc, (0, 0, 0), 0.0, 50.0, 36.0, (200, 100), ortho_scale=2.0)
    centre, right_edge, up, low_point = proj.project([(0, 0, 0), (1.0, 0, 0), (0, 0.25, 0), (0.5, 0, -2.0)])
    assert centre[:2] == pytest.approx((100, 50)) and right_edge[0] == pytest.approx(200)  # 2 m span the width
    assert up[1] == pytest.approx(50 - 0.25 * 100)  # square pixels: 100 px per metre both ways
    assert low_point[0] == pytest.approx(150) and low_point[2] == pytest.approx(5.0)  # depth changes no pixel
