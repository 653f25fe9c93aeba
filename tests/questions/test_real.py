"""Synthetic against real (BYO-Eval's appendix E): photos with hand-written labels are asked the
synthetic dataset's questions word for word, scored through the same steps, and their per-level
accuracy is correlated with the synthetic run's (Pearson and Spearman, scipy). The "photos" here
are stand-ins: a few of the synthetic images saved as JPEG, with labels typed below by hand."""

from __future__ import annotations

import json
import re

import numpy as np
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
    assert [(r["key"], r["variable"]) for r in rows] == [("count_pieces", "content.count")]  # the key both asked
    pooled = rows[0]
    assert pooled["levels"] == 8  # the counts both runs have
    accuracy = [1 - min(4, c // 2) / 4 for c in range(1, 9)]  # the same rule on both
    assert pooled["synthetic"] == pytest.approx(accuracy) and pooled["real"] == pytest.approx(accuracy)
    assert pooled["pearson"] == pytest.approx(1.0) and pooled["spearman"] == pytest.approx(1.0)
    # A model that does worse on photos at some counts: the coefficients scipy gives for the same numbers.
    def worse(q):
        return fading(q) if q["answer"] % 3 else f"{LEAD} 0"
    worse_run = write_run(real, asked, "worse", "fading-vlm", worse)
    assert main(["correlate", str(synthetic_run), str(worse_run)]) == 0
    row = next(r for r in json.loads((worse_run / "correlation.json").read_text())["rows"] if r["key"] == "count_pieces")
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


# --- photos linked to their renders: scene pairs (Figures 52 and 53) ------------------------------
VARIANTS = ["neutral/declarative", "neutral/fill_blank", "helpful/declarative", "helpful/fill_blank"]
PHOTOGRAPHED = [(c, k) for c in range(1, 9) for k in range(3) if (c, k) != (8, 2)]  # 23 scenes rebuilt


def scene(q: dict) -> tuple[int, int, int]:
    """(count, image, prompt variant) of a question on a render or on its photo."""
    count, k = map(int, re.search(r"(\d+)_(\d)\.", q["image"]).groups())
    return count, k, VARIANTS.index(f"{q['preprompt']}/{q['instruction']}")


def render_wrong(count: int, k: int, v: int) -> bool:
    """Wrong on more variants the more pieces, and on one more on the second image of a count."""
    return v < count // 3 + (k == 1)


def photo_wrong(count: int, k: int, v: int) -> bool:
    """Alike, shifted by the image, and wrong on the last variant of the third image."""
    return v < (count + k) // 3 + (v == 3 and k == 2)


def by_rule(wrong):
    def answer(q):
        return f"{LEAD} {q['answer'] + 1 if wrong(*scene(q)) else q['answer']}"
    return answer


@pytest.fixture
def scene_pairs(tmp_path):
    synthetic = tmp_path / "synthetic"
    questions = make_count_dataset(synthetic)
    real = tmp_path / "photos"
    (real / "images").mkdir(parents=True)
    labels = ["images:"]
    for count, k in PHOTOGRAPHED:
        Image.open(synthetic / "images" / f"count_{count:02d}_{k}.png").convert("RGB").save(
            real / "images" / f"IMG_{count:02d}_{k}.jpg", quality=90)
        labels.append(f"  - {{image: images/IMG_{count:02d}_{k}.jpg, render: images/count_{count:02d}_{k}.png}}")
    (real / "labels.yaml").write_text("\n".join(labels) + "\n")
    assert main(["real-questions", str(real), "--like", str(synthetic)]) == 0
    asked = [json.loads(line) for line in (real / "questions.jsonl").read_text().splitlines()]
    return (write_run(synthetic, questions, "rule", "rule-vlm", by_rule(render_wrong)),
            write_run(real, asked, "rule", "rule-vlm", by_rule(photo_wrong)), asked)


def test_a_photo_that_names_its_render_takes_its_levels_and_answers(scene_pairs):
    _, _, asked = scene_pairs
    assert len(asked) == len(PHOTOGRAPHED) * 4
    for q in asked:
        count, k, _ = scene(q)
        assert q["answer"] == count and q["levels"] == {"content.count": count}
        assert q["params"] == {"render": f"images/count_{count:02d}_{k}.png"}


def _expected(xs, ys):
    if len(xs) < 3 or len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    return stats.pearsonr(xs, ys).statistic, stats.spearmanr(xs, ys).statistic


def test_figures_51_52_53_over_the_scene_pairs(scene_pairs, capsys):
    synthetic_run, real_run, _ = scene_pairs
    assert main(["correlate", str(synthetic_run), str(real_run)]) == 0
    printed = capsys.readouterr().out
    assert "Figure 52" in printed and "Figure 53" in printed
    result = json.loads((real_run / "correlation.json").read_text())

    def accuracy(wrong, scenes, variants=range(4)):
        return float(np.mean([not wrong(c, k, v) for c, k in scenes for v in variants]))

    # Figure 51: per count, the renders the photos reproduce (two at count 8) against their photos.
    (fig51,) = result["rows"]
    assert fig51["synthetic_images"] == "the renders the photos reproduce"
    levels = [[(c, k) for c2, k in PHOTOGRAPHED if c2 == c] for c in range(1, 9)]
    xs = [accuracy(render_wrong, scenes) for scenes in levels]
    ys = [accuracy(photo_wrong, scenes) for scenes in levels]
    assert fig51["synthetic"] == pytest.approx(xs) and fig51["real"] == pytest.approx(ys)
    assert (fig51["pearson"], fig51["spearman"]) == pytest.approx(_expected(xs, ys))

    # Figure 52: per scene pair, right (1) or wrong (0) over the 4 variants, then the mean.
    (fig52,) = result["scene_pairs"]
    found = [_expected([float(not render_wrong(c, k, v)) for v in range(4)],
                       [float(not photo_wrong(c, k, v)) for v in range(4)]) for c, k in PHOTOGRAPHED]
    estimable = [f for f in found if f is not None]
    assert (fig52["of"], fig52["estimable"]) == (23, len(estimable))
    assert fig52["pearson"] == pytest.approx(np.mean([f[0] for f in estimable]))
    assert fig52["spearman"] == pytest.approx(np.mean([f[1] for f in estimable]))

    # Figure 53: per prompt and count, over the count's scene pairs; then the mean over the counts.
    groups = {("variant", v): [VARIANTS.index(v)] for v in VARIANTS}
    groups |= {("preprompt", p): [i for i, v in enumerate(VARIANTS) if v.startswith(p + "/")]
               for p in ("helpful", "neutral")}
    groups |= {("instruction", s): [i for i, v in enumerate(VARIANTS) if v.endswith("/" + s)]
               for s in ("declarative", "fill_blank")}
    rows = {(r["grouping"], r["prompt"]): r for r in result["prompts"]}
    assert set(rows) == set(groups)
    for group, variants in groups.items():
        found = [_expected([accuracy(render_wrong, [s], variants) for s in scenes],
                           [accuracy(photo_wrong, [s], variants) for s in scenes]) for scenes in levels]
        estimable = [f for f in found if f is not None]
        row = rows[group]
        assert (row["of"], row["estimable"]) == (8, len(estimable)), group
        if estimable:
            assert row["pearson"] == pytest.approx(np.mean([f[0] for f in estimable])), group
            assert row["spearman"] == pytest.approx(np.mean([f[1] for f in estimable])), group
        else:
            assert row["pearson"] is None and row["spearman"] is None


def test_a_key_the_photos_were_not_asked_is_not_pooled_with_theirs(synthetic_and_real):
    synthetic, real, questions = synthetic_and_real
    extra = [{**q, "id": q["id"].replace("count_pieces", "count_squares"), "key": "count_squares", "answer": 16}
             for q in questions]
    (synthetic / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions + extra))
    assert main(["real-questions", str(real), "--like", str(synthetic)]) == 0
    asked = [json.loads(line) for line in (real / "questions.jsonl").read_text().splitlines()]
    synthetic_run = write_run(synthetic, questions + extra, "fading", "fading-vlm", fading)
    real_run = write_run(real, asked, "fading", "fading-vlm", fading)
    assert main(["correlate", str(synthetic_run), str(real_run)]) == 0
    result = json.loads((real_run / "correlation.json").read_text())
    assert [r["key"] for r in result["rows"]] == ["count_pieces"]
    assert result["scene_pairs"] == [] and result["prompts"] == []  # no photo names its render


@pytest.mark.parametrize("labels, problem", [
    ("images:\n  - {image: images/IMG_0001.jpg, render: images/none.png}\n", "asks no question of 'images/none.png'"),
    ("images:\n  - {image: images/IMG_0001.jpg, render: images/count_01_0.png, answers: {count_pieces: 2}}\n",
     "differs from its render's 1"),
    ("images:\n  - {image: images/IMG_0001.jpg, render: images/count_01_0.png, levels: {content.count: 2}}\n",
     "differ from its render's"),
    ("images:\n  - {image: images/IMG_0001.jpg}\n", "or the render it reproduces"),
])
def test_bad_render_links_are_named(synthetic_and_real, labels, problem):
    synthetic, real, _ = synthetic_and_real
    (real / "labels.yaml").write_text(labels)
    with pytest.raises(ConfigError) as err:
        real_questions(real, synthetic)
    assert "labels.yaml" in str(err.value) and problem in str(err.value)
