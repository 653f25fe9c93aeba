"""The sheet of unreadable cases: every image a readability rule skipped or flagged a question
of, cropped around the object the rule names (outlined in red, from the mask), with the key, the
rule and the reason written under it. `byo questions DATASET --sheet` draws it from the summary
`byo questions` writes (questions_summary.json)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy  # scipy.ndimage loads on first use
from PIL import Image

from byo.core.dataset import Layout
from byo.core.inputs import read_image, read_json
from byo.core.sheets import grid, wrap
from byo.questions.load import SUMMARY_FILE

SHEET_FILE = "unreadable_sheet.png"
TILE = 240  # tile width, pixels
CONTEXT = 3.0  # the crop is this many times the object's box (at least a quarter of the image)


def _tile(layout: Layout, case: dict, legend: dict) -> Image.Image:
    rgb = read_image(layout.image(case["name"]), "RGB")
    mask = read_image(layout.mask(case["name"]), "L")
    ids = set(case.get("objects") or [])
    ids |= {p["id"] for p in legend.get("parts", []) if p["object"] in ids}
    region = np.isin(mask, sorted(ids)) if ids else np.zeros(mask.shape, bool)
    out = rgb.copy()
    if region.any():
        outline = scipy.ndimage.binary_dilation(region, iterations=max(1, mask.shape[1] // 160)) & ~region
        out[outline] = (255, 0, 0)
        ys, xs = np.nonzero(region)
        h, w = mask.shape
        cx, cy = (xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2
        half_w = max(CONTEXT * (xs.max() - xs.min() + 1), w / 4) / 2
        half_h = half_w * 3 / 4
        x0, y0 = int(max(0, cx - half_w)), int(max(0, cy - half_h))
        x1, y1 = int(min(w, cx + half_w)), int(min(h, cy + half_h))
        out = out[y0:y1, x0:x1]
    image = Image.fromarray(out)
    return image.resize((TILE, round(TILE * 3 / 4)), Image.NEAREST if image.width < TILE else Image.LANCZOS)


def unreadable_sheet(dataset: str | Path, *, out: str | Path | None = None, summary_file: str | Path | None = None,
                     limit: int = 60, columns: int = 5) -> Path | None:
    """Draw the sheet of the skipped and flagged cases (one tile per image and rule, up to `limit`)
    of the summary `byo questions` wrote (default DATASET/questions_summary.json); None when there
    are none."""
    layout = Layout(dataset)
    summary = read_json(Path(summary_file) if summary_file else layout.root / SUMMARY_FILE)
    seen, cases = set(), []
    for case in summary.get("unreadable", []):
        tag = (case["image"], case["rule"], tuple(case.get("objects") or []))
        if tag not in seen:
            seen.add(tag)
            cases.append((case, [k["key"] for k in summary["unreadable"] if (k["image"], k["rule"]) == tag[:2]]))
    if not cases:
        return None
    tiles = []
    for case, keys in cases[:limit]:
        legend = read_json(layout.legend(case["name"]))
        if legend.get("name") != case["name"]:
            continue
        levels = ", ".join(f"{k.rpartition('.')[2]}={v}" for k, v in case["levels"].items())
        lines = [f"{case['name'][-6:]} {levels}", f"{case['policy']}: {case['rule']} ({len(keys)} keys)",
                 *wrap(case["reason"], TILE, 4)]
        tiles.append((_tile(layout, case, legend), lines))
    target = Path(out) if out else layout.root / SHEET_FILE
    more = f", first {limit} of {len(cases)}" if len(cases) > limit else ""
    return grid(tiles, target, columns, title=f"Unreadable in the rendered image: skipped or flagged{more}")
