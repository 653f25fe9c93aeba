"""Visibility is counted in pixels of the image as rendered (byo/scene/measure.py). A family's own
floor (chess, poker) is the same number of mask pixels at 640x360 and at 1920x1080; without one,
the floor is CLEVR's 200 px at 320x240 scaled with the image's area, unless the config sets
render.min_visible_pixels; a config that gives a share of the image is told so. A quick render (--quality, --resolution) renders a
config written at full size smaller, and says so in the dataset."""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml
from conftest import write_config

from byo.cli import main
from byo.core.errors import ConfigError
from byo.families import get_family, load_config
from byo.families.chess.model import MIN_VISIBLE_PIXELS as CHESS_PIXELS
from byo.families.poker.model import MIN_VISIBLE_PIXELS as POKER_PIXELS
from byo.scene.config import quick_config
from byo.scene.measure import AMBIGUOUS, HIDDEN, MIN_VISIBLE_PIXELS, VISIBLE, visibility
from byo.scene.plan import jobs
from byo.scene.spec import sample_spec


def chess(resolution, **render) -> dict:
    return {"dataset": {"name": "vis", "family": "chess", "seed": 1, "n_images": 1},
            "scene": {"resolution": resolution, "render": render, "content": {"count": 2}}}


@pytest.mark.parametrize("family, pixels", [("chess", CHESS_PIXELS), ("poker", POKER_PIXELS)])
def test_a_familys_own_threshold_is_the_same_number_of_pixels_at_every_size(family, pixels):
    for size in ([320, 240], [640, 360], [1920, 1080]):
        cfg = load_config({"dataset": {"name": "v", "family": family, "seed": 1, "n_images": 1},
                           "scene": {"resolution": size}})
        setup = sample_spec(cfg, jobs(cfg)[0]).setup
        assert setup.resolution == tuple(size)
        assert setup.min_visible_pixels == pixels
        assert setup.hidden_below_pixels == max(1, round(0.25 * pixels))


@pytest.mark.parametrize("size, pixels", [([320, 240], 200), ([240, 180], 112), ([224, 224], 131),
                                          ([640, 480], 800), ([64, 48], 8), ([1, 1], 1)])
def test_clevrs_floor_is_its_share_of_the_image(size, pixels):
    """CLEVR's generator asks 200 px of its 320x240 image; any other size is asked the same share."""
    cfg = load_config({"dataset": {"name": "v", "family": "clevr", "seed": 1, "n_images": 1},
                       "scene": {"resolution": size}})
    setup = sample_spec(cfg, jobs(cfg)[0]).setup
    assert (setup.min_visible_pixels, setup.render.min_visible_pixels) == (pixels, pixels)
    assert setup.hidden_below_pixels == max(1, round(0.25 * pixels))


def test_a_floor_the_config_sets_is_kept_at_every_size():
    for size in ([240, 180], [640, 480]):
        cfg = load_config({"dataset": {"name": "v", "family": "clevr", "seed": 1, "n_images": 1},
                           "scene": {"resolution": size, "render": {"min_visible_pixels": 50}}})
        assert sample_spec(cfg, jobs(cfg)[0]).setup.min_visible_pixels == 50


def test_a_resolution_variable_moves_the_floor_with_each_image():
    cfg = load_config({"dataset": {"name": "v", "family": "clevr", "seed": 1, "n_images": 1},
                       "variables": {"resolution": {"type": "varying_all", "levels": [[240, 180], [640, 480]]}}})
    assert [sample_spec(cfg, job).setup.min_visible_pixels for job in jobs(cfg)] == [112, 800]


@pytest.mark.parametrize("value, expected", [(0, "greater than or equal to 1"), ("lots", "valid integer"),
                                             (1.5, "expected a whole number")])
