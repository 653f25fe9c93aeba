"""`byo export --format webdataset`, read back by the webdataset library (every sample once,
across several shards) and by Hugging Face `datasets` (the folder's card types every sample);
the same dataset exports to the same bytes."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest
from conftest import clevr_config, write_config
from PIL import Image

from byo.cli import main

pytestmark = pytest.mark.render


@pytest.fixture(scope="module")
def wds():
    """webdataset, imported by the tests that use it (it imports torch: not at collection)."""
    return pytest.importorskip("webdataset")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("wds-data")
    config = clevr_config("wds", n_images=7, resolution=[32, 24], render={"samples": 1, "denoise": "off"})
    assert main(["render", str(write_config(tmp, config)), "-o", str(tmp / "data"), "--in-process"]) == 0
    assert main(["questions", str(tmp / "data")]) == 0
    return tmp / "data"


def questions_by_image(dataset: Path) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for line in (dataset / "questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        out.setdefault(Path(q["image"]).stem, []).append(q)
    return out


@pytest.fixture(scope="module")
def shards(dataset, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wds") / "out"
    # about two images per shard
    assert main(["export", str(dataset), "--format", "webdataset", "-o", str(out), "--shard-size", "6KB"]) == 0
    return out


def test_webdataset_yields_every_sample_once(dataset, shards, wds):
    files = sorted(shards.glob("test-*.tar"))
    assert len(files) >= 3 and files[0].name == "test-000000.tar"
    names = sorted(p.stem for p in (dataset / "legends").glob("*.json"))
    seen = []
    for sample in wds.WebDataset([str(f) for f in files], shardshuffle=False).decode("pil"):
        name = sample["__key__"]
        seen.append(name)
        assert sample["png"].tobytes() == Image.open(dataset / f"images/{name}.png").convert("RGB").tobytes()
        record = sample["json"]
        assert json.loads(record["legend"]) == json.loads((dataset / f"legends/{name}.json").read_text())
        expected = questions_by_image(dataset).get(name, [])  # an image may have none (nothing readable at 32x24)
        assert [q["id"] for q in record["questions"]] == [q["id"] for q in expected]
        assert [json.loads(q["answer_json"]) for q in record["questions"]] == [q["answer"] for q in expected]
    assert sorted(seen) == names and len(seen) == len(set(seen))
    raw = list(wds.WebDataset([str(f) for f in files], shardshuffle=False))  # undecoded: the files as they are
    for sample in raw:
        name = sample["__key__"]
        assert sample["png"] == (dataset / f"images/{name}.png").read_bytes()
        assert sample["mask.png"] == (dataset / f"masks/{name}.png").read_bytes()
    assert len(raw) == len(names)


def test_datasets_loads_the_folder_with_its_card(dataset, shards, monkeypatch, tmp_path):
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    # A cache of its own: `datasets` read HF_HOME when it was imported, and its default cache keys
    # on the folder's path, which pytest's numbered temporary folders repeat across sessions.
    ds = datasets.load_dataset(str(shards), split="test", cache_dir=str(tmp_path / "hf-cache"))
    assert isinstance(ds.features["png"], datasets.Image)
    assert sorted(ds["__key__"]) == sorted(p.stem for p in (dataset / "legends").glob("*.json"))
    by_image = questions_by_image(dataset)
    for row in ds:
        assert [q["prompt"] for q in row["json"]["questions"]] == [q["prompt"] for q in by_image.get(row["__key__"], [])]
        assert row["png"].size == (32, 24)


def test_shards_are_byte_identical_on_export_again(dataset, shards, tmp_path):
    again = tmp_path / "again"
    assert main(["export", str(dataset), "--format", "webdataset", "-o", str(again), "--shard-size", "6KB"]) == 0
    for f in sorted(shards.glob("*.tar")):
        assert (again / f.name).read_bytes() == f.read_bytes()
        with tarfile.open(f) as tar:
            assert {m.mtime for m in tar.getmembers()} == {0}


def test_bad_shard_size_exits_2(dataset, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["export", str(dataset), "--format", "webdataset", "-o", str(tmp_path / "x"), "--shard-size", "lots"])
    assert exit_.value.code == 2 and "expected a size such as 500MB" in capsys.readouterr().err
