"""The design behind the add-on's panel (byo/authoring/design.py): controls, the values a config shows,
and the config the panel exports. Pure Python."""

from __future__ import annotations

import pytest
import yaml
from conftest import ROOT

from byo.authoring import design
from byo.core.errors import ConfigError
from byo.families import family_names, get_family, load_config

CONFIGS = sorted((ROOT / "dataset_configs").rglob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_every_config_round_trips_through_the_panel(path):
    config = yaml.safe_load(path.read_text())
    family = get_family(config["dataset"]["family"])
    values = design.panel_values(config, family)
    assert design.export_config(config, family.name, values) == config
    variables = {k: design.variable_config(design.variable_fields(v), v) for k, v in config.get("variables", {}).items()}
    assert variables == config.get("variables", {})
    # Fields alone (as the panel holds them) give the same variations once validated.
    rebuilt = design.export_config(config, family.name, values, variables={
        k: design.variable_config(design.variable_fields(v)) for k, v in config.get("variables", {}).items()})
    assert design.summary(rebuilt) == design.summary(config)


def test_changed_controls_are_written_and_presets_kept():
    config = {"dataset": {"name": "d", "family": "chess", "seed": 1}, "scene": {
        "camera": {"distance": "medium", "elevation": "high"}}, "variables": {}}
    values = design.panel_values(config, get_family("chess"))
    assert values["camera.distance"] == 3.0 and values["camera.elevation"] == 30.0
    values["camera.elevation"] = 45.25
    values["camera.azimuth"] = 30.100000381469727  # 30.1 as Blender's 32-bit float property gives it back
    values["content.piece_set"] = "lowpoly_glb"
    values["content.count"] = "[2, 6]"
    values["table.image"] = "table_textures/oak"
    values["resolution"] = [64, 48]
    out = design.export_config(config, "chess", values)
    assert out["scene"] == {"camera": {"distance": "medium", "elevation": 45.25, "azimuth": 30.1},
                            "content": {"piece_set": "lowpoly_glb", "count": [2, 6]},
                            "table": {"image": {"pack": "table_textures", "texture": "oak"}},
                            "resolution": [64, 48]}
    load_config(out)
    assert design.panel_values(out, get_family("chess"))["table.image"] == "table_textures/oak"


def test_a_value_the_choices_cannot_show_is_kept_as_in_the_config():
    config = {"dataset": {"name": "d", "family": "clevr"}, "scene": {
        "blur": {"fstop": 2.8}, "table": {"color": [0.1, 0.2, 0.3]}}}
    values = design.panel_values(config, get_family("clevr"))
    assert values["blur.fstop"] == values["table.color"] == design.KEEP
    assert design.export_config(config, "clevr", values)["scene"] == config["scene"]


def test_switching_the_family_starts_its_content_from_defaults():
    config = yaml.safe_load((ROOT / "dataset_configs" / "chess" / "count.yaml").read_text())
    out = design.export_config(config, "clevr", {})
    assert out["dataset"]["family"] == "clevr" and "content" not in out["scene"] and out["variables"] == {}
    assert out["scene"]["render"] == config["scene"]["render"]
    load_config(out)


@pytest.mark.parametrize("family", family_names())
def test_marking_any_control_as_a_variable_gives_a_valid_experiment(family):
    fam = get_family(family)
    config = design.new_config(family)
    values = design.panel_values(config, fam)
    for control in design.controls(fam):
        variation = design.suggested_variable(config, control)
        out = design.export_config(config, family, values, variables={control.key: variation})
        try:
            count, how = design.summary(out)
        except ConfigError as err:
            pytest.fail(f"{control.key}: {variation}: {err}")
        assert count >= 1, (control.key, how)


def test_the_image_count_and_a_bad_design_say_what_they_are():
    config = design.new_config("clevr", "exp")
    config["variables"] = {"camera.distance": {"type": "varying_all", "levels": ["low", "high"]},
                           "content.count": {"type": "varying_all_range", "min": 3, "max": 5}}
    config["dataset"]["n_images"] = 4
    assert design.summary(config) == (24, "6 combinations x 4 images")
    config["variables"]["camera.distance"]["levels"] = ["near"]
    with pytest.raises(ConfigError, match="camera distance"):
        design.summary(config)


def test_variable_fields_edit_into_a_new_variation():
    original = {"type": "varying_among_range", "min": 0, "max": 360}
    fields = design.variable_fields(original)
    assert fields["integer"] is True and design.variable_config(fields, original) == original
    fields["integer"] = False
    assert design.variable_config(fields, original) == {"type": "varying_among_range", "min": 0.0, "max": 360.0,
                                                          "integer": False}
    fields = design.variable_fields({"type": "varying_all", "levels": ["low", "high"]})
    fields["levels"] = "[low, medium, high]"
    assert design.variable_config(fields) == {"type": "varying_all", "levels": ["low", "medium", "high"]}
    fields.update(type="varying_all_range", min=0.5, max=1.5, step=0.25)
    assert design.variable_config(fields) == {"type": "varying_all_range", "min": 0.5, "max": 1.5, "step": 0.25}


def test_content_controls_follow_the_family_model():
    chess = {c.key: c for c in design.content_controls(get_family("chess"))}
    assert chess["content.board.rows"].kind == "int" and (chess["content.board.rows"].minimum,
                                                          chess["content.board.rows"].maximum) == (1, 12)
    assert chess["content.piece_set"].kind == "pack" and "lowpoly_glb" in chess["content.piece_set"].options()
    assert chess["content.style"].choices == ("staunton", "stylised")
    crest = {c.key: c for c in design.content_controls(get_family("crest"))}
    # The modifier may be "none" (no modifier) or unset (drawn): two different options.
    assert crest["content.modifier"].options()[:2] == [design.NULL, "none"]
    table = next(c for c in design.SETUP_CONTROLS if c.key == "table.image")
    assert {"table_textures", "table_textures/red_gingham"} <= set(table.options())


def test_a_family_of_its_own_gets_controls_from_its_content_model():
    from typing import Literal

    from pydantic import Field

    from byo.core.schema import Strict
    from byo.families.base import Family

    class Tiles(Strict):
        rows: int = Field(3, ge=1, le=9)
        glaze: Literal["matte", "gloss"] = "matte"
        colors: list[str] = ["red"]

    class TileFamily(Family):
        name, content_model = "tiles", Tiles

    kinds = {c.key: (c.kind, c.minimum, c.maximum) for c in design.content_controls(TileFamily())}
    assert kinds == {"content.rows": ("int", 1, 9), "content.glaze": ("choice", None, None),
                     "content.colors": ("text", None, None)}
    TileFamily.design_keys = ("glaze",)
    assert [c.key for c in design.content_controls(TileFamily())] == ["content.glaze"]
