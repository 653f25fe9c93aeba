"""`byo export DATASET --format webdataset`: tar shards for training at scale, written with the
webdataset library's ShardWriter and read by it (`webdataset.WebDataset`) or by Hugging Face
`datasets` (`load_dataset("webdataset", ...)`).

OUT/
  SPLIT-000000.tar, SPLIT-000001.tar ...   shards of about --shard-size bytes (a shard is closed
                                           once it holds that much), one series per split
  README.md                                what a sample holds and how to read the shards

A sample is one image, under the key of its name: `png` (the render), `mask.png` (the instance
ids) and `json`, a record of the same fields for every image (so that `datasets` can type it):
name, index, split, family, width, height, `levels` and `legend` (the whole legend) as JSON
text, and `questions`, the image's questions of questions.jsonl in file order (none when the
dataset has no questions), each with its answer as text (`answer`) and as JSON
(`answer_json`), as the `hf` export has them. Each entry's modification time is 0 and its
owner byo, so the same dataset exports to the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from byo import __version__
from byo.export.rendered import (
    Rendered,
    RenderedImage,
    extra,
    json_bytes,
)
from byo.providers.reference import answer_text

SHARD_BYTES = 256 * 2**20  # the default target size of a shard
PATTERN = "{split}-%06d.tar"


def shard_writer():
    try:
        from webdataset import ShardWriter
    except ModuleNotFoundError:
        raise extra("webdataset", "the webdataset library") from None
    return ShardWriter


def export_webdataset(rendered: Rendered, out: Path, *, shard_size: int | None = None, **_) -> dict[str, Path]:
    writer_class = shard_writer()
    shards: dict[str, list[str]] = {}
    for split in rendered.splits:
        written: list[str] = []
        with writer_class(str(out / PATTERN.format(split=split)), maxsize=shard_size or SHARD_BYTES,
                          verbose=0, post=lambda name, w=written: w.append(Path(name).name),
                          user="byo", group="byo", mtime=0.0) as writer:
            for image in rendered.images:
                if image.split != split:
                    continue
                writer.write({"__key__": image.name, "png": image.image.read_bytes(),
                              "mask.png": image.mask.read_bytes(), "json": json_bytes(record(image))})
        shards[split] = written
    (out / "README.md").write_text(readme(rendered, shards))
    return {f"{split} shards": out / PATTERN.format(split=split).replace("%06d", "*") for split in shards}


def question_record(q: dict) -> dict:
    return {"id": q["id"], "key": q["key"], "task": q["task"], "answer_type": q["answer_type"],
            "preprompt": q["preprompt"], "instruction": q["instruction"], "prompt": q["prompt"],
            "answer": answer_text(q["answer"]), "answer_json": json.dumps(q["answer"], ensure_ascii=False),
            "choices": json.dumps(q["choices"], ensure_ascii=False), "params": json.dumps(q["params"], ensure_ascii=False)}


def record(image: RenderedImage) -> dict:
    """The sample's `json`: the same fields for every image; what varies in shape is JSON text."""
    legend = image.legend
    return {"name": image.name, "index": legend["index"], "split": image.split, "family": legend["family"],
            "width": legend["width"], "height": legend["height"],
            "levels": json.dumps(legend["levels"], ensure_ascii=False),
            "legend": image.legend_path.read_text(),
            "questions": [question_record(q) for q in image.questions]}


QUESTION_FIELDS = ("id", "key", "task", "answer_type", "preprompt", "instruction", "prompt", "answer", "answer_json",
                   "choices", "params")


def card_header(shards: dict[str, list[str]]) -> str:
    """The dataset card's YAML: the splits' files and the features, so that `datasets` types every
    sample alike (it would otherwise guess from the first five)."""
    def strings(*names: str) -> list[dict]:
        return [{"name": n, "dtype": "string"} for n in names]

    record = [*strings("name"), {"name": "index", "dtype": "int64"}, *strings("split", "family"),
              {"name": "width", "dtype": "int64"}, {"name": "height", "dtype": "int64"}, *strings("levels", "legend"),
              {"name": "questions", "list": strings(*QUESTION_FIELDS)}]
    header = {"configs": [{"config_name": "default", "data_files": [{"split": s, "path": PATTERN.format(split=s)
                                                                      .replace("%06d", "*")} for s in shards]}],
              "dataset_info": {"features": [{"name": "png", "dtype": "image"}, {"name": "mask.png", "dtype": "image"},
                                            {"name": "json", "struct": record}, *strings("__key__", "__url__")]}}
    return "---\n" + yaml.safe_dump(header, sort_keys=False) + "---\n"


def readme(rendered: Rendered, shards: dict[str, list[str]]) -> str:
    counts = {s: sum(i.split == s for i in rendered.images) for s in shards}
    rows = "\n".join(f"| {s} | {len(files)} | {counts[s]} | `{files[0]}` ... `{files[-1]}` |"
                     for s, files in shards.items())
    split = next(iter(shards))
    return card_header(shards) + f"""
# WebDataset shards of a byo-render dataset

Exported by `byo export --format webdataset` (byo-render {__version__}) from `{rendered.root}`:
{rendered.family.name} scenes. One sample per image, keyed by its name: `png` (the render),
`mask.png` (each pixel's object id, 0 for none) and `json`: `name`, `index`, `split`, `family`,
`width`, `height`, `levels` and `legend` (JSON text: `json.loads(sample["json"]["legend"])`)
and `questions` (each with `prompt`, `answer`, `answer_json`, `answer_type`, `choices` ...).

| split | shards | images | files |
|---|---|---|---|
{rows}

```python
import webdataset as wds
ds = wds.WebDataset("{split}-{{000000..{len(shards[split]) - 1:06d}}}.tar", shardshuffle=False).decode("pil")
for sample in ds:
    image, mask, legend = sample["png"], sample["mask.png"], json.loads(sample["json"]["legend"])

from datasets import load_dataset
ds = load_dataset("OUT", split="{split}")   # this folder: the card above gives the splits and the features
```
"""

