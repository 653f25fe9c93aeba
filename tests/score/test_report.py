"""`byo score` and `byo report` on two fake model runs with three prompt variants (no rendering),
and the report opened in headless Chromium."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
import shutil
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest
from markupsafe import escape
from PIL import Image
from score_fixtures import VARIANTS, make_dataset, make_fake_runs, make_run

from byo.cli import main
from byo.score import report as report_module
from byo.score.report import Runs, build_sections, page_sections
from byo.score.report_format import skipped_levels
from byo.score.run import load_scores

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("fake")
    runs = make_fake_runs(root)
    for run in runs:
        assert main(["score", str(run), "--bootstrap", "300"]) == 0
    out = root / "report.html"
    workers, report_module.WORKERS = report_module.WORKERS, None  # built as users get it: forked, one per CPU
    try:
        assert main(["report", *map(str, runs), "-o", str(out), "--bootstrap", "300"]) == 0
    finally:
        report_module.WORKERS = workers
    return root, runs, out


def test_score_writes_tables(report):
    _, runs, _ = report
    for run in runs:
        for name in ("scores.json", "parsed.jsonl", "metrics.csv", "confusion.csv", "localization.csv",
                     "localization_cells.csv", "autocomp.csv", "crest.csv", "parsing.csv"):
            assert (run / name).is_file(), name
        scores = json.loads((run / "scores.json").read_text())
        predictions = (run / "predictions.jsonl").read_text().splitlines()
        parsed = [json.loads(line) for line in (run / "parsed.jsonl").read_text().splitlines()]
        assert len(parsed) == len(predictions) and sum(scores["statuses"].values()) == len(predictions)
        assert {p["status"] for p in parsed} >= {"ok", "error"}
        assert "max(|truth|, 1)" in scores["definitions"]["nmae"]
        rows = list(csv.DictReader(io.StringIO((run / "metrics.csv").read_text())))
        variants = {r["variant"] for r in rows}
        assert variants == {"all", *(f"{p}/{i}" for p, i in VARIANTS)}
        count = [r for r in rows if r["key"] == "count_pieces" and r["variant"] == "all"]
        assert {r["variable"] for r in count} == {"", "blur.fstop", "content.count"}
        crosses = [r for r in count if r["variable2"]]
        assert len(crosses) == 3 * 4 and all(r["parse_rate"] for r in crosses)
        assert all(r["nmae"] != "" or r["n_errors"] == "0" for r in count)


def test_report_has_every_section_and_plot(report):
    _, runs, out = report
    html = out.read_text()
    nav = re.findall(r'href="#([a-z_]+)"', html.split("</nav>")[0])
    for section in nav:  # every entry of the navigation has its section, and only those are written
        assert f'<section id="{section}">' in html
    assert len(re.findall("<section id=", html)) == len(nav)
    titles = {s.name: s.title for s in page_sections()}
    expected = {"overview", "models", "variants", "prompts", "levels", "ranges", "breaking", "errors", "confusion",
                "localization", "parsing", "mistakes", "definitions", "autocomp", "crest"}
    assert expected <= set(nav), expected - set(nav)
    assert not {"humans", "stability", "retrieval", "compass_integration"} & set(nav)  # nothing of those here
    assert all(str(escape(titles[s])) in html for s in nav)  # every section's title, the tables' among them
    assert 'class="empty"' not in html
    assert "sharp-vlm" in html and "blurry-vlm" in html
    for p, i in VARIANTS:
        assert f"{p}/{i}" in html
    pngs = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    assert len(pngs) >= 30
    for data in pngs:  # every plot is a real, non-blank image
        im = Image.open(io.BytesIO(base64.b64decode(data))).convert("L")
        assert im.width > 200 and np.asarray(im).std() > 5
    assert len(re.findall(r'src="data:image/jpeg;base64,', html)) >= 12  # the worst mistakes, with images
    # heatmaps and confusion matrices are coloured tables: one per model and key in the confusion section
    confusion = re.search(r'<section id="confusion">(.*?)</section>', html, re.S).group(1)
    assert confusion.count('data-kind="confusion matrix"') == 2 * confusion.count("<h3>") > 0
    assert html.count('data-kind="model x prompt"') >= 2 and 'data-kind="localization"' in html
    assert "src=\"file:" not in html and "http://" not in html and "https://" not in html  # self-contained


def test_sections_built_side_by_side_are_the_sections_built_one_by_one(report):
    _, runs, _ = report
    runs = Runs([load_scores(run) for run in runs])
    builders = {s.name: s for s in page_sections() if s.name in ("errors", "confusion", "models", "overview")}
    one_by_one = build_sections(runs, builders, workers=1)
    assert build_sections(runs, builders, workers=2) == one_by_one
    assert sum(html.count("data:image/png") for html in map(str, one_by_one.values())) >= 3  # figures among them
    assert one_by_one["confusion"] and all(block["matrices"] for block in one_by_one["confusion"])


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.browser
@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (make install)")
def test_report_in_headless_chromium(report, tmp_path):
    root, _, out = report
    shot = tmp_path / "report.png"
    result = subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                             f"--screenshot={shot}", "--window-size=1280,16000", out.resolve().as_uri()],
                            capture_output=True, text=True, timeout=180)
    assert shot.is_file(), result.stderr[-2000:]
    image = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert image.shape[:2] == (16000, 1280)
    # the page is drawn, not blank, and the plots are there: the two model colours cover many pixels
    assert image.std() > 20
    for hex_color in ("#2563eb", "#ea580c"):
        rgb = np.array([int(hex_color[i: i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(image - rgb).sum(axis=2) < 30).sum() > 5000, hex_color
    shutil.copy(shot, root / "report.png")


def test_score_errors_name_the_problem(tmp_path, capsys):
    assert main(["score", str(tmp_path)]) == 2
    assert "no predictions.jsonl" in capsys.readouterr().err
    root = tmp_path / "data"
    run, _ = make_fake_runs(root)
    lines = (run / "predictions.jsonl").read_text().splitlines()
    row = json.loads(lines[0])
    row["id"] = "not/a/question"
    (run / "predictions.jsonl").write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n")
    assert main(["score", str(run), "--bootstrap", "0"]) == 2
    assert "not in the question file" in capsys.readouterr().err


def test_report_of_a_run_whose_requests_all_failed(tmp_path):
    root = tmp_path / "data"
    questions = make_dataset(root)[:24]
    (root / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    run = root / "runs" / "down"
    run.mkdir(parents=True)
    (run / "predictions.jsonl").write_text("".join(json.dumps(
        {"id": q["id"], "model": "down-vlm", "provider": "fake", "response": None, "status": "server_error",
         "error": "HTTP 503"}) + "\n" for q in questions))
    assert main(["score", str(run), "--bootstrap", "50"]) == 0
    scores = json.loads((run / "scores.json").read_text())
    assert scores["overall"]["accuracy"] == 0.0 and scores["statuses"]["error"] == 24
    out = tmp_path / "r.html"
    assert main(["report", str(run), "-o", str(out)]) == 0
    html = out.read_text()
    assert "error 24" in html  # the overview counts the failed requests
    # the first 24 questions all come from one image: no level section, and no empty one in its place
    assert '<section id="levels">' not in html and 'href="#levels"' not in html


def test_oracle_answers_score_perfectly(tmp_path):
    from byo.providers.reference import answer_text

    root = tmp_path / "data"
    questions = make_dataset(root)
    run = root / "runs" / "oracle"
    run.mkdir(parents=True)
    (run / "predictions.jsonl").write_text("".join(json.dumps(
        {"id": q["id"], "model": "oracle", "provider": "oracle", "reference": True,
         "response": answer_text(q["answer"]), "status": "ok"}) + "\n" for q in questions))
    assert main(["score", str(run), "--bootstrap", "0"]) == 0
    scores = json.loads((run / "scores.json").read_text())
    assert scores["overall"]["accuracy"] == 1.0 and scores["overall"]["parse_rate"] == 1.0
    crest = [r for r in scores["tables"]["crest"] if r["slice"] == "all"]  # the crest family's own table
    assert crest and all(r["exact"] == 1.0 and r["error_rate"] == 0.0 for r in crest)


def test_crest_split_read_from_the_legend_when_the_question_lacks_it(tmp_path):
    root = tmp_path / "data"
    questions = make_dataset(root)
    (root / "legends").mkdir()
    for q in questions:
        if q["answer_type"] == "crest_program":
            split = q["params"].pop("split")
            stem = q["image"].split("/")[-1].removesuffix(".png")
            (root / "legends" / f"{stem}.json").write_text(json.dumps({"name": stem, "extras": {"split": split}}))
    (root / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    run = make_run(root, questions, "r", "m", 0.8, seed=4)
    assert main(["score", str(run), "--bootstrap", "0"]) == 0
    slices = {r["slice"] for r in json.loads((run / "scores.json").read_text())["tables"]["crest"]}
    assert {"all", "split=train", "split=test", "novel C,M", "novel X,M", "novel C,X,M"} <= slices


def killed_run(root, answered: int = 68):
    """A run killed after `answered` answers: its journal in completion order, one question answered
    twice (a failure, then the retry's answer), a last line cut short, run.json unfinished."""
    import random

    run, _ = make_fake_runs(root)
    rows = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    kept = random.Random(5).sample(rows, answered)
    retried = {**kept[0], "status": "server_error", "response": None, "error": "HTTP 500"}
    journal = [retried, *kept]
    (run / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in journal)
                                           + json.dumps(rows[-1])[:40])
    (run / "run.json").write_text(json.dumps({"request": {"provider": "fake"}, "reference": False,
                                              "n_questions": len(rows), "limit": None, "finished": False}))
    return run, len(rows), kept


