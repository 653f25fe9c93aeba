"""`byo view`: the sample viewer, opened in headless Chromium through Playwright, filtered as a person
would, on a 2,000-question run of real chess renders (and a 100,000-question one)."""

from __future__ import annotations

import io
import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from browser import browser_or_skip
from PIL import Image
from view_data import fake_run, golden_chess_dataset

from byo.cli import main
from byo.view.build import overlay_png, subjects


@pytest.fixture(scope="module")
def viewer(tmp_path_factory):
    root = golden_chess_dataset(tmp_path_factory.mktemp("chess"), n=2000)
    runs = [fake_run(root, "sharp", "sharp-vlm", 0.8, seed=1), fake_run(root, "blurry", "blurry-vlm", 0.5, seed=2)]
    page = root / "view" / "samples.html"
    assert main(["view", *map(str, runs), "-o", str(page), "--bootstrap", "0"]) == 0
    return root, runs, page


def parsed(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "parsed.jsonl").read_text().splitlines()]


def open_page(browser, page_path: Path, errors: list):
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(page_path.as_uri())
    return page


@pytest.mark.browser
def test_filter_to_wrong_answers_of_one_key_shows_the_overlay_of_the_first_row(viewer, tmp_path):
    playwright_api = pytest.importorskip("playwright.sync_api")
    root, runs, page_path = viewer
    rows = parsed(runs[0])
    assert len(rows) == 2000
    wrong = [r for r in rows if r["key"] == "count_pieces" and not r["correct"]]
    data = page_path.with_name("samples_files") / "data.js"
    doc = json.loads(data.read_text().removeprefix("window.BYO_VIEW = ").rstrip().rstrip(";"))
    first = doc["q"]["id"].index(wrong[0]["id"])
    overlay = doc["strings"][doc["q"]["overlay"][first]]
    with playwright_api.sync_playwright() as p:
        browser = browser_or_skip(p)
        errors: list[str] = []
        page = open_page(browser, page_path, errors)
        assert page.inner_text("#count") == "2,000 of 2,000 questions"
        assert page.locator("article.row").count() == 25  # one page at a time
        page.select_option("#filter-model", label="sharp-vlm")
        page.select_option("#filter-verdict", "wrong")
        page.select_option("#filter-key", label="count_pieces")
        assert page.inner_text("#count") == f"{len(wrong)} of 2,000 questions"
        row = page.locator("article.row").first
        assert row.get_attribute("data-id") == wrong[0]["id"]
        assert row.locator(".answer .verdict").inner_text() == "wrong"
        assert row.locator(".answer").count() == 1  # the chosen model's column only
        assert row.locator(".truth").inner_text() == str(wrong[0]["answer"])
        assert row.locator(".raw").inner_text() == wrong[0]["response"]
        assert wrong[0]["method"] and row.locator(".rule").inner_text().strip() == f"· rule: {wrong[0]['method']}"
        image = row.locator("img.overlay")
        assert image.get_attribute("src") == overlay
        page.wait_for_function("() => { const i = document.querySelector('article.row img.overlay');"
                               " return i && i.complete && i.naturalWidth > 0; }")
        width = image.evaluate("i => i.naturalWidth")
        assert width >= 320  # the 64 x 48 render, scaled up with its boxes drawn
        assert "object" in row.locator("figcaption").nth(1).inner_text()
        page.select_option("#filter-model", label="all")  # side by side
        assert page.locator("article.row").first.locator(".answer").count() == 2
        # The parse status most frequent among the wrong answers to this key, in either run.
        status = Counter(r["status"] for run in runs for r in parsed(run)
                         if r["key"] == "count_pieces" and not r["correct"] and r["status"] != "ok").most_common(1)[0][0]
        page.select_option("#filter-status", label=status)
        statuses = page.locator("article.row").evaluate_all(
            "rows => rows.map(r => [...r.querySelectorAll('.status')].map(s => s.textContent))")
        assert statuses and all(status in s for s in statuses)
        page.select_option("#filter-status", label="any")
        page.select_option("#filter-var", "content.count")
        page.select_option("#filter-level", "1")
        levels = page.locator("article.row .levels").all_inner_texts()
        assert levels and all("content.count=1" in t for t in levels)
        page.screenshot(path=str(tmp_path / "viewer.png"))
        assert errors == []
        browser.close()


