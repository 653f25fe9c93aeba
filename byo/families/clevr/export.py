"""CLEVR's scenes file (`clevr_scenes.json`): the one contract with CLEVR's question engine."""

from __future__ import annotations

import json

from byo.families.api import atomic_write_text


def _object(o: dict, scale: float) -> dict:
    a = o["attributes"]
    px, py, depth = o["pixel_coords"]
    return {
        "shape": a["shape"], "size": a["size"], "material": a["material"], "color": a["color"],
        "3d_coords": [round(v / scale, 4) for v in o["location"]], "rotation": o["rotation"],
        "pixel_coords": [int(round(px)), int(round(py)), round(depth / scale, 4)],
    }


def clevr_scene(legend: dict) -> dict:
    """One scene in CLEVR's JSON schema (3d_coords and depth in CLEVR units; rotation in real degrees).

    `objects` and `relationships` hold the visible objects only, so that CLEVR's question engine
    never asks about what the image does not show. Objects below the visibility threshold
    (hidden or ambiguous) are kept apart in `objects_not_visible`, which the engine does not read.
    """
    scale = legend["extras"]["scale"]
    shown = [k for k, o in enumerate(legend["objects"]) if o.get("visible", True)]
    index = {k: n for n, k in enumerate(shown)}
    relationships = {name: [[index[j] for j in rel[k] if j in index] for k in shown]
                     for name, rel in legend["extras"]["relationships"].items()}
    return {
        "split": legend["split"], "image_index": legend["index"],
        "image_filename": legend["image"].split("/")[-1],
        "objects": [_object(legend["objects"][k], scale) for k in shown],
        "directions": legend["extras"]["directions"], "relationships": relationships,
        "objects_not_visible": [{**_object(o, scale), "visibility": o.get("visibility", "hidden"),
                                 "visible_pixels": o["visible_pixels"]}
                                for o in legend["objects"] if not o.get("visible", True)],
    }


def export_scenes(layout, legends: list[dict]) -> dict:
    """The combined scenes file that CLEVR's question engine reads."""
    split = ",".join(dict.fromkeys(lg["split"] for lg in legends)) or "test"  # each scene names its own
    data = {"info": {"date": "", "version": "1.0", "split": split, "license": "CC BY 4.0",
                     "generator": "byo-render"},
            "scenes": [clevr_scene(lg) for lg in legends]}
    path = layout.root / "clevr_scenes.json"
    atomic_write_text(path, json.dumps(data) + "\n")
    return {"clevr_scenes": path}

