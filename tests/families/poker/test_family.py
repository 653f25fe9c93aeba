"""Poker specs and card textures: pure Python, no rendering."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import write_config
from PIL import Image

from byo.cli import main
from byo.core.errors import ConfigError
from byo.families import get_family, load_config
from byo.families.poker import faces
from byo.families.poker import layout as lay
from byo.families.poker.answers import hard_negatives
from byo.families.poker.model import grid_frame_slack
from byo.families.poker.sheet import sheet_configs, tile_size
from byo.scene.plan import jobs
from byo.scene.spec import sample_spec


def poker_config(n_images=1, variables=None, scene=None, **content) -> dict:
    return {"dataset": {"name": "poker", "family": "poker", "seed": 4, "n_images": n_images},
            "scene": {"resolution": [160, 120], **(scene or {}), "content": content}, "variables": variables or {}}


def specs(tmp_path, n_images=1, variables=None, scene=None, **content):
    cfg = load_config(write_config(tmp_path, poker_config(n_images, variables, scene, **content)))
    return [sample_spec(cfg, j) for j in jobs(cfg)]


def cards(spec):
    return [o for o in spec.objects if o.kind == "card"]


# --- textures ---------------------------------------------------------------------------------
def _ink(img: Image.Image, box) -> np.ndarray:
    """Pixels of `box` (fractions of the face, y down) that are not paper."""
    w, h = img.size
    a = np.asarray(img.crop((round(box[0] * w), round(box[1] * h), round(box[2] * w), round(box[3] * h))), int)
    return a[np.abs(a - np.array(faces.PAPER)).sum(axis=2) > 90]


def test_every_face_is_its_own_and_carries_its_index_in_its_color():
    drawn = {c: faces.face(c, 100, 140) for c in faces.DECK}
    arrays = {c: np.asarray(im, int) for c, im in drawn.items()}
    for a, b in itertools.combinations(faces.DECK, 2):  # JS and JC, the closest pair, differ in 140 px
        assert (np.abs(arrays[a] - arrays[b]).sum(axis=2) > 60).sum() > 100, (a, b)
    for code, img in drawn.items():
        u0, v0, u1, v1 = faces.INDEX_BOX
        for box in ((u0, v0, u1, v1), (1 - u1, 1 - v1, 1 - u0, 1 - v0)):  # both corners
            ink = _ink(img, box)
            assert len(ink) > 150, code
            red = (ink[:, 0] > ink[:, 2] + 80).mean()
            assert red > 0.8 if code[-1] in "HD" else red < 0.05, (code, red)
    # the rank's ink differs between ranks of a suit: the index is readable on its own
    for suit in faces.SUITS:
        tops = [np.asarray(drawn[r + suit].crop((2, 2, 23, 22)), int) for r in faces.RANKS]
        assert all(np.abs(a - b).mean() > 3 for a, b in itertools.combinations(tops, 2)), suit


def test_backs_are_colored_and_unlike_any_face():
    blue, red = (np.asarray(faces.back(d, 100, 140), int) for d in ("blue", "red"))
    assert blue[..., 2].mean() > blue[..., 0].mean() + 60 and red[..., 0].mean() > red[..., 2].mean() + 60
    for code in faces.DECK:
        face = np.asarray(faces.face(code, 100, 140), int)
        assert min(np.abs(face - blue).mean(), np.abs(face - red).mean()) > 40, code


def test_textures_are_drawn_once_and_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("BYO_CACHE_DIR", str(tmp_path))
    faces.texture_dir.cache_clear()
    try:
        path = faces.texture_path("QH")
        assert path.is_relative_to(tmp_path) and faces.design_hash() in path.parts
        with Image.open(path) as im:
            assert im.size == (faces.WIDTH, faces.HEIGHT)
        monkeypatch.setattr(faces, "face", lambda code: pytest.fail("drawn again"))
        assert faces.texture_path("QH") == path
    finally:
        faces.texture_dir.cache_clear()


@pytest.mark.parametrize("text, code", [("qh", "QH"), ("TD", "10D"), ("10s", "10S"), (" as ", "AS")])
def test_card_codes_normalize(text, code):
    assert faces.normalize(text) == code


# --- configs ----------------------------------------------------------------------------------
@pytest.mark.parametrize("content, key, words", [
    ({"river": {"cards": ["ZZ"]}}, "scene.content.river.cards", "'ZZ' is not a card"),
    ({"river": {"cards": ["AS"]}, "hand": {"cards": ["as"]}}, "scene.content", "AS is named twice"),
    ({"mode": "grid", "grid": {"count": 10}}, "scene.content.grid", "do not fit the 9 cells"),
    ({"mode": "grid", "grid": {"cells": [[3, 0]]}}, "scene.content.grid.cells", "off the 3x3 grid"),
    ({"mode": "overlap", "overlap": {"count": 90}}, "scene.content.overlap.count", "from 1 to 52"),
    ({"river": {"count": 30}, "hand": {"count": 6}}, "scene.content", "one deck of 52"),
    ({"river": {"count": 5, "face_down": 7}}, "scene.content.river.face_down", "more than there can be"),
    ({"hand": {"count": [1, 3], "face_down": [0, 4]}}, "scene.content.hand.face_down", "count up to 3"),
    ({"chips": {"per_pile": 1000000}}, "scene.content.chips.per_pile", "from 1 to 60"),
    ({"n_players": 9}, "scene.content.n_players", "at most 8 players"),
    ({"chips": {"colors": ["teal"]}}, "scene.content.chips.colors", "unknown chip colour 'teal'"),
    ({"total_cards": 52, "chips": {"table_piles": 32, "piles_per_player": 32}}, "scene.content", "mask ids"),
])
def test_bad_content_is_refused_with_the_key(tmp_path, content, key, words):
    with pytest.raises(ConfigError) as err:
        load_config(write_config(tmp_path, poker_config(**content)))
    assert any(k == key and words in msg for k, msg in err.value.problems), err.value.problems


@pytest.mark.parametrize("scene, content, words", [
    ({}, {"n_players": 8, "hand": {"count": 5}}, "mats of players"),
    ({"render": {"engine": "workbench"}}, {}, "use render.engine: cycles"),
])
def test_a_scene_that_cannot_be_made_fails_before_rendering(tmp_path, capsys, scene, content, words):
    path = write_config(tmp_path, poker_config(scene=scene, **content))
    assert main(["plan", str(path)]) == 2
    assert words in capsys.readouterr().err


# --- sampling ---------------------------------------------------------------------------------
def test_same_seed_same_spec_and_one_deck(tmp_path):
    first = specs(tmp_path, n_images=6, n_players=[2, 4], hand={"count": [1, 4]}, river={"count": [0, 5]})
    again = specs(tmp_path, n_images=6, n_players=[2, 4], hand={"count": [1, 4]}, river={"count": [0, 5]})
    assert [s.model_dump() for s in first] == [s.model_dump() for s in again]
    for spec in first:
        codes = [o.attributes["card"] for o in cards(spec)]
        assert len(codes) == len(set(codes)) and set(codes) <= set(faces.DECK)
        ids = [o.id for o in spec.objects] + [r["id"] for r in spec.extras["index_regions"]]
        assert ids == list(range(1, len(ids) + 1)) and len(ids) <= 255


def test_total_cards_are_dealt_over_hands_and_river(tmp_path):
    found = specs(tmp_path, variables={"content.total_cards": {"type": "varying_all_range", "min": 2, "max": 15}},
                  n_players=[2, 4], river={"count": [0, 5], "cards": ["AS"]}, hand={"face_down": 1})
    for total, spec in zip(range(2, 16), found, strict=True):
        dealt = cards(spec)
        assert len(dealt) == total
        assert any(o.attributes["card"] == "AS" and o.attributes["owner"] == "river" for o in dealt)
        players = [o for o in spec.objects if o.kind == "player"]
        hands = [[o for o in dealt if o.attributes["owner"] == f"player_{p.attributes['player']}"] for p in players]
        if total - 1 >= len(players):  # the named river card, then one card a hand
            assert all(hands), "a player was left without cards"
        for hand in hands:
            assert len(hand) <= 5 and sum(not o.attributes["face_up"] for o in hand) == min(1, len(hand))


def test_mats_hold_their_hands_and_piles_and_never_overlap(tmp_path):
    for spec in specs(tmp_path, n_images=8, n_players=[1, 4], hand={"count": [1, 3], "fan": 10},
                      chips={"piles_per_player": [0, 2], "table_piles": [0, 3]}):
        mats = {f"player_{o.attributes['player']}": o.attributes["mat"] for o in spec.objects if o.kind == "player"}
        for a, b in itertools.combinations(mats.values(), 2):
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
        for o in spec.objects:
            owner = o.attributes.get("owner", "")
            if owner.startswith("player_"):
                x0, y0, x1, y1 = mats[owner]
                assert x0 < o.location[0] < x1 and y0 < o.location[1] < y1
            elif owner == "table":
                assert not any(m[0] < o.location[0] < m[2] and m[1] < o.location[1] < m[3] for m in mats.values())


@pytest.mark.parametrize("azimuth", [0, 35, 90, 160, 230, 320])
def test_grid_rows_count_from_the_top_of_the_image(tmp_path, azimuth):
    (spec,) = specs(tmp_path, scene={"camera": {"azimuth": azimuth, "distance": 0.9, "elevation": 60}},
                    mode="grid", grid={"rows": 3, "columns": 4, "count": 12})
    proj = spec.setup.projector()
    px = {(o.attributes["row"], o.attributes["column"]): proj.project([o.location])[0] for o in cards(spec)}
    assert sorted(px) == [(r, c) for r in range(3) for c in range(4)]
    for (a, pa), (b, pb) in itertools.permutations(px.items(), 2):
        if a[1] == b[1] and a[0] < b[0]:
            assert pa[1] < pb[1]  # a lower row is higher in the image
        if a[0] == b[0] and a[1] < b[1]:
            assert pa[0] < pb[0]  # a lower column is further left


@pytest.mark.parametrize("direction", ["horizontal", "vertical"])
def test_overlap_rows_step_by_the_factor(tmp_path, direction):
    for factor in (0.0, 0.5, 0.95):
        (spec,) = specs(tmp_path, mode="overlap", overlap={"count": 4, "direction": direction, "factor": factor})
        dealt = cards(spec)
        steps = [np.hypot(b.location[0] - a.location[0], b.location[1] - a.location[1])
                 for a, b in itertools.pairwise(dealt)]
        size = spec.extras["card"]["width" if direction == "horizontal" else "height"]
        assert np.allclose(steps, (size + 0.006) * (1 - factor), atol=1e-5)
        assert [o.location[2] for o in dealt] == sorted(o.location[2] for o in dealt)  # each on the one before


def test_index_quads_sit_in_the_corners_of_the_face():
    w, h = 0.06, 0.09
    tl = np.array(lay.index_quad_world((0, 0, 0), 0.0, w, h, 0.0003, "top_left"))
    br = np.array(lay.index_quad_world((0, 0, 0), 0.0, w, h, 0.0003, "bottom_right"))
    assert tl[:, 0].max() < 0 < tl[:, 1].min() and br[:, 0].min() > 0 > br[:, 1].max()
    turned = np.array(lay.index_quad_world((1, 2, 0), 180.0, w, h, 0.0003, "top_left"))
    assert np.allclose(sorted(map(tuple, turned[:, :2] - [1, 2])), sorted(map(tuple, br[:, :2])))


def test_hard_negatives_share_the_rank_or_the_suit_and_are_absent():
    rng = np.random.default_rng(0)
    for code in ("QH", "AS", "KC", "10D"):
        negatives = hard_negatives(code, {code, code[:-1] + "S" if code[-1] != "S" else code[:-1] + "H"}, rng)
        assert len(negatives) == 3 and code not in negatives
        for n in negatives:
            same_rank, same_suit = n[:-1] == code[:-1], n[-1] == code[-1]
            assert same_rank != same_suit
            if same_suit:
                gap = abs(faces.RANKS.index(n[:-1]) - faces.RANKS.index(code[:-1]))
                assert gap in (1, len(faces.RANKS) - 1)
        assert any(n[-1] == code[-1] for n in negatives) and any(n[:-1] == code[:-1] for n in negatives)


@pytest.mark.slow
def test_card_sheet_configs_hold_every_card_once_and_the_preview_draws_them(tmp_path):
    faces_cfg, *backs = sheet_configs(40)
    cfg = load_config(faces_cfg)
    (spec,) = [sample_spec(cfg, j) for j in jobs(cfg)]
    placed = {(o.attributes["row"], o.attributes["column"]): o.attributes["card"] for o in cards(spec)}
    assert placed == {(faces.SUITS.index(c[-1]), faces.RANKS.index(c[:-1])): c for c in faces.DECK}
    assert all(o.attributes["face_up"] for o in cards(spec))
    for design, cfg_data in zip(("blue", "red"), backs, strict=True):
        cfg = load_config(cfg_data)
        (spec,) = [sample_spec(cfg, j) for j in jobs(cfg)]
        assert spec.extras["card"]["back"] == design and not cards(spec)[0].attributes["face_up"]
    for command in (["sheet", "cards"], ["card-sheet"]):  # and its older name
        assert main([*command, str(tmp_path / "sheet.png"), "--preview", "--card-pixels", "40"]) == 0
        with Image.open(tmp_path / "sheet.png") as im:
            w, h = tile_size(40)
            assert im.width >= 13 * w and im.height >= 5 * h


# --- a grid a few pixels out of the frame still reads (issue 25) --------------------------------
def _grid_legend(shift_x: float) -> dict:
    golden = Path(__file__).resolve().parents[2] / "golden" / "poker__localization_3x3" / "legends"
    legend = json.loads(sorted(golden.glob("*.json"))[0].read_text())
    corners = legend["landmarks"]["grid_corners"]
    left = min(x for x, _, _ in corners)
    legend["landmarks"]["grid_corners"] = [[x - left - shift_x, y, d] for x, y, d in corners]
    get_family("poker").complete_legend(legend)
    return legend


def test_a_grid_a_few_pixels_out_of_the_frame_is_in_it():
    slack = grid_frame_slack(64, 48)
    assert slack == 3.0
    assert _grid_legend(0.0)["extras"]["grid"]["in_frame"]
    assert _grid_legend(2.0)["extras"]["grid"]["in_frame"]  # 2 px out: a person still counts its rows
    assert not _grid_legend(slack + 1)["extras"]["grid"]["in_frame"]


# --- keys of BYO-Eval's poker configs (byo import-config) ---------------------------------------
def test_face_down_over_the_whole_table(tmp_path):
    """content.face_down (BYO-Eval's n_verso): that many face-down cards among hands and river."""
    got = specs(tmp_path, n_images=12, n_players=2, hand={"count": 2}, river={"count": 3}, face_down=2,
                chips={"piles_per_player": 0, "table_piles": 0})
    owners = set()
    for spec in got:
        down = [o for o in cards(spec) if not o.attributes["face_up"]]
        assert len(cards(spec)) == 7 and len(down) == 2
        owners |= {o.attributes["owner"] for o in down}
    assert owners == {"player_1", "player_2", "river"}  # drawn over the whole table
    with pytest.raises(ConfigError, match="face_down over the whole table replaces river.face_down"):
        load_config(poker_config(face_down=1, river={"count": 3, "face_down": 1}))


def test_repeated_cards_each_drawn_from_a_full_deck(tmp_path):
    """content.repeat_cards (BYO-Eval's allow_repetition): a card may lie twice, each object named apart."""
    got = specs(tmp_path, n_images=6, mode="overlap", overlap={"count": 20, "factor": 0.0}, repeat_cards=True)
    repeats = 0
    for spec in got:
        codes = [o.attributes["card"] for o in cards(spec)]
        assert len(codes) == 20 and len({o.name for o in cards(spec)}) == 20
        repeats += len(codes) - len(set(codes))
    assert repeats > 0  # 20 draws from 52 repeat a card in 98% of scenes
    one_deck = specs(tmp_path, n_images=6, mode="overlap", overlap={"count": 20, "factor": 0.0})
    assert all(len({o.attributes["card"] for o in cards(s)}) == 20 for s in one_deck)


def test_overlap_cards_share_out_over_lines(tmp_path):
    """overlap.lines (BYO-Eval's n_lines): 7 cards over 3 rows, 3 + 2 + 2, rows a card and a gap apart."""
    (spec,) = specs(tmp_path, mode="overlap", overlap={"count": 7, "factor": 0.5, "lines": 3, "line_gap": 0.05},
                    card={"height": 0.1}, scene={"camera": {"elevation": 90.0}})
    by_line: dict[int, list] = {}
    for o in cards(spec):
        by_line.setdefault(o.attributes["line"], []).append(o)
    assert [len(by_line[k]) for k in range(3)] == [3, 2, 2]
    centres = [np.mean([o.location[:2] for o in by_line[k]], axis=0) for k in range(3)]
    assert np.linalg.norm(centres[1] - centres[0]) == pytest.approx(0.1 + 0.05, abs=1e-6)
    assert np.linalg.norm(centres[2] - centres[1]) == pytest.approx(0.1 + 0.05, abs=1e-6)
