"""`byo audit`: every shipped config audits clean, and corrupted answers, questions and legend
fields are each caught."""

from __future__ import annotations

import fnmatch
import json
import shutil

import pytest
from conftest import clevr_config, small_render, write_config
from golden_data import CONFIGS, golden_name, render_tiny

from byo.audit.run import AUDIT_FILE, audit_dataset
from byo.cli import main
from byo.families import load_config
from byo.render.runner import render_dataset

pytestmark = pytest.mark.render


def audit_file(dataset) -> dict:
    return json.loads((dataset / AUDIT_FILE).read_text())


# Small, but large enough that CLEVR's shapes are readable (8 px) and most questions get asked.
AUDIT_SIZE = [128, 96]


def every_key(config) -> str:
    """Every key of the config's family but its opt-in ones, whatever the config's questions.keys."""
    family = load_config(config).family
    return ",".join(k for k in family.answers if not any(fnmatch.fnmatchcase(k, p) for p in family.opt_in_keys))


@pytest.mark.parametrize("config", CONFIGS, ids=golden_name)
def test_every_config_audits_clean(config, tmp_path):
    out = render_tiny(config, tmp_path, AUDIT_SIZE)
    keys = ["--keys", every_key(config)]
    assert main(["questions", str(out), *keys]) == 0  # every key of the family
    code = main(["audit", str(out)])
    audit = audit_file(out)
    assert audit["totals"]["wrong"] == 0 and audit["totals"]["ill_posed"] == 0, audit["findings"]
    assert audit["legend_problems"] == []
    assert audit["totals"]["unchecked"] == 0  # every key of every family is checked
    assert audit["totals"]["ok"] > 0
    assert code == 0
    # The readability rules' questions (skipped above): asked flagged, the audit counts them
    # flagged, not failed; asked unflagged, it calls every one of them ill-posed.
    assert main(["questions", str(out), "--unreadable", "flag", *keys]) == 0
    flagged = sum(1 for line in (out / "questions.jsonl").read_text().splitlines() if '"unreadable": {' in line)
    assert main(["audit", str(out)]) == 0
    assert audit_file(out)["totals"]["flagged"] == flagged
    assert main(["questions", str(out), "--unreadable", "ask", *keys]) == 0
    main(["audit", str(out)])
    assert audit_file(out)["totals"]["ill_posed"] == flagged and audit_file(out)["totals"]["wrong"] == 0


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    """A CLEVR scene with objects near the visibility band (flag), chess seen from a side and
    along the diagonal, and poker's river seen close up (two cards beyond the frame's edges, one
    face down) and a 3 x 3 grid of cards (one face down), rendered once; each test corrupts a copy."""
    tmp = tmp_path_factory.mktemp("audit")
    configs = {
        "clevr": clevr_config("aclevr", seed=3, n_images=3, resolution=[160, 120],
                              render={"samples": 4, "denoise": "off", "on_hidden": "flag"},
                              content={"mode": "random", "count": [5, 8]}),
        "chess": {"dataset": {"name": "achess", "family": "chess", "seed": 4, "n_images": 1},
                  "scene": {"resolution": [192, 108], "render": small_render("chess", [192, 108], engine="workbench"),
                            "content": {"board": {"rows": 4, "columns": 4, "square_size": 0.08}, "count": 1}},
                  "variables": {"camera.azimuth": {"type": "varying_all", "levels": [0.0, 45.0]}}},
        # Three bellflowers stacked, then heads together: the same picture for a motif without an up.
        "crest": {"dataset": {"name": "acrest", "family": "crest", "seed": 5, "n_images": 1},
                  "scene": {"resolution": [96, 96], "content": {"container": "maru", "motif": "kikyo",
                                                                "ambiguous_arrangements": "allow"}},
                  "variables": {"content.modifier": {"type": "varying_all",
                                                     "levels": ["three_stacked", "heads_together"]}}},
        "poker": {"dataset": {"name": "apoker", "family": "poker", "seed": 6, "n_images": 1},
                  "scene": {"resolution": [320, 240], "render": small_render("poker", [320, 240], samples=4, denoise="off"),
                            "camera": {"distance": 0.45, "elevation": 70},
                            "content": {"n_players": 0, "river": {"count": 7, "face_down": 1},
                                        "chips": {"table_piles": 0}}}},
        "grid": {"dataset": {"name": "agrid", "family": "poker", "seed": 7, "n_images": 1},
                 "scene": {"resolution": [400, 300], "render": small_render("poker", [400, 300], samples=4, denoise="off"),
                           "camera": {"distance": 0.8, "elevation": 75},
                           "content": {"mode": "grid", "grid": {"count": 3, "face_down": 1}}}},
    }
    out = {}
    for name, cfg in configs.items():
        out[name] = tmp / name
        assert not render_dataset(str(write_config(tmp, cfg, f"{name}.yaml")), str(out[name]),
                                  show_progress=False).failed
        assert main(["questions", str(out[name])]) == 0
        assert not audit_dataset(out[name], show_progress=False).failed
    return out


