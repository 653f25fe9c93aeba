"""Component images paired with their composites (KamonBench's bundling), and open recall of
the motif over the whole inventory."""

from __future__ import annotations

import pytest
from conftest import ROOT

from byo.core.errors import ConfigError
from byo.families import load_config
from byo.families.base import Answer, Skip, ask
from byo.families.crest.motifs import library
from byo.scene.plan import jobs
from byo.scene.spec import sample_spec
from byo.score.parse.labels import matcher
from byo.score.vocab import domain_for

CONFIGS = ROOT / "dataset_configs" / "crest"


def extras(name: str, n: int = 80) -> list[dict]:
    cfg = load_config(CONFIGS / f"{name}.yaml")
    return [sample_spec(cfg, j).extras for j in list(jobs(cfg))[:n]]


def test_component_images_pair_with_their_composites():
    composites, motifs, containers = extras("composite"), extras("components_motif"), extras("components_container")
    empty = 0
    for c, m, k in zip(composites, motifs, containers, strict=True):
        factors = c["crest"]
        assert m["split"] == k["split"] == c["split"]
        assert m["crest"] == {"kind": "motif", "component": factors["motif"], "paired_with": c["program"]}
        assert m["program"] == f"M:{factors['motif']}"
        if factors["containers"]:
            assert k["crest"]["component"] == factors["containers"][0] and k["program"] == f"C:{factors['containers'][0]}"
        else:
            empty += 1
            assert k["crest"]["component"] is None and k["english"] == "no container"
    assert 0 < empty < len(composites)  # containerless composites have empty container images


def test_an_empty_container_image_has_no_parts_and_no_questions(tmp_path):
    cfg = load_config(CONFIGS / "components_container.yaml")
    for job in jobs(cfg):
        spec = sample_spec(cfg, job)
        if spec.extras["crest"]["component"] is None:
            break
    legend = spec.model_dump(mode="json")
    assert spec.objects == []
    for key, fn in cfg.family.answers.items():
        assert isinstance(ask(fn, legend, key), Skip), key


def test_paired_needs_a_component_mode(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("dataset: {name: x, family: crest}\nscene:\n  content: {paired: true}\n")
    with pytest.raises(ConfigError, match="paired"):
        load_config(path)


def test_motif_recall_over_the_whole_inventory():
    cfg = load_config(CONFIGS / "composite.yaml")
    answers = []
    for job in list(jobs(cfg))[:40]:
        legend = sample_spec(cfg, job).model_dump(mode="json")
        result = ask(cfg.family.answers["recall_motif"], legend, "recall_motif")
        assert isinstance(result, Answer)
        assert result.value == library.MOTIFS_BY_ID[legend["extras"]["crest"]["motif"]].en
        answers.append(result.value)
    vocabulary = domain_for(answers)
    assert vocabulary.name == "crest_motif" and len(vocabulary.terms) == len(library.MOTIFS)
    find = matcher(vocabulary).find
    assert [m.value for m in find("It is an outlined bellflower.")] == ["outlined bellflower"]
    assert {m.value for m in find("これは桔梗です (kikyō)")} == {"bellflower"}
    assert [m.value for m in find("three stacked left-turning trios of commas")] == ["left-turning trio of commas"]
