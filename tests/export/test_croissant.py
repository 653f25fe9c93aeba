"""The `hf` export's croissant.json, read by mlcroissant: it validates (no error, no warning), it
carries the Responsible AI fields, and its records are questions.jsonl, question for question,
the class labels through the names record sets and the image through its embedded bytes."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest
from PIL import Image
from score_fixtures import make_dataset

from byo.cli import main
from byo.providers.reference import answer_text


@pytest.fixture(scope="module")
def mlc():
    """mlcroissant, imported by the tests that use it (it imports torch: not at collection)."""
    return pytest.importorskip("mlcroissant")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("croissant")
    questions = make_dataset(root / "data")
    assert main(["export", str(root / "data"), "--format", "hf", "-o", str(root / "hf")]) == 0
    return root, questions


def text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


def test_mlcroissant_validates_and_records_equal_the_questions(exported, caplog, mlc):
    root, questions = exported
    with caplog.at_level(logging.WARNING):
        dataset = mlc.Dataset(jsonld=str(root / "hf/croissant.json"))
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], [r.getMessage() for r in caplog.records]
    names = {}
    for column in ("family", "task", "key", "answer_type", "preprompt", "instruction"):
        names[column] = {r[f"{column}_names/index"]: text(r[f"{column}_names/name"])
                         for r in dataset.records(f"{column}_names")}
    records = list(dataset.records("questions"))
    assert len(records) == len(questions)
    for record, q in zip(records, questions, strict=True):
        field = {k.removeprefix("questions/"): v for k, v in record.items()}
        assert text(field["id"]) == q["id"] and text(field["prompt"]) == q["prompt"]
        assert text(field["answer"]) == answer_text(q["answer"])
        assert json.loads(text(field["answer_json"])) == q["answer"]
        assert json.loads(text(field["params"])) == q["params"]
        assert text(field["image_id"]) == q["image"].split("/")[-1].removesuffix(".png")
        for column in names:
            assert names[column][field[column]] == q[column], column
    for i in (0, len(records) - 1):  # the image is the rendered one
        original = np.asarray(Image.open(root / "data" / questions[i]["image"]).convert("RGB"))
        assert np.array_equal(np.asarray(records[i]["questions/image"].convert("RGB")), original)


def test_responsible_ai_fields(exported, mlc):
    root, _ = exported
    meta = mlc.Dataset(jsonld=str(root / "hf/croissant.json")).metadata
    assert "Synthetic" in meta.data_collection and "Blender" in meta.data_collection
    assert meta.data_collection_type and meta.data_use_cases and meta.data_limitations and meta.data_biases
    assert "synthetic" in " ".join(meta.personal_sensitive_information)
    raw = json.loads((root / "hf/croissant.json").read_text())
    assert raw["conformsTo"] == "http://mlcommons.org/croissant/1.0"
    assert raw["prov:wasGeneratedBy"]["prov:label"].startswith("byo render")