def test_overlay_tints_only_the_objects_asked_about(viewer):
    root, _, _ = viewer
    legend = json.loads(next((root / "legends").glob("chess_count_000001.json")).read_text())
    visible = [o for o in legend["objects"] if o.get("visible", True)]
    assert subjects(legend, "count_pieces", {}) == visible
    colors = {o["attributes"]["color"] for o in visible}
    for color in ("white", "black"):
        chosen = subjects(legend, f"count_identification_{color}_pieces", {}, {"white", "black"})
        assert [o["attributes"]["color"] for o in chosen] == [color] * sum(
            o["attributes"]["color"] == color for o in visible)
    row = visible[0]["attributes"]["row"]
    assert all(o["attributes"]["row"] == row for o in subjects(legend, "count_localization_pieces_on_row", {"row": row}))
    assert colors  # the legend has pieces


def test_a_run_without_legends_still_lists_its_answers(tmp_path, capsys):
    from score_fixtures import make_fake_runs

    sharp, blurry = make_fake_runs(tmp_path / "fake")
    out = tmp_path / "v.html"
    assert main(["view", str(sharp), str(blurry), "-o", str(out), "--bootstrap", "0"]) == 0
    doc = (out.with_name("v_files") / "data.js").read_text()
    assert '"overlay":[-1,' in doc.replace(" ", "")
    assert "viewer:" in capsys.readouterr().err


@pytest.mark.browser
def test_one_hundred_thousand_rows_stay_paged(viewer, tmp_path):
    """50 copies of the 2,000 questions under new ids: the page lists 100,000 rows 25 at a time,
    filters them all, and holds only the current page's images."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    source, _, _ = viewer
    root = tmp_path / "big"
    for sub in ("images", "masks", "legends"):
        shutil.copytree(source / sub, root / sub)
    lines = (source / "questions.jsonl").read_text().splitlines()
    big = []
    for copy in range(50):
        for line in lines:
            q = json.loads(line)
            q["id"] = f"{q['id']}#{copy}"
            big.append(json.dumps(q))
    (root / "questions.jsonl").write_text("\n".join(big) + "\n")
    run = fake_run(root, "big", "big-vlm", 0.7, seed=3)
    page_path = tmp_path / "big.html"
    assert main(["view", str(run), "-o", str(page_path), "--bootstrap", "0"]) == 0
    wrong = sum(not r["correct"] and r["key"] == "count_squares" for r in parsed(run))
    with playwright_api.sync_playwright() as p:
        browser = browser_or_skip(p)
        errors: list[str] = []
        page = open_page(browser, page_path, errors)
        assert page.inner_text("#count") == "100,000 of 100,000 questions"
        assert page.locator("img").count() == 2 * 25
        page.select_option("#filter-verdict", "wrong")
        page.select_option("#filter-key", label="count_squares")
        assert page.inner_text("#count") == f"{wrong:,} of 100,000 questions"
        page.click("#next")
        assert page.inner_text("#page").startswith("page 2 of")
        ids = page.locator("article.row").evaluate_all("rows => rows.map(r => r.dataset.id)")
        assert len(ids) == 25 and all("count_squares" in i for i in ids)
        assert errors == []
        browser.close()


def test_an_objects_parts_are_tinted_with_it():
    pixels = np.full((4, 6, 3), 200.0)
    mask = np.zeros((4, 6), np.uint8)
    mask[1, 1], mask[1, 2], mask[2, 4] = 1, 5, 2  # object 1, its part 5, object 2
    legend = {"objects": [{"id": 1, "bbox": [1, 1, 3, 2]}, {"id": 2, "bbox": [4, 2, 5, 3]}],
              "parts": [{"id": 5, "object": 1}]}
    with Image.open(io.BytesIO(overlay_png(pixels, mask, legend, (1,)))) as im:
        scale = im.width // 6
        out = np.asarray(im.convert("RGB"))[scale // 2::scale, scale // 2::scale]  # each pixel's centre
    tinted = out[..., 0] > out[..., 1] + 40  # the tint is magenta
    assert tinted[1, 1] and tinted[1, 2] and not tinted[2, 4] and not tinted[0, 0]
