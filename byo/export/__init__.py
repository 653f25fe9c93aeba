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

from byo.core.errors import ARGUMENTS, ConfigError
from byo.core.locks import command_line, writer_lock
from byo.core.outputs import Manifest, foreign_files, link_problem, listed, sha256_of


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
           on_wait: Callable[[str], None] | None = None, say: Callable[[str], None] | None = None,
           **options) -> dict[str, Path]:
    """Check everything, then write the export; returns the main files written. The files are
    written into a hidden directory inside `out`, recorded as pending in OUT/.byo-outputs.json,
    moved into place, then recorded as written: an export that fails leaves no part of itself, and
    one that is killed is cleaned up by the next export into `out`. `force` replaces an earlier
    export's files (those the manifest records) and nothing else: a directory holding a file byo
    did not write is refused, naming it. One process writes an output directory at a time
    (another one is refused, or waited for with `wait`)."""
    from byo.export.rendered import check_rendered, load_rendered
    from byo.export.source import check_images, load_source

    if fmt not in FORMATS:
        raise ConfigError(ARGUMENTS, [("format", f"unknown format {fmt!r}; expected one of "
                                     + ", ".join(FORMATS))])
    task = options.get("task")
    if task is not None and (not TASK.fullmatch(task) or keyword.iskeyword(task)):
        raise ConfigError(ARGUMENTS, [("task", f"{task[:60]!r} is not a task name: expected letters, "
                                     "digits and '_', not starting with a digit (it names files and a "
                                     "Python function)")])
    out = Path(out)
    check_output(out, force)
    if FORMATS[fmt].images:
        if FORMATS[fmt].library:
            _named(FORMATS[fmt].library)()  # an optional extra: said before anything is read
        source = load_rendered(dataset)
        check_rendered(source)
    else:
        source = load_source(dataset)
        check_images(source)
    with writer_lock(out, what="export", wait=wait, on_wait=on_wait, wait_flag="`wait`"):
        for stale in out.glob(PARTIAL + "*"):  # left by an export that was killed
            shutil.rmtree(stale, ignore_errors=True)
        manifest = check_output(out, force)
        if manifest.pending:
            removed = _remove(out, [*manifest.files, *manifest.pending])
            manifest.files, manifest.pending = {}, []
            manifest.save()
            if say is not None:
                say(f"{out}: removed what an interrupted export had moved into place ({removed} files)")
        work = Path(tempfile.mkdtemp(prefix=PARTIAL, dir=out))
        try:
            try:
                written = _named(FORMATS[fmt].writer)(source, work, final=out, **options)
            except OSError as err:  # a full disk: named by the output, not the hidden folder it was written in
                raise OSError(err.errno, f"{err.strerror or err} while writing the {fmt} export; none of it is "
                                         "left", str(out)) from None
            _move_into_place(work, out, manifest)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return {name: out / path.relative_to(work) for name, path in written.items()}


def check_output(out: Path, force: bool) -> Manifest:
    """The output directory's manifest, when `out` may be written: new, empty, holding an export
    that was interrupted, or (with `force`) an earlier export. Else a ConfigError naming what is
    in the way: a file, a link, files byo did not write."""
    problem = link_problem(out)
    if problem:
        raise ConfigError(str(out), [("`out`", problem)])
    if out.exists() and not out.is_dir():
        raise ConfigError(str(out), [("`out`", "exists and is not a directory; expected a new or empty directory")])
    if not out.is_dir():
        return Manifest(out)
    manifest = Manifest(out)
    foreign = foreign_files(out, manifest)
    if foreign:
        raise ConfigError(str(out), [("`out`", f"holds files byo did not write (or changed since): {listed(foreign)}; "
                                      "an export replaces only its own files (`force` too): move them away or "
                                      "choose another output")])
    if manifest.files and not manifest.pending and not force:
        raise ConfigError(str(out), [("`out`", f"holds an earlier export ({len(manifest.files)} files, by "
                                      f"{manifest.command or 'byo export'}); pass `force` to replace it, or choose "
                                      "another output")])
    return manifest


def _remove(out: Path, names: list[str]) -> int:
    """Remove byo's files `names` under `out`, and the folders they leave empty."""
    removed = 0
    for name in sorted(set(names)):
        path = out / name
        if path.is_file() and not path.is_symlink():
            path.unlink()
            removed += 1
        for parent in path.parents:
            if parent == out or not parent.is_relative_to(out):
                break
            try:
                parent.rmdir()
            except OSError:
                break
    return removed


def _move_into_place(work: Path, out: Path, manifest: Manifest) -> None:
    """Record the new files as pending, remove the earlier export's, move the new ones in, then
    record them as written."""
    new = {p.relative_to(work).as_posix(): sha256_of(p) for p in sorted(work.rglob("*")) if p.is_file()}
    manifest.command = command_line()
    manifest.pending = list(new)
    manifest.save()
    _remove(out, [name for name in manifest.files if name not in new])
    for name in new:
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(work / name, target)
    manifest.files, manifest.pending = new, []
    manifest.save()
