"""`byo sheet autocomp-pairs DATASET`: each Auto-Comp concept's Minimal and Contextual renders side
by side, with the caption each condition asks about (the paired set, looked at)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from byo.families.api import Layout, Sheet, SheetOption, SheetRequest, grid, thumbnail, wrap


def pairs_sheet(dataset: Path, out: Path, width: int = 240, limit: int | None = None) -> Path:
    layout = Layout(dataset)
    by_concept: dict[tuple, dict[str, dict]] = {}
    for legend in layout.legends(damaged="skip"):
        a = legend.get("extras", {}).get("autocomp")
        if a is not None:
            by_concept.setdefault((a["task"], a["n"], a["concept"]), {})[a["condition"]] = legend
    pairs = [(k, v) for k, v in sorted(by_concept.items()) if {"minimal", "contextual"} <= set(v)][:limit]
    if not pairs:
        raise ValueError(f"{dataset}: no concept with both a Minimal and a Contextual image")
    tiles: list[tuple[Image.Image, list[str]]] = []
    for (_task, n, concept), v in pairs:
        for cond in ("minimal", "contextual"):
            legend = v[cond]
            aspect = legend["height"] / legend["width"]
            image = thumbnail(layout.root / legend["image"], width, aspect)
            text = legend["extras"]["autocomp"][cond]
            tiles.append((image, [f"N={n} #{concept} {cond}", *wrap(text, width, 4)]))
    return grid(tiles, out, 4, f"Auto-Comp paired set: Minimal | Contextual, {len(pairs)} concepts")


def _draw(request: SheetRequest) -> Path:
    out = request.output or request.target / "autocomp_pairs.png"
    return pairs_sheet(request.target, out, request.options["width"], request.options["concepts"])


SHEETS = (
    Sheet("autocomp-pairs", "each Auto-Comp concept's Minimal and Contextual renders side by side", _draw,
          options=(SheetOption("--width", "pixels per image", 240, minimum=32),
                   SheetOption("--concepts", "at most this many concepts", None)),
          output_help="DATASET/autocomp_pairs.png"),
)
