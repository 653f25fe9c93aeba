"""The crest library, grammar layout and meshes: pure Python."""

from __future__ import annotations

import pytest

from byo.families.crest.motifs import library
from byo.families.crest.motifs.geometry import radius, rotate, symmetric_difference_ratio
from byo.families.crest.motifs.grammar import (
    MODIFIERS,
    Crest,
    GrammarError,
    crest_geometry,
    layers,
    motif_placements,
)
from byo.families.crest.motifs.mesh import mesh_area, triangulate
from byo.families.crest.motifs.raster import rasterize

ALL = list(library.MOTIFS) + list(library.CONTAINERS)

# Published ids never change: a few pinned here, and the full list's shape below.
PINNED = {"0001": "kokumochi", "0004": "mitsudomoe", "0008": "kikyo", "0025": "ogi", "0043": "karakasa",
          "1008": "kage-kikyo", "2008": "nakakage-kikyo", "3025": "ishimochi-ogi"}
PINNED_CONTAINERS = {"01": "maru", "06": "sumitate-kaku", "10": "kikko", "14": "mokko", "16": "goka"}


def test_library_size_and_unique_names():
    assert len(library.MOTIFS) >= 40 and len(library.CONTAINERS) >= 14
    for table in (library.MOTIFS, library.CONTAINERS):
        for attr in ("id", "key", "ja", "reading", "romaji", "en", "en_plural"):
            values = [getattr(c, attr) for c in table]
            assert len(set(values)) == len(values), attr
    ids = [c.id for c in library.MOTIFS]
    assert all(len(i) == 4 and i.isdigit() for i in ids) and all(len(c.id) == 2 for c in library.CONTAINERS)
    assert {i: library.MOTIFS_BY_ID[i].key for i in PINNED} == PINNED
    assert {i: library.CONTAINERS_BY_ID[i].key for i in PINNED_CONTAINERS} == PINNED_CONTAINERS
    assert sum(c.style != "plain" for c in library.MOTIFS) >= 8
    assert sum(c.oriented for c in library.MOTIFS) >= 10


def test_style_variants_follow_real_naming():
    kage = library.motif("kage-kikyo")
    assert (kage.ja, kage.reading, kage.en, kage.id) == ("陰桔梗", "かげききょう", "outlined bellflower", "1008")
    stone = library.motif("ishimochi-ogi")
    assert stone.ja == "石持ち地抜き扇" and stone.oriented and stone.en_plural == "folding fans cut out of disks"
    base = library.motif("kikyo").geometry()
    assert kage.geometry().area < 0.6 * base.area  # an outline, not the filled shape
    assert library.motif("nakakage-kikyo").geometry().area > kage.geometry().area


def test_lookup_by_key_id_and_names():
    assert library.motif("M:0008") is library.motif("kikyo") is library.motif("桔梗") is library.motif("bellflower")
    assert library.container("C:01") is library.container("丸") is library.container("maru")
    with pytest.raises(KeyError, match="unknown motif 'kikyou'"):
        library.motif("kikyou")
    with pytest.raises(KeyError, match="quoted id"):
        library.motif(8)


@pytest.mark.parametrize("component", ALL, ids=lambda c: c.key)
def test_geometry_is_valid_and_fits_the_canvas(component):
    g = component.geometry()
    assert g.is_valid and not g.is_empty and g.area > 0.05
    if component.kind == "motif":
        assert radius(g) == pytest.approx(library.MOTIF_RADIUS, abs=1e-6)
    else:
        x0, y0, x1, y1 = g.bounds
        assert -1.0 - 1e-9 <= min(x0, y0) and max(x1, y1) <= 1.0 + 1e-9
        interior = component.interior()
        assert interior.area > 0.9 and interior.intersection(g).area < 1e-6  # the band surrounds it
    # Meshes cover the shape exactly, with or without the grid used on curved carriers.
    for cell in (None, 0.1):
        verts, faces = triangulate(g, cell=cell)
        assert mesh_area(verts, faces) == pytest.approx(g.area, rel=1e-4)


