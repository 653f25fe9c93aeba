"""A shared metric is one module and one registration line (byo/score/registry.py's SHARED): with
nothing else changed, `byo score` writes it into scores.json (its values and its definition), the
metrics CSV (a column, on every per-level row too) and `byo report` gives it a section.

The registry is the shipped one with exactly one line added, loaded in a fresh interpreter before
anything imports it; the metric's module is written here."""

from __future__ import annotations

import csv
import difflib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from score_fixtures import make_fake_runs

import byo.score

pytestmark = pytest.mark.slow  # two `byo score` and a `byo report` in fresh interpreters

REGISTRY = Path(byo.score.__file__).with_name("registry.py")
SHARED = "SHARED: tuple[ReportTable, ...] = (\n"  # the shipped registry's tuple of shared tables
REGISTRATION = "    __import__('refusals').TABLE,\n"

METRIC = '''"""Refusals: refused answers / all questions, per slice of the metrics table."""

from byo.core.report_tables import Column, ReportTable


def refusal_rate(rows, answer_type):
    return {"refusal_rate": sum(r["status"] == "refusal" for r in rows) / len(rows)}


TABLE = ReportTable(name="refusal_rate", title="Refusals", definition="refused answers / all questions",
                    note="The share of refused answers.", columns=(Column("refusals", "refusal_rate"),),
                    measure=refusal_rate, scope="slice")
'''

# Runs `byo ARGS` with the registry given as source (module byo.score.registry).
RUNNER = '''import sys, types
source = open(sys.argv[1]).read()
registry = types.ModuleType("byo.score.registry")
registry.__file__ = sys.argv[1]
sys.modules["byo.score.registry"] = registry
exec(compile(source, sys.argv[1], "exec"), registry.__dict__)
from byo.cli import main
sys.exit(main(sys.argv[2:]))
'''


@pytest.fixture(scope="module")
def added(tmp_path_factory):
    root = tmp_path_factory.mktemp("added")
    source = REGISTRY.read_text()
    assert source.count(SHARED) == 1
    end = source.index("\n)\n", source.index(SHARED)) + 1  # its last entry's line ends there
    patched = source[:end] + REGISTRATION + source[end:]
    (root / "registry.py").write_text(patched)
    (root / "refusals.py").write_text(METRIC)
    (root / "runner.py").write_text(RUNNER)
    runs = make_fake_runs(root / "data")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(byo.score.__file__).parents[2]), str(root)])}

    def byo_cmd(*args: str) -> None:
        done = subprocess.run([sys.executable, str(root / "runner.py"), str(root / "registry.py"), *args],
                              env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr

    for run in runs:
        byo_cmd("score", str(run), "--bootstrap", "50")
    byo_cmd("report", *map(str, runs), "-o", str(root / "report.html"), "--bootstrap", "50")
    return source, patched, runs, root / "report.html"


def test_the_registry_differs_by_one_line(added):
    source, patched, _, _ = added
    changed = [line for line in difflib.ndiff(source.splitlines(), patched.splitlines()) if line[:1] in "+-"]
    assert changed == ["+ " + REGISTRATION.rstrip("\n")]


def test_scores_json_and_the_metrics_csv_carry_it_per_level(added):
    _, _, runs, _ = added
    run = runs[1]  # the blurry model refuses some questions
    parsed = [json.loads(line) for line in (run / "parsed.jsonl").read_text().splitlines()]
    refused = sum(r["status"] == "refusal" for r in parsed)
    assert refused > 0
    scores = json.loads((run / "scores.json").read_text())
    assert scores["definitions"]["refusal_rate"] == "refused answers / all questions"
    assert "refusal_rate" not in scores["tables"]  # a slice metric is columns of the metrics table
    rows = list(csv.DictReader(io.StringIO((run / "metrics.csv").read_text())))
    assert "refusal_rate" in rows[0]
    # per level of content.count, by hand from parsed.jsonl: refused / questions of that level
    count = [r for r in rows if r["key"] == "count_pieces" and r["variant"] == "all"
             and r["variable"] == "content.count" and not r["variable2"]]
    assert len(count) >= 3
    for row in count:
        level = [r for r in parsed if r["key"] == "count_pieces" and str(r["levels"]["content.count"]) == row["level"]]
        assert int(row["n"]) == len(level)
        assert float(row["refusal_rate"]) == pytest.approx(sum(r["status"] == "refusal" for r in level) / len(level),
                                                           abs=1e-6)
    pooled = next(r for r in scores["tables"]["metrics"] if r["key"] == "*" and r["variant"] == "all"
                  and not r["variable"])
    readable = [r for r in parsed if not r.get("unreadable")]
    assert pooled["refusal_rate"] == pytest.approx(sum(r["status"] == "refusal" for r in readable) / len(readable))


def test_the_report_gives_it_a_section_with_its_levels(added):
    _, _, _, report = added
    html = report.read_text()
    nav = html.split("</nav>")[0]
    assert 'href="#refusal_rate">Refusals</a>' in nav
    section = re.search(r'<section id="refusal_rate">(.*?)</section>', html, re.S).group(1)
    assert "The share of refused answers." in section and "<th class=\"num\">refusals</th>" in section
    assert "blurry-vlm" in section and "count_pieces" in section
    assert re.search(r"<td>content\.count = \d+</td>", section)  # a per-level row, folded under details