def test_a_partial_run_is_marked_and_its_denominators_match(tmp_path, capsys):
    run, total, kept = killed_run(tmp_path / "data")
    note = f"partial: 68 of {total} answered"

    # --require-complete: an error naming the flag, and nothing written
    assert main(["score", str(run), "--bootstrap", "0", "--require-complete"]) == 2
    err = capsys.readouterr().err
    assert f"--require-complete: {note}" in err and len(err) < 1000
    assert not (run / "scores.json").exists() and not (run / "parsed.jsonl").exists()
    out = tmp_path / "r.html"
    assert main(["report", str(run), "-o", str(out), "--bootstrap", "0", "--require-complete"]) == 2
    assert note in capsys.readouterr().err and not out.exists()

    assert main(["score", str(run), "--bootstrap", "50"]) == 0
    printed = capsys.readouterr()
    assert note in printed.err and "over the 68 answered questions" in printed.err
    assert "partial" in printed.out  # in the table's title
    scores = json.loads((run / "scores.json").read_text())
    facts = scores["run"]
    assert facts["partial"] is True and facts["finished"] is False
    assert (facts["n_questions"], facts["answered"], facts["asked"], facts["unanswered"]) == (68, 68, total, total - 68)
    assert scores["overall"]["n"] == 68 and sum(scores["statuses"].values()) == 68
    parsed = [json.loads(line) for line in (run / "parsed.jsonl").read_text().splitlines()]
    questions = [json.loads(line)["id"] for line in (run.parent.parent / "questions.jsonl").read_text().splitlines()]
    assert [p["id"] for p in parsed] == [q for q in questions if q in {k["id"] for k in kept}]  # question order
    retried = next(p for p in parsed if p["id"] == kept[0]["id"])
    assert retried["request_status"] == kept[0]["status"]  # the journal's last row of a question wins

    assert main(["report", str(run), "-o", str(out), "--bootstrap", "0"]) == 0
    assert note in capsys.readouterr().err
    html = out.read_text()
    assert f"{note}." in html and f'<span class="pill err">partial</span> 68 of {total}' in html
    assert "over the 68 answered questions" in html


