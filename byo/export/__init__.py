"""`byo export DATASET --format FORMAT -o OUT`: a dataset in the layout another harness reads.

Formats: `hf` (Parquet with embedded images, a dataset card and Croissant metadata),
`lmms-eval` (a task folder), `inspect` (an Inspect task) and `vlmevalkit` (its TSV), which
export the questions; `coco` (instance annotations) and `webdataset` (tar shards of image,
mask, legend and questions), which export the images. The exporters write plain files and
import no harness; the exported lmms-eval and Inspect tasks import `byo.export.scoring`, so
answers are parsed and scored by byo's own parser and metrics.
"""

from __future__ import annotations

import keyword
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from byo.core.errors import ConfigError
from byo.core.locks import entries, writer_lock

FORMATS = ("hf", "lmms-eval", "inspect", "vlmevalkit", "coco", "webdataset")
IMAGE_FORMATS = ("coco", "webdataset")  # read the rendered images; questions.jsonl is optional
PARTIAL = ".byo-partial-"  # an export being written, inside the output directory
TASK = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")


def export(dataset: str | Path, fmt: str, out: str | Path, *, force: bool = False, wait: bool = False,
           on_wait: Callable[[str], None] | None = None, **options) -> dict[str, Path]:
    """Check everything, then write the export; returns the main files written. The files are
    written into a hidden directory inside `out` and moved into place once all are there: an
    export that fails (or is killed) leaves no part of itself. One process writes an output
    directory at a time (another one is refused, or waited for with `wait`)."""
    from byo.export.rendered import check_rendered, load_rendered
    from byo.export.source import check_images, load_source

    if fmt not in FORMATS:
        raise ConfigError("<command line>", [("--format", f"unknown format {fmt!r}; expected one of "
                                              + ", ".join(FORMATS))])
    task = options.get("task")
    if task is not None and (not TASK.fullmatch(task) or keyword.iskeyword(task)):
        raise ConfigError("<command line>", [("--task", f"{task[:60]!r} is not a task name: expected letters, "
                                              "digits and '_', not starting with a digit (it names files and a "
                                              "Python function)")])
    out = Path(out)
    if out.exists() and not out.is_dir() or (entries(out) and not force):
        raise ConfigError(str(out), [("-o", "exists and is not an empty directory; choose another "
                                      "output or pass --force to write into it")])
    if fmt in IMAGE_FORMATS:
        _library(fmt)  # an optional extra: said before anything is read
        source = load_rendered(dataset)
        check_rendered(source)
    else:
        source = load_source(dataset)
        check_images(source)
    with writer_lock(out, what="export", wait=wait, on_wait=on_wait):
        for stale in out.glob(PARTIAL + "*"):  # left by an export that was killed
            shutil.rmtree(stale, ignore_errors=True)
        if entries(out) and not force:
            raise ConfigError(str(out), [("-o", "exists and is not an empty directory; choose another "
                                          "output or pass --force to write into it")])
        work = Path(tempfile.mkdtemp(prefix=PARTIAL, dir=out))
        try:
            written = _write(fmt, source, work, out, **options)
            for entry in sorted(work.iterdir()):
                _move(entry, out / entry.name)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return {name: out / path.relative_to(work) for name, path in written.items()}


def _library(fmt: str) -> None:
    if fmt == "coco":
        from byo.export.coco import mask_api

        mask_api()
    else:
        from byo.export.webdataset import shard_writer

        shard_writer()


def _write(fmt: str, source, work: Path, out: Path, **options) -> dict[str, Path]:
    """The export in `work`; `out` is where it will be (for the paths an export records)."""
    if fmt == "hf":
        from byo.export.hf import export_hf

        return export_hf(source, work, **options)
    if fmt == "lmms-eval":
        from byo.export.lmms import export_lmms

        return export_lmms(source, work, final=out, **options)
    if fmt == "coco":
        from byo.export.coco import export_coco

        return export_coco(source, work, **options)
    if fmt == "webdataset":
        from byo.export.webdataset import export_webdataset

        return export_webdataset(source, work, **options)
    if fmt == "inspect":
        from byo.export.inspect_task import export_inspect

        return export_inspect(source, work, **options)
    from byo.export.vlmevalkit import export_vlmevalkit

    return export_vlmevalkit(source, work, **options)


def _move(entry: Path, target: Path) -> None:
    """`entry` renamed to `target`, replacing what is there (with --force)."""
    if target.is_dir() and not target.is_symlink() and entry.is_dir():
        shutil.rmtree(target)
    os.replace(entry, target)