def test_a_bad_floor_is_one_line_naming_the_file_and_key(value, expected, tmp_path, capsys):
    data = {"dataset": {"name": "v", "family": "clevr", "seed": 1, "n_images": 1},
            "scene": {"resolution": [240, 180], "render": {"min_visible_pixels": value}}}
    path = write_config(tmp_path, data)
    assert main(["plan", str(path), "--no-sample"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err and "scene.render.min_visible_pixels" in err
    assert expected in err and "Traceback" not in err


def test_the_band_reads_pixels():
    assert MIN_VISIBLE_PIXELS == 200  # CLEVR's generator's absolute minimum
    assert [visibility(n, 46, 12) for n in (46, 45, 12, 11)] == [VISIBLE, AMBIGUOUS, AMBIGUOUS, HIDDEN]


def test_a_piece_too_small_at_640x360_is_seen_at_1920x1080():
    """The same scene at three times the size: a piece's pixels grow nine-fold, the threshold does not."""
    cfg = load_config(chess([640, 360]))
    small = sample_spec(cfg, jobs(cfg)[0])
    big_cfg = load_config(chess([1920, 1080]))
    big = sample_spec(big_cfg, jobs(big_cfg)[0])
    assert [o.location for o in small.objects] == [o.location for o in big.objects]
    assert small.setup.min_visible_pixels == big.setup.min_visible_pixels  # a fraction would be 9x larger


def test_a_share_of_the_image_is_refused_with_what_to_write(tmp_path, capsys):
    path = write_config(tmp_path, chess([640, 360], min_visible_fraction=0.0002))
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert "scene.render" in str(err.value) and "render.min_visible_pixels" in str(err.value)
    assert main(["plan", str(path)]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_families_state_their_threshold_in_pixels():
    for name, pixels in (("chess", CHESS_PIXELS), ("poker", POKER_PIXELS)):
        assert get_family(name).default_scene["render"]["min_visible_pixels"] == pixels


# --- a quick render of a full-size config ---------------------------------------------------------
def test_a_quick_config_replaces_resolution_and_quality(tmp_path):
    path = write_config(tmp_path, chess("high"))
    data = quick_config(path, quality="draft", resolution="640x360")
    assert data["scene"]["resolution"] == [640, 360] and data["scene"]["render"]["quality"] == "draft"
    assert yaml.safe_load(path.read_text())["scene"]["resolution"] == "high"  # the file is left as it is
    assert quick_config(path, resolution="low")["scene"]["resolution"] == "low"
    setup = sample_spec(cfg := load_config(data), jobs(cfg)[0]).setup
    assert setup.resolution == (640, 360) and setup.render.samples < load_config(path).scene["render"].get(
        "samples", 64)


@pytest.mark.parametrize("value", ["640", "640x", "x360", "0x360", "big", "640x360x2"])
def test_a_bad_resolution_is_named(value, tmp_path, capsys):
    path = write_config(tmp_path, chess("high"))
    assert main(["plan", str(path), "--resolution", value]) == 2
    err = capsys.readouterr().err
    assert "--resolution" in err and "WIDTHxHEIGHT" in err and "Traceback" not in err


def test_a_varied_resolution_is_not_silently_overridden(tmp_path):
    data = chess("high")
    data["variables"] = {"resolution": {"type": "varying_all", "levels": ["low", "high"]}}
    with pytest.raises(ConfigError) as err:
        quick_config(write_config(tmp_path, data), resolution="640x360")
    assert "variables.resolution" in str(err.value)


def test_plan_shows_the_quick_config(tmp_path, capsys):
    path = write_config(tmp_path, chess("high"))
    assert main(["plan", str(path), "--resolution", "320x180", "--quality", "draft", "--no-sample"]) == 0
    assert "1 images" in capsys.readouterr().out


@pytest.mark.render
def test_a_quick_render_records_its_size(tmp_path):
    path = write_config(tmp_path, chess("high", engine="workbench"))
    out = tmp_path / "out"
    assert main(["render", str(path), "-o", str(out), "--resolution", "96x54", "--quality", "draft",
                 "--in-process"]) == 0
    (legend,) = [json.loads(p.read_text()) for p in (out / "legends").glob("*.json")]
    assert [legend["width"], legend["height"]] == [96, 54] and legend["setup"]["render"]["quality"] == "draft"
    assert yaml.safe_load((out / "config.yaml").read_text())["scene"]["resolution"] == [96, 54]
    assert np.asarray(legend["setup"]["resolution"]).tolist() == [96, 54]
