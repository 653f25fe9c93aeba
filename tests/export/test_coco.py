"""`byo export --format coco`, read back with pycocotools: for every annotation of a tiny render
of each family, the decoded RLE is the object's mask pixel for pixel (a card's corner indices
belong to the card) and `area` is its pixel count; categories come from the family."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from golden_data import ROOT, render_tiny
from PIL import Image

from byo.cli import main
from byo.families import get_family

pytestmark = pytest.mark.render
coco_api = pytest.importorskip("pycocotools.coco")

# One shipped config per family, rendered tiny (crest flat is Workbench, poker at 128x96 so
# that card corners have pixels of their own).
FAMILY_CONFIGS = {
    "chess": ("chess/count.yaml", None),
    "clevr": ("clevr/count.yaml", None),
    "crest": ("crest/composite.yaml", None),
    "poker": ("poker/players.yaml", [128, 96]),
}


@pytest.fixture(scope="module")
def renders(tmp_path_factory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("coco-renders")
    return {family: render_tiny(ROOT / "dataset_configs" / config, work, resolution=size)
            for family, (config, size) in FAMILY_CONFIGS.items()}


def expected_mask(legend: dict, ids: np.ndarray, obj: dict) -> np.ndarray:
    values = {obj["id"]} | {p["id"] for p in legend.get("parts", []) if p["object"] == obj["id"]}
    return np.isin(ids, list(values))


@pytest.mark.parametrize("family", sorted(FAMILY_CONFIGS))
def test_rle_is_the_instance_mask_and_area_its_pixel_count(renders, family, tmp_path):
    dataset, out = renders[family], tmp_path / "coco"
    assert main(["export", str(dataset), "--format", "coco", "-o", str(out)]) == 0
    coco = coco_api.COCO(str(out / "annotations.json"))
    names = {c["id"]: c["name"] for c in coco.loadCats(coco.getCatIds())}
    declared = list(get_family(family).object_kinds)
    assert list(names.values())[: len(declared)] == declared
    assert {c["supercategory"] for c in coco.loadCats(coco.getCatIds())} == {family}
    checked, parts_checked = 0, 0
    for image in coco.loadImgs(coco.getImgIds()):
        legend = json.loads((dataset / image["legend"]).read_text())
        ids = np.asarray(Image.open(dataset / legend["mask"]))
        assert (out / "images" / image["file_name"]).read_bytes() == (dataset / legend["image"]).read_bytes()
        anns = {a["legend_id"]: a for a in coco.loadAnns(coco.getAnnIds(imgIds=image["id"]))}
        assert set(anns) <= {o["id"] for o in legend["objects"]}  # a part is no instance of its own
        for obj in legend["objects"]:
            pixels = expected_mask(legend, ids, obj)
            if not pixels.any():
                assert obj["id"] not in anns
                continue
            ann = anns[obj["id"]]
            decoded = coco.annToMask(ann).astype(bool)
            assert np.array_equal(decoded, pixels), (family, obj["name"])
            assert isinstance(ann["area"], float) and ann["area"] == pixels.sum() == obj["visible_pixels"]
            x0, y0, x1, y1 = obj["bbox"]
            assert ann["bbox"] == [x0, y0, x1 - x0, y1 - y0]
            assert ann["iscrowd"] == 0 and names[ann["category_id"]] == obj["kind"]
            assert ann["legend_name"] == obj["name"] and ann["visibility"] == obj["visibility"]
            checked += 1
            parts_checked += pixels.sum() > (ids == obj["id"]).sum()
    assert checked >= 2
    if family == "poker":
        assert parts_checked, "no card's corner index showed: the test would not see parts"


def test_splits_become_separate_files(tmp_path):
    """Crest images draw their own KamonBench split: one annotation file per split."""
    config = yaml.safe_load((ROOT / "dataset_configs/crest/composite.yaml").read_text())
    config["dataset"].update(n_images=8, seed=11)
    config["scene"]["resolution"] = [48, 48]
    config["scene"]["content"]["split"]["fractions"] = [0.4, 0.3, 0.3]
    path = tmp_path / "crest.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["render", str(path), "-o", str(tmp_path / "data"), "--in-process"]) == 0
    legends = [json.loads(p.read_text()) for p in sorted((tmp_path / "data/legends").glob("*.json"))]
    splits = {lg["name"]: lg["extras"]["split"] for lg in legends}
    assert len(set(splits.values())) >= 2
    assert main(["export", str(tmp_path / "data"), "--format", "coco", "-o", str(tmp_path / "coco")]) == 0
    assert not (tmp_path / "coco/annotations.json").exists()
    seen = {}
    for split in set(splits.values()):
        coco = coco_api.COCO(str(tmp_path / f"coco/annotations_{split}.json"))
        for image in coco.loadImgs(coco.getImgIds()):
            seen[image["file_name"].removesuffix(".png")] = split
    assert seen == splits


def test_missing_pycocotools_says_how_to_install(monkeypatch, tmp_path, capsys):
    import sys

    from score_fixtures import make_dataset

    make_dataset(tmp_path / "data")
    monkeypatch.setitem(sys.modules, "pycocotools", None)
    assert main(["export", str(tmp_path / "data"), "--format", "coco", "-o", str(tmp_path / "out")]) == 2
    assert "pip install 'byo-render[coco]'" in capsys.readouterr().err


def test_a_damaged_mask_is_named_and_nothing_is_written(renders, tmp_path, capsys):
    import shutil

    dataset = shutil.copytree(renders["clevr"], tmp_path / "data")
    mask = sorted((dataset / "masks").glob("*.png"))[0]
    mask.write_bytes(mask.read_bytes()[:20])  # cut short, as by a crash
    out = tmp_path / "coco"
    assert main(["export", str(dataset), "--format", "coco", "-o", str(out)]) == 2
    assert mask.name in capsys.readouterr().err
    assert not out.exists()  # refused before the output is made


def test_cocoeval_scores_the_ground_truth_as_perfect_detections(renders, tmp_path):
    """What a detector's evaluation does with the export: the annotations, given back as
    detections, score an AP of 1 for boxes and masks."""
    from pycocotools.cocoeval import COCOeval

    out = tmp_path / "coco"
    assert main(["export", str(renders["chess"]), "--format", "coco", "-o", str(out)]) == 0
    truth = coco_api.COCO(str(out / "annotations.json"))
    detections = truth.loadRes([{"image_id": a["image_id"], "category_id": a["category_id"], "bbox": a["bbox"],
                                 "segmentation": a["segmentation"], "score": 1.0}
                                for a in truth.loadAnns(truth.getAnnIds())])
    for kind in ("bbox", "segm"):
        evaluation = COCOeval(truth, detections, kind)
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
        assert evaluation.stats[0] == pytest.approx(1.0), kind  # AP at IoU 0.50:0.95
