"""The card sheet: all 52 faces and the backs, close up and labelled (`byo sheet cards`,
docs/poker_cards.png)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from byo.families.api import Sheet, SheetOption, SheetRequest, grid
from byo.families.poker.faces import BACKS, CARD_ASPECT, DECK, RANKS, SUITS, back, card_name, face

MARGIN = 0.15  # grid cell margin, fraction of a card width


def _top_down(name: str, rows: int, columns: int, card_pixels: int, content: dict) -> dict:
    """A grid seen straight from above by an orthographic camera, `card_pixels` per card width."""
    width = 0.0635
    span = columns * width * (1 + MARGIN) + width * MARGIN
    px_per_m = card_pixels / width
    height_m = rows * (width / CARD_ASPECT + width * MARGIN) + width * MARGIN
    resolution = [round(span * px_per_m), round(height_m * px_per_m)]
    return {"dataset": {"name": name, "family": "poker", "seed": 0, "n_images": 1},
            "scene": {"camera": {"projection": "orthographic", "ortho_scale": round(max(span, height_m), 6),
                                 "elevation": 90.0, "azimuth": 0.0, "distance": 1.0},
                      "resolution": resolution, "render": {"samples": 16},
                      "content": {"mode": "grid", "card": {"height": round(width / CARD_ASPECT, 6)},
                                  "grid": {"rows": rows, "columns": columns, "cell_margin": MARGIN,
                                           "lines": False, **content}}}}


def sheet_configs(card_pixels: int) -> list[dict]:
    """Dataset configs whose renders hold the 52 faces (a row per suit) and then each back."""
    faces = _top_down("card_faces", len(SUITS), len(RANKS), card_pixels,
                      {"count": len(DECK), "cards": list(DECK),
                       "cells": [[k // len(RANKS), k % len(RANKS)] for k in range(len(DECK))]})
    backs = []
    for design in BACKS:
        cfg = _top_down(f"card_back_{design}", 1, 1, card_pixels, {"count": 1, "face_down": 1})
        cfg["scene"]["content"]["card"]["back"] = design
        backs.append(cfg)
    return [faces, *backs]


def tile_size(card_pixels: int) -> tuple[int, int]:
    return card_pixels, round(card_pixels / CARD_ASPECT)


def labels() -> list[list[str]]:
    return [[code, card_name(code)] for code in DECK] + [[f"back ({design})", ""] for design in BACKS]


def crop_cards(image: Image.Image, legend: dict, size: tuple[int, int]) -> list[Image.Image]:
    """Each card of a rendered sheet config, cut out by its box (with a little table round it)."""
    out = []
    for o in legend["objects"]:
        x0, y0, x1, y1 = o["bbox"]
        pad = round(0.04 * (x1 - x0))
        out.append(image.crop((x0 - pad, y0 - pad, x1 + pad, y1 + pad)).resize(size, Image.LANCZOS))
    return out


def card_sheet(out: str | Path, *, card_pixels: int = 200, rendered: list[Image.Image] | None = None) -> Path:
    """The 52 faces and the backs with their names: rendered close up (`rendered`, from the
    configs of `sheet_configs`, cut out with `crop_cards`) or, without it, the textures as drawn."""
    size = tile_size(card_pixels)
    images = rendered or [face(c).resize(size, Image.LANCZOS) for c in DECK] + [
        back(d).resize(size, Image.LANCZOS) for d in BACKS]
    tiles = list(zip(images, labels(), strict=True))
    how = "rendered in Blender, top-down" if rendered else "textures as drawn"
    return grid(tiles, out, len(RANKS), f"BYO Render playing cards: 52 faces and {len(BACKS)} backs ({how})")


def _draw(request: SheetRequest) -> Path:
    pixels = request.options["card_pixels"]
    size = tile_size(pixels)
    rendered = None if request.rendered is None else [
        card for image, legend in request.rendered for card in crop_cards(image, legend, size)]
    return card_sheet(request.target, card_pixels=pixels, rendered=rendered)


SHEETS = (
    Sheet("cards", "the 52 playing-card faces and the backs, rendered close up", _draw, target="output",
          options=(SheetOption("--card-pixels", "pixels per card width", 200, minimum=16),),
          configs=lambda options: sheet_configs(options["card_pixels"]),
          preview_help="the textures as drawn (no Blender)", alias="card-sheet"),
)
