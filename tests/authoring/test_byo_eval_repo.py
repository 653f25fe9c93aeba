"""`byo import-config` on BYO-Eval's own 20 configs (byoeval/BYO-EVAL, vendored in
tests/data/byo_eval_repo/ with its licence): each imports over its base config as the authors'
generator lays it, says what every key became, and plans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from byo.authoring.byo_eval_import import import_config
from byo.cli import main
from byo.families import load_config
from byo.scene.plan import jobs
from byo.scene.spec import sample_spec

REPO = Path(__file__).resolve().parents[1] / "data" / "byo_eval_repo"
CHESS = REPO / "chess" / "dataset" / "dataset_configs"
POKER = REPO / "poker" / "dataset" / "dataset_configs"
CONFIGS = sorted(REPO.rglob("*.yml"))
# The examples run with the authors' --default-config: the base of their family.
BASE = {"chess_example.yml": CHESS / "default_config.yml", "poker_example.yml": POKER / "default_config.yml"}


def test_the_repository_ships_twenty_configs_and_its_licence():
    assert len(CONFIGS) == 20
    assert "MIT License" in (REPO / "LICENSE").read_text()


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_config_imports_and_plans(config, tmp_path, capsys):
    out = tmp_path / "imported.yaml"
    base = ["--base", str(BASE[config.name])] if config.name in BASE else []
    assert main(["import-config", str(config), "-o", str(out), *base]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "left out" not in err
    assert yaml.safe_load(out.read_text())["questions"] == {"unreadable": "flag"}
    assert main(["plan", str(out)]) == 0  # every scene sampled (placements that cannot be met fail here)


def _default(path: str):
    """A value of the authors' chess default_config.yml, read from the vendored file."""
    node = yaml.safe_load((CHESS / "default_config.yml").read_text())
    for part in path.split("."):
        node = node[part]
    return node


def test_a_chess_dataset_config_renders_the_authors_default_scene():
    """identification.yml sets only the pieces and the board's squares: the camera, board, table,
    resolution and blur focus are the base config's (and their models')."""
    config, *_ = import_config(CHESS / "identification.yml")
    cfg = load_config(config)
    spec = sample_spec(cfg, jobs(cfg)[0])
    setup = spec.setup
    assert setup.camera.distance == pytest.approx(_default("scene.camera.distance"))
    assert setup.camera.elevation == pytest.approx(_default("scene.camera.angle"))
    assert setup.camera.azimuth == pytest.approx(_default("scene.camera.horizontal_angle"))
    # The authors' camera aims at (0, 0, 1 m) above the floor: here, above the table top.
    table = _default("scene.table")
    assert setup.camera.target[2] == pytest.approx(1.0 - table["height"])
    assert (setup.table.shape, setup.table.length, setup.table.width, setup.table.height) == (
        table["shape"], pytest.approx(table["length"]), pytest.approx(table["width"]), pytest.approx(table["height"]))
    # The authors' board (chess/board.py): its length and width are the squares', the frame 0.2 m
    # wider (BoardModel's border_width).
    board = spec.content["board"]
    assert board["square_size"] * board["columns"] == pytest.approx(_default("chess.board_config.width"))
    assert board["square_size"] * board["rows"] == pytest.approx(_default("chess.board_config.length"))
    assert board["length"] == pytest.approx(_default("chess.board_config.length") + 0.2)
    assert board["thickness"] == pytest.approx(_default("chess.board_config.thickness"))
    render = _default("scene.render")
    assert tuple(setup.resolution) == (render["resolution_x"], render["resolution_y"])
    assert setup.render.samples == render["samples"]
    # Blur: the base's none; when a dataset config blurs, focused where the authors' blur focuses
    # (noise/blur.py: 10 m, whatever the camera's distance).
    assert _default("noise.blur") == "none" and not setup.blur.enabled
    blurred, *_ = import_config(CHESS / "count_blur.yml")
    blurred_cfg = load_config(blurred)
    blurred_setup = sample_spec(blurred_cfg, jobs(blurred_cfg)[0]).setup.blur
    assert blurred_setup.enabled and blurred_setup.fstop == 5.0 and blurred_setup.focus_distance == 10.0
    # randomize_distance and randomize_angle are false: no jitter, the same camera in every image.
    assert not _default("scene.camera.randomize_distance") and not _default("scene.camera.randomize_angle")
    assert {sample_spec(cfg, job).setup.camera.distance for job in jobs(cfg)[:10]} == {setup.camera.distance}
    # The dataset config's own keys: one piece of each type, capitalised in the file.
    assert config["variables"]["content.types"]["levels"] == [
        ["pawn"], ["knight"], ["bishop"], ["rook"], ["queen"], ["king"]]
    assert len(spec.objects) == 1


def test_a_dataset_variable_overrides_its_base():
    config, *_, rows = import_config(CHESS / "count_blur.yml")
    assert config["variables"]["blur.fstop"] == {"type": "varying_all", "levels": [5.0, 4.0, 3.0, 2.0, 1.0]}
    assert config["scene"]["blur"]["focus_distance"] == 10.0  # the blur the paper varies, focused at 10 m
    base_blur = next(r for r in rows if r.key == "noise.blur")
    assert base_blur.file == "default_config.yml" and base_blur.overridden_by == "variables.noise.blur"
    # The authors' generator: 10 counts x 5 blurs, each 10 times.
    assert config["dataset"]["n_images"] == 10 and len(jobs(load_config(config))) == 500


