"""Asset packs: manifests, finding packs, the card deck loader, and configs that select a pack.
Pure Python; the renders with packs are in tests/blender/test_imports.py."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import yaml
from conftest import ROOT
from PIL import Image

from byo.core.errors import ConfigError
from byo.families import load_config
from byo.scene.assets import CARDS, ENV, PackError, find_pack, list_packs, load_pack, pack_dirs

SHIPPED = ROOT / "assets"


def chess_config(**content) -> dict:
    return {"dataset": {"name": "packs", "family": "chess", "seed": 1},
            "scene": {"content": {"count": 4, **content}}}


def copy_pack(name: str, where, edit=None):
    """A copy of a shipped pack in `where`, its manifest changed by `edit(manifest)`."""
    target = where / name
    shutil.copytree(SHIPPED / name, target)
    if edit is not None:
        manifest = yaml.safe_load((target / "pack.yaml").read_text())
        edit(manifest)
        (target / "pack.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    return target


@pytest.fixture
def user_assets(tmp_path, monkeypatch):
    folder = tmp_path / "my_assets"
    folder.mkdir()
    monkeypatch.setenv(ENV, str(folder))
    return folder


def test_every_shipped_pack_is_valid_and_of_each_kind():
    names = {"lowpoly_glb": "chess_set", "boxwood_blend": "chess_set", "table_textures": "table_texture",
             "simple_deck": "card_deck"}
    assert {n: find_pack(n).kind for n in names} == names
    assert set(list_packs("chess_set")) >= {"lowpoly_glb", "boxwood_blend"}
    assert {find_pack("lowpoly_glb").manifest.file, find_pack("boxwood_blend").manifest.file} == {
        "pieces.glb", "pieces.blend"}
    for name in names:
        manifest = find_pack(name).manifest
        assert manifest.license and manifest.source
    assert sum(p.stat().st_size for p in SHIPPED.rglob("*") if p.is_file()) < 1_000_000  # small files


def test_the_card_deck_maps_every_card_to_its_face():
    deck = find_pack("simple_deck", "card_deck")
    assert len(CARDS) == 52 and set(deck.manifest.cards) == set(CARDS)
    sizes = set()
    for code in CARDS:
        with Image.open(deck.card(code)) as im:
            rgba = np.asarray(im.convert("RGBA"), dtype=int)
        sizes.add(im.size)
        red = int(((rgba[..., 0] - rgba[..., 2] > 100) & (rgba[..., 3] > 0)).sum())
        assert (red > 300) if code[-1] in "HD" else (red == 0), (code, red)  # hearts and diamonds print red
        assert rgba[0, 0, 3] == 0 and rgba[im.size[1] // 2, im.size[0] // 2, 3] == 255  # rounded corners
    assert len(sizes) == 1
    with Image.open(deck.back) as back:
        assert back.size == sizes.pop()
    assert deck.manifest.size == (0.0635, 0.0889)


def test_a_user_pack_is_found_first_by_name_and_by_folder(user_assets, tmp_path):
    copy_pack("lowpoly_glb", user_assets, lambda m: m.update(description="mine"))
    assert pack_dirs()[0] == user_assets
    assert find_pack("lowpoly_glb").manifest.description == "mine"
    elsewhere = copy_pack("boxwood_blend", tmp_path)
    assert find_pack(str(elsewhere)).root == elsewhere
    cfg = load_config(chess_config(piece_set=str(elsewhere)))
    assert cfg.scene["content"]["piece_set"] == str(elsewhere)


@pytest.mark.parametrize("edit, expected", [
    (lambda m: m.pop("license"), "pack.yaml: license: required key is missing"),
    (lambda m: m.update(kind="sofa"), "kind: expected one of chess_set, card_deck, table_texture (got 'sofa')"),
    (lambda m: m.update(file="pieces.obj"), "file: expected a file ending in .glb, .gltf, .blend"),
    (lambda m: m.update(file="missing.glb"), "file: file 'missing.glb' is not in the pack"),
    (lambda m: m["colors"].update(red=[1, 0, 0]), "colors names red, which pieces does not map"),
])
def test_bad_manifests_say_which_file_and_key(user_assets, edit, expected):
    copy_pack("lowpoly_glb", user_assets, edit)
    with pytest.raises(PackError, match="pack.yaml") as err:
        load_pack(user_assets / "lowpoly_glb")
    assert expected in str(err.value)


def test_a_deck_must_map_all_52_cards(user_assets):
    copy_pack("simple_deck", user_assets, lambda m: (m["cards"].pop("QH"), m["cards"].update(ZZ="cards/AS.png")))
    with pytest.raises(PackError, match="missing QH; unknown ZZ"):
        find_pack("simple_deck", "card_deck")


@pytest.mark.parametrize("content, key, message", [
    ({"piece_set": "no_such_set"}, "scene.content.piece_set", "no asset pack named 'no_such_set' of kind chess_set"),
    ({"piece_set": "simple_deck"}, "scene.content.piece_set", "asset pack 'simple_deck' is a card_deck, not a chess_set"),
    ({"piece_set": "lowpoly_glb", "colors": ["white", {"name": "red", "rgb": [1, 0, 0]}]},
     "scene.content.piece_set", "piece set 'lowpoly_glb' has no red bishop, red king"),
])
def test_configs_naming_an_unusable_pack_fail_before_any_work(content, key, message):
    with pytest.raises(ConfigError) as err:
        load_config(chess_config(**content), "c.yaml")
    ((where, text),) = err.value.problems
    assert where == key and message in text


def test_a_pack_missing_a_piece_the_config_uses_is_refused(user_assets):
    copy_pack("lowpoly_glb", user_assets, lambda m: m["pieces"]["black"].pop("knight"))
    load_config(chess_config(piece_set="lowpoly_glb", types=["pawn", "rook"]))  # no knights asked for
    with pytest.raises(ConfigError, match="piece set 'lowpoly_glb' has no black knight"):
        load_config(chess_config(piece_set="lowpoly_glb"))
    with pytest.raises(ConfigError, match="has no black knight"):  # a level of a variable is checked too
        load_config({**chess_config(piece_set="lowpoly_glb", types=["pawn"]), "variables": {
            "content.types": {"type": "varying_all", "levels": [["pawn"], ["knight"]]}}})


def test_a_table_image_names_a_texture_of_a_table_texture_pack():
    base = {"dataset": {"name": "t", "family": "clevr"}, "scene": {}}
    load_config({**base, "scene": {"table": {"image": {"pack": "table_textures", "texture": "oak"}}}})
    for image, message in [({"pack": "table_textures", "texture": "marble"}, "has no texture 'marble'"),
                           ({"pack": "lowpoly_glb"}, "is a chess_set, not a table_texture")]:
        with pytest.raises(ConfigError, match=message) as err:
            load_config({**base, "scene": {"table": {"image": image}}})
        assert err.value.problems[0][0] == "scene.table.image"
    with pytest.raises(ConfigError, match="table.image replaces the texture noise"):
        load_config({**base, "scene": {"table": {"texture": "high", "image": {"pack": "table_textures"}}}})


def test_pieces_of_a_pack_record_the_pack_colors():
    from byo.scene.plan import jobs
    from byo.scene.spec import sample_spec

    cfg = load_config(chess_config(piece_set="boxwood_blend"))
    spec = sample_spec(cfg, jobs(cfg)[0])
    colors = find_pack("boxwood_blend").manifest.colors
    assert {o.attributes["color"]: tuple(o.attributes["rgb"]) for o in spec.objects} == {
        c: tuple(colors[c]) for c in {o.attributes["color"] for o in spec.objects}}
    plain = sample_spec(load_config(chess_config()), jobs(cfg)[0])
    # Same seed: the same pieces on the same cells; only what they look like changes.
    assert [(o.kind, o.attributes["cell"]) for o in spec.objects] == [
        (o.kind, o.attributes["cell"]) for o in plain.objects]
