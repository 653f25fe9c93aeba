"""Crest family specs, configs and splits as sampled per image: no bpy needed."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, crest_config, write_config

from byo.cli import main
from byo.core.errors import ConfigError
from byo.families import load_config
from byo.families.crest.motifs import library
from byo.families.crest.motifs.grammar import Crest
from byo.families.crest.motifs.labels import labels, parse_program
from byo.families.crest.motifs.sampling import Sampler
from byo.families.crest.motifs.splits import combination, held_out
from byo.scene.plan import jobs
from byo.scene.spec import SceneSpec, sample_spec

CONFIGS = ROOT / "dataset_configs" / "crest"


def specs(tmp_path, data):
    cfg = load_config(write_config(tmp_path, data))
    return [sample_spec(cfg, j) for j in jobs(cfg)]


@pytest.mark.parametrize("name, images", [("composite", 200), ("composite_3d", 60), ("motif_sensitivity", 144),
                                          ("recombination", 100), ("modifiers", 6), ("components_motif", 200),
                                          ("components_container", 200), ("llm_transcription", 20)])
def test_dataset_configs_plan(name, images, capsys):
    assert main(["plan", str(CONFIGS / f"{name}.yaml"), "--max-rows", "1"]) == 0
    assert f"= {images} images" in capsys.readouterr().out


def test_section_5_5_transcribes_the_first_20_crests_of_composite():
    """KamonBench section 5.5 / Table 14: 20 crests to transcribe, here the first 20 of
    composite.yaml, each with the split it has there, asked for its KDL description."""
    def crests(name):
        cfg = load_config(CONFIGS / f"{name}.yaml")
        return cfg, [sample_spec(cfg, j).extras for j in jobs(cfg)]

    cfg, twenty = crests("llm_transcription")
    _, composite = crests("composite")
    assert len(twenty) == 20
    assert [(e["crest"], e["split"]) for e in twenty] == [(e["crest"], e["split"]) for e in composite[:20]]
    assert cfg.questions.keys == ["describe_kdl"]


def test_spec_objects_labels_and_determinism(tmp_path):
    found = specs(tmp_path, crest_config(n_images=30))
    again = specs(tmp_path, crest_config(n_images=30))
    assert [s.model_dump_json() for s in found] == [s.model_dump_json() for s in again]
    assert SceneSpec.model_validate(json.loads(found[0].model_dump_json())) == found[0]
    for spec in found:
        e = spec.extras
        crest = Crest.from_factors(e["crest"])
        assert parse_program(e["program"]) == crest and labels(crest)["english"] == e["english"] == e["label"]
        copies = 3 if crest.modifier in ("three_stacked", "bottoms_together", "heads_together") else 1
        assert [o.kind for o in spec.objects] == ["container"] * len(crest.containers) + ["motif"] * copies
        assert spec.objects[-1].attributes["component"] == f"M:{crest.motif}"
        assert e["split"] in ("train", "val", "test") and e["presentation"] == "flat"
    assert len({s.extras["program"] for s in found}) > 20


def test_flat_objects_project_where_the_layout_puts_them(tmp_path):
    (spec,) = specs(tmp_path, crest_config(content={"container": "maru", "modifier": "bottoms_together",
                                                    "motif": "ogi"}))
    px = spec.setup.projector().project([o.location for o in spec.objects])
    # 0.22 m across 64 px; canvas unit = 0.1 m; the top copy sits at canvas (0, 0.75 * 0.5).
    assert px[0][:2] == pytest.approx((32, 32))
    assert px[1][:2] == pytest.approx((32, 32 - 0.375 * 0.1 / 0.22 * 64))
    assert [o.rotation for o in spec.objects[1:]] == [0, 120, 240]


def test_3d_carriers_put_the_crest_in_front_of_the_camera(tmp_path):
    data = crest_config(camera={"projection": "perspective", "distance": 0.8, "elevation": 15,
                                "target": [0, 0, 0.15]},
                        render={"engine": "cycles", "samples": 1},
                        content={"presentation": "3d", "container": "maru", "motif": "kikyo",
                                 "modifier": "three_stacked"},
                        variables={"content.carrier.kind": {"type": "varying_all",
                                                            "levels": ["plaque", "banner", "lantern"]}})
    for spec in specs(tmp_path, data):
        px = spec.setup.projector().project([o.location for o in spec.objects])
        # The crest centre is near the camera target (the lantern's face is 13 cm nearer the camera).
        assert px[0][:2] == pytest.approx((32, 32), abs=1.0 if spec.extras["carrier"]["kind"] != "lantern" else 5.0)
        assert px[1][1] < px[2][1] and px[2][0] < px[3][0]  # top copy above, lower-left left of lower-right
        assert spec.extras["carrier"]["kind"] == spec.levels["content.carrier.kind"]


def test_same_seed_same_crests_in_both_presentations(tmp_path):
    flat = load_config(CONFIGS / "composite.yaml")
    solid = load_config(CONFIGS / "composite_3d.yaml")
    for job_flat, job_3d in zip(jobs(flat)[:25], jobs(solid)[:25], strict=True):
        a, b = sample_spec(flat, job_flat), sample_spec(solid, job_3d)
        assert a.extras["crest"] == b.extras["crest"] and a.extras["split"] == b.extras["split"]


def test_recombination_part_draws_only_held_out_combinations(tmp_path):
    found = specs(tmp_path, crest_config(n_images=40, content={"split": {"scheme": "cm", "part": "test"}}))
    held = held_out(Sampler(), "cm")
    for spec in found:
        crest = Crest.from_factors(spec.extras["crest"])
        assert held[combination(crest, "cm")] == "test" == spec.extras["split"]
    train = specs(tmp_path, crest_config(n_images=40, content={"split": {"scheme": "cm", "part": "train"}}))
    assert all(combination(Crest.from_factors(s.extras["crest"]), "cm") not in held for s in train)


def test_component_images(tmp_path):
    found = specs(tmp_path, crest_config(n_images=5, content={"mode": "motif"}))
    for spec in found:
        (obj,) = spec.objects
        assert spec.extras["program"] == obj.attributes["component"] and spec.extras["crest"]["kind"] == "motif"
    (spec,) = specs(tmp_path, crest_config(content={"mode": "container", "container": "kikko"}))
    assert spec.extras["program"] == "C:10" and spec.extras["kdl"] == "亀甲"


def test_ambiguous_arrangements_are_recorded_when_allowed(tmp_path):
    (spec,) = specs(tmp_path, crest_config(content={"ambiguous_arrangements": "allow", "container": "none",
                                                    "modifier": "heads_together", "motif": "kikyo"}))
    assert spec.extras["arrangement_ambiguous"] is True and spec.extras["oriented"] is False


@pytest.mark.parametrize("content, where, message", [
    ({"motif": "kikyou"}, "scene.content.motif", "unknown motif 'kikyou'"),
    ({"container": ["maru", "nope"]}, "scene.content.container", "unknown container 'nope'"),
    ({"motif": 8}, "scene.content.motif", "Input should be a valid string"),
    ({"container": "none", "modifier": "bean"}, "scene.content", "bean and none need a container"),
    ({"container": "none", "modifier": "heads_together", "motif": "kikyo"}, "scene.content", "oriented motif"),
    ({"split": {"scheme": "random", "part": "test"}}, "scene.content.split", "use part: all"),
    ({"split": {"fractions": [0.5, 0.3, 0.3]}}, "scene.content.split", "summing to 1"),
])
def test_config_errors_name_the_key(tmp_path, content, where, message):
    with pytest.raises(ConfigError) as err:
        load_config(write_config(tmp_path, crest_config(content=content)))
    assert any(key == where and message in msg for key, msg in err.value.problems), err.value.problems


def test_3d_presentation_with_flat_defaults_fails_before_rendering(tmp_path, capsys):
    path = write_config(tmp_path, crest_config(content={"presentation": "3d"}))
    assert main(["plan", str(path)]) == 2
    assert "set scene.camera.projection: perspective" in capsys.readouterr().err


def test_library_ids_are_the_program_tokens():
    for m in library.MOTIFS:
        assert parse_program(f"X:3 {m.token}").motif == m.id