def test_n_images_is_the_product_the_authors_generator_makes():
    """chess_example.yml's own comment: 4 counts x 2 images x 3 rotations x 3 spreads = 72 images;
    the board's rotation is read by nothing in the authors' code, and its 3 draws still count."""
    config, *_, rows = import_config(REPO / "examples" / "configs" / "chess_example.yml", base=BASE["chess_example.yml"])
    assert len(jobs(load_config(config))) == 72
    rotation = next(r for r in rows if r.key == "variables.chess.board_config.rotation")
    assert rotation.project == [] and "no effect in the authors' code" in rotation.note


def test_the_mapping_table_names_every_key(capsys):
    path = CHESS / "localization_several_pieces.yml"
    assert main(["import-config", str(path)]) == 0
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert yaml.safe_load(captured.out)["dataset"]["name"] == "localization_2_pieces_board_8x8"
    # Every key of the dataset config and of its base has its line: what it became or what it changes.
    data = yaml.safe_load(path.read_text())
    for key in data["variables"]:
        assert any(line.startswith(f"localization_several_pieces.yml: variables.{key} = ") for line in lines), key
    assert any(line.startswith("default_config.yml: scene.camera.distance = 2.5 -> camera.distance")
               for line in lines)
    counts = next(line for line in lines if "variables.chess.count_config.counts" in line)
    assert "-> no counterpart: no effect in the authors' code" in counts  # their code reads type and value
    assert any("dataset.piece_set = old_school -> no counterpart: piece set 'old_school' is a .blend" in line
               for line in lines)


def test_the_mapping_table_as_json(capsys):
    assert main(["import-config", str(POKER / "count_id_with_spread.yml"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {(r["file"], r["key"]): r for r in report["mapping"]}
    n_verso = rows[("count_id_with_spread.yml", "variables.card_distribution_inputs.n_verso")]
    assert n_verso["project"] == ["content.face_down"]
    assert report["config"]["variables"]["content.face_down"] == {"type": "varying_among_range", "min": 0, "max": 2}
    repeat = rows[("count_id_with_spread.yml", "variables.card_type_config.allow_repetition")]
    assert repeat["project"] == ["content.repeat_cards"] and report["config"]["scene"]["content"]["repeat_cards"]
    base_repeat = rows[("default_config.yml", "card_type_config.allow_repetition")]
    assert base_repeat["overridden_by"] == "variables.card_type_config.allow_repetition"
    jitter = rows[("default_config.yml", "default_player_config.hand_config.rotation_std_dev")]
    assert jitter["project"] is None and "without the authors' random offsets" in jitter["note"]
    # No river card hands: the authors' dealer gives players cards only when told to.
    assert report["config"]["scene"]["content"]["hand"]["count"] == 0


def test_a_key_without_a_counterpart_is_refused_one_line_each(tmp_path, capsys):
    (tmp_path / "default_config.yml").write_text((CHESS / "default_config.yml").read_text())
    path = tmp_path / "eevee.yml"
    path.write_text("dataset: {name: eevee}\nvariables:\n"
                    "  scene.render.engine: {variate_type: fixed, variate_levels: BLENDER_EEVEE}\n"
                    "  chess.count_config: {variate_type: fixed, variate_levels: {type: range_by_type, value: {}}}\n")
    assert main(["import-config", str(path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and "Traceback" not in "".join(lines)
    assert f"{path}: variables.scene.render.engine: engine 'BLENDER_EEVEE': expected CYCLES or WORKBENCH" in lines[0]
    assert f"{path}: variables.chess.count_config: count type 'range_by_type': expected fixed" in lines[1]


def test_a_dataset_config_without_its_base_is_refused(tmp_path, capsys):
    path = tmp_path / "alone.yml"
    path.write_text((REPO / "examples" / "configs" / "chess_example.yml").read_text())
    assert main(["import-config", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: dataset: a dataset config without its base config" in err and "--base" in err


def test_poker_layouts_map_to_the_familys_keys():
    config, *_ = import_config(POKER / "horizontal_layout_test.yml")
    content = config["scene"]["content"]
    assert content["mode"] == "overlap"
    assert content["overlap"] == {"direction": "horizontal", "lines": 3, "line_gap": 0.15}
    assert config["variables"]["content.overlap.factor"]["levels"] == [0.5, 0.6, 0.7, 0.8, 0.9]
    assert content["card"]["height"] == pytest.approx(0.14)  # the authors' scale 0.1 card: 0.1 x 0.14 m
    cfg = load_config(config)
    spec = sample_spec(cfg, jobs(cfg)[-1])  # 12 cards over 3 rows
    lines = [o.attributes["line"] for o in spec.objects if o.kind == "card"]
    assert sorted(lines) == [0] * 4 + [1] * 4 + [2] * 4

    auto, *_ = import_config(POKER / "auto_layout_config.yml")
    seats = auto["scene"]["content"]["seats"]
    assert seats["start"] == -45.0  # their 45 degrees from +x: here from -y
    # Their seats: on the 2.2 x 1.2 m table's edge inset 0.1 m, then 10% towards the centre.
    assert seats["radius"] == [pytest.approx(0.9 * (2.2 / 2 - 0.1)), pytest.approx(0.9 * (1.2 / 2 - 0.1))]
    assert auto["scene"]["content"]["river"]["face_down"] == 1 and auto["scene"]["resolution"] == [512, 512]
