"""A family from outside byo/ (tests/data/toy_family), registered through the `byo.families`
entry point as an installed package would be: it renders, gets questions and is scored
without any change to byo/."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import ROOT

from byo import families
from byo.cli import main
from byo.errors import ConfigError
from byo.executors.inprocess import InProcess
from byo.runner import render_dataset

TOY = ROOT / "tests" / "data" / "toy_family"


@pytest.fixture
def toy_installed(tmp_path, monkeypatch):
    """What `pip install` of a package declaring the entry point leaves: a dist-info folder with
    entry_points.txt on the path, beside the package."""
    dist = tmp_path / "toy_family-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-family\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[byo.families]\ntoy = toyfam:FAMILY\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(TOY))
    families.reload()
    yield
    sys.modules.pop("toyfam", None)
    families.reload()


def test_an_unknown_family_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown family 'toy'"):
        families.load_config({"dataset": {"name": "t", "family": "toy"}})


@pytest.mark.render
def test_a_family_from_its_own_package_renders_asks_and_scores(toy_installed, tmp_path):
    assert "toy" in families.family_names()
    config = {"dataset": {"name": "toy", "family": "toy", "seed": 3, "n_images": 2},
              "scene": {"resolution": [64, 48], "render": {"samples": 4, "denoise": "off"},
                        "content": {"count": 3}},
              "variables": {}}
    out = tmp_path / "toy"
    report = render_dataset(config, out, executor=InProcess(), show_progress=False)
    assert not report.failed and len(report.rendered) == 2
    legend = json.loads((out / "legends" / "toy_000000.json").read_text())
    assert legend["family"] == "toy" and len(legend["objects"]) == 3
    assert all(o["visible_pixels"] > 0 for o in legend["objects"])

    assert main(["questions", str(out)]) == 0
    questions = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert [q["answer"] for q in questions] == [3, 3]
    assert questions[0]["prompt"] == "How many cubes are there?"

    # byo audit finds the family's own audit module (toyfam/audit.py) and checks its answers.
    assert main(["audit", str(out)]) == 0
    audit = json.loads((out / "audit.json").read_text())
    assert audit["table"] == {"count_cubes": {"ok": 2}}
    rows = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    rows[0]["answer"] = 4
    (out / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["audit", str(out)]) == 1
    (out / "questions.jsonl").write_text("".join(json.dumps({**r, "answer": 3}) + "\n" for r in rows))

    assert main(["eval", str(out), "--provider", "oracle"]) == 0
    run = next((out / "runs").iterdir())
    assert main(["score", str(run), "--bootstrap", "0"]) == 0
    scores = json.loads((run / "scores.json").read_text())
    overall = next(r for r in scores["tables"]["metrics"] if r["key"] == "*" and r["variant"] == "all"
                   and not r["variable"])
    assert overall["n"] == 2 and overall["accuracy"] == 1.0


@pytest.mark.parametrize("name", ["chess", "clevr", "crest", "poker"])
def test_a_family_declares_its_parts_on_its_class(name):
    from byo.design import field_control

    pytest.importorskip("bpy")  # the builder imports bmesh, which bpy provides
    family = families.get_family(name)
    assert family.package == f"byo.families.{name}"  # derived from where the class is defined
    assert callable(family.module(family.builder).build)
    assert family.module(family.audit).AUDITS  # the audit module it names
    for key in family.design_keys:  # every design key is a field of its content model
        assert field_control(family.content_model, key).key == f"content.{key}"


def test_the_sheet_command_lists_every_family_sheet():
    kinds = {s.kind: s for s in families.sheets()}
    assert set(kinds) == {"crest", "crest-library", "cards"}
    assert {s.alias for s in kinds.values()} == {"crest-sheet", "crest-library-sheet", "card-sheet"}
