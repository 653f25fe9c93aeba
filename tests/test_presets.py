"""Variables given by presets: each preset stands for a number (degrees, metres, 1 / f-number, a
light multiplier) that tables, plots and sheets show beside its name and curves are fitted on;
camera elevation's presets go by names that read the right way, the old ones with a note."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import clevr_config, write_config

from byo.cli import main
from byo.scene.setup import (
    CAMERA_ELEVATION,
    CameraConfig,
    PresetRenamed,
    SetupConfig,
    level_label,
    preset_number,
    resolve_setup,
)
from byo.score.tables import Levels


def test_elevation_presets_rise_with_their_names_and_the_old_names_still_work_with_a_note():
    assert list(CAMERA_ELEVATION.items()) == [("top_down", 90.0), ("steep", 80.0), ("oblique", 60.0),
                                              ("shallow", 30.0)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = CameraConfig(elevation="high")
    assert old.elevation == "shallow"
    assert [str(w.message) for w in caught if issubclass(w.category, PresetRenamed)] == [
        "camera.elevation 'high' is now 'shallow' (30 degrees above the horizon): BYO-Eval's names count the tilt "
        "from top-down"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a current name says nothing
        setup = SetupConfig(camera=CameraConfig(elevation="shallow"))
        assert resolve_setup(setup, np.random.default_rng(0)).camera.elevation == 30.0


@pytest.mark.parametrize("variable, level, number, label", [
    ("camera.elevation", "shallow", 30.0, "shallow (30°)"), ("camera.elevation", "none", 90.0, "none (90°)"),
    ("camera.distance", "low", 1.0, "low (1 m)"), ("lighting.intensity", "very_low", 0.3, "very_low (×0.3)"),
    ("blur.fstop", "high", 1.0, "high (f/1)"), ("blur.fstop", "very_low", 1 / 9, "very_low (f/9)"),
    ("blur.fstop", "none", 0.0, "none (no blur)"), ("camera.elevation", 45, None, "45"),
    ("content.count", "high", None, "high")])
def test_a_preset_is_a_number_with_its_name(variable, level, number, label):
    assert preset_number(variable, level) == (pytest.approx(number) if number is not None else None)
    assert level_label(variable, level) == label


def test_tables_order_presets_by_value_and_name_them_with_it():
    rows = [{"levels": {"camera.elevation": e, "blur.fstop": b}} for e, b in
            (("top_down", "none"), ("high", "very_high"), ("oblique", "low"))]
    levels = Levels(rows)
    assert levels.order["camera.elevation"] == ["high (30°)", "oblique (60°)", "top_down (90°)"]
    assert levels.order["blur.fstop"] == ["none (no blur)", "low (f/4)", "very_high (f/0.5)"]
    assert levels.of(rows[1], "camera.elevation") == "high (30°)"


def test_byo_plan_shows_values_beside_preset_names_and_notes_old_names(tmp_path, capsys):
    config = write_config(tmp_path, clevr_config(camera={"elevation": "medium"}, variables={
        "camera.elevation": {"type": "varying_all", "levels": ["none", "shallow"]}}))
    assert main(["plan", str(config), "--no-sample"]) == 0
    out, err = capsys.readouterr()
    assert "none (90°)" in out and "shallow (30°)" in out
    notes = [line for line in err.splitlines() if line.startswith("note: camera.elevation")]
    assert notes == ["note: camera.elevation 'medium' is now 'oblique' (60 degrees above the horizon): BYO-Eval's "
                     "names count the tilt from top-down",
                     "note: camera.elevation 'none' is now 'top_down' (90 degrees above the horizon): BYO-Eval's "
                     "names count the tilt from top-down"]
