"""CLEVR's scenes file (`clevr_scenes.json`): the one contract with CLEVR's question engine."""

from __future__ import annotations

import json

from byo.dataset import atomic_write_text


def clevr_scene(legend: dict) -> dict:
    """One scene in CLEVR's JSON schema (3d_coords and depth in CLEVR units; rotation in real degrees)."""
    scale = legend["extras"]["scale"]
    objects = []
    for o in legend["objects"]:
        a = o["attributes"]
        px, py, depth = o["pixel_coords"]
        objects.append({
            "shape": a["shape"], "size": a["size"], "material": a["material"], "color": a["color"],
            "3d_coords": [round(v / scale, 4) for v in o["location"]], "rotation": o["rotation"],
            "pixel_coords": [int(round(px)), int(round(py)), round(depth / scale, 4)],
        })
    return {
        "split": legend["split"], "image_index": legend["index"],
        "image_filename": legend["image"].split("/")[-1], "objects": objects,
        "directions": legend["extras"]["directions"], "relationships": legend["extras"]["relationships"],
    }


def export_scenes(layout, legends: list[dict]) -> dict:
    """The combined scenes file that CLEVR's question engine reads."""
    split = legends[0]["split"] if legends else "test"
    data = {"info": {"date": "", "version": "1.0", "split": split, "license": "CC BY 4.0",
                     "generator": "byo-render"},
            "scenes": [clevr_scene(lg) for lg in legends]}
    path = layout.root / "clevr_scenes.json"
    atomic_write_text(path, json.dumps(data) + "\n")
    return {"clevr_scenes": path}

