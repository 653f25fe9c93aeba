"""What a command may write, and replace, where. The rules (docs/safety.md):

- A command replaces a file only when it wrote it (it is recorded, with its SHA-256, in the
  manifest `.byo-outputs.json` of the file's directory, and has not changed since), or with
  `--force`. Anything else in the way is refused before any work, naming it. Files in byo's own
  places (a dataset's or a run's own file names) are byo's by their place.
- A directory a command fills as a whole (`byo export`, `byo merge`) records every file it wrote
  in that manifest. `--force` then replaces those files and nothing else: a file byo did not
  write (the user's) is never removed; a directory holding one is refused, naming it. Before it
  moves its files into place the command records them as pending, so that a killed export is
  cleaned up by the next one.
- No output is written over or through a symbolic link: a link where an output goes is refused,
  naming it and where it leads (see also byo.core.paths: nothing read or written outside a
  dataset through a link).
- An output path that is a directory (`-o somewhere/`) is refused before any work.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath

from byo.core.dataset import atomic_write_text
from byo.core.errors import InputError
from byo.core.locks import LOCK_FILE

MANIFEST = ".byo-outputs.json"
SHOWN = 5  # foreign files named in a refusal before "... and N more"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def listed(names: list[str]) -> str:
    more = f" ... and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return ", ".join(names[:SHOWN]) + more


def link_problem(path: Path) -> str | None:
    """What is wrong with writing at `path` because of a link, if anything."""
    if path.is_symlink():
        return (f"is a symbolic link (to {os.readlink(path)}); byo writes no output over or through a link: "
                "remove it or choose another path")
    for parent in path.parents:
        if parent.is_symlink() and not parent.exists():
            return f"{parent} is a symbolic link leading nowhere (to {os.readlink(parent)})"
    return None


def plain_relative(name: str) -> bool:
    """A path a manifest may record: relative, inside its folder, no '..' (a folder ends in '/')."""
    path = PurePosixPath(name.removesuffix("/"))
    return bool(name) and "\x00" not in name and not path.is_absolute() and ".." not in path.parts \
        and path.parts[:1] != (".",) and str(path) != "."


class Manifest:
    """The files byo wrote in a directory, by path relative to it: {path: sha256}, and those
    being moved into place (`pending`)."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.path = self.directory / MANIFEST
        self.files: dict[str, str] = {}
        self.pending: list[str] = []
        self.command = ""
        if self.path.is_symlink():
            raise InputError(self.path, link_problem(self.path) or "a symbolic link")
        if self.path.is_file():
            self._read()

    def _read(self) -> None:
        try:
            data = json.loads(self.path.read_bytes())
            files, pending = data["files"], data.get("pending", [])
            if not (isinstance(files, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
                    and isinstance(pending, list) and all(isinstance(p, str) for p in pending)
                    and all(plain_relative(p) for p in [*files, *pending])):
                raise TypeError
        except (ValueError, KeyError, TypeError, RecursionError):
            raise InputError(self.path, "expected byo's record of the files it wrote here ({\"files\": {PATH: "
                             "SHA256}, \"pending\": [PATH]}, each PATH inside this folder); remove it and every file "
                             "byo wrote here, or choose another output", key="files") from None
        self.files, self.pending = files, pending
        self.command = str(data.get("command", ""))

    def relative(self, path: Path) -> str:
        return Path(path).relative_to(self.directory).as_posix()

    def owns(self, path: Path) -> bool:
        """Whether byo wrote the file at `path` and it is unchanged since."""
        name = self.relative(path)
        if path.is_symlink() or not path.is_file():
            return False
        if any(name == p or p.endswith("/") and name.startswith(p) for p in self.pending):
            return True  # being written when byo was stopped
        digest = self.files.get(name)
        return digest is not None and sha256_of(path) == digest

    def save(self) -> None:
        if not self.files and not self.pending:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            return
        atomic_write_text(self.path, json.dumps({"command": self.command, "files": dict(sorted(self.files.items())),
                                                 "pending": sorted(set(self.pending))}, indent=1) + "\n")

    def record(self, paths: Iterable[Path], command: str) -> None:
        for path in paths:
            self.files[self.relative(path)] = sha256_of(path)
        self.command = command
        self.save()


@contextlib.contextmanager
def manifest_of(directory: Path) -> Iterator[Manifest]:
    """The directory's manifest, read and saved under a lock on the directory itself (short: one
    update), so that two commands writing files into one directory keep each other's records."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield Manifest(directory)
    finally:
        os.close(fd)


def own_entries(name: str) -> bool:
    """Files of byo's own bookkeeping in a directory: its manifest and the writer lock."""
    return name in (MANIFEST, LOCK_FILE)


def check_file_output(path: Path, *, force: bool, flag: str = "`output`", own_place: bool = False) -> None:
    """Refuse, before any work, an output file that cannot or must not be written: a directory, a
    link, a path under a file, or a file byo did not write (unless `force`). `own_place`: the
    path is byo's own in a dataset or run (`RUN/view.html`): an existing file there is byo's."""
    path = Path(path)
    problem = link_problem(path)
    if problem:
        raise InputError(path, problem, key=flag)
    if path.is_dir():
        raise InputError(path, "is a directory; expected the path of a file to write", key=flag)
    for parent in path.parents:
        if parent.exists() or parent.is_symlink():
            if not parent.is_dir():
                raise InputError(path, f"{parent} is not a directory", key=flag)
            break
    if force or own_place or not path.exists():
        return
    if not Manifest(path.parent).owns(path):
        raise InputError(path, "exists and byo did not write it (or it changed since byo did); pass `force` to "
                         "replace it, or choose another path", key=flag)


def check_folder_output(folder: Path, *, force: bool, flag: str = "`output`") -> None:
    """Refuse a folder of outputs (FILE_files/ beside a page) that holds a link or, unless
    `force`, files byo did not write."""
    folder = Path(folder)
    problem = link_problem(folder)
    if problem:
        raise InputError(folder, problem, key=flag)
    if folder.exists() and not folder.is_dir():
        raise InputError(folder, "is not a directory; byo keeps the page's files there", key=flag)
    foreign = foreign_files(folder, Manifest(folder.parent), prefix=folder.name + "/") if folder.is_dir() else []
    links = [f for f in foreign if (folder.parent / f).is_symlink()]
    if links:
        raise InputError(folder, f"holds symbolic links byo did not make: {listed(links)}", key=flag)
    if foreign and not force:
        raise InputError(folder, f"holds files byo did not write (or changed since): {listed(foreign)}; pass "
                         "`force` to replace them, or choose another path", key=flag)


@contextlib.contextmanager
def writing_outputs(paths: Iterable[Path], command: str, folders: Iterable[Path] = ()) -> Iterator[None]:
    """Around the writing of output files (and `folders` of them, such as a page's FILE_files/):
    they are recorded as being written first (a command killed meanwhile leaves files the next run
    knows as byo's), then as written, with their SHA-256, in their directories' manifests."""
    paths, folders = [Path(p) for p in paths], [Path(f) for f in folders]
    by_dir: dict[Path, list[str]] = {}
    for p in paths:
        by_dir.setdefault(p.parent, []).append(p.name)
    for f in folders:
        by_dir.setdefault(f.parent, []).append(f.name + "/")
    for directory, names in by_dir.items():
        with manifest_of(directory) as manifest:
            manifest.pending = sorted({*manifest.pending, *names})
            manifest.save()
    yield
    for directory, names in by_dir.items():
        with manifest_of(directory) as manifest:
            written = [directory / n for n in names if not n.endswith("/")]
            written += [p for n in names if n.endswith("/") for p in sorted((directory / n).rglob("*"))
                        if p.is_file() and not p.is_symlink()]
            manifest.pending = [p for p in manifest.pending if p not in names]
            manifest.record(written, command)


def foreign_files(root: Path, manifest: Manifest, prefix: str = "") -> list[str]:
    """Files (and links) under root/prefix that byo did not write, by path relative to root;
    byo's bookkeeping and hidden partial work (`.byo-partial-*`) left out."""
    base = root / prefix if prefix else root
    out = []
    for dirpath, dirnames, filenames in os.walk(base):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if not (here == root and d.startswith(".byo-partial-"))]
        for name in [*filenames, *(d for d in dirnames if (here / d).is_symlink())]:
            path = here / name
            if here == root and own_entries(name):
                continue
            if not manifest.owns(path):
                out.append(path.relative_to(root).as_posix())
    return sorted(out)
