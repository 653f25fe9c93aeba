"""Labelled sheets of crests: the whole library, or a rendered crest dataset (`byo sheet crest`,
`byo sheet crest-library`)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from byo.families.api import (
    RESOLVED_CONFIG,
    InputError,
    Layout,
    Sheet,
    SheetOption,
    SheetRequest,
    font,
    grid,
    read_json,
    reading,
    thumbnail,
    wrap,
)
from byo.families.crest.motifs import library
from byo.families.crest.motifs.raster import rasterize, to_image


def component_lines(c: library.Component, width: int, japanese: bool) -> list[str]:
    name = f"{c.token} {c.ja} {c.romaji}" if japanese else f"{c.token} {c.romaji}"
    return [*wrap(name, width), *wrap(c.en + (" (oriented)" if c.oriented else ""), width)]


def library_components() -> list[library.Component]:
    """The sheet's order: every motif, then every container."""
    return [*library.MOTIFS, *library.CONTAINERS]


def library_configs(size: int) -> list[dict]:
    """Dataset configs that render `library_components()` flat, in order, `size` pixels square."""
    return [{"dataset": {"name": f"library_{mode}", "family": "crest", "seed": 0, "n_images": 1},
             "scene": {"resolution": [size, size], "content": {"mode": mode}},
             "variables": {f"content.{mode}": {"type": "varying_all", "levels": [c.key for c in table]}}}
            for mode, table in (("motif", library.MOTIFS), ("container", library.CONTAINERS))]


def library_sheet(out: str | Path, *, size: int = 160, columns: int = 10,
                  rendered: list[Image.Image] | None = None) -> Path:
    """Every library component with its names: as rendered (`rendered`, from `library_configs`)
    or, without it, as the pure-Python rasterizer previews them."""
    components = library_components()
    _, japanese = font(10)
    images = rendered or [to_image(rasterize(c.geometry(), size, extent=1.1, supersample=2)) for c in components]
    tiles = [(im, component_lines(c, size, japanese)) for im, c in zip(images, components, strict=True)]
    title = (f"BYO Render crest library: {len(library.MOTIFS)} motifs and {len(library.CONTAINERS)} containers "
             f"({'flat renders' if rendered else 'preview raster'})")
    return grid(tiles, out, columns, title)


def dataset_sheet(root: str | Path, out: str | Path | None = None, *, columns: int | None = None,
                  thumb: int = 200, limit: int = 200) -> Path:
    """A rendered crest dataset with each image's program code, English and (with a CJK font)
    KDL, plus its split."""
    layout = Layout(root)
    legends = layout.legends()[:limit]
    if not legends:
        raise FileNotFoundError(f"{root}: no complete images to put on a sheet")
    _, japanese = font(10)
    aspect = legends[0]["height"] / legends[0]["width"]
    tiles = []
    for lg in legends:
        if lg["family"] != "crest":
            raise InputError(layout.legend(lg["name"]), f"an image of family {lg['family']!r}: expected a crest "
                             "dataset", key="family")
        with reading(layout.legend(lg["name"]), "a crest legend"):
            e = lg["extras"]
            lines = [*wrap(f"#{lg['index']} {e['program']} [{e['split']}]", thumb), *wrap(e["english"], thumb),
                     *wrap(e["kdl"] if japanese else e["romaji"], thumb)]
        tiles.append((thumbnail(layout.root / lg["image"], thumb, aspect), lines))
    columns = columns or min(6, len(tiles))
    resolved = layout.root / RESOLVED_CONFIG
    meta = read_json(resolved) if resolved.is_file() else {}
    with reading(resolved, "a resolved config"):
        title = f"{(meta.get('dataset') or {}).get('name') or layout.root.name}: {len(tiles)} crests"
    return grid(tiles, out or layout.root / "crest_sheet.png", columns, title)


def _draw_dataset(request: SheetRequest) -> Path:
    return dataset_sheet(request.target, request.output, columns=request.options["columns"])


def _draw_library(request: SheetRequest) -> Path:
    rendered = None if request.rendered is None else [image for image, _ in request.rendered]
    return library_sheet(request.target, size=request.options["size"], columns=request.options["columns"],
                         rendered=rendered)


SHEETS = (
    Sheet("crest", "labelled sheet of a rendered crest dataset", _draw_dataset,
          options=(SheetOption("--columns", "images per row (without it: up to 6)"),),
          output_help="default: DATASET/crest_sheet.png", alias="crest-sheet"),
    Sheet("crest-library", "every crest motif and container, rendered flat", _draw_library, target="output",
          options=(SheetOption("--size", "pixels per component", 160, minimum=16),
                   SheetOption("--columns", "components per row", 10)),
          configs=lambda options: library_configs(options["size"]),
          preview_help="draw with the pure-Python rasterizer (no Blender)", alias="crest-library-sheet"),
)
