"""`make bench`'s results: bench/report.py merges the benchmarks' sections, and the benchmarks that
need no renderer run end to end at small sizes (`make bench-quick`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import report  # noqa: E402

MACHINE = {"cpus": 2, "cpu_model": "Test CPU", "python": "3.11.7", "git_commit": "0123456789abcdef",
           "git_dirty": True, "started": "2025-01-01T10:00:00+00:00", "finished": "2025-01-01T10:01:00+00:00",
           "load_average_start": [1.5, 1.0, 0.5], "load_average_end": [2.5, 1.2, 0.6]}
EVAL = {"section": "eval", "title": "Eval throughput", "about": "Loopback server, 300 ms.", "quick": False,
        "machine": MACHINE,
        "figures": {"sequential_rate": {"value": 3.2, "unit": "req/s", "label": "one at a time"},
                    "concurrent_rate": {"value": 160.0, "unit": "req/s", "label": "64 at a time"}},
        "ratios": {"speedup": {"value": 50.0, "of": "concurrent_rate", "to": "sequential_rate",
                               "label": "concurrent / sequential", "at_least": 30}},
        "tables": []}
RENDER = {"section": "render", "title": "Render presets", "quick": False, "machine": MACHINE,
          "figures": {"standard_s": {"value": 12.5, "unit": "s", "label": "standard, per image", "at_most": 10}},
          "tables": [{"name": "per family", "columns": [{"name": "family", "unit": ""}, {"name": "build", "unit": "s"},
                                                        {"name": "PSNR", "unit": "dB"}],
                      "rows": [["chess", 0.21, 46.8], ["poker", 0.35, 47.1]]}]}


def test_report_merges_every_section_with_units_and_requirements(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    (results / "eval.json").write_text(json.dumps(EVAL))
    (results / "render.json").write_text(json.dumps(RENDER))
    (results / "farm.json").write_text(json.dumps({"cores": 2, "pool: images_per_min": 48.8}))  # flat, older
    (results / ".eval.tmp.json").write_text("{not json")  # a temporary file: skipped
    report.main([str(results), "--json", str(tmp_path / "results.json"), "--md", str(tmp_path / "results.md")])

    merged = json.loads((tmp_path / "results.json").read_text())
    assert list(merged["sections"]) == ["eval", "farm", "render"]
    assert merged["sections"]["eval"]["figures"]["concurrent_rate"]["value"] == 160.0
    assert merged["sections"]["render"]["tables"][0]["rows"][1] == ["poker", 0.35, 47.1]
    assert merged["sections"]["farm"]["figures"]["pool: images_per_min"]["value"] == 48.8
    met = {(r["section"], r["name"]): r["met"] for r in merged["requirements"]}
    assert met == {("eval", "speedup"): True, ("render", "standard_s"): False}

    md = (tmp_path / "results.md").read_text()
    assert "| 64 at a time | 160.0 | req/s |  |" in md
    assert "| concurrent / sequential | 64 at a time | one at a time | 50x | >= 30 |" in md
    assert "| family | build (s) | PSNR (dB) |" in md and "| chess | 0.21 | 46.8 |" in md
    assert "| render | standard, per image | 12.5 s | <= 10 | NOT met |" in md
    assert "| pool: images_per_min | 48.8 |" in md
    assert "Test CPU" in md and "load average 1.5 at the start, 2.5 at the end" in md
    assert "0123456789 with uncommitted changes" in md


def test_quick_sections_are_not_held_to_the_requirements(tmp_path):
    (tmp_path / "eval.json").write_text(json.dumps({**EVAL, "quick": True}))
    report.main([str(tmp_path), "--json", str(tmp_path / "out.json"), "--md", str(tmp_path / "out.md")])
    assert json.loads((tmp_path / "out.json").read_text())["requirements"][0]["met"] is None
    assert "not checked (quick sizes)" in (tmp_path / "out.md").read_text()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_bench_quick_runs_the_eval_and_scoring_benchmarks(tmp_path):
    """The scoring benchmark parses and scores 2,000 predictions of the golden datasets' questions;
    the eval benchmark sends 8 requests one at a time and 64 requests 32 at a time."""
    out = tmp_path / "quick"
    # -o: the virtualenv counts as installed; BIN: the interpreter running the tests
    subprocess.run(["make", "-o", ".venv/.installed", "bench-quick", f"QUICK_OUT={out}",
                    f"BIN={Path(sys.executable).parent}"], cwd=ROOT, check=True, capture_output=True, timeout=600)
    merged = json.loads((out / "results.json").read_text())
    score, evaluation = merged["sections"]["score"], merged["sections"]["eval"]
    assert score["quick"] and score["figures"]["predictions"]["value"] == 2000
    assert score["figures"]["score_s"]["value"] > 0 and score["figures"]["score_rate"]["unit"] == "predictions/s"
    kinds = dict(next(t for t in score["tables"] if t["name"] == "answer types")["rows"])
    assert {"integer", "label", "row", "column", "yes_no", "multiple_choice", "card", "card_set",
            "crest_program", "position_word"} <= set(kinds) and sum(kinds.values()) == 2000
    statuses = dict(next(t for t in score["tables"] if t["name"] == "parse statuses")["rows"])
    assert statuses["ok"] > 0.8 * 2000
    assert evaluation["figures"]["peak_in_flight"]["value"] > 8  # up to 32 (fewer on a busy machine)
    assert evaluation["figures"]["from_cache"]["value"] == 0
    assert evaluation["ratios"]["speedup"]["value"] > 1
    assert "## byo score: parsing and scoring 2,000 predictions" in (out / "results.md").read_text()


@pytest.mark.render
def test_the_render_benchmark_measures_phases_presets_costs_and_a_long_run(tmp_path):
    """At quick sizes: every family's phases, the presets next to BYO-Eval's setting against the
    cached reference, the per-sample and denoiser costs, and a short long run, in one section
    that the report reads."""
    out = tmp_path / "results" / "render.json"
    subprocess.run([sys.executable, str(ROOT / "bench" / "render_bench.py"), "--json", str(out), "--images", "1",
                    "--long", "6"], cwd=ROOT, check=True, capture_output=True, timeout=900,
                   env={**os.environ, "BENCH_QUICK": "1"})
    section = report.load_section(out)
    phases, preset_table, costs, gpu, long_table = section["tables"]
    assert gpu["name"].startswith("GPU")  # here: skipped, saying why
    assert [row[0] for row in phases["rows"]] == ["chess", "clevr", "poker", "crest 3d", "crest flat (Workbench)"]
    for row in phases["rows"]:
        build, render, measure, write, wall = row[3:8]
        assert 0 < render < wall and build >= 0 and measure >= 0 and write >= 0
    settings = {row[1]: row for row in preset_table["rows"]}
    assert set(settings) == {"draft", "standard", "final", "BYO-Eval's 128 samples adaptive"}
    assert {row[0] for row in preset_table["rows"]} == {"chess_0_640x360"}
    assert all(30 < row[4] < 70 and 0.9 < row[5] <= 1 for row in settings.values())  # PSNR dB, SSIM
    assert settings["draft"][4] < settings["final"][4]  # more samples, closer to the reference
    ((scene, first_sample, per_sample, accurate, fast, no_prefilter),) = costs["rows"]
    assert scene == "clevr_35_320x240" and first_sample > 0 and per_sample > 0
    assert len(long_table["rows"]) == 5 and section["figures"]["long_run_images"]["value"] == 6
    assert section["quick"] and "standard_speedup" in section["ratios"]
