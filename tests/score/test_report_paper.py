"""The report draws BYO-Eval's figures: the radar chart of skills per model (Figure 5), the model
x prompt heatmaps (Figures 37-38, 43-44), the per-preprompt and per-instruction marginals
(Figures 6, 39-41), every level of a count of 1 to 21 (Figure 4) and Table 3's count ranges;
looked at in headless Chromium through Playwright."""

from __future__ import annotations

import re

import pytest
from count_data import make_count_dataset, slipping, write_run
from score_fixtures import make_dataset

from byo.cli import main

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def _section(html: str, name: str) -> str:
    return re.search(rf'<section id="{name}">(.*?)</section>', html, re.S).group(1)


@pytest.fixture(scope="module")
def oracle_and_blind(tmp_path_factory):
    root = tmp_path_factory.mktemp("paper")
    make_dataset(root / "ds")
    for provider in ("oracle", "blind"):
        assert main(["eval", str(root / "ds"), "--provider", provider, "--run", provider]) == 0
    out = root / "report.html"
    assert main(["report", str(root / "ds" / "runs" / "oracle"), str(root / "ds" / "runs" / "blind"), "-o", str(out),
                 "--bootstrap", "50", "--no-viewer"]) == 0
    return root, out


def test_the_report_shows_the_radar_chart_and_the_model_x_prompt_heatmaps(oracle_and_blind):
    _, out = oracle_and_blind
    html = out.read_text()
    assert 'alt="radar chart of skills per model"' in _section(html, "skills")
    prompts = _section(html, "prompts")
    assert prompts.count('data-kind="model x prompt"') >= 2  # all questions, then each key
    assert prompts.count('alt="accuracy per preprompt or instruction"') == 2


@pytest.mark.browser
def test_the_figures_are_drawn_in_chromium(oracle_and_blind):
    playwright = pytest.importorskip("playwright.sync_api")
    root, out = oracle_and_blind
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            page.goto(out.resolve().as_uri())
            widths = page.eval_on_selector_all('section#skills img[alt="radar chart of skills per model"]',
                                               "imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
            assert widths and all(w > 300 for w in widths), widths
            # the model x prompt heatmaps: every cell painted in the colour its value stands for
            cells = page.eval_on_selector_all('section#prompts table[data-kind="model x prompt"] td',
                                              "tds => tds.map(td => [td.style.background, getComputedStyle(td)"
                                              ".backgroundColor, td.getBoundingClientRect().width])")
            assert cells and all(style.startswith("rgb") and style == painted and width > 40
                                 for style, painted, width in cells), cells[:4]
            for section in ("skills", "prompts"):
                page.locator(f"section#{section}").screenshot(path=str(root / f"report_{section}.png"))
        finally:
            browser.close()
    assert (root / "report_skills.png").stat().st_size > 10_000
    assert (root / "report_prompts.png").stat().st_size > 10_000


def test_counts_1_to_21_are_21_levels_in_the_report_and_table_3s_ranges(tmp_path):
    questions = make_count_dataset(tmp_path)
    oracle = write_run(tmp_path, questions, "oracle", "oracle", lambda q: str(q["answer"]))
    slip = write_run(tmp_path, questions, "slipping", "slipping-vlm", slipping)
    out = tmp_path / "report.html"
    assert main(["report", str(oracle), str(slip), "-o", str(out), "--bootstrap", "0", "--no-viewer",
                 "--bins", "content.count=byo-eval"]) == 0
    html = out.read_text()
    ranges = _section(html, "ranges")
    for column in ("content.count: all", "content.count: 1-4", "content.count: 5-9", "content.count: 10-21"):
        assert f"<th>{column}</th>" in ranges
    assert "1.00 (0.00)" in ranges and "0.67 (0.00)" in ranges  # the slipping model above 4 pieces
    assert "21 levels" in ranges
