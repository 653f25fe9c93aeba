"""Chess renders: cells under pieces, visibility, colours. Tiny images keep this fast."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import small_render, write_config
from PIL import Image

from byo.render.runner import render_dataset
from byo.scene.measure import read_mask

pytestmark = pytest.mark.render
FAST = {"samples": 1, "denoise": "off", "adaptive_threshold": None}


def render(tmp_path, name: str, content: dict, *, n_images=1, variables=None, **scene) -> list[dict]:
    cfg = {"dataset": {"name": name, "family": "chess", "seed": 8, "n_images": n_images},
           "scene": {"resolution": [96, 54], "render": small_render("chess", scene.get("resolution", [96, 54]), **FAST),
                     **scene, "content": content},
           "variables": variables or {}}
    out = tmp_path / name
    report = render_dataset(str(write_config(tmp_path, cfg, f"{name}.yaml")), str(out), show_progress=False)
    assert not report.failed, report.failed
    return [json.loads(p.read_text()) for p in sorted((out / "legends").glob("*.json"))]


def inside_quad(point, quad) -> bool:
    """Point in a convex quadrilateral (corners in order, either orientation)."""
    signs = []
    for (x0, y0), (x1, y1) in zip(quad, quad[1:] + quad[:1], strict=True):
        signs.append((x1 - x0) * (point[1] - y0) - (y1 - y0) * (point[0] - x0))
    return all(s >= 0 for s in signs) or all(s <= 0 for s in signs)


def test_recorded_cell_is_under_the_piece_for_any_azimuth(tmp_path):
    # geometry under test, not readability: no counterfactual renders
    legends = render(tmp_path, "cells", {"count": [1, 8]}, n_images=100,
                     render={**FAST, "on_hidden": "flag", "counterfactual": {"enabled": False}},
                     variables={"camera.azimuth": {"type": "varying_among_range", "min": 0.0, "max": 360.0},
                                "camera.elevation": {"type": "varying_among_range", "min": 35.0, "max": 80.0}})
    assert len(legends) == 100
    checked = 0
    for legend in legends:
        board = legend["extras"]["board"]
        cols = board["columns"] + 1
        corners = [c[:2] for c in legend["landmarks"]["board_corners"]]
        for o in legend["objects"]:
            i, j = o["attributes"]["cell"]
            quad = [corners[i * cols + j], corners[i * cols + j + 1], corners[(i + 1) * cols + j + 1],
                    corners[(i + 1) * cols + j]]
            assert inside_quad(o["pixel_coords"][:2], quad), (legend["name"], o["name"])
            # ... and no other cell's quad holds the base.
            others = [(a, b) for a in range(board["rows"]) for b in range(board["columns"]) if (a, b) != (i, j)]
            assert not any(inside_quad(o["pixel_coords"][:2], [
                corners[a * cols + b], corners[a * cols + b + 1], corners[(a + 1) * cols + b + 1],
                corners[(a + 1) * cols + b]]) for a, b in others)
            checked += 1
    assert checked > 300


def test_many_pieces_flagged_or_avoided_per_config(tmp_path):
    flagged = render(tmp_path, "flag", {"count": 21}, n_images=3, resolution=[128, 72],
                     render={**FAST, "on_hidden": "flag", "min_visible_pixels": 40})
    hidden = 0
    for legend in flagged:
        assert len(legend["objects"]) == 21
        for o in legend["objects"]:
            assert o["visible"] == (o["visible_pixels"] >= 40)
            hidden += not o["visible"]
    assert hidden > 0  # 21 pieces at this size do hide one another
    avoided = render(tmp_path, "avoid", {"count": 8}, n_images=3, resolution=[128, 72],
                     render={**FAST, "min_visible_pixels": 20})
    assert all(o["visible"] and o["visible_pixels"] >= 20 for lg in avoided for o in lg["objects"])


def test_piece_and_board_colors_match_the_render(tmp_path):
    content = {"board": {"light_color": [0.2, 0.75, 0.2], "dark_color": [0.75, 0.15, 0.15], "rows": 4, "columns": 4},
               "pieces": [{"type": "queen", "color": "white", "cell": [1, 1]},
                          {"type": "queen", "color": "black", "cell": [1, 2]}]}
    (legend,) = render(tmp_path, "colours", content, resolution=[160, 90], render={**FAST, "samples": 8},
                       camera={"distance": 0.7, "elevation": 60})
    root = tmp_path / "colours"
    img = np.asarray(Image.open(root / legend["image"]).convert("RGB")).astype(float)
    mask = read_mask(root / legend["mask"])
    white, black = (img[mask == o["id"]].mean() for o in legend["objects"])
    assert [o["attributes"]["color"] for o in legend["objects"]] == ["white", "black"]
    assert white > black + 60
    board = legend["extras"]["board"]
    corners = np.array([c[:2] for c in legend["landmarks"]["board_corners"]]).reshape(5, 5, 2)
    checked = 0
    for i in range(4):
        for j in range(4):
            x, y = corners[i:i + 2, j:j + 2].reshape(4, 2).mean(axis=0)
            if mask[int(y), int(x)]:
                continue  # a piece stands in front of this square's centre
            r, g, _ = img[int(y), int(x)]
            checked += 1
            dark = board["dark_squares"][i][j]
            assert (r > g) if dark else (g > r), (i, j, r, g)
    assert checked >= 12
    assert board["colors"]["light"] == [0.2, 0.75, 0.2]