def test_oriented_motifs_change_under_the_stack_turns():
    """An oriented motif must look different when turned by 120 or 180 degrees, or
    bottoms-together and heads-together would be indistinguishable from three-stacked."""
    for m in library.MOTIFS:
        if m.oriented:
            g = m.geometry()
            for turn in (120, 180):
                assert symmetric_difference_ratio(g, rotate(g, turn)) > 0.2, (m.key, turn)


def test_layout_constants():
    k = library.motif("ogi").id
    (p,) = motif_placements(Crest(("01",), "none", k))
    assert (p.x, p.y, p.scale) == (0, 0, 0.75)
    (p,) = motif_placements(Crest(("01",), "peeking", k))
    assert (p.x, p.y, p.scale) == (0, -0.25, 0.75)
    assert motif_placements(Crest(("01",), "bean", k))[0].scale == 0.25
    free = motif_placements(Crest((), "bottoms_together", k))
    assert [(q.x, q.y, q.scale, q.rotation) for q in free] == [(0, 0.5, 0.4, 0), (-0.42, -0.27, 0.4, 120),
                                                                (0.42, -0.27, 0.4, 240)]
    heads = motif_placements(Crest(("01",), "heads_together", k))
    assert [q.rotation for q in heads] == [180, 300, 420]
    assert heads[1].x == pytest.approx(-0.35 * 0.75) and heads[1].scale == pytest.approx(0.3)
    nested = layers(Crest(("07", "01"), "none", k))
    assert [la.placement.scale for la in nested] == [1.0, 0.75, 0.75**2]
    with pytest.raises(GrammarError, match="containerless crest needs a spatial arrangement"):
        Crest((), "bean", k)


def test_peeking_is_clipped_to_the_container_interior():
    k = library.motif("kokumochi").id
    for c in library.CONTAINERS:
        motif_layer = layers(Crest((c.id,), "peeking", k))[-1]
        drawn = motif_layer.geometry()
        assert drawn.difference(c.interior()).area < 1e-6, c.key
        assert drawn.area < motif_layer.placement.apply(library.motif("kokumochi").geometry()).area


def test_six_modifiers_draw_six_different_crests():
    k, c = library.motif("ogi").id, library.container("maru").id
    masks = [rasterize(crest_geometry(layers(Crest((c,), m, k))), 96) for m in MODIFIERS]
    for i in range(len(masks)):
        for j in range(i):
            assert (masks[i] != masks[j]).sum() > 40, (MODIFIERS[i], MODIFIERS[j])


def test_stack_copies_stay_apart_except_heads_together():
    """Three-stacked and bottoms-together copies never touch. Heads-together copies sit closer
    (the benchmark's constants), so wide motifs overlap there: each copy then has its own
    drawing level, so the mask gives the overlap to exactly one of them."""
    for m in library.MOTIFS:
        for mod in ("three_stacked", "bottoms_together"):
            copies = [la.geometry() for la in layers(Crest((), mod, m.id))]
            for a in range(3):
                for b in range(a):
                    assert copies[a].intersection(copies[b]).area < 1e-6, (m.key, mod)
    heads = layers(Crest(("01",), "heads_together", library.motif("kokumochi").id))
    assert len({la.level for la in heads}) == len(heads)


@pytest.mark.parametrize("command", [["sheet", "crest-library"], ["crest-library-sheet"]])  # and its older name
def test_library_sheet_preview(tmp_path, command):
    from PIL import Image

    from byo.cli import main

    assert main([*command, str(tmp_path / "library.png"), "--preview", "--size", "48"]) == 0
    with Image.open(tmp_path / "library.png") as im:
        rows = -(-(len(library.MOTIFS) + len(library.CONTAINERS)) // 10)
        assert im.width > 10 * 48 and im.height > rows * 48