def test_a_limited_run_that_finished_is_complete(tmp_path, capsys):
    root = tmp_path / "data"
    run, _ = make_fake_runs(root)
    rows = (run / "predictions.jsonl").read_text().splitlines()
    (run / "predictions.jsonl").write_text("\n".join(rows[:30]) + "\n")
    (run / "run.json").write_text(json.dumps({"request": {"provider": "fake"}, "n_questions": 30, "limit": 30,
                                              "finished": True}))
    assert main(["score", str(run), "--bootstrap", "0", "--require-complete"]) == 0
    assert "partial" not in capsys.readouterr().err
    facts = json.loads((run / "scores.json").read_text())["run"]
    assert (facts["partial"], facts["n_questions"], facts["asked"], facts["n_in_file"]) == (False, 30, 30, len(rows))


def test_a_report_over_datasets_with_different_keys(tmp_path):
    """As `make demo` does: one model on two datasets that share few question keys."""
    full, counts = tmp_path / "full", tmp_path / "counts"
    runs = [make_run(full, make_dataset(full), "fake", "vlm", 0.8, seed=1)]
    questions = [q for q in make_dataset(counts) if q["key"] == "count_pieces"]
    (counts / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    runs.append(make_run(counts, questions, "fake", "vlm", 0.8, seed=2))
    out = tmp_path / "report.html"
    assert main(["report", *map(str, runs), "-o", str(out), "--bootstrap", "50"]) == 0
    html = out.read_text()
    assert "vlm (full)" in html and "vlm (counts)" in html


def test_one_model_on_two_datasets_is_labelled_by_dataset():
    def run(model, dataset, name):
        return SimpleNamespace(facts={"model": model, "dataset": f"output/{dataset}", "run": name})

    runs = Runs([run("blind", "demo", "blind-blind"), run("blind", "demo_poker", "blind-blind"),
                 run("gpt", "demo", "a"), run("gpt", "demo", "b"), run("llama", "demo", "c")])
    assert runs.labels == ["blind (demo)", "blind (demo_poker)", "gpt (a)", "gpt (b)", "llama"]


@pytest.fixture(scope="module")
def summarised(tmp_path_factory):
    """A run whose dataset has the summary byo questions writes beside the questions
    (questions_summary.json): per level what was asked, skipped and flagged, and why; per key
    and level what was asked and skipped. Scored and reported once for the tests below."""
    root = tmp_path_factory.mktemp("summarised") / "data"
    run, _ = make_fake_runs(root)
    summary = {"policy": "flag", "levels": {"blur": {"0.5": {"asked": 3, "skipped": 4, "flagged": 5}}},
               "why": {"blur": {"0.5": {"flagged: unreadable (contrast)": 5, "skipped: needs exactly 1 visible piece": 4}}},
               "key_levels": {"identify_type_one_piece": {"blur.fstop": {"\"high\"": {"asked": 2, "skipped": 7},
                                                                         "\"low\"": {"asked": 8, "skipped": 1}}},
                              "count_pieces": {"blur.fstop": {"\"low\"": {"asked": 1, "skipped": 1}}}}}
    (root / "questions_summary.json").write_text(json.dumps(summary))
    assert main(["score", str(run), "--bootstrap", "0"]) == 0
    out = root.parent / "report.html"
    assert main(["report", str(run), "-o", str(out), "--bootstrap", "0"]) == 0
    return root, out.read_text()


def test_the_report_shows_per_level_what_was_asked_skipped_and_flagged(summarised):
    """The summary's levels show in the report's per-level section, with its policy and reasons."""
    _, html = summarised
    assert "Questions asked, skipped and flagged: data" in html and "unreadable questions: flag" in html
    assert re.search(r"<td>blur</td><td>0.5</td><td>3</td><td>4</td><td>5</td><td>flagged: unreadable \(contrast\) \(5\)",
                     html)


def test_the_report_marks_levels_where_most_of_a_keys_questions_were_skipped(summarised):
    """Next to a key's accuracy curve, the levels where more than SKIPPED_SHARE of its questions were
    not asked (the image as rendered does not decide them), from the summary's per-key counts; a
    level where the key was mostly asked, or another key mostly skipped, is not marked."""
    root, html = summarised
    runs = Runs([SimpleNamespace(facts={"dataset": str(root), "model": "m", "run": "r"}, tables={"metrics": []})])
    assert skipped_levels(runs, "identify_type_one_piece") == [
        {"variable": "blur.fstop", "level": "high", "skipped": 7, "questions": 9}]
    assert skipped_levels(runs, "count_pieces") == []  # half skipped is not more than half
    assert skipped_levels(runs, "*") == [{"variable": "blur.fstop", "level": "high", "skipped": 7, "questions": 9}]
    block = html.split("<h3>identify_type_one_piece", 1)[1].split("<h3>", 1)[0]
    assert "Mostly not asked" in block and "blur.fstop = high (7 of 9 questions skipped)" in block
    assert "Grey: levels where more than 50% of the questions were not asked" in block
    count_block = html.split("<h3>count_pieces", 1)[1].split("<h3>", 1)[0]
    assert "Mostly not asked" not in count_block
