"""`byo merge` and shards: shards are disjoint and complete, and merge into the single run's
dataset; missing images, images held twice and directories of another config are refused."""

from __future__ import annotations

import pytest
from conftest import FARM_IMAGES as N_IMAGES
from conftest import FARM_NAME as NAME
from conftest import assert_same_dataset, farm_config, status_of, write_config

from byo.cli import main

pytestmark = pytest.mark.render


def test_shards_are_disjoint_complete_and_merge_to_the_single_run(farm_config_path, farm_reference, tmp_path, capsys):
    shards = [tmp_path / f"shard{i}" for i in range(4)]
    for i, out in enumerate(shards):
        assert main(["render", str(farm_config_path), "-o", str(out), "--shard", f"{i}/4", "--in-process"]) == 0
    held = [sorted(p.stem for p in (out / "legends").glob("[!.]*.json")) for out in shards]
    assert sorted(sum(held, [])) == [f"{NAME}_{i:06d}" for i in range(N_IMAGES)]  # disjoint, complete
    assert status_of(shards[1])["planned"] == N_IMAGES // 4 and status_of(shards[1])["shard"] == "1/4"
    merged = tmp_path / "merged"
    assert main(["merge", *map(str, shards), "-o", str(merged)]) == 0
    assert_same_dataset(farm_reference, merged)  # legends, metadata.jsonl, clevr_scenes.json, contact sheet
    assert status_of(merged)["done"] == N_IMAGES

    capsys.readouterr()
    assert main(["merge", *map(str, shards[:3]), "-o", str(tmp_path / "m1")]) == 2
    missing = ", ".join(f"{NAME}_{i:06d}" for i in range(3, N_IMAGES, 4))  # shard 3/4's images
    assert f"{N_IMAGES // 4} missing images (of {N_IMAGES} planned): {missing}" in capsys.readouterr().err
    assert main(["merge", *map(str, shards), str(shards[2]), "-o", str(tmp_path / "m2")]) == 2
    assert f"{N_IMAGES // 4} images in more than one directory" in capsys.readouterr().err
    other = write_config(tmp_path, farm_config(samples=8), "other.yaml")
    assert main(["render", str(other), "-o", str(tmp_path / "other"), "--shard", "3/4", "--in-process"]) == 0
    assert main(["merge", *map(str, shards[:3]), str(tmp_path / "other"), "-o", str(tmp_path / "m3")]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "rendered from a different config" in err and "scene.render.samples: 4 vs 8" in err
    assert not any((tmp_path / m).exists() for m in ("m1", "m2", "m3"))
