"""Chess specs: board geometry, view rows/columns, content options. Pure Python."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import write_config

from byo.core.errors import ConfigError
from byo.families import load_config
from byo.families.chess.family import BoardGeometry, ViewMapping
from byo.families.chess.model import ChessContent
from byo.scene.plan import jobs
from byo.scene.spec import sample_spec


def chess_config(n_images=1, variables=None, **content) -> dict:
    return {"dataset": {"name": "chess", "family": "chess", "seed": 3, "n_images": n_images},
            "scene": {"resolution": [160, 90], "content": content}, "variables": variables or {}}


def specs(tmp_path, n_images=1, variables=None, **content):
    cfg = load_config(write_config(tmp_path, chess_config(n_images, variables, **content)))
    return [sample_spec(cfg, j) for j in jobs(cfg)]


@pytest.mark.parametrize("azimuth", [0, 30, 90, 135, 180, 250, 300])
def test_view_rows_and_columns_follow_the_image(tmp_path, azimuth):
    (spec,) = specs(tmp_path, variables={"camera.azimuth": {"type": "fixed", "value": azimuth}},
                    board={"rows": 5, "columns": 7})
    content = ChessContent.model_validate(spec.content)
    geometry = BoardGeometry(content.board)
    view = ViewMapping(5, 7, spec.extras["directions"])
    proj = spec.setup.projector()
    cells = {(i, j): view.view_cell(i, j) for i in range(5) for j in range(7)}
    assert sorted(cells.values()) == [(r, c) for r in range(view.view_rows) for c in range(view.view_cols)]
    px = {cell: proj.project([geometry.centre(*cell)])[0] for cell in cells}
    for a, b in itertools.permutations(cells, 2):
        (ra, ca), (rb, cb) = cells[a], cells[b]
        if ca == cb and ra < rb:
            assert px[a][1] < px[b][1]  # a lower view row is higher in the image
        if ra == rb and ca < cb:
            assert px[a][0] < px[b][0]  # a lower view column is further left


def test_pieces_record_physical_and_view_cells(tmp_path):
    found = specs(tmp_path, n_images=10, count=[3, 8],
                  variables={"camera.azimuth": {"type": "varying_among_range", "min": 0.0, "max": 360.0}})
    for spec in found:
        view = ViewMapping(8, 8, spec.extras["directions"])
        cells = [tuple(o.attributes["cell"]) for o in spec.objects]
        assert len(set(cells)) == len(cells)
        for o in spec.objects:
            assert view.view_cell(*o.attributes["cell"]) == (o.attributes["row"], o.attributes["column"])


def test_spread_levels_change_the_layout(tmp_path):
    def mean_pairwise(level: str) -> float:
        found = specs(tmp_path, n_images=30, count=6, placement={"spread": level, "start": "center"})
        dists = [np.mean([np.hypot(a[0] - b[0], a[1] - b[1]) for a, b in itertools.combinations(
            [o.attributes["cell"] for o in s.objects], 2)]) for s in found]
        return float(np.mean(dists))

    low, medium, high = (mean_pairwise(level) for level in ("low", "medium", "high"))
    assert low < medium < high
    assert low < 2.0 and high > 3.0


def test_corner_start_clusters_in_the_corner(tmp_path):
    for spec in specs(tmp_path, n_images=10, count=4, placement={"spread": "low", "start": "corner"}):
        assert all(max(o.attributes["cell"]) <= 2 for o in spec.objects)


def test_types_presets_and_n_types(tmp_path):
    for spec in specs(tmp_path, n_images=10, count=10, types="minor"):
        assert {o.kind for o in spec.objects} <= {"knight", "bishop"}
    for spec in specs(tmp_path, n_images=10, count=12, n_types=2):
        assert len({o.kind for o in spec.objects}) <= 2


def test_explicit_pieces_and_allowed_cells(tmp_path):
    (spec,) = specs(tmp_path, pieces=[{"type": "king", "color": "black", "cell": [0, 4]},
                                      {"type": "queen", "color": {"name": "red", "rgb": [0.8, 0.1, 0.1]}}],
                    placement={"cells": [[7, 7], [6, 6]]})
    king, queen = spec.objects
    assert king.attributes["cell"] == [0, 4] and king.attributes["color"] == "black"
    assert queen.attributes["cell"] in ([7, 7], [6, 6]) and queen.attributes["rgb"] == [0.8, 0.1, 0.1]


def test_random_pattern_changes_squares(tmp_path):
    (spec,) = specs(tmp_path, board={"random_pattern": True})
    pattern = np.array(spec.extras["board"]["dark_squares"])
    checker = np.add.outer(np.arange(8), np.arange(8)) % 2
    assert pattern.shape == (8, 8) and (pattern != checker).any()


def test_impossible_requests_fail_validation(tmp_path):
    def error(**content) -> str:
        with pytest.raises(ConfigError) as info:
            load_config(write_config(tmp_path, chess_config(**content)))
        return str(info.value)

    assert "17 pieces cannot stand on 16 cells of a 4x4 board" in error(board={"rows": 4, "columns": 4}, count=17)
    assert "cell [8, 0] is off the 8x8 board" in error(pieces=[{"type": "pawn", "cell": [8, 0]}])
    assert "unknown piece type preset 'minors'" in error(types="minors")
    assert "scene.content.board.rows" in error(board={"rows": 13})
