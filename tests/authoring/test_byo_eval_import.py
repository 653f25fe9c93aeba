"""`byo import-config`: BYO-Eval's configs (appendix D; the public repository's YAML files) load
as project configs, or fail naming every key without a counterpart."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from byo.authoring.byo_eval_import import import_config
from byo.cli import main
from byo.core.errors import ConfigError
from byo.families import load_config
from byo.scene.plan import image_count, jobs
from byo.scene.spec import sample_spec

DATA = Path(__file__).resolve().parents[1] / "data" / "byo_eval"


def test_the_papers_default_config_fails_naming_what_has_no_counterpart(capsys):
    assert main(["import-config", str(DATA / "paper_default_config.yml")]) == 2
    err = capsys.readouterr().err
    # The table's wood material has no counterpart; it is named with what to use.
    assert "scene.table.texture" in err and "table.color or a texture pack" in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
    # What maps is not named: nothing else is dropped.
    for mapped in ("chess.count_config", "chess.type_config", "scene.camera", "scene.render", "noise.blur",
                   "scene.floor", "scene.lighting"):
        assert mapped not in err


def test_the_default_config_loads_leaving_out_what_is_named(tmp_path, capsys):
    out = tmp_path / "default.yaml"
    assert main(["import-config", str(DATA / "paper_default_config.yml"), "-o", str(out), "--skip-unmapped"]) == 0
    assert "left out" in capsys.readouterr().err  # the console speaks on stderr
    text = out.read_text()
    assert "# Left out: scene.table.texture" in text
    config = yaml.safe_load(text)
    assert config["dataset"] == {"name": "paper_default", "family": "chess", "n_images": 1}
    scene = config["scene"]
    # The authors' presets: a count of medium is 10 pieces, a type preset of medium 4 types.
    assert scene["content"]["count"] == 10 and scene["content"]["n_types"] == 4
    assert scene["content"]["placement"] == {"spread": "medium", "start": "center"}
    assert scene["camera"] == {"distance": "medium", "elevation": "medium", "azimuth": 0.0,
                               "jitter": {"distance": 0.0, "elevation": 0.0},  # randomize_*: false
                               "target": [0.0, 0.0, 0.1]}  # the authors' camera aims 1 m above the floor
    assert scene["resolution"] == [1920, 1080] and scene["render"] == {"engine": "cycles", "samples": 128,
                                                                       "device": "auto"}
    assert scene["table"] == {"shape": "rectangular", "length": 2.0, "width": 1.0, "height": 0.9, "texture": "low"}
    assert scene["floor"] == {"color": [0.8, 0.8, 0.8], "roughness": 0.5}
    assert scene["blur"] == {"fstop": "none", "focus_distance": 10.0}
    assert scene["lighting"] == {"intensity": "medium", "key_power": 300.0, "fill_power": 50.0, "back_power": 50.0}
    assert main(["plan", str(out)]) == 0


def test_appendix_d15s_dataset_config_becomes_variables(tmp_path):
    config, _, skipped, missing, _ = import_config(DATA / "appendix_d15_identification.yml",
                                                   base=DATA / "public_default_config.yml")
    assert not skipped and [k for k, _ in missing] == ["dataset.piece_set"]
    assert config["scene"]["content"]["count"] == 3  # a fixed variable: a value of the scene
    assert config["variables"]["content.types"] == {"type": "varying_random", "choices": [
        ["pawn"], ["rook"], ["knight"], ["bishop"], ["queen"], ["king"]]}
    assert config["variables"]["blur.fstop"]["levels"] == ["none", "very_low", "low", "medium", "high", "very_high"]
    assert config["dataset"]["n_images"] == 10 * 5  # the product of its variables' n_images
    assert image_count(load_config(config)) == 6 * 10 * 5


def test_a_repository_dataset_config_imports_whole(tmp_path):
    config, text, skipped, missing, _ = import_config(DATA / "identification_distance.yml",
                                                      base=DATA / "public_default_config.yml")
    assert not skipped and not missing
    assert config["variables"] == {"camera.distance": {"type": "varying_all",
                                                       "levels": [1.7, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5]}}
    content = config["scene"]["content"]
    assert content["count"] == 1 and content["n_types"] == 1
    # The variables' squares in the base's board: 0.7 m of squares in the authors' 0.2 m wider frame.
    assert content["board"] == {"rows": 8, "columns": 8, "length": 0.9, "width": 0.9, "border": 0.1,
                                "thickness": 0.05, "location": [0.0, 0.0]}
    assert config["scene"]["resolution"] == [1920, 1080] and config["dataset"]["n_images"] == 20
    assert image_count(load_config(config)) == 140


def test_poker_reads_its_base_config():
    config, *_ = import_config(DATA / "poker_variations.yml")
    assert config["dataset"]["family"] == "poker" and config["dataset"]["seed"] == 4242
    assert config["variables"]["content.total_cards"] == {"type": "varying_all_range", "min": 2, "max": 15}
    scene = config["scene"]
    assert scene["camera"] == {"distance": 3.0, "elevation": 70, "azimuth": 0,
                               "jitter": {"distance": 0.0, "elevation": 0.0}, "target": [0.0, 0.0, 0.1]}
    assert scene["table"]["color"] == [0.1, 0.5, 0.2] and scene["resolution"] == [1280, 720]
    assert scene["content"]["n_players"] == 4  # the dataset's variable over its base config's 3
    assert scene["content"]["face_down"] == 0 and scene["content"]["repeat_cards"] is False
    assert scene["content"]["river"]["count"] == [0, 15]  # the authors' dealer: 0 to overall_cards


def test_appendix_a1s_scene_imports_whole(tmp_path, capsys):
    """Appendix A.1's scene YAML: its board, its two explicit pieces, camera, lighting and noise."""
    out = tmp_path / "a1.yaml"
    assert main(["import-config", str(DATA / "appendix_a1_scene.yml"), "-o", str(out)]) == 0
    assert "left out" not in capsys.readouterr().err
    config = yaml.safe_load(out.read_text())
    assert config["dataset"]["family"] == "chess"
    scene = config["scene"]
    assert scene["content"]["board"] == {"rows": 8, "columns": 8, "frame_color": [0.7, 0.6, 0.5]}
    assert scene["content"]["pieces"] == [
        {"type": "king", "cell": [0, 4], "color": {"name": "white", "rgb": [0.9, 0.9, 0.9]}},
        {"type": "queen", "cell": [7, 3], "color": {"name": "black", "rgb": [0.1, 0.1, 0.1]}}]
    assert scene["camera"] == {"distance": "medium", "elevation": 60.0, "azimuth": 0.0,
                               "jitter": {"distance": 0.0, "elevation": 0.0}, "target": [0.0, 0.0, 0.1]}
    assert scene["lighting"] == {"intensity": "high"}
    assert scene["blur"] == {"fstop": "low", "focus_distance": 10.0}
    assert scene["table"] == {"shape": "rectangular", "length": 2.0, "width": 1.0, "height": 0.9,
                              "texture": "medium"}  # the authors' TableModel
    cfg = load_config(config)
    spec = sample_spec(cfg, jobs(cfg)[0])
    assert sorted((o.kind, o.attributes["color"], tuple(o.attributes["cell"])) for o in spec.objects) == [
        ("king", "white", (0, 4)), ("queen", "black", (7, 3))]


