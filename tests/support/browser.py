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


# Each table of a report's sections: how far it reaches past its card's inner right edge, and
# whether a scroll box hides part of it (`byo report` at a given window width).
OVERFLOW = """() => [...document.querySelectorAll('section table')].map(t => {
  const card = t.closest('section');
  const box = t.getBoundingClientRect(), cardBox = card.getBoundingClientRect();
  const style = getComputedStyle(card);
  const inner = cardBox.right - parseFloat(style.paddingRight) - parseFloat(style.borderRightWidth);
  let scroller = t.parentElement, clipped = false;
  while (scroller && scroller !== card) {  // a scroll box that hides part of its table clips it too
    if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(scroller).overflowX)) {
      clipped = clipped || scroller.scrollWidth > scroller.clientWidth + 1;
    }
    scroller = scroller.parentElement;
  }
  return {section: card.id, over: Math.round(box.right - inner), clipped, visible: t.offsetParent !== null};
})"""
