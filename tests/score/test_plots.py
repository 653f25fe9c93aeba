"""The report's figures lay themselves out without measuring (byo.core.figures.panels): every
label, tick label and legend lies inside the drawn image, no axes' labels run into another
axes, and no legend covers an axes, for long labels and many models alike."""

from __future__ import annotations

import io

import numpy as np
import pytest
from matplotlib.text import Text
from PIL import Image

from byo.score import plots

MODELS = ["blind (demo)", "oracle (demo)", "qwen2.5-vl-72b-instruct (chess_count_high_blur)", "gpt-4o-mini",
          "llava-1.6", "blind (demo_poker)"]


def points(levels: list[str], i: int) -> list[dict]:
    return [{"level": lv, "value": (0.2 + 0.1 * i + 0.05 * j) % 1, "lo": 0.05, "hi": 0.98, "parse_rate": 0.9}
            for j, lv in enumerate(levels)]


def level_grids():
    short = ["3", "6", "9"]
    long = ["very_far_away", "far", "medium_distance", "near", "extremely_close_to_the_camera"]
    for models in (MODELS[:2], MODELS):
        for columns in ([("content.count", short)], [("content.count", short), ("camera.distance", long)],
                        [("a", short), ("b", long), ("lighting.intensity", ["low", "medium", "high"])]):
            panels = [(var, levels, {m: points(levels, i) for i, m in enumerate(models)}) for var, levels in columns]
            yield [("accuracy", panels, True, (-0.03, 1.05)), ("MAE", panels, False, None),
                   ("signed error", panels, False, None)]


def figures(monkeypatch) -> list:
    drawn = []
    real = plots.png

    def keep(fig, **options):
        drawn.append(fig)
        return real(fig, **options)

    monkeypatch.setattr(plots, "png", keep)
    for grid in level_grids():
        assert plots.metric_vs_levels(grid).startswith(b"\x89PNG")
    groups = ["all questions", "count_identify_face_down_cards", "query_shape_unique_color", "relate_left"]
    for models in (MODELS[:2], MODELS):
        series = {m: [{"value": 0.5, "lo": 0.3, "hi": 0.7, "parse_rate": 0.9}] * len(groups) for m in models}
        plots.grouped_bars(groups, series, ylabel="accuracy (95%, clustered)")
        plots.grouped_bars(["debiased\ndirect", "neutral\ndirect"], {m: v[:2] for m, v in series.items()},
                           ylabel="accuracy", horizontal_labels=True, title="per prompt")
        plots.signed_errors({m: [-3, -1, 0, 0, 2] if i % 2 else [] for i, m in enumerate(models)}, "count_pieces")
        xs = [0.5, 1.0, 2.0, 4.0, 8.0]
        curves = [{"label": m, "x": xs, "y": [0.9, 0.8, 0.6, 0.4, 0.3], "lo": [0.7] * 5, "hi": [0.95] * 5,
                   "curve": (xs, [0.9, 0.8, 0.6, 0.4, 0.3]), "threshold": 2.5, "threshold_lo": 1.5,
                   "threshold_hi": 3.5, "chance": 0.25, "prior": i == 0} for i, m in enumerate(models)]
        plots.psychometric(curves, xlabel="camera.distance", ylabel="P(correct)", title="count_identify_face_down_cards",
                           ticks=[(x, name) for x, name in zip(xs, ["very_close", "close", "medium", "far", "very_far"],
                                                               strict=True)])
    return drawn


def test_every_label_is_inside_the_image_and_nothing_overlaps(monkeypatch):
    for fig in figures(monkeypatch):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        width, height = fig.canvas.get_width_height()
        drawn = fig.get_tightbbox(renderer)  # everything drawn, each label and legend included (inches)
        assert drawn.x0 >= 0 and drawn.y0 >= 0 and drawn.x1 <= fig.bbox_inches.x1 and drawn.y1 <= fig.bbox_inches.y1
        assert any(t.get_text() for t in fig.findobj(Text))
        axes = [ax for ax in fig.axes if ax.get_visible()]
        for ax in axes:
            labelled = ax.get_tightbbox(renderer, for_layout_only=True)
            for other in axes:
                if other is not ax:
                    assert not labelled.overlaps(other.get_window_extent(renderer)), (ax.get_xlabel(), other.get_xlabel())
        for legend in [*fig.legends, *(ax.get_legend() for ax in axes if ax.get_legend() and ax.get_legend()
                                       .get_bbox_to_anchor().y0 > ax.get_window_extent(renderer).y1)]:
            box = legend.get_window_extent(renderer)
            assert box.x0 >= 0 and box.x1 <= width and box.y1 <= height
            assert not any(box.overlaps(ax.get_window_extent(renderer)) for ax in axes)


@pytest.mark.parametrize("long_levels", [False, True])
def test_a_figure_is_cropped_to_what_it_draws(monkeypatch, long_levels):
    levels = ["extremely_close", "far_away_from_the_camera"] if long_levels else ["3", "6"]
    data = plots.metric_vs_levels([("accuracy", [("v", levels, {"m": points(levels, 0)})], True, (-0.03, 1.05))])
    image = np.asarray(Image.open(io.BytesIO(data)).convert("L"))
    border = np.concatenate([image[:3].ravel(), image[-3:].ravel(), image[:, :3].ravel(), image[:, -3:].ravel()])
    assert (border >= 250).all()  # a white border of the crop's padding, and no more than that:
    inside = image[3:-3, 3:-3] < 250
    assert inside[:8].any() or inside[:, :8].any() or inside[-8:].any() or inside[:, -8:].any()