def copy(src, tmp_path):
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


def rows(dataset) -> list[dict]:
    return [json.loads(line) for line in (dataset / "questions.jsonl").read_text().splitlines()]


def write_rows(dataset, rows_) -> None:
    (dataset / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows_))


def edit_legend(dataset, index: int, change) -> None:
    path = sorted((dataset / "legends").glob("*.json"))[index]
    legend = json.loads(path.read_text())
    change(legend)
    path.write_text(json.dumps(legend))


def corrupt(dataset, keys, change) -> list[str]:
    """Change the answer of the first question of each key; returns their ids."""
    qs, done = rows(dataset), {}
    for r in qs:
        if r["key"] in keys and r["key"] not in done:
            r["answer"] = change(r["answer"])
            done[r["key"]] = r["id"]
    write_rows(dataset, qs)
    assert len(done) == len(keys)
    return list(done.values())


def test_wrong_answers_are_caught(datasets, tmp_path):
    clevr, chess, crest = (copy(datasets[k], tmp_path) for k in ("clevr", "chess", "crest"))
    changed = corrupt(clevr, ["count_objects", "count_color"], lambda a: a + 1)
    changed += corrupt(clevr, ["query_shape_unique_color"], lambda a: "cone" if a != "cone" else "cube")
    changed += corrupt(chess, ["localize_row_one_piece", "count_pieces"], lambda a: a + 1)
    changed += corrupt(chess, ["identify_color_one_piece"], lambda a: "black" if a == "white" else "white")
    changed += corrupt(crest, ["identify_modifier"], lambda a: "bean")
    changed += corrupt(crest, ["describe_program"], lambda a: a.replace("X:3", "X:2"))
    for dataset in (clevr, chess, crest):
        assert main(["audit", str(dataset)]) == 1
    caught = {f["id"] for d in (clevr, chess, crest) for f in audit_file(d)["findings"] if f["status"] == "wrong"}
    assert caught == set(changed)


