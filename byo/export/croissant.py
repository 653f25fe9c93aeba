"""croissant.json of an `hf` export: Croissant 1.0 metadata (MLCommons; the format the NeurIPS
Datasets and Benchmarks track asks for), with its Responsible AI fields, written as plain
JSON-LD and read by the mlcroissant library.

It describes the Parquet files as one FileSet and the questions as the record set `questions`:
one record per row, with the image (the Parquet's embedded PNG bytes), the prompt, the answer
and the other columns. Class-label columns (family, task, key, preprompt, instruction,
answer_type) hold an index, as in the Parquet; each has a record set of its names
(`<column>_names`, index -> name) that the field references. The image's levels stay in the
Parquet (a struct whose fields differ from dataset to dataset) and in the card.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from byo import __version__
from byo.export.source import LABEL_COLUMNS, Source

CROISSANT = "croissant.json"
CONFORMS_TO = "http://mlcommons.org/croissant/1.0"
PARQUET_SET = "parquet-files"
RECORDS = "questions"

CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "prov": "http://www.w3.org/ns/prov#",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}

# Parquet columns of the `hf` export -> Croissant data type (class labels are their index).
TEXT_COLUMNS = ("id", "image_id", "prompt", "answer", "answer_json", "params")
LICENSES = {"cc-by-4.0": "https://creativecommons.org/licenses/by/4.0/",
            "cc0-1.0": "https://creativecommons.org/publicdomain/zero/1.0/",
            "mit": "https://opensource.org/license/mit"}


def _column_field(column: str, data_type: str, description: str, **extra) -> dict:
    return {"@type": "cr:Field", "@id": f"{RECORDS}/{column}", "name": column, "description": description,
            "dataType": data_type, "source": {"fileSet": {"@id": PARQUET_SET}, "extract": {"column": column}},
            **extra}


def _names_record_set(column: str, names: list[str]) -> dict:
    """The names of a class-label column, index -> name, inline."""
    rs = f"{column}_names"
    return {"@type": "cr:RecordSet", "@id": rs, "name": rs,
            "description": f"The names of the class labels of `{column}`: the Parquet stores the index.",
            "key": {"@id": f"{rs}/index"},
            "field": [{"@type": "cr:Field", "@id": f"{rs}/index", "name": "index", "dataType": "sc:Integer"},
                      {"@type": "cr:Field", "@id": f"{rs}/name", "name": "name", "dataType": "sc:Text"}],
            "data": [{f"{rs}/index": i, f"{rs}/name": n} for i, n in enumerate(names)]}


def responsible_ai(source: Source, family: str) -> dict:
    """The Croissant RAI fields: what the data is, how it was made, what it is for and not."""
    n_images = len(source.images)
    return {
        "rai:dataCollection": (
            f"Synthetic: every image was rendered by byo-render {__version__} with Blender (Cycles or "
            f"Workbench) from a dataset config (a {family} scene family, the variables under test and "
            "their levels, a seed). No image shows a real scene or a person; no data was collected from "
            "people or the web. Each image's ground truth (its legend) is the scene specification the "
            "renderer built plus what the render measured (instance masks, visible pixels, boxes); the "
            "questions and their answers were generated from the legends by templates."),
        "rai:dataCollectionType": ["Software Collection", "Experiments"],
        "rai:dataCollectionRawData": "The rendered images, instance masks and legends (byo render's output).",
        "rai:dataPreprocessingProtocol": (
            "None beyond rendering: images are the renderer's PNGs as written. A question the image cannot "
            "decide (an object below the visibility threshold, a label too small to read) is not asked; "
            "`byo audit` recomputes every answer from the masks and the camera."),
        "rai:dataAnnotationProtocol": (
            "No human annotation: labels are computed from the scene specification and the render "
            "(synthetic ground truth)."),
        "rai:dataUseCases": [
            f"Evaluating vision-language models on controlled {family} scenes: accuracy per question key "
            "and per level of each variable (where a model breaks as counts, sizes, blur or viewpoint change).",
            "Diagnosing perception failures with paired, controlled comparisons; not a measure of general "
            "visual ability."],
        "rai:dataLimitations": [
            f"Synthetic renders of one scene family ({family}), {n_images} images: results need not transfer "
            "to photographs, other domains or other renderers.",
            "Answers are exact for the rendered scene; borderline visibility is excluded by design, so the "
            "questions are easier to decide than in the wild.",
            "Question templates are English only."],
        "rai:dataBiases": [
            "The distribution of objects, colours, viewpoints and lighting is the one the config sets, "
            "not the world's; levels are balanced by design rather than sampled from nature."],
        "rai:personalSensitiveInformation": "None: the images are synthetic and show no people.",
        "rai:dataSocialImpact": (
            "Low: a diagnostic benchmark of synthetic scenes. Over-reading its scores as general visual "
            "competence is the main risk."),
        "rai:dataReleaseMaintenancePlan": "Regenerated deterministically from its config and seed with byo-render.",
        "prov:wasGeneratedBy": {"@type": "prov:Activity", "prov:label": f"byo render (byo-render {__version__})"},
    }


def croissant(source: Source, feats: dict, shards: list[Path], license: str | None) -> dict:
    family = source.questions[0].family
    license = license or "cc-by-4.0"
    fields = [_column_field("image", "sc:ImageObject", "The rendered image (PNG).",
                            **{"source": {"fileSet": {"@id": PARQUET_SET}, "extract": {"column": "image"},
                                          "transform": {"jsonPath": "bytes"}}})]
    names_sets = []
    for column in ("id", "image_id", *LABEL_COLUMNS, "prompt", "answer", "answer_json", "params"):
        if column in LABEL_COLUMNS:
            names_sets.append(_names_record_set(column, feats[column]["names"]))
            fields.append(_column_field(column, "sc:Integer", f"`{column}`, as the index of its name in "
                                        f"`{column}_names`.", references={"field": {"@id": f"{column}_names/index"}}))
        else:
            fields.append(_column_field(column, "sc:Text", f"`{column}`."))
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CONFORMS_TO,
        "name": source.name,
        "description": (f"Synthetic visual questions on rendered {family} scenes, made with byo-render: "
                        f"{len(source.questions)} questions on {len(source.images)} images, each image's "
                        "ground truth exact and each question decidable from the image."),
        "license": LICENSES.get(license, license),
        "version": "1.0.0",
        # the day the questions were written: the same dataset gives the same file
        "datePublished": datetime.fromtimestamp(source.questions_path.stat().st_mtime, UTC).strftime("%Y-%m-%d"),
        "keywords": ["synthetic", "visual question answering", "vision-language models", "byo-render", family],
        "creator": {"@type": "sc:Organization", "name": "byo-render"},
        "citeAs": f"byo-render dataset {source.name} (synthetic, rendered with byo-render {__version__})",
        "isLiveDataset": False,
        **responsible_ai(source, family),
        "distribution": [{
            "@type": "cr:FileSet", "@id": PARQUET_SET, "name": PARQUET_SET,
            "description": "The Parquet shards of the questions, one row per question, the image embedded.",
            "encodingFormat": "application/x-parquet", "includes": f"data/{source.split}-*.parquet"}],
        "recordSet": [*names_sets, {
            "@type": "cr:RecordSet", "@id": RECORDS, "name": RECORDS,
            "description": "One record per question (prompt variant) of questions.jsonl, in its order.",
            "key": {"@id": f"{RECORDS}/id"}, "field": fields}],
    }


def write_croissant(source: Source, out: Path, feats: dict, shards: list[Path], license: str | None) -> Path:
    path = out / CROISSANT
    path.write_text(json.dumps(croissant(source, feats, shards, license), indent=1, ensure_ascii=False) + "\n")
    return path
