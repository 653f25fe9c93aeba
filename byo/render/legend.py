"""Legends: the scene spec plus what the render measured; JSON and a human-readable text."""

from __future__ import annotations

import json
from typing import Any

from byo.scene.counterfactual import LEGEND_FIELD, Measured
from byo.scene.measure import VISIBLE, visibility
from byo.scene.spec import SceneSpec


def _pixel(p) -> list[float]:
    return [round(p[0], 2), round(p[1], 2), round(p[2], 4)]


def build_legend(spec: SceneSpec, *, image: str, mask: str, blender_version: str,
                 pixel_coords: list, measured: dict[int, dict], render_applied: dict,
                 landmarks: dict[str, list] | None = None, parts: dict[int, int] | None = None,
                 counterfactuals: dict[int, Measured] | None = None) -> dict[str, Any]:
    data = spec.model_dump(mode="json")
    objects = []
    band = spec.setup.min_visible_pixels, spec.setup.hidden_below_pixels
    for obj, px in zip(data.pop("objects"), pixel_coords, strict=True):
        m = measured[obj["id"]]
        seen = visibility(m["visible_pixels"], *band)
        objects.append({**obj, "pixel_coords": _pixel(px), "bbox": m["bbox"],
                        "visible_pixels": m["visible_pixels"], "visibility": seen, "visible": seen == VISIBLE})
        if counterfactuals and obj["id"] in counterfactuals:  # byo/scene/counterfactual.py
            objects[-1][LEGEND_FIELD] = counterfactuals[obj["id"]].to_json()
    w, h = spec.setup.resolution
    # Parts of objects with mask ids of their own (see Family.mask_parts), only when there are any.
    measured_parts = {"parts": [{"id": p, "object": owner, **measured[p]} for p, owner in parts.items()]} \
        if parts else {}
    return {
        "image": image, "mask": mask, "width": w, "height": h,
        "tool": {"name": "byo-render", "version": data.pop("tool_version")},
        "blender": {"version": blender_version, **render_applied},
        **data,
        "objects": objects,
        # Named 3D points of the family (e.g. board corners) as Blender projects them.
        "landmarks": {name: [_pixel(p) for p in points] for name, points in (landmarks or {}).items()},
        **measured_parts,
    }


def dumps(legend: dict) -> str:
    return json.dumps(legend, indent=1, sort_keys=False) + "\n"


def _table_surface(table: dict) -> str:
    image = table.get("image")
    if image:
        return f"image {image['texture']} of pack {image['pack']} ({image['size'][0]}x{image['size'][1]} m per copy)"
    return f"texture {table['texture']}, colour {table['color']}"


def _restart(legend: dict) -> str:
    r = legend.get("restart")
    return f" of the scene drawn again (restart {r['number']}, seed {r['seed']})" if r else ""


def legend_text(legend: dict, family) -> str:
    s = legend["setup"]
    cam, blur = s["camera"], s["blur"]
    lines = [
        f"{legend['name']}  ({legend['family']}, dataset {legend['dataset']}, split {legend['split']})",
        f"seed {legend['seed']}, attempt {legend['attempt']}{_restart(legend)}; byo-render {legend['tool']['version']}, "
        f"Blender {legend['blender']['version']}",
        "levels: " + (", ".join(f"{k}={v}" for k, v in legend["levels"].items()) or "-"),
        f"camera: distance {cam['distance']} m, elevation {cam['elevation']} deg, azimuth {cam['azimuth']} deg, "
        f"lens {cam['focal_length']} mm",
        f"lighting: x{s['lighting_multiplier']} (" + ", ".join(f"{li['name']} {li['power']} W" for li in s["lights"]) + ")",
        "blur: " + (f"f/{blur['fstop']} focused at {blur['focus_distance']} m" if blur["enabled"] else "none"),
        "table: " + (f"{s['table']['shape']} {s['table']['length']}x{s['table']['width']} m, "
                     + _table_surface(s["table"]) if s["table"]["enabled"] else "none"),
        f"resolution: {legend['width']}x{legend['height']}, engine {s['render']['engine']}",
        f"visibility: visible from {s['min_visible_pixels']} px, hidden below {s['hidden_below_pixels']} px, "
        "ambiguous in between",
        f"objects ({len(legend['objects'])}):",
    ]
    for o in legend["objects"]:
        attrs = ", ".join(f"{k} {v}" for k, v in o["attributes"].items() if k != "rgb")
        px = o["pixel_coords"]
        hidden = {"visible": "", "ambiguous": " (ambiguous: between the hidden and visible thresholds)",
                  "hidden": " (hidden: below the visibility band)"}[o["visibility"]]
        lines.append(f"  #{o['id']} {o['name']}: {attrs}; at pixel ({px[0]:.0f}, {px[1]:.0f}), "
                     f"{o['visible_pixels']} visible px{hidden}, box {o['bbox']}")
    lines += family.legend_lines(legend)
    return "\n".join(lines) + "\n"
