"""Screenshots of the `byo human` page: docs/human_chess.png and docs/human_poker.png.

    .venv/bin/python docs/human_screenshot.py [OUT_DIR]      # default: docs/

It renders one 640 x 480 image of a chess and of a poker config (draft quality), writes their
questions, starts `byo human` on each (port 0), answers the questions before the one shown
through the page's own API, opens the page in headless Chromium (Debian's /usr/bin/chromium),
picks an answer or two as a person would, and saves the window.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import httpx
import yaml
from playwright.sync_api import expect, sync_playwright

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
# (name, config, the level drawn, the key shown, what the person has picked so far)
SHOTS = [
    ("chess", "chess/count_identification.yaml", {"content.count": 6}, "identify_type_several_pieces", ["king"]),
    ("poker", "poker/count.yaml", {"content.total_cards": 9}, "identify_cards", ["2S", "3S", "8H"]),
]


def byo(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "byo.cli", *args], check=True, capture_output=True, text=True)


def dataset(work: Path, name: str, config: str, level: dict) -> Path:
    data = yaml.safe_load((ROOT / "dataset_configs" / config).read_text())
    data["dataset"]["n_images"] = 1
    data["scene"]["resolution"] = [640, 480]
    data["scene"].setdefault("render", {})["quality"] = "draft"
    data["variables"] = {k: {"type": "varying_all_range", "min": v, "max": v} for k, v in level.items()}
    path = work / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    out = work / name
    byo("render", str(path), "-o", str(out), "--in-process")
    byo("questions", str(out))
    return out


def start(dataset_dir: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "byo.cli", "human", str(dataset_dir), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        if m := re.search(r"open (http://127\.0\.0\.1:\d+/)", line):
            threading.Thread(target=proc.stdout.read, daemon=True).start()
            return proc, m.group(1)
    raise RuntimeError("byo human did not start")


def shoot(browser, dataset_dir: Path, key: str, picks: list[str], out: Path) -> None:
    truths = {q["id"]: q for q in map(json.loads, (dataset_dir / "questions.jsonl").read_text().splitlines())}
    proc, url = start(dataset_dir)
    try:
        api = httpx.Client(base_url=url)
        for n in range(len(truths)):  # the questions before the one shown, answered through the API
            q = api.get("/api/state", params={"annotator": "ada"}).json()["question"]
            if truths[q["id"]]["key"] == key:
                break
            api.post("/api/answer", json={"annotator": "ada", "id": q["id"], "answer": truths[q["id"]]["answer"],
                                          "seconds": 4.0 + n % 5, "nonce": f"screenshot-{n:04d}"}).raise_for_status()
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(url + "?annotator=ada")
        expect(page.locator("#prompt")).not_to_be_empty()
        for value in picks:
            page.click(f'.option[data-value="{value}"]')
        page.wait_for_timeout(2500)  # the clock runs
        page.screenshot(path=str(out))
        page.close()
    finally:
        proc.terminate()
        proc.wait(30)


def main(out_dir: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for name, config, level, key, picks in SHOTS:
            out = out_dir / f"human_{name}.png"
            shoot(browser, dataset(Path(tmp), name, config, level), key, picks, out)
            print(f"screenshot: {out}")
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
