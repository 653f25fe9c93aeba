"""docs/viewer.png: the sample viewer (byo view) of two fake runs over 2,000 questions of the chess
goldens, filtered to wrong answers on count_pieces at content.count = 2, in headless Chromium.

    .venv/bin/python docs/viewer_screenshot.py docs/viewer.png
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))

from view_data import fake_run, golden_chess_dataset  # noqa: E402

from byo.cli import main  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def shoot(out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = golden_chess_dataset(Path(tmp) / "chess", n=2000)
        runs = [fake_run(root, "sharp", "sharp-vlm", 0.8, seed=1), fake_run(root, "blurry", "blurry-vlm", 0.5, seed=2)]
        page_path = root / "view.html"
        main(["view", *map(str, runs), "-o", str(page_path), "--bootstrap", "0"])
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1500, "height": 1050})
            page.goto(page_path.as_uri())
            page.select_option("#filter-verdict", "wrong")
            page.select_option("#filter-key", label="count_pieces")
            page.select_option("#filter-var", "content.count")
            page.select_option("#filter-level", "2")
            page.wait_for_function("() => [...document.querySelectorAll('article.row img')].slice(0, 6)"
                                   ".every(i => i.complete && i.naturalWidth > 0)")
            page.screenshot(path=str(out))
            browser.close()


if __name__ == "__main__":
    shoot(Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "docs" / "viewer.png"))
