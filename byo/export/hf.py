"""`byo export DATASET --format hf`: Parquet shards with the images embedded and typed features,
a dataset card and Croissant metadata (croissant.json), so that `datasets.load_dataset(OUT)`
works offline and mlcroissant reads the records.

The Parquet files are written with pyarrow. Their schema carries the Hugging Face `features`
(metadata key `huggingface`), so `datasets` reads the image column as images and the class
label columns as class labels. Rows follow questions.jsonl. Every question of an image carries
the image's bytes, and Parquet's dictionary encoding stores them once per row group: rows are
grouped by image in the question file, and a row group holds whole images.
"""

from __future__ import annotations

import json
from pathlib import Path

from byo.export.card import write_card
from byo.export.croissant import write_croissant
from byo.export.source import Question, Source, features, question_row

DATA = "data"
MAX_SHARD_BYTES = 500_000_000  # image bytes (distinct images) per Parquet file
MAX_GROUP_BYTES = 32_000_000  # image bytes (distinct images) per row group
DICTIONARY_PAGE_LIMIT = 256 * 1024 * 1024  # bytes; keeps the repeated images dictionary-encoded


def arrow_type(feature):
    """The Arrow type `datasets` uses for a feature in its JSON form."""
    import pyarrow as pa

    if isinstance(feature, list):
        return pa.list_(arrow_type(feature[0]))
    kind = feature.get("_type")
    if kind is None:  # a struct: field name -> feature
        return pa.struct([pa.field(k, arrow_type(f)) for k, f in feature.items()])
    if kind == "Image":
        return pa.struct([pa.field("bytes", pa.binary()), pa.field("path", pa.string())])
    if kind == "ClassLabel":
        return pa.int64()
    return {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_()}[feature["dtype"]]


def schema(feats: dict):
    import pyarrow as pa

    return pa.schema([pa.field(k, arrow_type(f)) for k, f in feats.items()],
                     metadata={"huggingface": json.dumps({"info": {"features": feats}})})


def _groups(root: Path, questions: list[Question], limit: int) -> list[list[int]]:
    """Consecutive question indices, cut between images once `limit` image bytes are reached."""
    groups: list[list[int]] = [[]]
    size, seen = 0, set()
    for i, q in enumerate(questions):
        if q.image not in seen:
            image_bytes = (root / q.image).stat().st_size
            if groups[-1] and size + image_bytes > limit:
                groups.append([])
                size, seen = 0, set()
            seen.add(q.image)
            size += image_bytes
        groups[-1].append(i)
    return groups


def write_parquet(source: Source, out: Path, *, max_shard_bytes: int = MAX_SHARD_BYTES,
                  max_group_bytes: int = MAX_GROUP_BYTES) -> list[Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    feats = features(source)
    sch = schema(feats)
    shards = _groups(source.root, source.questions, max_shard_bytes)
    (out / DATA).mkdir(parents=True, exist_ok=True)
    paths = []
    for n, shard in enumerate(shards):
        path = out / DATA / f"{source.split}-{n:05d}-of-{len(shards):05d}.parquet"
        questions = [source.questions[i] for i in shard]
        with pq.ParquetWriter(path, sch, compression="zstd",
                              dictionary_pagesize_limit=DICTIONARY_PAGE_LIMIT) as writer:
            for group in _groups(source.root, questions, max_group_bytes):
                images: dict[str, bytes] = {}
                rows = []
                for i in group:
                    q = questions[i]
                    if q.image not in images:
                        images[q.image] = (source.root / q.image).read_bytes()
                    row = question_row(q, feats)
                    row["image"] = {"bytes": images[q.image], "path": Path(q.image).name}
                    rows.append(row)
                writer.write_table(pa.Table.from_pylist(rows, schema=sch), row_group_size=len(rows))
        paths.append(path)
    return paths


def export_hf(source: Source, out: Path, **options) -> dict[str, Path]:
    shards = write_parquet(source, out)
    card, thumbs = write_card(source, out, features(source), shards, license=options.get("license"))
    meta = write_croissant(source, out, features(source), shards, options.get("license"))
    return {"card": card, "croissant": meta, "thumbnails": thumbs, **{f"shard {i}": p for i, p in enumerate(shards)}}
