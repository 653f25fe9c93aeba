"""What a person reads after `byo run` of the demo: `byo questions` names only the keys that apply
to the demo's design (CLEVR scenes of random content), the report has no empty section and its
navigation lists exactly the sections written, and every command's tables, piped to a file on an
80-column terminal, keep each name whole (nothing cut to "count_obje…")."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from golden_data import tiny_config

from byo.families import get_family
from byo.questions.generate import expand_keys, load_templates

pytestmark = pytest.mark.render
CUT = "…"  # what rich writes where it cuts a cell


def byo(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    """`byo ARGV` as a person runs it, its stdout a pipe, on a terminal 80 columns wide."""
    env = {**os.environ, "COLUMNS": "80", "XDG_CACHE_HOME": str(cwd / "cache")}
    done = subprocess.run([sys.executable, "-m", "byo", *argv], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"byo {' '.join(argv)}: {done.stderr[-2000:]}"
    return done


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """The demo config (rendered tiny) run with the blind baseline and the oracle; the folder it ran in."""
    work = tmp_path_factory.mktemp("demo")
    (work / "demo.yaml").write_text(yaml.safe_dump(tiny_config(ROOT / "dataset_configs" / "demo.yaml"),
                                                   sort_keys=False))
    byo(work, "run", "demo.yaml", "--model", "blind", "--model", "oracle", "--workers", "1", "-q")
    return work


def keys_of_other_designs() -> list[str]:
    """The CLEVR keys the family declares for designs other than the demo's random scenes."""
    clevr = get_family("clevr")
    catalogue = load_templates(clevr)[1]
    every = expand_keys(None, list(catalogue.questions), clevr.opt_in_keys)
    return [k for k in every if not clevr.applies(k, {"content": {"mode": "random"}})]


def test_questions_name_only_the_keys_that_apply(demo):
    others = keys_of_other_designs()
    assert others and all(any(fnmatch.fnmatchcase(k, p) for p in get_family("clevr").key_modes) for k in others)
    shown = byo(demo, "questions", "output/demo", "-o", "asked.jsonl")
    for key in others:
        assert not re.search(rf"\b{key}\b", shown.stdout + shown.stderr), key
    assert f"{len(others)} keys of other designs left out" in shown.stderr
    listed = byo(demo, "questions", "output/demo", "-o", "asked.jsonl", "--force", "-v")
    assert all(key in listed.stderr for key in others)  # -v names them
    document = json.loads(byo(demo, "questions", "output/demo", "-o", "asked.jsonl", "--force", "--json").stdout)
    assert sorted(document["not_applicable"]) == sorted(others)
    assert not set(document["questions"]) & set(others)


def test_the_demo_report_has_no_empty_section(demo):
    html = (demo / "output" / "demo" / "report.html").read_text()
    nav = re.findall(r'href="#([a-z_0-9]+)"', html.split("</nav>")[0])
    assert nav and sorted(nav) == sorted(re.findall(r'<section id="([a-z_0-9]+)">', html))
    assert 'class="empty"' not in html and "No crest questions" not in html
    assert {"overview", "models", "levels", "mistakes"} <= set(nav)
    assert "crest" not in nav and "autocomp" not in nav  # nothing of those in the demo


def test_every_table_piped_at_80_columns_keeps_its_names_whole(demo):
    dataset = demo / "output" / "demo"
    keys = {json.loads(line)["key"] for line in (dataset / "questions.jsonl").read_text().splitlines()}
    commands = {
        "run": ["run", "demo.yaml", "--model", "blind", "--model", "oracle"],
        "plan": ["plan", "demo.yaml", "--power"],
        "status": ["status", "output/demo"],
        "questions": ["questions", "output/demo", "-o", "piped.jsonl", "--force", "-v"],
        "audit": ["audit", "output/demo"],
        "score": ["score", "output/demo/runs/blind", "-v"],
        "compare": ["compare", "output/demo/runs/oracle", "output/demo/runs/blind", "-v", "-o", "compared"],
        "doctor": ["doctor"],
    }
    names = {"run": keys | {"blind", "oracle", "all questions"}, "plan": {"content.count", "camera.azimuth"},
             "questions": keys | {"content.count", "camera.azimuth"}, "score": keys | {"all questions"},
             "compare": keys | {"all questions"}, "audit": keys}
    for command, argv in commands.items():
        stdout = byo(demo, *argv).stdout
        assert stdout.strip() and CUT not in stdout, (command, stdout)
        for name in names.get(command, ()):
            assert re.search(rf"(^|[\s│┃]){re.escape(name)}([\s│┃]|$)", stdout, re.M), (command, name, stdout)
