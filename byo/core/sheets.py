"""Sheets of thumbnails with text under each: the one grid, and a dataset's contact sheet."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont, UnidentifiedImageError

from byo.core.dataset import Layout, atomic_write_bytes, png_bytes
from byo.core.inputs import reading

SHEET = "contact_sheet.png"
_CJK_FONTS = [  # a CJK font when one is installed draws Japanese names
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/ipafont-gothic/ipagp.ttf",
    "/usr/share/fonts/truetype/fonts-japanese-gothic.ttf",
]
_LATIN_FONTS = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"]


def font(size: int) -> tuple[ImageFont.ImageFont, bool]:
    """A font and whether it draws Japanese."""
    for path in _CJK_FONTS:
        if Path(path).is_file():
            return ImageFont.truetype(path, size), True
    for path in _LATIN_FONTS:
        if Path(path).is_file():
            return ImageFont.truetype(path, size), False
    return ImageFont.load_default(size=size), False


def font_size(tile_width: int) -> int:
    return max(10, tile_width // 13)


def wrap(text: str, width_px: int, max_lines: int = 2) -> list[str]:
    """`text` in lines that fit a tile `width_px` wide in the sheet's font, measured (Japanese
    has no spaces and wide glyphs: it breaks between characters); at most `max_lines`, the last
    cut with "..." when the text goes on."""
    face, _ = font(font_size(width_px))

    def fits(line: str) -> bool:
        return face.getlength(line) <= width_px

    # Words, and the characters of a word too wide for a line on its own.
    units = [(u, i > 0 and k == 0) for i, word in enumerate(text.split())
             for k, u in enumerate([word] if fits(word) else list(word))]
    lines = [""]
    for unit, after_space in units:
        joined = lines[-1] + (" " if after_space and lines[-1] else "") + unit
        if fits(joined) or not lines[-1]:
            lines[-1] = joined
        else:
            lines.append(unit)
    if len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and not fits(last + "..."):
            last = last[:-1]
        lines = [*lines[: max_lines - 1], last.rstrip() + "..."]
    return lines


def grid(tiles: list[tuple[Image.Image, list[str]]], out: str | Path, columns: int, title: str = "") -> Path:
    """Tiles of one size in `columns` columns, each with its lines of text under it."""
    width = tiles[0][0].width
    size = font_size(width)
    face, _ = font(size)
    line_h = size + 3
    n_lines = max(len(lines) for _, lines in tiles)
    cell_w, cell_h = width + 10, tiles[0][0].height + n_lines * line_h + 12
    top = line_h + 10 if title else 4
    rows = math.ceil(len(tiles) / columns)
    sheet = Image.new("RGB", (columns * cell_w + 6, top + rows * cell_h), "white")
    draw = ImageDraw.Draw(sheet)
    if title:
        draw.text((8, 4), title, fill="black", font=face)
    for i, (im, lines) in enumerate(tiles):
        x, y = 6 + (i % columns) * cell_w, top + (i // columns) * cell_h
        sheet.paste(im.convert("RGB"), (x, y))
        draw.rectangle([x - 1, y - 1, x + im.width, y + im.height], outline=(210, 210, 210))
        for k, text in enumerate(lines):
            draw.text((x, y + im.height + 4 + k * line_h), text, fill="black", font=face)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(out, png_bytes(np.asarray(sheet)))
    return out


def thumbnail(path: Path, width: int, aspect: float) -> Image.Image:
    """The image scaled to `width`; a grey tile saying so when it cannot be read."""
    height = round(width * aspect)
    try:
        with Image.open(path) as im:
            return im.convert("RGB").resize((width, height), Image.LANCZOS)
    except (OSError, UnidentifiedImageError):
        tile = Image.new("RGB", (width, height), (200, 200, 200))
        ImageDraw.Draw(tile).text((4, 4), "unreadable", fill="black", font=font(font_size(width))[0])
        return tile


def contact_sheet(root: str | Path, *, caption: Callable[[dict], str] | None = None, columns: int | None = None,
                  thumb_width: int = 200, keys: list[str] | None = None, limit: int = 400,
                  out: str | Path | None = None, legends: list[dict] | None = None,
                  level_text: Callable[[str, object], str] = lambda variable, level: str(level)) -> Path:
    """Every image (up to `limit`) with its index, its levels (or `keys`) and its caption; the
    dataset's complete legends unless `legends` are given. `level_text(variable, level)` writes a
    level (a preset with its value beside it: byo.scene.setup.level_label)."""
    layout = Layout(root)
    legends = (layout.legends() if legends is None else legends)[:limit]
    if not legends:
        raise FileNotFoundError(f"{root}: no complete images to put on a contact sheet")
    aspect = legends[0]["height"] / legends[0]["width"]
    tiles = []
    for legend in legends:
        levels = legend.get("levels", {})
        lines = [f"#{legend['index']}"] + [f"{k.split('.')[-1]}={level_text(k, levels[k])}" for k in keys or levels
                                           if k in levels]
        if caption:
            with reading(layout.legend(legend["name"]), "a legend"):
                lines += wrap(caption(legend), thumb_width)
        tiles.append((thumbnail(layout.root / legend["image"], thumb_width, aspect), lines))
    columns = columns or min(8, max(1, math.ceil(math.sqrt(len(tiles)))))
    return grid(tiles, out or layout.root / SHEET, columns)