def test_ill_posed_questions_are_caught(datasets, tmp_path):
    clevr, chess, crest = (copy(datasets[k], tmp_path) for k in ("clevr", "chess", "crest"))
    # The description of the stacked crest, asked of the heads-together one that looks the same.
    qs = rows(crest)
    stacked = next(r for r in qs if r["key"] == "describe_english")
    assert stacked["image"] == "images/acrest_000000.png"
    assert not any(r["key"] == "describe_english" and r["image"] != stacked["image"] for r in qs)
    qs.append({**stacked, "id": "made/describe_english", "image": "images/acrest_000001.png"})
    write_rows(crest, qs)
    # A row question about the board seen along its diagonal (image 1, azimuth 45): the generator
    # skipped it; ask it anyway.
    qs = rows(chess)
    side = next(r for r in qs if r["key"] == "localize_row_one_piece")
    assert side["image"] == "images/achess_000000.png"  # azimuth 0
    diagonal = "images/achess_000001.png"
    assert not any(r["key"] == "localize_row_one_piece" and r["image"] == diagonal for r in qs)
    qs.append({**side, "id": side["id"].replace("000000", "000001"), "image": diagonal})
    write_rows(chess, qs)
    # A label choice with two true options: two objects the image shows.
    legend = json.loads(sorted((clevr / "legends").glob("*.json"))[0].read_text())
    shown = [o for o in legend["objects"] if o["visible"]]
    labels = [f"{o['attributes']['color']} {o['kind']}" for o in shown]
    qs = rows(clevr)
    qs.append({**qs[0], "id": "made/label_choice", "image": legend["image"], "key": "label_choice",
               "task": "identification", "answer_type": "multiple_choice", "answer": "A",
               "choices": [labels[0], labels[1], "cyan cone"], "params": {}})
    write_rows(clevr, qs)

    assert main(["audit", str(chess)]) == 1
    ill = [f for f in audit_file(chess)["findings"] if f["status"] == "ill_posed"]
    assert [f["image"] for f in ill] == [diagonal] and "not readable" in ill[0]["reason"]
    assert main(["audit", str(clevr)]) == 1
    ill = [f for f in audit_file(clevr)["findings"] if f["status"] == "ill_posed"]
    assert [f["id"] for f in ill] == ["made/label_choice"] and "2 options are true" in ill[0]["reason"]
    assert main(["audit", str(crest)]) == 1
    ill = [f for f in audit_file(crest)["findings"] if f["status"] == "ill_posed"]
    assert [f["id"] for f in ill] == ["made/describe_english"] and "looks like three stacked" in ill[0]["reason"]


def test_poker_wrong_answers_are_caught(datasets, tmp_path):
    river, grid = (copy(datasets[k], tmp_path) for k in ("poker", "grid"))
    # the river's counts of every card are not asked: a card lies beyond the frame (hidden is not absent)
    changed = corrupt(river, ["count_identification_rank_cards", "count_identify_face_down_cards"], lambda a: a + 1)
    changed += corrupt(river, ["identify_card_multiple_choice"], lambda a: "B" if a != "B" else "C")  # a hard negative
    changed += corrupt(grid, ["localize_card_on_grid_row"], lambda a: (a + 1) % 3)
    changed += corrupt(grid, ["localize_card_on_grid_3x3"], lambda a: "center" if a != "center" else "lower left")
    for dataset in (river, grid):
        assert main(["audit", str(dataset)]) == 1
    caught = {f["id"] for d in (river, grid) for f in audit_file(d)["findings"] if f["status"] == "wrong"}
    assert caught == set(changed)


def poker_cards(dataset) -> list[dict]:
    legend = json.loads(sorted((dataset / "legends").glob("*.json"))[0].read_text())
    return [o for o in legend["objects"] if o["kind"] == "card"]


def test_poker_questions_about_hidden_or_unreadable_cards_are_caught(datasets, tmp_path):
    river, grid = (copy(datasets[k], tmp_path) for k in ("poker", "grid"))
    # A multiple choice offering a face-up card that lies beyond the frame's edge.
    hidden = [o["attributes"]["name"] for o in poker_cards(river)
              if o["visibility"] == "hidden" and o["attributes"]["face_up"]]
    assert hidden
    qs = rows(river)
    choice = next(r for r in qs if r["key"] == "identify_card_multiple_choice")
    wrong = next(k for k, letter in enumerate("ABCD") if letter != choice["answer"])
    qs.append({**choice, "id": "made/hidden_option",
               "choices": [hidden[0] if k == wrong else c for k, c in enumerate(choice["choices"])]})
    write_rows(river, qs)
    # The grid row of the face-down card, named: its identity does not show.
    (down,) = [o for o in poker_cards(grid) if not o["attributes"]["face_up"]]
    assert down["visible"]
    qs = rows(grid)
    row = next(r for r in qs if r["key"] == "localize_card_on_grid_row")
    qs.append({**row, "id": "made/face_down_card", "params": {"card": f"the {down['attributes']['name']}"},
               "answer": down["attributes"]["row"]})
    write_rows(grid, qs)

    for dataset, made, reason in ((river, "made/hidden_option", "face up but not shown"),
                                  (grid, "made/face_down_card", "no readable corner index")):
        assert main(["audit", str(dataset)]) == 1
        ill = [f for f in audit_file(dataset)["findings"] if f["status"] == "ill_posed"]
        assert [f["id"] for f in ill] == [made] and reason in ill[0]["reason"], ill


