"""labels.yaml (byo real-questions) under Hypothesis: any YAML a person can write ends in the
questions or in an error naming the labels file, the key and what was expected, never in a
traceback; and what is accepted holds to the rules (a count is a whole number >= 0, each photo
once, a level one value)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from count_data import make_count_dataset
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from byo.cli import main
from byo.core.errors import ConfigError
from byo.questions.real import real_questions

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
PHOTOS = ("images/IMG_0001.jpg", "images/IMG_0002.jpg")


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("labels")
    make_count_dataset(root / "synthetic")
    (root / "photos" / "images").mkdir(parents=True)
    for name in PHOTOS:
        Image.new("RGB", (16, 12), (90, 90, 90)).save(root / "photos" / name)
    return root / "synthetic", root / "photos"


scalars = st.one_of(st.none(), st.booleans(), st.integers(-10, 30), st.floats(allow_nan=True, allow_infinity=True),
                    st.text(max_size=12), st.sampled_from(["count_pieces", "content.count", *PHOTOS, "../x.jpg"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=14) | st.sampled_from(
                                                           ["image", "levels", "answers", "count_pieces",
                                                            "content.count"]), inner, max_size=3)), max_leaves=10)
photo = st.fixed_dictionaries({"image": st.sampled_from(PHOTOS) | scalars},
                              optional={"levels": st.dictionaries(st.sampled_from(["content.count", "x"]), values,
                                                                  max_size=2),
                                        "answers": st.dictionaries(st.sampled_from(["count_pieces", "nope"]),
                                                                   values | st.integers(-5, 12), max_size=2)})
documents = st.one_of(st.fixed_dictionaries({"images": st.lists(photo, max_size=4)}), values)


@FUZZ
@given(document=documents)
def test_any_labels_file_gives_questions_or_an_error_naming_file_and_key(world, document, tmp_path_factory):
    synthetic, photos = world
    labels = tmp_path_factory.mktemp("l") / "labels.yaml"
    labels.write_text(yaml.safe_dump(document, allow_unicode=True))
    out = labels.with_name("questions.jsonl")
    try:
        _, n = real_questions(photos, synthetic, labels=labels, out=out)
    except ConfigError as err:
        first = str(err).splitlines()[0]
        assert first.startswith(str(labels)), first
        assert not out.exists()
        return
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == n
    for row in rows:
        answer = row["answer"]
        assert isinstance(answer, int | float) and not isinstance(answer, bool) and answer >= 0
        assert float(answer).is_integer()
        assert all(isinstance(v, str | int | float | bool) for v in row["levels"].values())
    images = [p["image"] for p in document["images"]]
    assert len(set(images)) == len(images)


@pytest.mark.parametrize(("labels", "key", "expected"), [
    ("- {image: images/IMG_0001.jpg, answers: {count_pieces: -4}}", "images[0].answers.count_pieces",
     "expected a whole number >= 0"),
    ("- {image: images/IMG_0001.jpg, answers: {count_pieces: 2.5}}", "images[0].answers.count_pieces",
     "expected a whole number >= 0"),
    ("- {image: images/IMG_0001.jpg, answers: {count_pieces: 3}}\n"
     "- {image: images/IMG_0001.jpg, answers: {count_pieces: 4}}", "images[1].image", "already labelled at images[0]"),
    ("- {image: images/IMG_0001.jpg, levels: {content.count: [3, 4]}, answers: {count_pieces: 3}}",
     'images[0].levels."content.count"', ""),
])
def test_labels_a_person_gets_wrong_are_named(world, tmp_path, capsys, labels, key, expected):
    synthetic, photos = world
    path = tmp_path / "labels.yaml"
    path.write_text("images:\n" + "\n".join("  " + line for line in labels.splitlines()) + "\n")
    code = main(["real-questions", str(photos), "--like", str(synthetic), "--labels", str(path),
                 "-o", str(tmp_path / "q.jsonl")])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2 and f"{path}: {key}" in err and expected in err, err
    assert not (tmp_path / "q.jsonl").exists()