def test_the_public_default_config_imports_naming_its_piece_set_as_missing(tmp_path, capsys):
    out = tmp_path / "default.yaml"
    assert main(["import-config", str(DATA / "public_default_config.yml"), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "missing" in err and "old_school" in err and ".blend" in err and "left out" not in err
    text = out.read_text()
    assert "# Missing: dataset.piece_set: piece set 'old_school' is a .blend asset" in text
    config = yaml.safe_load(text)
    scene = config["scene"]
    # The board's 0.7 m of squares in the authors' frame, border_width 0.2 m wider (BoardModel's default).
    assert scene["content"]["board"] == {"length": 0.9, "width": 0.9, "border": 0.1, "thickness": 0.05,
                                         "location": [0.0, 0.0]}
    assert scene["content"]["count"] == 5 and scene["content"]["n_types"] == 1  # the authors' low: 5 pieces
    assert scene["camera"] == {"distance": 2.5, "elevation": 50.0, "azimuth": 0.0,
                               "jitter": {"distance": 0.0, "elevation": 0.0}, "target": [0.0, 0.0, 0.2]}
    assert scene["resolution"] == [1920, 1080] and scene["render"]["samples"] == 4096
    assert scene["table"] == {"shape": "elliptic", "length": 2.5, "width": 1.8, "height": 0.8, "texture": "low"}
    cfg = load_config(config)
    board = sample_spec(cfg, jobs(cfg)[0]).content["board"]
    assert board["square_size"] == pytest.approx(0.7 / 8)


def test_noise_lighting_and_board_colors_map(tmp_path):
    path = tmp_path / "c.yml"
    path.write_text("chess:\n  board_config:\n    rows: 4\n    columns: 4\n    border_width: 0.05\n"
                    "    length: 0.7\n    white_material: {color: [0.9, 0.9, 0.8, 1.0], roughness: 0.3}\n"
                    "noise: {lighting: very_low, light: {lighting: very_low}}\n")
    # A material's roughness has no counterpart: a look only, it imports, named in the mapping table.
    config, _, skipped, _, rows = import_config(path)
    assert not skipped
    (roughness,) = [r for r in rows if r.key == "chess.board_config.white_material.roughness"]
    assert roughness.project == [] and "fixed roughness here" in roughness.line()
    board = config["scene"]["content"]["board"]
    # 0.7 m of squares, the frame 0.05 m wider: 0.025 m each side.
    assert board == {"rows": 4, "columns": 4, "border": 0.025, "length": 0.75, "light_color": [0.9, 0.9, 0.8]}
    assert config["scene"]["lighting"] == {"intensity": "very_low"}
    cfg = load_config(config)
    assert sample_spec(cfg, jobs(cfg)[0]).content["board"]["square_size"] == pytest.approx(0.7 / 4)


@pytest.mark.parametrize("text, problem", [
    ("dataset: {name: x}\nvariables: {chess.count_config: {variate_type: sometimes, variate_levels: 1}}",
     "variables.chess.count_config.variate_type"),
    ("dataset: {name: x}\nvariables: {chess.count_config: {variate_type: varying_all_range, variate_levels: 3}}",
     "expected [min, max]"),
    ("dataset: {name: x}\nvariables: {chess.count_config: {variate_type: fixed, variate_levels: {type: explicit}}}",
     "name each piece under content.pieces"),
    ("camera: {distance: 2}\n", "give `family`"),
    ("dataset: {name: x}\nvariables: {chess.count_config: {variate_type: fixed, variate_levels: -3}}", "content.count"),
    ("board: {length: 0.7, width: 0.5}\n", "squares are square"),
    ("board: {length: 0.0}\n", "leaves no room for squares"),
    ("pieces: [{type: king, position: [0, 4], scale: 0.08}]\n", "pieces[0]: scale: no counterpart"),
    ("pieces: [{type: emperor, position: [0, 4]}]\n", "pieces[0].type"),
    ("pieces: [{type: king, position: [0, 9]}]\n", "off the 8x8 board"),
])
def test_bad_configs_are_named(text, problem, tmp_path):
    (tmp_path / "default_config.yml").write_text((DATA / "public_default_config.yml").read_text())
    path = tmp_path / "c.yml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        import_config(path)
    assert problem in str(err.value)
