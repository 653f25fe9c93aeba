"""Adding a family is copying examples/toy_family/ and naming it in one entry-point line: a copy
installed under a new name by pip renders, gets questions, passes the audit, is evaluated by the
oracle, scored and reported, with nothing else edited (no change to byo/ or to the copy's code).
The families byo ships declare their parts on their classes the same way."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, TINY_RENDER

from byo import families
from byo.core.errors import ConfigError

EXAMPLE = ROOT / "examples" / "toy_family"
ENTRY_POINT = 'toy = "toy:FAMILY"'  # the example's one entry-point line


# A metric added to the copy alone: a module of its own and one line on the family's class.
NEW_METRIC = '''"""Off by one: the share of count answers within one of the truth."""

from byo.families.api import Column, ReportTable


def measure(rows, train):
    near = [r for r in rows if r["status"] == "ok" and abs(int(r["value"]) - int(r["answer"])) <= 1]
    return [{"n": len(rows), "within_one": len(near) / len(rows)}]


TABLE = ReportTable(name="off_by_one", title="Off by one", definition="counts within one of the truth",
                    note="A metric added to a copy of the example family.",
                    columns=(Column("n", "n", "int"), Column("within one", "within_one")),
                    measure=measure, keys=("count_cubes",))
'''


def install_copy(tmp_path: Path, name: str, new_metric: bool = False) -> Path:
    """examples/toy_family copied, its package folder named `name`, its entry-point line naming
    it, installed by pip into a folder of its own; returns that folder (for PYTHONPATH). With
    `new_metric`, the copy declares one more metric table, and nothing outside it is edited."""
    source = tmp_path / f"{name}_family"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    (source / "toy").rename(source / name)
    if new_metric:
        (source / name / "off_by_one.py").write_text(NEW_METRIC)
        family = source / name / "family.py"
        text = family.read_text().replace("from .metrics import ANSWER_TYPES\n",
                                          "from .metrics import ANSWER_TYPES\nfrom .off_by_one import TABLE\n")
        family.write_text(text.replace("    answer_types = ANSWER_TYPES", "    tables = (TABLE,)\n    answer_types = ANSWER_TYPES"))
    project = source / "pyproject.toml"
    assert project.read_text().count(ENTRY_POINT) == 1
    project.write_text(project.read_text().replace(ENTRY_POINT, f'{name} = "{name}:FAMILY"'))
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(site), str(source)], check=True)
    return site


def byo(site: Path, *args: str, code: int = 0) -> str:
    """A byo command in a fresh Python that finds the installed copy as any installed family."""
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run([sys.executable, "-m", "byo.cli", *map(str, args)], env=env, capture_output=True,
                          text=True)
    assert done.returncode == code, done.stderr[-3000:]
    return done.stdout + done.stderr


def test_an_unknown_family_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown family 'cubes'"):
        families.load_config({"dataset": {"name": "t", "family": "cubes"}})


@pytest.mark.render
def test_a_copy_of_the_example_under_a_new_name_renders_asks_evaluates_and_scores(tmp_path):
    site = install_copy(tmp_path, "cubes", new_metric=True)
    config = tmp_path / "cubes.yaml"
    config.write_text(yaml.safe_dump({
        "dataset": {"name": "cubes", "family": "cubes", "seed": 3, "n_images": 1},
        "scene": TINY_RENDER, "variables": {"content.count": {"type": "varying_all_range", "min": 1, "max": 3}}}))
    out = tmp_path / "cubes"
    byo(site, "render", config, "-o", out, "--in-process")
    legend = json.loads((out / "legends" / "cubes_000002.json").read_text())
    assert legend["family"] == "cubes" and len(legend["objects"]) == 3
    assert all(o["visible_pixels"] > 0 for o in legend["objects"])

    byo(site, "questions", out)
    questions = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert [(q["key"], q["answer"]) for q in questions] == [
        ("count_cubes", 1), ("count_cubes_word", "one"), ("count_cubes", 2), ("count_cubes_word", "two"),
        ("count_cubes", 3), ("count_cubes_word", "three")]
    assert questions[1]["prompt"] == "How many cubes are there? Answer with a word."

    byo(site, "audit", out)  # the family's own audit module, named on its class
    assert json.loads((out / "audit.json").read_text())["table"] == {"count_cubes": {"ok": 3},
                                                                      "count_cubes_word": {"ok": 3}}
    rows = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    wrong = out / "wrong.jsonl"
    wrong.write_text("".join(json.dumps({**r, "answer": 4} if i == 0 else r) + "\n" for i, r in enumerate(rows)))
    byo(site, "audit", out, "--questions", wrong, code=1)

    byo(site, "eval", out, "--provider", "oracle", "--run", "oracle")
    byo(site, "score", out / "runs" / "oracle", "--bootstrap", "0")
    scores = json.loads((out / "runs" / "oracle" / "scores.json").read_text())
    assert scores["overall"]["n"] == 6 and scores["overall"]["accuracy"] == 1.0
    # The family's own answer type carries its table, which byo score writes and byo report shows.
    (table,) = [r for r in scores["tables"]["cubes"] if r["variant"] == "all"]
    assert table["key"] == "count_cubes_word" and table["exact"] == 1.0 and table["n"] == 3
    assert scores["definitions"]["cubes"].startswith("toy: number words")
    byo(site, "report", out / "runs" / "oracle", "-o", tmp_path / "report.html", "--bootstrap", "0")
    html = (tmp_path / "report.html").read_text()
    assert '<section id="cubes">' in html and "Toy cubes" in html and 'href="#cubes"' in html
    # The metric added to the copy alone: measured, defined, written and shown like any other.
    (added,) = [r for r in scores["tables"]["off_by_one"] if r["variant"] == "all"]
    assert (added["key"], added["n"], added["within_one"]) == ("count_cubes", 3, 1.0)
    assert scores["definitions"]["off_by_one"] == "counts within one of the truth"
    assert (out / "runs" / "oracle" / "off_by_one.csv").is_file()
    assert '<section id="off_by_one">' in html and 'href="#off_by_one"' in html

    assert "cubes sheet" in byo(site, "sheet", "cubes", out)  # its sheet, under the family's name
    assert (out / "toy_sheet.png").is_file()


def test_the_example_keeps_the_family_contract():
    """What lint-imports checks for byo's own families, for the example: of byo, it imports only
    byo.families.api, and in its builder byo.blender; its own modules by relative imports (so
    that the package can be renamed)."""
    import ast

    for path in (EXAMPLE / "toy").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            for name in names:
                if name.split(".")[0] in ("byo", "toy"):
                    allowed = name == "byo.families.api" or (path.stem == "builder" and name.startswith("byo.blender"))
                    assert allowed, f"{path.name} imports {name}"


@pytest.mark.parametrize("name", ["chess", "clevr", "crest", "poker"])
def test_a_family_declares_its_parts_on_its_class(name):
    from byo.authoring.design import field_control

    pytest.importorskip("bpy")  # the builder imports bmesh, which bpy provides
    family = families.get_family(name)
    assert family.package == f"byo.families.{name}"  # derived from where the class is defined
    assert callable(family.module(family.builder).build)
    assert family.module(family.audit).AUDITS  # the audit module it names
    for key in family.design_keys:  # every design key is a field of its content model
        assert field_control(family.content_model, key).key == f"content.{key}"


def test_the_sheet_command_lists_every_family_sheet():
    kinds = {s.kind: s for s in families.sheets()}
    assert set(kinds) == {"crest", "crest-library", "cards", "autocomp-pairs"}
    assert {s.alias for s in kinds.values()} >= {"crest-sheet", "crest-library-sheet", "card-sheet"}


def test_no_family_is_named_in_the_scorer_the_command_line_or_the_design():
    """They loop over what the installed families declare (the issue's grep, kept true)."""
    places = [*(ROOT / "byo" / "score").rglob("*.py"), *(ROOT / "byo" / "score").rglob("*.j2"),
              *(p for p in (ROOT / "byo" / "cli").rglob("*.py") if p.name != "demo.py"),  # the demo names its datasets
              ROOT / "byo" / "authoring" / "design.py"]
    named = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p in places
             for n, line in enumerate(p.read_text().splitlines(), 1) if re.search(r"crest|poker|chess(?!m[ae]n)|clevr", line)]
    assert not named, "\n".join(named)
