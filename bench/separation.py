"""Calibration of the separation rule (byo/scene/counterfactual.py, `merge_ratio` and MAX_MERGE):
two stylised chess pieces side by side (same row) or one behind the other (same column), one or
two squares apart, white on the cream board or red beside blue, at every blur level of the presets
(none, f/2, f/1, f/0.5), rendered as a dataset renders them (320x240, draft, the counterfactual
check on). Records the merge ratio of the pair (the saddle between their removals' difference
maps over the lower peak) and draws a contact sheet of the images, each marked with it, to judge
by eye whether two pieces can be counted. Then the presence smoothing under blur
(counterfactual.presence_smoothing): the pairs two squares apart measured with 4 samples smoothed
by the blur disc over 4, 8, 12 and 16 px, against 64 samples (the grain-free reference).

    .venv/bin/python bench/separation.py [--out output/bench_separation] [--reuse]
Writes docs/separation_grid.png and separation.json (grid, pooling, the mean error of each).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from PIL import Image, ImageDraw

from byo.core.sheets import font
from byo.families import load_config
from byo.scene import counterfactual as cf
from byo.scene.plan import make_job
from byo.scene.spec import sample_spec

ROOT = Path(__file__).resolve().parent.parent
BLURS = ["none", "medium", "high", "very_high"]
PAIRS = {"white": ("white", "white"), "red-blue": ("red", "blue")}
COLORS = ["white", {"name": "red", "rgb": [0.75, 0.12, 0.1]}, {"name": "blue", "rgb": [0.12, 0.25, 0.75]}]
# (name, the second piece's cell) with the first on (4, 3): the board's rows run away from the camera
LAYOUTS = [("side by side, 1 square", (4, 4)), ("side by side, 2 squares", (4, 5)),
           ("one behind, 1 square", (3, 3)), ("one behind, 2 squares", (2, 3))]


def config(blur: str, pair: str, second: tuple[int, int]) -> dict:
    a, b = PAIRS[pair]
    return {"dataset": {"name": "separation", "family": "chess", "seed": 7, "n_images": 1},
            "scene": {"resolution": [320, 240], "render": {"quality": "draft"}, "blur": {"fstop": blur},
                      "content": {"style": "stylised", "colors": COLORS, "max_rotation": 0,
                                  "pieces": [{"type": "queen", "color": a, "cell": [4, 3]},
                                             {"type": "rook", "color": b, "cell": list(second)}]}}}


def render(blur: str, pair: str, second: tuple[int, int]):
    from byo.render.job import render_job

    cfg = load_config(config(blur, pair, second))
    result = render_job(sample_spec(cfg, make_job(cfg, 0)), cfg.family, threads=2)
    return result.image, result.legend


def measure(out: Path) -> list[dict]:
    rows = []
    for pair in PAIRS:
        for layout, second in LAYOUTS:
            for blur in BLURS:
                image, legend = render(blur, pair, second)
                found = {o["id"]: cf.measured(o) for o in legend["objects"]}
                ratio = max((r for m in found.values() if m for r in m.merged.values()), default=0.0)
                name = f"{pair}_{layout.replace(' ', '_').replace(',', '')}_{blur}"
                Image.fromarray(image).save(out / f"{name}.png")
                rows.append({"pair": pair, "layout": layout, "blur": blur, "image": f"{name}.png",
                             "presence": [m.presence if m else None for m in found.values()],
                             "merge_ratio": ratio, "told_apart": cf.told_apart(ratio)})
                print(json.dumps(rows[-1]), flush=True)
    return rows


# The part of the 320x240 images where the pieces stand, shown at twice its size.
CROP = (100, 45, 220, 135)


POOLINGS = (4, 8, 12, 16)


def pooling(out: Path) -> list[dict]:
    """The presence smoothing under blur (counterfactual.presence_smoothing): each piece of the
    pairs two squares apart measured with the check's 4 samples smoothed by disc / k, against
    64 samples smoothed by SMOOTH_PX (the grain-free reference)."""
    from byo.blender import engine
    from byo.render import counterfactuals
    from byo.render.job import _measured, build_scene

    rows = []
    for pair in PAIRS:
        for blur in BLURS[1:]:
            crops, disc = {}, 0.0
            for samples in (4, 64):
                c = config(blur, pair, (4, 5))
                c["scene"]["render"]["counterfactual"] = {"samples": samples}
                cfg = load_config(c)
                spec = sample_spec(cfg, make_job(cfg, 0))

                def keep(oid, attribute, value, truth, other, samples=samples, crops=crops):
                    if attribute == cf.PRESENCE:
                        crops[(samples, oid)] = (truth, other)

                with engine.own_scene("separation_pooling") as scene:
                    _, built = build_scene(spec, cfg.family, scene, 2)
                    measured, _, _ = _measured(spec, cfg.family, engine.render_instance_ids(scene, built))
                    counterfactuals.measure(spec, cfg.family, scene, built, measured, keep=keep)
                    disc = counterfactuals.blur_diameter_px(spec, spec.objects[0])
            for oid in sorted({k[1] for k in crops}):
                reference = cf.ranked(cf.pixel_differences(*crops[(64, oid)]))
                smoothed = {str(k): cf.ranked(cf.pixel_differences(*crops[(4, oid)], max(cf.SMOOTH_PX, disc / k)))
                            for k in POOLINGS}
                plain = cf.ranked(cf.pixel_differences(*crops[(4, oid)]))
                rows.append({"pair": pair, "blur": blur, "disc_px": round(disc, 1), "piece": oid,
                             "reference_64": reference, "plain_4": plain, "pooled_4": smoothed})
                print(json.dumps(rows[-1]), flush=True)
    return rows


def sheet(out: Path, rows: list[dict], path: Path) -> None:
    face = font(12)[0]
    w, h = 2 * (CROP[2] - CROP[0]), 2 * (CROP[3] - CROP[1])
    columns = len(BLURS)
    lines = 3
    cell = (w + 4, h + 15 * lines + 4)
    board = Image.new("RGB", (cell[0] * columns, cell[1] * (len(rows) // columns)), "white")
    draw = ImageDraw.Draw(board)
    for k, r in enumerate(rows):
        x, y = (k % columns) * cell[0], (k // columns) * cell[1]
        board.paste(Image.open(out / r["image"]).crop(CROP).resize((w, h), Image.NEAREST), (x, y))
        verdict = "two" if r["told_apart"] else "ONE blob"
        draw.text((x + 2, y + h + 1), f"{r['pair']}, {r['layout']}", fill="black", font=face)
        draw.text((x + 2, y + h + 16), f"{r['blur']}: merge {r['merge_ratio']:.2f}: {verdict}",
                  fill="black" if r["told_apart"] else (200, 0, 0), font=face)
        shown = " / ".join(f"{d:g}" + ("" if cf.visible(d) else " (not seen)") for d in r["presence"])
        draw.text((x + 2, y + h + 31), f"presence {shown}", fill="black", font=face)
    board.quantize(96).save(path, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "output" / "bench_separation"))
    parser.add_argument("--sheet", default=str(ROOT / "docs" / "separation_grid.png"))
    parser.add_argument("--reuse", action="store_true", help="redraw the sheet from separation.json")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    record = out / "separation.json"
    if args.reuse:  # the verdicts at today's MAX_MERGE
        found = json.loads(record.read_text())
        found["grid"] = [{**r, "told_apart": cf.told_apart(r["merge_ratio"])} for r in found["grid"]]
    else:
        found = {"grid": measure(out), "pooling": pooling(out)}
    errors = {k: round(sum(abs(r["pooled_4"][str(k)] - r["reference_64"]) for r in found["pooling"])
                       / len(found["pooling"]), 2) for k in POOLINGS}
    errors["plain"] = round(sum(abs(r["plain_4"] - r["reference_64"]) for r in found["pooling"])
                            / len(found["pooling"]), 2)
    found["pooling_mean_error"] = errors
    record.write_text(json.dumps(found, indent=1))
    print(json.dumps(errors))
    sheet(out, found["grid"], Path(args.sheet))


if __name__ == "__main__":
    main()
