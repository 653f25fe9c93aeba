"""The simulated observer through byo eval and the real scorer: answers right as often as its planted
psychometric function of a legend quantity says, the same answer for the same question, and its
twin answered right exactly when the twin's quantity makes that likelier than the draw."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from PIL import Image
from scipy import stats

import byo
from byo.core.errors import ConfigError
from byo.providers.simulated import legend_value, parse_spec, quantity_of
from byo.questions.load import Question
from byo.score.rows import load_run

SPEC = "levels.content.count,threshold=6,slope=-1.2,lapse=0.05"


def p_planted(q: float, chance: float = 0.0, threshold=6.0, slope=-1.2, lapse=0.05) -> float:
    return chance + (1 - chance - lapse) / (1 + math.exp(-slope * (q - threshold)))


def dataset(root: Path, counts: dict[str, int], *, choices: bool = False, per_image: int = 1) -> Path:
    """Images with legends whose level content.count is given; counting questions, or four-option
    multiple choice (chance 1/4)."""
    for sub in ("images", "legends"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    questions = []
    for name, count in counts.items():
        Image.new("RGB", (8, 8), (20, 40, 60)).save(root / "images" / f"{name}.png")
        legend = {"name": name, "image": f"images/{name}.png", "levels": {"content.count": count}, "objects": []}
        (root / "legends" / f"{name}.json").write_text(json.dumps(legend))
        for k in range(per_image):
            common = {"id": f"{name}/count_pieces/v{k}/direct", "image": f"images/{name}.png", "family": "chess",
                      "task": "counting", "key": "count_pieces", "levels": {"content.count": count},
                      "preprompt": f"v{k}", "instruction": "direct"}
            if choices:
                questions.append(Question(**common, prompt="How many? (A) 1 (B) 2 (C) 3 (D) 4", answer="C",
                                          answer_type="multiple_choice", choices=["1", "2", "3", "4"], chance=0.25))
            else:
                questions.append(Question(**common, prompt="How many pieces?", answer=count, answer_type="integer"))
    (root / "questions.jsonl").write_text("".join(q.model_dump_json() + "\n" for q in questions))
    return root


def share_right(run: Path) -> tuple[int, int]:
    rows, _ = load_run(run)
    return sum(r["correct"] for r in rows), len(rows)


@pytest.mark.parametrize(("count", "choices"), [(2, False), (6, False), (10, False), (6, True), (12, True)])
def test_right_as_often_as_planted(tmp_path, count, choices):
    """400 questions at one quantity: the number right is within the 99.9% range of a binomial of the
    planted probability (chance 0 for counts, 1/4 for four options)."""
    root = dataset(tmp_path, {f"img_{i:03d}": count for i in range(100)}, choices=choices, per_image=4)
    run = byo.evaluate(root, "simulated", SPEC).run_dir
    right, n = share_right(run)
    p = p_planted(count, 0.25 if choices else 0.0)
    lo, hi = stats.binom.ppf([0.0005, 0.9995], n, p)
    assert n == 400 and lo <= right <= hi


def test_same_question_same_answer_and_the_twin(tmp_path):
    hard = dataset(tmp_path / "hard", {f"img_{i:03d}": 9 for i in range(200)})
    first = byo.evaluate(hard, "simulated", SPEC, run="a").run_dir
    second = byo.evaluate(hard, "simulated", SPEC, run="b").run_dir
    answers = [{r["id"]: r["response"] for r in load_run(run)[0]} for run in (first, second)]
    assert answers[0] == answers[1]
    # The twins: the same names, count 1 instead of 9. Each question keeps its draw, so every one
    # right at 9 is right at 1, and a wrong one turns right unless its draw lies above p(1).
    easy = dataset(tmp_path / "easy", {f"img_{i:03d}": 1 for i in range(200)})
    twin = byo.evaluate(easy, "simulated", SPEC, run="a").run_dir
    before = {r["id"]: r["correct"] for r in load_run(first)[0]}
    after = {r["id"]: r["correct"] for r in load_run(twin)[0]}
    assert all(after[i] for i, right in before.items() if right)
    wrong = [i for i, right in before.items() if not right]
    still = sum(not after[i] for i in wrong)
    assert len(wrong) > 100
    assert stats.binom.ppf(0.0005, len(wrong), 1 - (1 - p_planted(1)) / (1 - p_planted(9))) \
        <= len(wrong) - still  # those that flip: P(u < p(1) | u >= p(9))


def test_a_wrong_count_is_off_by_one_or_two_and_scored_wrong(tmp_path):
    root = dataset(tmp_path, {f"img_{i:03d}": 3 for i in range(60)})
    rows, _ = load_run(byo.evaluate(root, "simulated", "levels.content.count,threshold=0,slope=-5").run_dir)
    assert all(not r["correct"] and r["error"] in (-2, -1, 1, 2) for r in rows)  # p(3) = 3e-7


def test_quantities_of_a_legend():
    legend = {"levels": {"blur.fstop": 2.0, "content.count": 4}, "setup": {"camera": {"elevation": 42.0}}}
    assert legend_value(legend, "levels.blur.fstop") == 2.0
    assert quantity_of(legend, "setup.camera.elevation") == 42.0
    with pytest.raises(KeyError):
        legend_value(legend, "levels.blur")
    blurred = {"setup": {"blur": {"enabled": True, "fstop": 1.0, "focus_distance": 0.5},
                         "camera": {"focal_length": 50.0, "sensor_width": 36.0}, "resolution": [640, 480]},
               "objects": [{"pixel_coords": [10, 10, 1.0], "visible": True},
                           {"pixel_coords": [20, 20, 2.0], "visible": True},
                           {"pixel_coords": [30, 30, 9.0], "visible": False}]}
    # the blur disc c = f^2 / (N (d_f - f)) * |d - d_f| / d on the sensor, in pixels of its width
    f, n, df = 0.05, 1.0, 0.5
    disc = [f * f / (n * (df - f)) * abs(d - df) / d / 0.036 * 640 for d in (1.0, 2.0)]
    assert quantity_of(blurred, "blur_px") == pytest.approx(sum(disc) / 2, rel=1e-3)
    assert quantity_of({**blurred, "setup": {**blurred["setup"], "blur": {"enabled": False}}}, "blur_px") == 0.0


def test_a_quantity_the_legend_lacks_fails_the_request(tmp_path):
    root = dataset(tmp_path, {"img_000": 3})
    report = byo.evaluate(root, "simulated", "levels.camera.elevation,threshold=1,slope=1")
    assert report.statuses == {"rejected": 1}
    assert "levels.camera.elevation" in report.rows[0]["error"]


@pytest.mark.parametrize(("spec", "says"), [
    ("blur_px,threshold=6", "expected QUANTITY,threshold=T,slope=S"),
    ("blur_px,threshold=six,slope=1", "threshold='six' is not a number"),
    ("blur_px,threshold=6,slope=1,lapse=1.5", "lapse=1.5"),
    ("blur_px,threshold=6,slope=1,steep=2", "'steep=2'"),
])
def test_a_bad_spec_is_named_before_any_question(tmp_path, spec, says):
    root = dataset(tmp_path, {"img_000": 3})
    with pytest.raises(ConfigError, match="simulated observer") as err:
        byo.evaluate(root, "simulated", spec)
    assert says in str(err.value)
    assert not (root / "runs").exists()
    with pytest.raises(ValueError):
        parse_spec(spec)
