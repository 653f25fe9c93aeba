"""Synthetic against real (BYO-Eval's appendix E): photos with hand-written labels are asked the
synthetic dataset's questions word for word, scored through the same steps, and their per-level
accuracy is correlated with the synthetic run's (Pearson and Spearman, scipy). The "photos" here
are stand-ins: a few of the synthetic images saved as JPEG, with labels typed below by hand."""

from __future__ import annotations

import json

import pytest
from count_data import LEAD, make_count_dataset, write_run
from PIL import Image
from scipy import stats

from byo.cli import main
from byo.core.errors import ConfigError
from byo.questions.real import real_questions

# Hand-written labels: the photo files and what stands on each board (counts 1 to 8, as the paper's).
LABELS = """\
images:
  - {image: images/IMG_0001.jpg, levels: {content.count: 1}, answers: {count_pieces: 1}}
  - {image: images/IMG_0002.jpg, levels: {content.count: 2}, answers: {count_pieces: 2}}
  - {image: images/IMG_0003.jpg, levels: {content.count: 3}, answers: {count_pieces: 3}}
  - {image: images/IMG_0004.jpg, levels: {content.count: 4}, answers: {count_pieces: 4}}
  - {image: images/IMG_0005.jpg, levels: {content.count: 5}, answers: {count_pieces: 5}}
  - {image: images/IMG_0006.jpg, levels: {content.count: 6}, answers: {count_pieces: 6}}
  - {image: images/IMG_0007.jpg, levels: {content.count: 7}, answers: {count_pieces: 7}}
  - {image: images/IMG_0008.jpg, levels: {content.count: 8}, answers: {count_pieces: 8}}
"""


def fading(q: dict) -> str:
    """A model that miscounts more the more pieces there are: wrong on a share of the variants
    growing with the count (the same rule on renders and photos)."""
    count = q["answer"]
    variant = ["neutral/declarative", "neutral/fill_blank", "helpful/declarative", "helpful/fill_blank"].index(
        f"{q['preprompt']}/{q['instruction']}")
    wrong = variant < min(4, count // 2)
    return f"{LEAD} {count + 1 if wrong else count}"


@pytest.fixture
def synthetic_and_real(tmp_path):
    synthetic = tmp_path / "synthetic"
    questions = make_count_dataset(synthetic)
    real = tmp_path / "photos"
    (real / "images").mkdir(parents=True)
    for count in range(1, 9):
        Image.open(synthetic / "images" / f"count_{count:02d}_0.png").convert("RGB").save(
            real / "images" / f"IMG_{count:04d}.jpg", quality=90)
    (real / "labels.yaml").write_text(LABELS)
    return synthetic, real, questions


def test_photos_are_asked_the_synthetic_questions_and_correlated(synthetic_and_real, capsys):
    synthetic, real, questions = synthetic_and_real
    assert main(["real-questions", str(real), "--like", str(synthetic)]) == 0
    asked = [json.loads(line) for line in (real / "questions.jsonl").read_text().splitlines()]
    assert len(asked) == 8 * 4  # every prompt variant of count_pieces, for each photo
    same = {(q["preprompt"], q["instruction"]): q["prompt"] for q in questions}
    assert all(q["prompt"] == same[(q["preprompt"], q["instruction"])] for q in asked)
    synthetic_run = write_run(synthetic, questions, "fading", "fading-vlm", fading)
    real_run = write_run(real, asked, "fading", "fading-vlm", fading)
    assert main(["score", str(real_run), "--bootstrap", "0"]) == 0
    assert main(["correlate", str(synthetic_run), str(real_run)]) == 0
    assert "Pearson" in capsys.readouterr().out
    rows = json.loads((real_run / "correlation.json").read_text())["rows"]
    pooled = next(r for r in rows if r["key"] == "*" and r["variable"] == "content.count")
    assert pooled["levels"] == 8  # the counts both runs have
    accuracy = [1 - min(4, c // 2) / 4 for c in range(1, 9)]  # the same rule on both
    assert pooled["synthetic"] == pytest.approx(accuracy) and pooled["real"] == pytest.approx(accuracy)
    assert pooled["pearson"] == pytest.approx(1.0) and pooled["spearman"] == pytest.approx(1.0)
    # A model that does worse on photos at some counts: the coefficients scipy gives for the same numbers.
    def worse(q):
        return fading(q) if q["answer"] % 3 else f"{LEAD} 0"
    worse_run = write_run(real, asked, "worse", "fading-vlm", worse)
    assert main(["correlate", str(synthetic_run), str(worse_run)]) == 0
    row = next(r for r in json.loads((worse_run / "correlation.json").read_text())["rows"] if r["key"] == "*")
    real_accuracy = [0.0 if c % 3 == 0 else a for c, a in zip(range(1, 9), accuracy, strict=True)]
    assert row["real"] == pytest.approx(real_accuracy)
    assert row["pearson"] == pytest.approx(stats.pearsonr(accuracy, real_accuracy).statistic)
    assert row["spearman"] == pytest.approx(stats.spearmanr(accuracy, real_accuracy).statistic)


@pytest.mark.parametrize("labels, problem", [
    ("images:\n  - {image: images/none.jpg, answers: {count_pieces: 1}}\n", "does not exist"),
    ("images:\n  - {image: images/IMG_0001.jpg, answers: {count_squares: 64}}\n", "asks no question 'count_squares'"),
    ("images:\n  - {image: images/IMG_0001.jpg, answers: {count_pieces: many}}\n", "expected a number"),
    ("images: []\n", "at least 1"),
])
def test_bad_labels_are_named(synthetic_and_real, labels, problem):
    synthetic, real, _ = synthetic_and_real
    (real / "labels.yaml").write_text(labels)
    with pytest.raises(ConfigError) as err:
        real_questions(real, synthetic)
    assert "labels.yaml" in str(err.value) and problem in str(err.value)
