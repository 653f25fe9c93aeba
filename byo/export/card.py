"""The dataset card of an `hf` export: README.md with the Hub's YAML header (configs, splits,
features, license, task categories), generated from the dataset's config and questions, with
the table of levels and a grid of thumbnails."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import yaml
from PIL import Image, ImageDraw, ImageFont

from byo import __version__
from byo.export.source import LABEL_COLUMNS, Source

DEFAULT_LICENSE = "cc-by-4.0"
THUMBNAILS = "thumbnails.png"
COLUMNS = {
    "id": "question id: `<image>/<key>/<preprompt>/<instruction>`",
    "image": "the rendered image (PNG bytes)",
    "image_id": "the image's name; every question of one image shares it",
    "family": "scene family",
    "task": "task group of the question key",
    "key": "question key (what the question asks)",
    "preprompt": "preprompt variant",
    "instruction": "instruction form: direct question, declarative lead or fill-in-the-blank",
    "prompt": "the full text to send with the image",
    "answer": "the true answer as text (a letter for multiple choice; JSON for lists and cells)",
    "answer_json": "the true answer as JSON, exactly as in questions.jsonl",
    "answer_type": "how `byo score` parses an answer to this question",
    "choices": "multiple-choice options, in letter order (null otherwise)",
    "levels": "the image's level of every variable under test",
    "params": "question parameters drawn from the legend (JSON)",
}


def yaml_feature(name: str, feature) -> dict:
    """One feature in the form of the card's `dataset_info.features`."""
    if isinstance(feature, list):
        inner = feature[0]
        if inner.get("_type") == "Value":
            return {"name": name, "list": inner["dtype"]}
        return {"name": name, "list": {k: v for k, v in yaml_feature(name, inner).items() if k != "name"}}
    kind = feature.get("_type")
    if kind is None:
        return {"name": name, "struct": [yaml_feature(k, f) for k, f in feature.items()]}
    if kind == "Image":
        return {"name": name, "dtype": "image"}
    if kind == "ClassLabel":
        return {"name": name, "dtype": {"class_label": {"names": {str(i): n for i, n in enumerate(feature["names"])}}}}
    return {"name": name, "dtype": feature["dtype"]}


def size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")):
        if n < limit:
            return label
    return "n>10M"


def header(source: Source, feats: dict, shards: list[Path], license: str | None) -> dict:
    family = source.questions[0].family
    return {
        "license": license or DEFAULT_LICENSE,
        "task_categories": ["visual-question-answering"],
        "language": ["en"],
        "pretty_name": source.name,
        "size_categories": [size_category(len(source.questions))],
        "tags": ["synthetic", "byo-render", family],
        "configs": [{"config_name": "default", "data_files": [{"split": source.split,
                                                               "path": f"data/{source.split}-*"}]}],
        "dataset_info": {
            "features": [yaml_feature(k, f) for k, f in feats.items()],
            "splits": [{"name": source.split, "num_examples": len(source.questions)}],
            "download_size": sum(p.stat().st_size for p in shards),
        },
    }


def _values(v) -> str:
    return ", ".join(str(x) for x in v)


def variation(spec: dict) -> str:
    kind = spec.get("type", "")
    if "levels" in spec:
        return f"{kind}: {_values(spec['levels'])}"
    if "choices" in spec:
        return f"{kind}: {_values(spec['choices'])}"
    if "value" in spec:
        return f"{kind}: {spec['value']}"
    bounds = [f"{k} {spec[k]}" for k in ("min", "max", "step") if spec.get(k) is not None]
    return f"{kind}: {', '.join(bounds)}"


