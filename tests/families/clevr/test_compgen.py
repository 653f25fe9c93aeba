"""Seed 004's splits on CLEVR-style scenes: no scene shared between splits, OOD answers on the
held-out objects, ZSL and GZSL label sets and their distractor tags."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
import yaml
from conftest import write_config
from golden_data import shrunk_threshold

from byo.cli import main
from byo.families import load_config
from byo.families.clevr.model import COLORS, SHAPES, object_label_split
from byo.scene.plan import jobs
from byo.scene.spec import sample_spec

ROOT = Path(__file__).resolve().parents[3]
COMPGEN = sorted((ROOT / "dataset_configs" / "compgen").glob("*.yaml"))


def scaled(config: Path, n_images: int, **scene) -> dict:
    data = yaml.safe_load(config.read_text())
    data["dataset"]["n_images"] = n_images
    data["scene"].update(scene)
    return data


def scene_of(spec) -> str:
    return json.dumps([[o.kind, o.attributes["color"], o.location] for o in spec.objects])


@pytest.mark.parametrize("config", COMPGEN, ids=lambda p: p.stem)
def test_no_two_splits_share_a_scene(tmp_path, config):
    cfg = load_config(write_config(tmp_path, scaled(config, 60)))
    by_split: dict[str, set] = {}
    seeds: dict[str, set] = {}
    for job in jobs(cfg):
        spec = sample_spec(cfg, job)
        assert spec.split == job.split == spec.content["split"]
        by_split.setdefault(job.split, set()).add(scene_of(spec))
        seeds.setdefault(job.split, set()).add(job.seed)
    assert set(by_split) == {"train", "id_val", "id_test", "ood_val", "ood_test"}
    for a, b in itertools.combinations(by_split, 2):
        assert not by_split[a] & by_split[b], f"{a} and {b} share a scene"
        assert not seeds[a] & seeds[b]


def test_a_split_renders_the_same_alone_or_with_the_others(tmp_path):
    """A split's images depend on the dataset seed and the split's name only."""
    both = load_config(write_config(tmp_path, scaled(COMPGEN[0], 60), "both.yaml"))
    data = scaled(COMPGEN[0], 60)
    data["dataset"]["splits"] = {"ood_test": 1100}
    data["dataset"]["n_images"] = sum(n for s, n in both.dataset.split_sizes() if s == "ood_test")
    alone = load_config(write_config(tmp_path, data, "alone.yaml"))
    first = [j.seed for j in jobs(both) if j.split == "ood_test"]
    assert first == [j.seed for j in jobs(alone)]


def test_split_sizes_follow_table_1_scaled_by_n_images(tmp_path):
    cfg = load_config(write_config(tmp_path, scaled(ROOT / "dataset_configs/compgen/two_object.yaml", 15460)))
    assert cfg.dataset.split_sizes() == [("train", 7440), ("id_val", 1860), ("id_test", 1860), ("ood_val", 600),
                                         ("ood_test", 3700)]
    assert len(jobs(cfg)) == 15460


def test_a_bad_split_key_is_a_config_error(tmp_path):
    data = scaled(COMPGEN[0], 10)
    data["dataset"]["split_key"] = "content.no_such_key"
    path = write_config(tmp_path, data)
    assert main(["plan", str(path)]) == 2


@pytest.fixture(scope="module")
def ood_two_object(tmp_path_factory) -> Path:
    """A tiny render of the two-object OOD test split, with its questions."""
    tmp = tmp_path_factory.mktemp("ood")
    config = ROOT / "dataset_configs/compgen/two_object.yaml"
    threshold = shrunk_threshold(yaml.safe_load(config.read_text()), [128, 128])  # its own, shrunk with the image
    data = scaled(config, 6, resolution=[128, 128],
                  render={"samples": 4, "denoise": "off", "min_visible_pixels": threshold})
    data["dataset"]["splits"] = {"ood_test": 1}
    path = write_config(tmp, data)
    out = tmp / "ds"
    assert main(["render", str(path), "-o", str(out), "--in-process"]) == 0
    assert main(["questions", str(out), "--preprompts", "neutral", "--instructions", "direct"]) == 0
    return out


def test_every_ood_test_answer_is_a_held_out_object(ood_two_object):
    rows = [json.loads(line) for line in (ood_two_object / "questions.jsonl").read_text().splitlines()]
    asked = [r for r in rows if r["key"] in ("label_choice", "label_zsl")]
    assert {r["key"] for r in asked} == {"label_choice", "label_zsl"}
    for r in asked:
        color, shape = r["choices"]["ABCDEFGHIJKLMNOPQRSTUVWXYZ".index(r["answer"])].split()
        assert object_label_split(SHAPES.index(shape), list(COLORS).index(color), len(COLORS)) == "ood_test"
        assert r["params"]["split"] == "ood_test"
        tags = dict(zip(r["retrieval"]["captions"], r["retrieval"]["tags"], strict=True))
        if r["key"] == "label_zsl":  # the distractors come from the same unseen split
            assert len(r["choices"]) == 3
            for c in r["choices"]:
                cc, cs = c.split()
                assert object_label_split(SHAPES.index(cs), list(COLORS).index(cc), len(COLORS)) == "ood_test"
        else:  # GZSL: the truth, two swaps (Table 5's colour and shape errors) and two others
            assert sorted(tags.values()) == ["other", "other", "swap:color", "swap:shape", "truth"]
    assert main(["audit", str(ood_two_object)]) == 0
    audit = json.loads((ood_two_object / "audit.json").read_text())
    assert audit["totals"]["wrong"] == 0 and audit["totals"]["ill_posed"] == 0 and audit["totals"]["ok"] > 0
