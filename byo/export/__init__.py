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
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from byo.core.errors import ConfigError
from byo.core.locks import entries, writer_lock


@dataclass(frozen=True)
class Format:
    """An export format: the function that writes it ("module:function", imported when used, as
    function(source, work_dir, final=OUT, **options)), and whether it reads the rendered images
    (then questions.jsonl is optional, and `library` ("module:function") checks its optional
    extra before anything is read) or the questions."""

    writer: str
    images: bool = False
    library: str | None = None


# One line per format; the writer's module holds the rest.
FORMATS: dict[str, Format] = {
    "hf": Format("byo.export.hf:export_hf"),
    "lmms-eval": Format("byo.export.lmms:export_lmms"),
    "inspect": Format("byo.export.inspect_task:export_inspect"),
    "vlmevalkit": Format("byo.export.vlmevalkit:export_vlmevalkit"),
    "coco": Format("byo.export.coco:export_coco", images=True, library="byo.export.coco:mask_api"),
    "webdataset": Format("byo.export.webdataset:export_webdataset", images=True,
                         library="byo.export.webdataset:shard_writer"),
}


def _named(path: str) -> Callable:
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)
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
    if FORMATS[fmt].images:
        if FORMATS[fmt].library:
            _named(FORMATS[fmt].library)()  # an optional extra: said before anything is read
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
            written = _named(FORMATS[fmt].writer)(source, work, final=out, **options)
            for entry in sorted(work.iterdir()):
                _move(entry, out / entry.name)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return {name: out / path.relative_to(work) for name, path in written.items()}


def _move(entry: Path, target: Path) -> None:
    """`entry` renamed to `target`, replacing what is there (with --force)."""
    if target.is_dir() and not target.is_symlink() and entry.is_dir():
        shutil.rmtree(target)
    os.replace(entry, target)
