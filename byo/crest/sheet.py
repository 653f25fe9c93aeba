"""Labelled sheets of crests: the whole library, or a rendered crest dataset."""

from __future__ import annotations

import json
import math
import tempfile
import textwrap
from pathlib import Path

import yaml
from PIL import Image, ImageDraw, ImageFont

from byo.crest import library
from byo.crest.raster import rasterize, to_image
from byo.dataset import Layout, temp_path_for

_FONTS = [  # a CJK font when one is installed shows the Japanese names; otherwise romaji only
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/ipafont-gothic/ipagp.ttf",
    "/usr/share/fonts/truetype/fonts-japanese-gothic.ttf",
]
_LATIN = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"]


def _font(size: int) -> tuple[ImageFont.ImageFont, bool]:
    """A font and whether it draws Japanese."""
    for path in _FONTS:
        if Path(path).is_file():
            return ImageFont.truetype(path, size), True
    for path in _LATIN:
        if Path(path).is_file():
            return ImageFont.truetype(path, size), False
    return ImageFont.load_default(size=size), False


def compose(tiles: list[tuple[Image.Image, list[str]]], out: str | Path, columns: int, title: str = "") -> Path:
    """A grid of images, each with lines of text under it."""
    width = tiles[0][0].width
    font_size = max(10, width // 13)
    font, _ = _font(font_size)
    line_h = font_size + 3
    n_lines = max(len(lines) for _, lines in tiles)
    cell_w, cell_h = width + 10, tiles[0][0].height + n_lines * line_h + 12
    top = line_h + 10 if title else 4
    rows = math.ceil(len(tiles) / columns)
    sheet = Image.new("RGB", (columns * cell_w + 6, top + rows * cell_h), "white")
    draw = ImageDraw.Draw(sheet)
    if title:
        draw.text((8, 4), title, fill="black", font=font)
    for i, (im, lines) in enumerate(tiles):
        x, y = 6 + (i % columns) * cell_w, top + (i // columns) * cell_h
        sheet.paste(im.convert("RGB"), (x, y))
        draw.rectangle([x - 1, y - 1, x + im.width, y + im.height], outline=(210, 210, 210))
        for k, text in enumerate(lines):
            draw.text((x, y + im.height + 4 + k * line_h), text, fill="black", font=font)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path_for(out)
    sheet.save(tmp, format="PNG")
    tmp.replace(out)
    return out


def _wrap(text: str, width_px: int, font_px: int, max_lines: int = 2, pad: bool = True) -> list[str]:
    chars = max(8, int(width_px / (0.6 * font_px)))
    lines = (textwrap.wrap(text, chars) or [""])[:max_lines]
    return lines + [""] * (max_lines - len(lines)) if pad else lines


def component_lines(c: library.Component, width: int, japanese: bool) -> list[str]:
    font_px = max(10, width // 13)
    name = f"{c.token} {c.ja} {c.romaji}" if japanese else f"{c.token} {c.romaji}"
    return [*_wrap(name, width, font_px), *_wrap(c.en + (" (oriented)" if c.oriented else ""), width, font_px)]


def library_sheet(out: str | Path, *, size: int = 160, columns: int = 10, preview: bool = False) -> Path:
    """Every motif, then every container, as the flat presentation renders them (or, with
    `preview`, as the pure-Python rasterizer draws them)."""
    components = [*library.MOTIFS, *library.CONTAINERS]
    _, japanese = _font(10)
    if preview:
        images = [to_image(rasterize(c.geometry(), size, extent=1.1, supersample=2)) for c in components]
    else:
        images = _render_components(size)
    tiles = [(im, component_lines(c, size, japanese)) for im, c in zip(images, components, strict=True)]
    title = (f"BYO Render crest library: {len(library.MOTIFS)} motifs and {len(library.CONTAINERS)} containers "
             f"({'preview raster' if preview else 'flat renders'})")
    return compose(tiles, out, columns, title)


def _render_components(size: int) -> list[Image.Image]:
    from byo.runner import render_dataset

    images = []
    with tempfile.TemporaryDirectory(prefix="crest_library_") as tmp:
        for mode, table in (("motif", library.MOTIFS), ("container", library.CONTAINERS)):
            cfg = {"dataset": {"name": f"library_{mode}", "family": "crest", "seed": 0, "n_images": 1},
                   "scene": {"resolution": [size, size], "content": {"mode": mode}},
                   "variables": {f"content.{mode}": {"type": "varying_all", "levels": [c.key for c in table]}}}
            path = Path(tmp) / f"{mode}.yaml"
            path.write_text(yaml.safe_dump(cfg, sort_keys=False))
            report = render_dataset(str(path), str(Path(tmp) / mode), show_progress=False)
            if report.failed:
                raise RuntimeError(f"library render failed: {report.failed[0]}")
            layout = Layout(Path(tmp) / mode)
            for legend in layout.legends():
                with Image.open(layout.root / legend["image"]) as im:
                    images.append(im.convert("RGB"))
    return images


def dataset_sheet(root: str | Path, out: str | Path | None = None, *, columns: int | None = None,
                  thumb: int = 200, limit: int = 200) -> Path:
    """A rendered crest dataset with each image's program code, English and (with a CJK font)
    KDL, plus its split."""
    layout = Layout(root)
    legends = layout.legends()[:limit]
    if not legends:
        raise FileNotFoundError(f"{root}: no complete images to put on a sheet")
    _, japanese = _font(10)
    font_px = max(10, thumb // 13)
    tiles = []
    for lg in legends:
        e = lg["extras"]
        with Image.open(layout.root / lg["image"]) as im:
            im = im.convert("RGB").resize((thumb, round(thumb * im.height / im.width)), Image.LANCZOS)
        lines = [*_wrap(f"#{lg['index']} {e['program']} [{e['split']}]", thumb, font_px, pad=False),
                 *_wrap(e["english"], thumb, font_px),
                 *_wrap(e["kdl"] if japanese else e["romaji"], thumb, font_px)]
        tiles.append((im, lines))
    columns = columns or min(6, len(tiles))
    meta = json.loads((layout.root / "config.resolved.json").read_text()) if (
        layout.root / "config.resolved.json").is_file() else {}
    title = f"{meta.get('dataset', {}).get('name', layout.root.name)}: {len(tiles)} crests"
    return compose(tiles, out or layout.root / "crest_sheet.png", columns, title)
