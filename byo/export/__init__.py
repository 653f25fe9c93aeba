"""`byo export DATASET --format FORMAT -o OUT`: a dataset in the layout another harness reads.

Formats: `hf` (Parquet with embedded images, a dataset card and Croissant metadata),
`lmms-eval` (a task folder), `inspect` (an Inspect task) and `vlmevalkit` (its TSV), which
export the questions; `coco` (instance annotations) and `webdataset` (tar shards of image,
mask, legend and questions), which export the images. The exporters write plain files and
import no harness; the exported lmms-eval and Inspect tasks import `byo.export.scoring`, so
answers are parsed and scored by byo's own parser and metrics.
"""

from __future__ import annotations

from pathlib import Path

from byo.errors import ConfigError

FORMATS = ("hf", "lmms-eval", "inspect", "vlmevalkit", "coco", "webdataset")
IMAGE_FORMATS = ("coco", "webdataset")  # read the rendered images; questions.jsonl is optional


def export(dataset: str | Path, fmt: str, out: str | Path, *, force: bool = False, **options) -> dict[str, Path]:
    """Check everything, then write the export; returns the main files written."""
    from byo.export.source import load_source

    if fmt not in FORMATS:
        raise ConfigError("<command line>", [("--format", f"unknown format {fmt!r}; expected one of "
                                              + ", ".join(FORMATS))])
    out = Path(out)
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not force)):
        raise ConfigError(str(out), [("-o", "exists and is not an empty directory; choose another "
                                      "output or pass --force to write into it")])
    if fmt in IMAGE_FORMATS:
        out.mkdir(parents=True, exist_ok=True)
        return _write_images(fmt, dataset, out, **options)
    source = load_source(dataset)
    out.mkdir(parents=True, exist_ok=True)
    if fmt == "hf":
        from byo.export.hf import export_hf

        return export_hf(source, out, **options)
    if fmt == "lmms-eval":
        from byo.export.lmms import export_lmms

        return export_lmms(source, out, **options)
    if fmt == "inspect":
        from byo.export.inspect_task import export_inspect

        return export_inspect(source, out, **options)
    from byo.export.vlmevalkit import export_vlmevalkit

    return export_vlmevalkit(source, out, **options)


def _write_images(fmt: str, dataset: str | Path, out: Path, **options) -> dict[str, Path]:
    if fmt == "coco":
        from byo.export.coco import export_coco

        return export_coco(dataset, out, **options)
    from byo.export.webdataset import export_webdataset

    return export_webdataset(dataset, out, **options)
