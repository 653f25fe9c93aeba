"""`byo export DATASET --format coco`: the images and COCO instance annotations, for detectors
and segmenters (pycocotools, Detectron2, MMDetection, torchvision's CocoDetection).

OUT/
  images/NAME.png            the renders, as they are
  annotations.json           COCO instances of every image (one file per split when the images
                             fall in several: annotations_train.json, annotations_val.json ...)
  README.md                  what the files hold and how to read them

One annotation per object with at least one pixel in the mask: `segmentation` is the object's
mask as COCO's compressed RLE (pycocotools), `area` its pixel count (a float, as COCO writes
it), `bbox` [x, y, width, height] of those pixels, `iscrowd` 0. A poker card's corner indices
carry mask ids of their own (the legend's `parts`); they are parts of the card, so their
pixels belong to the card's annotation. Fields beyond COCO's: `legend_id` and `legend_name`
(the object in the legend and the mask), `visible_pixels`, `visibility` (byo's band: visible,
ambiguous or hidden; the legend records no occlusion-free area, so there is no visible
fraction) and `attributes` (the legend's). Categories are the family's object kinds
(`Family.object_kinds`: chess piece types, CLEVR shapes, poker cards, chip piles and player
seats, crest containers and motifs), supercategory the family.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from byo import __version__
from byo.core.dataset import IMAGES
from byo.export.rendered import (
    Rendered,
    extra,
    instance_masks,
    json_bytes,
    read_pixels,
)

ANNOTATIONS = "annotations.json"


def mask_api():
    try:
        from pycocotools import mask
    except ModuleNotFoundError:
        raise extra("coco", "pycocotools") from None
    return mask


def categories(rendered: Rendered) -> list[dict]:
    """The family's declared object kinds, then any other kind its legends hold."""
    family = rendered.family
    kinds = list(dict.fromkeys([*family.object_kinds,
                                *(o["kind"] for i in rendered.images for o in i.legend["objects"])]))
    return [{"id": k + 1, "name": kind, "supercategory": family.name} for k, kind in enumerate(kinds)]


def annotation_file(split: str, splits: list[str]) -> str:
    return ANNOTATIONS if len(splits) == 1 else f"annotations_{split}.json"


def export_coco(rendered: Rendered, out: Path, *, license: str | None = None, **_) -> dict[str, Path]:
    masks_rle = mask_api()
    cats = categories(rendered)
    category_id = {c["name"]: c["id"] for c in cats}
    info = {"description": f"byo-render dataset {rendered.images[0].legend['dataset']} "
                           f"({rendered.family.name} scenes, synthetic)",
            "version": __version__, "contributor": "byo-render", "url": ""}  # no date: the same dataset
    # exports to the same bytes
    licenses = [{"id": 1, "name": license or "cc-by-4.0", "url": ""}]
    files: dict[str, dict] = {}
    (out / IMAGES).mkdir(parents=True, exist_ok=True)
    next_id = 1
    for image in rendered.images:
        legend = image.legend
        ids = read_pixels(image.mask, legend, "L")
        coco = files.setdefault(image.split, {"info": info, "licenses": licenses, "images": [],
                                              "annotations": [], "categories": cats})
        image_id = legend["index"] + 1
        coco["images"].append({"id": image_id, "file_name": f"{image.name}.png", "width": legend["width"],
                               "height": legend["height"], "license": 1, "split": image.split,
                               "legend": f"legends/{image.name}.json", "levels": legend["levels"]})
        masks = instance_masks(legend, ids)
        for obj in legend["objects"]:
            pixels = masks[obj["id"]]
            if not pixels.any():
                continue
            rle = masks_rle.encode(pixels.astype("uint8", order="F"))
            coco["annotations"].append({
                "id": next_id, "image_id": image_id, "category_id": category_id[obj["kind"]],
                "segmentation": {"size": [int(n) for n in rle["size"]], "counts": rle["counts"].decode("ascii")},
                "area": float(masks_rle.area(rle)), "bbox": [float(v) for v in masks_rle.toBbox(rle)], "iscrowd": 0,
                "legend_id": obj["id"], "legend_name": obj["name"], "visible_pixels": obj["visible_pixels"],
                "visibility": obj.get("visibility", "visible"), "attributes": obj["attributes"]})
            next_id += 1
        shutil.copyfile(image.image, out / IMAGES / f"{image.name}.png")
    written = {}
    for split, coco in files.items():
        path = out / annotation_file(split, rendered.splits)
        path.write_bytes(json_bytes(coco))
        written[f"annotations {split}"] = path
    (out / "README.md").write_text(readme(rendered, files))
    return written


def readme(rendered: Rendered, files: dict[str, dict]) -> str:
    rows = "\n".join(f"| `{annotation_file(s, rendered.splits)}` | {s} | {len(c['images'])} | {len(c['annotations'])} |"
                     for s, c in files.items())
    kinds = ", ".join(f"{c['id']} {c['name']}" for c in next(iter(files.values()))["categories"])
    return f"""# COCO instances of a byo-render dataset

Exported by `byo export --format coco` (byo-render {__version__}) from `{rendered.root}`:
{rendered.family.name} scenes, rendered, with exact instance masks.

| file | split | images | annotations |
|---|---|---|---|
{rows}

Categories: {kinds} (supercategory `{rendered.family.name}`).

```python
from pycocotools.coco import COCO
from pycocotools import mask
coco = COCO("{annotation_file(rendered.splits[0], rendered.splits)}")   # images are in images/
ann = coco.loadAnns(coco.getAnnIds())[0]
pixels = coco.annToMask(ann)   # the object's mask, exactly as the dataset's masks/ hold it
```

Each annotation also carries `legend_id` (the object's id in the legend and the mask),
`legend_name`, `visible_pixels`, `visibility` (visible, ambiguous or hidden, byo's band) and
`attributes`; each image its `split`, `levels` and the path of its legend in the dataset.
"""
