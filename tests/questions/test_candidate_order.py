"""The truth's place among a ranking question's candidates, on a rendered dataset: Auto-Comp's
colour binding (its Swap and Confusion sets) rendered small, asked with `byo questions`, read back
from questions.jsonl. The place must vary and be uniform over the candidates (a ranker that
prefers earlier candidates then scores the chance)."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest
import yaml
from conftest import ROOT, write_config
from scipy.stats import chisquare

from byo.cli import main

pytestmark = pytest.mark.render

QUARTERS = 4  # a set of more candidates than this is tested over the quarters of its positions


def test_the_truths_place_over_a_rendered_datasets_candidates_is_uniform(tmp_path):
    data = yaml.safe_load((ROOT / "dataset_configs" / "autocomp" / "color.yaml").read_text())
    data["scene"]["resolution"] = [128, 96]
    data["scene"]["render"] = {"samples": 1, "denoise": "off", "counterfactual": {"enabled": False}}
    data["variables"]["content.concept"] = {"type": "varying_all_range", "min": 0, "max": 9}  # 40 images
    data.setdefault("questions", {})["unreadable"] = "flag"  # every question written, readable or not
    data["dataset"].pop("output_dir", None)
    out = tmp_path / "out"
    assert main(["render", str(write_config(tmp_path, data)), "-o", str(out), "--in-process"]) == 0
    assert main(["questions", str(out)]) == 0

    places: dict[tuple[str, int], list[int]] = defaultdict(list)
    for line in (out / "questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        if q.get("retrieval"):
            r = q["retrieval"]
            places[(q["key"], len(r["captions"]))].append(r["truth"])
    assert {key for key, _ in places} == {"autocomp_swap", "autocomp_confusion"}
    for (key, k), truth in places.items():
        assert len(truth) >= 10, (key, k, len(truth))
        assert len(set(truth)) > 1, f"{key} ({k} candidates): the truth is always at {truth[0]}"
        bins = k if k <= QUARTERS else QUARTERS
        observed = np.bincount([t * bins // k for t in truth], minlength=bins)
        expected = np.bincount([t * bins // k for t in range(k)], minlength=bins) * len(truth) / k
        assert chisquare(observed, expected).pvalue > 0.001, (key, k, observed.tolist())
