"""Headless Chromium for the page tests (Debian's, no download): the browser, or a skip (a
failure under CI) when it is missing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def browser_or_skip(playwright):
    if not Path(CHROMIUM).is_file():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing (make install puts Debian's chromium there)")
        pytest.skip(f"{CHROMIUM} is missing (make install puts Debian's chromium there)")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