def test_poker_legend_fields_disagreeing_with_the_pixels_are_caught(datasets, tmp_path):
    river, grid = (copy(datasets[k], tmp_path) for k in ("poker", "grid"))

    def river_lies(legend):
        readable = next(o for o in legend["objects"] if o["attributes"]["identity_visible"])
        readable["attributes"]["identity_visible"] = False
        readable["attributes"]["index_regions"][0]["visible_pixels"] += 5
        readable["attributes"]["owner"] = "player_1"  # there is no mat to lie on

    def grid_lies(legend):
        card = next(o for o in legend["objects"] if o["kind"] == "card")["attributes"]
        card["row"] = card["cell"][0] = (card["row"] + 1) % 3
        legend["extras"]["grid"]["in_frame"] = False

    edit_legend(river, 0, river_lies)
    edit_legend(grid, 0, grid_lies)
    assert all(main(["audit", str(d)]) == 1 for d in (river, grid))
    fields = {p["field"] for d in (river, grid) for p in audit_file(d)["legend_problems"]}
    for field in (".attributes.identity_visible", ".attributes.index_regions", ".attributes.owner",
                  ".attributes.row/column", "extras.grid.in_frame"):
        assert any(f.endswith(field) for f in fields), (field, fields)


def test_legend_fields_disagreeing_with_the_pixels_are_caught(datasets, tmp_path):
    clevr, chess, crest = (copy(datasets[k], tmp_path) for k in ("clevr", "chess", "crest"))

    def clevr_lies(legend):
        a, b = legend["objects"][:2]
        a["visible_pixels"] += 7
        b["bbox"] = [0, 0, 1, 1]
        legend["objects"][2]["pixel_coords"][0] += 5.0
        legend["objects"][3]["visibility"] = "hidden" if legend["objects"][3]["visibility"] != "hidden" else "visible"
        rel = legend["extras"]["relationships"]
        rel["left"][0], rel["right"][0] = rel["right"][0], rel["left"][0]

    def chess_lies(legend):
        piece = legend["objects"][0]["attributes"]
        piece["row"] = (piece["row"] + 1) % 4
        legend["extras"]["board"]["rows_readable"] = not legend["extras"]["board"]["rows_readable"]

    def crest_lies(legend):
        legend["extras"]["arrangement_ambiguous"] = True
        legend["objects"] = legend["objects"][:-1]  # a motif copy short

    edit_legend(clevr, 0, clevr_lies)
    edit_legend(chess, 0, chess_lies)
    edit_legend(crest, 0, crest_lies)
    assert all(main(["audit", str(d)]) == 1 for d in (clevr, chess, crest))
    fields = {p["field"].split(" ")[0] for d in (clevr, chess, crest) for p in audit_file(d)["legend_problems"]}
    for field in ("objects[1].visible_pixels", "objects[2].bbox", "objects[3].pixel_coords", "objects[4].visibility",
                  "extras.relationships", "objects[1].attributes.row/column", "extras.board.rows_readable",
                  "extras.arrangement_ambiguous", "objects"):
        assert field in fields, (field, fields)


def test_bad_input_is_a_clear_error(tmp_path, datasets, capsys):
    assert main(["audit", str(tmp_path / "nowhere")]) == 2
    assert "no complete images" in capsys.readouterr().err
    bare = copy(datasets["chess"], tmp_path)
    (bare / "questions.jsonl").unlink()
    assert main(["audit", str(bare)]) == 2
    assert "run `byo questions DATASET` first" in capsys.readouterr().err
