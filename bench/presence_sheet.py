"""Is every counting question asked answerable from the image? The two sets an independent check
found undecidable under the contrast rule (issue 45): chess with white and coloured stylised pieces
under the strongest blur, and poker tables far away and blurred. Renders each (the counterfactual
check on, as a dataset renders it), writes the questions, and draws a contact sheet: each image at
its rendered size beside its objects, each outlined in green (present: the image without it differs
visibly where it stood), amber (ambiguous) or red (absent), with its presence difference (ΔE00)
and mask pixels and the objects it blurs into one blob with (the separation rule's merge ratio),
and under it the counting questions asked (with their answers) and skipped (with why).

    .venv/bin/python bench/presence_sheet.py [--out output/bench_presence] [--images 4]
Writes docs/counterfactual_presence.png and a JSON of every question asked and skipped.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from PIL import Image, ImageDraw
from scipy import ndimage

from byo.cli import main as byo_main
from byo.core.dataset import Layout
from byo.core.inputs import read_image
from byo.core.sheets import font
from byo.families import get_family
from byo.families.base import Skip, Unreadable, ask, seen_as_rendered
from byo.questions.generate import with_evidence
from byo.questions.load import SUMMARY_FILE
from byo.scene import counterfactual as cf

ROOT = Path(__file__).resolve().parent.parent
BAND_COLOR = {"visible": (40, 200, 60), "ambiguous": (255, 170, 0), "hidden": (230, 30, 30)}
COUNT_KEYS = {"chess": ["count_pieces", "count_identification_white_pieces", "count_identification_piece_type"],
              "poker": ["count_total_cards", "count_community_cards", "count_players", "count_table_chip_piles",
                        "count_identify_face_up_cards", "count_identify_face_down_cards"]}


def configs(images: int) -> dict[str, dict]:
    chess = {"dataset": {"name": "presence_chess", "family": "chess", "seed": 451, "n_images": images},
             "scene": {"resolution": [320, 240], "render": {"quality": "draft"}, "blur": {"fstop": "very_high"},
                       "content": {"style": "stylised", "count": 7,
                                   "colors": ["white", {"name": "red", "rgb": [0.75, 0.12, 0.1]},
                                              {"name": "blue", "rgb": [0.12, 0.25, 0.75]}]}},
             "questions": {"keys": COUNT_KEYS["chess"]}}
    poker = {"dataset": {"name": "presence_poker", "family": "poker", "seed": 452, "n_images": images},
             "scene": {"resolution": [320, 240], "render": {"quality": "draft"}, "camera": {"distance": "high"},
                       "blur": {"fstop": 1.0}},
             "questions": {"keys": COUNT_KEYS["poker"]}}
    return {"chess": chess, "poker": poker}


def render(out: Path, images: int) -> dict[str, Path]:
    dirs = {}
    for name, cfg in configs(images).items():
        path = out / f"{name}.yaml"
        path.write_text(json.dumps(cfg))
        target = out / name
        if not (target / SUMMARY_FILE).is_file():
            assert byo_main(["render", str(path), "-o", str(target), "--in-process"]) == 0
            assert byo_main(["questions", str(target)]) == 0
        dirs[name] = target
    return dirs


def tile(layout: Layout, legend: dict, asked: list[dict], skipped: list[dict], scale: int) -> Image.Image:
    rgb = read_image(layout.image(legend["name"]), "RGB")
    mask = read_image(layout.mask(legend["name"]), "L")
    out = rgb.copy()
    seen = {o["id"]: o for o in seen_as_rendered(legend)["objects"]}
    notes = []
    for o in legend["objects"]:
        m = cf.measured(o)
        if m is None or not m.area:
            continue
        region = mask == o["id"]
        band = seen[o["id"]]["visibility"]
        out[ndimage.binary_dilation(region) & ~region] = BAND_COLOR[band]
        notes.append((o, m, band))
    plain = Image.fromarray(rgb).resize((rgb.shape[1] * scale, rgb.shape[0] * scale), Image.NEAREST)
    big = Image.new("RGB", (plain.width + out.shape[1], plain.height), "white")
    big.paste(plain, (0, 0))  # the image as a person sees it, and beside it each object outlined
    big.paste(Image.fromarray(out), (plain.width, 0))
    face = font(12)[0]
    lines = [f"#{o['id']} {o['attributes'].get('color', '')} {o['kind']}: presence {m.presence} ΔE00 "
             f"({m.area} px) -> {band}{_merges(m)}" for o, m, band in notes]
    lines += ["asked:", *([f"  {q['key']} = {q['answer']}" for q in asked] or ["  none"])]
    lines += ["skipped:", *([f"  {s['key']}: {s['reason']}"[:110] for s in skipped] or ["  none"])]
    width = max(big.width, 620)
    canvas = Image.new("RGB", (width, big.height + 16 * len(lines) + 8), "white")
    canvas.paste(big, (0, 0))
    draw = ImageDraw.Draw(canvas)
    for k, line in enumerate(lines):
        draw.text((4, big.height + 4 + 16 * k), line, fill="black", font=face)
    return canvas


def _merges(m: cf.Measured) -> str:
    """The objects this one blurs into (merge ratio >= MAX_MERGE), else its highest ratio."""
    if not m.merged:
        return ""
    merged = [f"#{k} {r:.2f}" for k, r in sorted(m.merged.items()) if not cf.told_apart(r)]
    if merged:
        return "; ONE BLOB with " + ", ".join(merged)
    k, r = max(m.merged.items(), key=lambda kv: kv[1])
    return f"; apart (highest merge #{k} {r:.2f})"


def sheet(dirs: dict[str, Path], path: Path) -> dict:
    tiles, record = [], {}
    for root in dirs.values():
        layout = Layout(root)
        questions = [json.loads(line) for line in (root / "questions.jsonl").read_text().splitlines()]
        for legend in layout.legends():
            asked = [q for q in questions if q["image"] == legend["image"]]
            skipped = _skipped(root, legend)
            tiles.append(tile(layout, legend, asked, skipped, 1))
            record[legend["name"]] = {"asked": [(q["key"], q["answer"]) for q in asked], "skipped": skipped,
                                      "presence": {o["id"]: o.get(cf.LEGEND_FIELD) for o in legend["objects"]}}
    width = max(t.width for t in tiles)
    columns = 1
    rows = [tiles[k:k + columns] for k in range(0, len(tiles), columns)]
    heights = [max(t.height for t in row) for row in rows]
    board = Image.new("RGB", (columns * width, sum(heights)), "white")
    y = 0
    for row, h in zip(rows, heights, strict=True):
        for k, t in enumerate(row):
            board.paste(t, (k * width, y))
        y += h
    # a small file for the docs, dithered: a plain palette would draw false edges into the blur
    palette = board.quantize(256)
    board.quantize(palette=palette, dither=Image.Dither.FLOYDSTEINBERG).save(path, optimize=True)
    return record


def _skipped(root: Path, legend: dict) -> list[dict]:
    """The counting questions `byo questions` skipped of this image, and why (asked again as the
    generator asks them: its summary keeps the reasons per key, not per image)."""
    family = get_family(legend["family"])
    seen = with_evidence(Layout(root), legend)
    out = []
    for key in COUNT_KEYS[legend["family"]]:
        result = ask(family.answers[key], seen, key)
        if isinstance(result, Unreadable):
            out.append({"key": key, "reason": f"unreadable ({result.rule}): {result.reason}"})
        elif isinstance(result, Skip):
            out.append({"key": key, "reason": result.reason})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "output" / "bench_presence"))
    parser.add_argument("--images", type=int, default=4)
    parser.add_argument("--sheet", default=str(ROOT / "docs" / "counterfactual_presence.png"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    record = sheet(render(out, args.images), Path(args.sheet))
    (out / "presence.json").write_text(json.dumps(record, indent=1, default=str))
    print(f"{args.sheet}: {len(record)} images")


if __name__ == "__main__":
    main()
