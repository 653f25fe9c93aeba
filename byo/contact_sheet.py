"""Contact sheet: a thumbnail grid of a dataset with each image's key labels."""

from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from byo.dataset import Layout, temp_path_for

SHEET = "contact_sheet.png"


def _label(legend: dict, keys: list[str] | None) -> list[str]:
    lines = [f"#{legend['index']}"]
    levels = legend.get("levels", {})
    for k in keys or list(levels):
        if k in levels:
            lines.append(f"{k.split('.')[-1]}={levels[k]}")
    extras = legend.get("extras", {})
    label = extras.get("label") or (extras.get("labels") or [None])[0]
    lines.append(f"{len(legend['objects'])} obj" + (f": {label}" if label else ""))
    return lines


def contact_sheet(root: str | Path, *, columns: int | None = None, thumb_width: int = 200,
                  keys: list[str] | None = None, limit: int = 400, out: str | Path | None = None) -> Path:
    layout = Layout(root)
    legends = layout.legends()[:limit]
    if not legends:
        raise FileNotFoundError(f"{root}: no complete images to put on a contact sheet")
    columns = columns or min(8, max(1, math.ceil(math.sqrt(len(legends)))))
    first = legends[0]
    thumb_h = round(thumb_width * first["height"] / first["width"])
    font = ImageFont.load_default(size=max(10, thumb_width // 16))
    line_h = font.size + 3
    label_h = line_h * (len(_label(first, keys)) if keys is not None else 1 + len(first["levels"]) + 1) + 4
    rows = math.ceil(len(legends) / columns)
    sheet = Image.new("RGB", (columns * (thumb_width + 6) + 6, rows * (thumb_h + label_h + 6) + 6), "white")
    draw = ImageDraw.Draw(sheet)
    for i, legend in enumerate(legends):
        x = 6 + (i % columns) * (thumb_width + 6)
        y = 6 + (i // columns) * (thumb_h + label_h + 6)
        with Image.open(layout.root / legend["image"]) as im:
            sheet.paste(im.convert("RGB").resize((thumb_width, thumb_h), Image.LANCZOS), (x, y))
        for k, text in enumerate(_label(legend, keys)):
            draw.text((x + 2, y + thumb_h + 2 + k * line_h), text, fill="black", font=font)
    final = Path(out) if out else layout.root / SHEET
    tmp = temp_path_for(final)
    sheet.save(tmp, format="PNG")
    tmp.replace(final)
    return final
