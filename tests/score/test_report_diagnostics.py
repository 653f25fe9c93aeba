"""The report's diagnoses on planted runs: breaking points drawn and tabled, the paired comparison of
two runs over the same questions, repeat stability, and the link to the sample viewer, checked in
headless Chromium."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from planted import count_questions, logistic_curve, planted_predictions, write_dataset, write_run

from byo.cli import main

VARIANTS = (("neutral", "direct"), ("cot", "direct"))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    questions = count_questions(12, counts=list(range(1, 17)), variants=VARIANTS)
    write_dataset(root, questions)
    early = write_run(root, "early", planted_predictions(questions, logistic_curve(5.5), np.random.default_rng(1),
                                                         "early-vlm"))
    late = write_run(root, "late", planted_predictions(questions, logistic_curve(9.5), np.random.default_rng(2),
                                                       "late-vlm"))
    again = write_run(root, "early.repeat-2", planted_predictions(questions, logistic_curve(5.5),
                                                                 np.random.default_rng(3), "early-vlm"))
    for run, repeat in ((early, 1), (again, 2)):
        info = json.loads((run / "run.json").read_text())
        (run / "run.json").write_text(json.dumps({**info, "repeat": repeat, "repeats": 2}))
    out = root / "report.html"
    assert main(["report", str(early), str(late), "-o", str(out), "--bootstrap", "300"]) == 0
    return out


def test_the_report_names_where_each_model_breaks(report):
    html = report.read_text()
    for section in ("breaking", "paired", "stability"):
        assert f'<section id="{section}">' in html
    assert "early-vlm breaks at true count" in html and "late-vlm breaks at true count" in html
    assert "early-vlm vs late-vlm" in html and "late-vlm better" in html
    assert "Holm (family-wise error)" in html
    assert "clustered by image" in html


@pytest.mark.browser
def test_the_report_opens_and_links_the_viewer(report, tmp_path):
    playwright_api = pytest.importorskip("playwright.sync_api")
    from browser import browser_or_skip

    with playwright_api.sync_playwright() as p:
        browser = browser_or_skip(p)
        errors: list[str] = []
        page = browser.new_page(viewport={"width": 1300, "height": 1000})
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(report.as_uri())
        sentences = page.locator("#breaking td.sentence").all_inner_texts()
        assert any(s.startswith("early-vlm breaks at true count") for s in sentences)
        threshold = float(next(s for s in sentences if s.startswith("late-vlm breaks at true count")).split()[5])
        assert 8.5 < threshold < 10.5
        stability = page.locator("#stability tbody tr").first.inner_text()
        assert "early-vlm" in stability and "all questions" in stability
        images = page.locator("#breaking img, #paired img")
        assert images.count() >= 3 and all(
            w > 0 for w in images.evaluate_all("imgs => imgs.map(i => i.naturalWidth)"))
        page.click("#viewer-link")
        page.wait_for_selector("article.row")
        assert Path(page.url.removeprefix("file://")).name == "report_samples.html"
        assert page.inner_text("#count") == "384 of 384 questions"
        assert errors == []
        browser.close()


@pytest.mark.browser
def test_every_table_fits_its_card_at_1280_px(report, tmp_path):
    """At a 1280 px window, no table of the report (the paired tables, the breaking points', the
    confusion matrices, the per-level ones inside their details opened) reaches past its card's
    right edge, nor has part of it hidden in a scroll box."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    from browser import OVERFLOW, browser_or_skip

    with playwright_api.sync_playwright() as p:
        browser = browser_or_skip(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(report.as_uri())
        page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        tables = [t for t in page.evaluate(OVERFLOW) if t["visible"]]
        page.locator("#paired").screenshot(path=str(tmp_path / "paired.png"))  # to look at, when it fails
        browser.close()
    over = [t for t in tables if t["over"] > 0 or t["clipped"]]
    print(f"{len(tables)} tables; over their card: {over}")
    assert {t["section"] for t in tables} >= {"paired", "breaking"}
    assert over == []


ROW_OVERFLOW = """() => [...document.querySelectorAll('article.row')].slice(0, 20).map(row => {
  const box = row.getBoundingClientRect(), style = getComputedStyle(row);
  const inner = box.right - parseFloat(style.paddingRight) - parseFloat(style.borderRightWidth);
  const right = Math.max(...[...row.children].map(c => c.getBoundingClientRect().right));
  return {over: Math.round(right - inner), page: document.documentElement.scrollWidth - window.innerWidth};
})"""


@pytest.mark.browser
def test_the_viewers_answer_column_fits_its_row_at_1280_px(report, tmp_path):
    """The sample viewer of three runs at a 1280 px window: the third column (the runs' answers)
    ends inside its row, and the page does not scroll sideways."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    from browser import browser_or_skip

    runs = [str(report.parent / "runs" / name) for name in ("early", "late", "early.repeat-2")]
    viewer = tmp_path / "view.html"
    assert main(["view", *runs, "-o", str(viewer)]) == 0
    with playwright_api.sync_playwright() as p:
        browser = browser_or_skip(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(viewer.as_uri())
        page.wait_for_selector("article.row")
        rows = page.evaluate(ROW_OVERFLOW)
        page.screenshot(path=str(tmp_path / "viewer.png"))
        browser.close()
    print(f"{len(rows)} rows; most over: {max(r['over'] for r in rows)} px, page {rows[0]['page']} px")
    assert rows and all(r["over"] <= 0 and r["page"] <= 0 for r in rows)
