"""A breaking point by distance, with the object's height in the pixels its model receives beside
the rendered ones, in byo score's tables, its terminal table and the report."""

from __future__ import annotations

import json

import numpy as np
import pytest
from planted import count_questions, planted_predictions, write_dataset, write_run

from byo.cli import main
from byo.core.dataset import Layout
from byo.score import psychometric as psy
from byo.score.report import write_report
from byo.score.rows import received_scale
from byo.score.run import load_scores

DISTANCES = [2.0, 4.0, 6.0, 8.0, 10.0]
RENDERED, RECEIVED = [1920, 1080], [1365, 768]  # GPT-4.1 at detail high (byo.providers.image_pipeline)


def height_at(distance: float) -> float:
    return 240 / distance  # a piece 240 px tall at 1 m


def distance_run(root, received: dict | None):
    questions = count_questions(12, counts=[3])
    questions = [q.model_copy(update={"levels": {"camera.distance": DISTANCES[i % 5]}, "image": f"images/im{i}.png",
                                      "id": f"q{i}"}) for i, q in enumerate(questions * 5)]
    write_dataset(root, questions)
    layout = Layout(root)
    layout.legend("im0").parent.mkdir(parents=True, exist_ok=True)
    for q in questions:
        h = round(height_at(q.levels["camera.distance"]))
        objects = [{"id": 1, "bbox": [10, 100, 20, 100 + h], "visible": True},
                   {"id": 2, "bbox": [30, 0, 40, 5], "visible": False}]  # hidden: not the object seen
        layout.legend(q.image.split("/")[1][:-4]).write_text(json.dumps({"objects": objects}))
    p_right = {2.0: 0.97, 4.0: 0.95, 6.0: 0.6, 8.0: 0.1, 10.0: 0.05}
    rng = np.random.default_rng(1)
    predictions = [p for q in questions
                   for p in planted_predictions([q], lambda c, d=q.levels["camera.distance"]: p_right[d], rng)]
    if received is not None:
        for p in predictions:
            p["image"] = {"size": RENDERED, "sent_size": RENDERED, "received": received}
    return write_run(root, "r", predictions)


def test_received_scale_of_a_row():
    assert received_scale({"size": RENDERED, "sent_size": RENDERED,
                           "received": {"size": RECEIVED}}) == pytest.approx(1365 / 1920)
    # byo sent it halved, and the provider's centre crop kept 0.5 of each sent pixel
    assert received_scale({"size": [2000, 1000], "sent_size": [1000, 500],
                           "received": {"size": [336, 336], "scale": 0.5, "cropped": True}}) == pytest.approx(0.25)
    assert received_scale({"size": RENDERED, "sent_size": RENDERED, "received": {"size": None}}) is None
    assert received_scale(None) is None


def test_a_distance_breaking_point_shows_the_object_rendered_and_received(tmp_path, capsys):
    run = distance_run(tmp_path / "ds", {"size": RECEIVED, "scale": 1365 / 1920})
    scores = load_scores(run)
    fit = next(f for f in scores.tables["breaking_points"]
               if f["variable"] == "camera.distance" and f["link"] == "logistic")
    assert fit["verdict"] == psy.VERDICT_BREAKS and 4 < fit["threshold"] < 8
    lower = max(d for d in DISTANCES if d <= fit["threshold"])
    upper = min(d for d in DISTANCES if d > fit["threshold"])
    share = (fit["threshold"] - lower) / (upper - lower)
    expected = round(height_at(lower)) * (1 - share) + round(height_at(upper)) * share
    assert fit["object_px_rendered"] == pytest.approx(expected)
    assert fit["object_px_received"] == pytest.approx(expected * 1365 / 1920)
    text = f"{fit['object_px_rendered']:.0f} px → {fit['object_px_received']:.0f} px"
    html = write_report([scores], tmp_path / "report.html").read_text()
    assert f"the object at it, rendered → received: {text}" in html
    assert main(["score", str(run), "--bootstrap", "50"]) == 0
    assert text in capsys.readouterr().out


def test_a_run_without_received_sizes_shows_none(tmp_path):
    scores = load_scores(distance_run(tmp_path / "ds", None))
    fit = next(f for f in scores.tables["breaking_points"] if f["variable"] == "camera.distance")
    assert fit["object_px_rendered"] is None and fit["object_px_received"] is None