def levels_table(source: Source) -> list[str]:
    images: dict[str, Counter] = {}
    questions: dict[str, Counter] = {}
    seen_images = set()
    for q in source.questions:
        first = q.image not in seen_images
        seen_images.add(q.image)
        for var, v in q.levels.items():
            label = json.dumps(v) if not isinstance(v, str) else v
            questions.setdefault(var, Counter())[label] += 1
            if first:
                images.setdefault(var, Counter())[label] += 1
    declared = source.variables()
    lines = ["| variable | variation | level | images | questions |", "|---|---|---|---:|---:|"]
    for var in dict.fromkeys([*declared, *questions]):
        how = variation(declared[var]) if var in declared else ""
        counts = questions.get(var, Counter())
        if len(counts) > 12:  # values drawn from a range: too many to list
            numbers = [float(x) for x in counts if _is_number(x)]
            span = f"{min(numbers):g} to {max(numbers):g}" if numbers else f"{len(counts)} values"
            lines.append(f"| `{var}` | {how} | {span} ({len(counts)} values) | {len(seen_images)} | "
                         f"{sum(counts.values())} |")
            continue
        for level, n in counts.items():
            lines.append(f"| `{var}` | {how} | {level} | {images[var][level]} | {n} |")
            how = ""
    return lines if len(lines) > 2 else ["No variable varies in this dataset."]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def thumbnail_grid(source: Source, path: Path, *, limit: int = 16, width: int = 192) -> Path:
    """Up to `limit` images, spread over the dataset, each with its levels underneath."""
    images = source.images
    step = max(1, len(images) // limit)
    picks = images[::step][:limit]
    levels = {q.image: q.levels for q in source.questions}
    columns = min(4, len(picks))
    font = ImageFont.load_default(size=12)
    first = Image.open(source.root / picks[0])
    height = round(width * first.height / first.width)
    label_h = 16 * (1 + max(len(levels[p]) for p in picks)) + 4
    rows = math.ceil(len(picks) / columns)
    sheet = Image.new("RGB", (columns * (width + 8) + 8, rows * (height + label_h + 8) + 8), "white")
    draw = ImageDraw.Draw(sheet)
    for i, image in enumerate(picks):
        x, y = 8 + (i % columns) * (width + 8), 8 + (i // columns) * (height + label_h + 8)
        with Image.open(source.root / image) as im:
            sheet.paste(im.convert("RGB").resize((width, height), Image.Resampling.LANCZOS), (x, y))
        lines = [Path(image).stem] + [f"{k.split('.')[-1]}={v}" for k, v in levels[image].items()]
        for j, line in enumerate(lines):
            draw.text((x, y + height + 2 + 16 * j), line[:32], fill="black", font=font)
    sheet.save(path)
    return path


def body(source: Source, feats: dict) -> str:
    qs = source.questions
    family = qs[0].family
    info = (source.config or {}).get("dataset", {})
    keys = Counter(q.key for q in qs)
    first = {}
    for q in qs:
        first.setdefault(q.key, q)
    variants = Counter(f"{q.preprompt} / {q.instruction}" for q in qs)
    out = [
        f"# {source.name}",
        "",
        f"Synthetic `{family}` scenes rendered with Blender by BYO Render "
        f"(byo {__version__}), with questions whose answers come from each image's ground truth.",
        "",
        f"- images: {len(source.images)}; questions: {len(qs)} (one row per question variant), split `{source.split}`",
        f"- seed: {info.get('seed', 'unknown')}; every image renders again from the config and its index",
        "",
        f"![A sample of the images with their levels]({THUMBNAILS})",
        "",
        "## Variables and levels",
        "",
        *levels_table(source),
        "",
        "## Questions",
        "",
        "| key | task | answer type | questions | example |",
        "|---|---|---|---:|---|",
        *[f"| `{k}` | {first[k].task} | {first[k].answer_type} | {n} | {_cell(first[k].prompt)} |"
          for k, n in keys.items()],
        "",
        "Prompt variants (preprompt / instruction): " + ", ".join(f"{v} ({n})" for v, n in variants.items()) + ".",
        "",
        "## Columns",
        "",
        "| column | type | meaning |",
        "|---|---|---|",
        *[f"| `{c}` | {_type(f)} | {COLUMNS.get(c, '')} |" for c, f in feats.items()],
        "",
        f"Class-label columns ({', '.join(f'`{c}`' for c in LABEL_COLUMNS)}, and named levels) hold integers; "
        "`ds.features[column].int2str(i)` gives the name.",
        "",
        "## Use",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'ds = load_dataset("PATH_OR_REPO", split="{source.split}")',
        "```",
        "",
        "Score answers with byo's parser and metrics: `byo import-predictions FILE --format jsonl "
        "--dataset DATASET` with one `{\"id\": ..., \"response\": ...}` line per question, then "
        "`byo score DATASET/runs/NAME` and `byo report`.",
    ]
    if source.config_text:
        out += ["", "## Config", "", "```yaml", source.config_text.rstrip(), "```"]
    return "\n".join(out) + "\n"


def _type(feature) -> str:
    if isinstance(feature, list):
        return f"list of {_type(feature[0])}"
    kind = feature.get("_type")
    if kind is None:
        return "struct: " + ", ".join(f"{k} ({_type(f)})" for k, f in feature.items())
    if kind == "ClassLabel":
        return f"class label ({len(feature['names'])})"
    return "image" if kind == "Image" else feature["dtype"]


def _cell(text: str, limit: int = 90) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def write_card(source: Source, out: Path, feats: dict, shards: list[Path], *,
               license: str | None = None) -> tuple[Path, Path]:
    thumbs = thumbnail_grid(source, out / THUMBNAILS)
    head = yaml.safe_dump(header(source, feats, shards, license), sort_keys=False, allow_unicode=True)
    path = out / "README.md"
    path.write_text(f"---\n{head}---\n\n{body(source, feats)}")
    return path, thumbs
