"""Every command that writes, against every way its writing can go wrong (docs/safety.md): a table
of (command, event) cases. The events:

- `kill`: SIGKILL in the middle of its writing (at the middle one of its durable-write steps,
  tests/support/faults.py), then the same command again: it completes (exit 0) and every file it left
  reads whole.
- `term`: SIGTERM at that moment: exit 143, one line saying so, no traceback; then the same
  command completes.
- `disk`: a full disk (RLIMIT_FSIZE at half the largest file the command writes, SIGXFSZ
  ignored: the write fails as on a full disk): exit 1 or 2, one line naming the file, no
  traceback; then the same command, with room again, completes.
- `user`: the output folder holds a user's file: never touched (an export, which fills its
  folder as a whole, refuses by name; the others write beside it).
- `collide`: a user's file where the command's output goes: refused by name (exit 2), untouched.
- `link`: a dangling symbolic link where an output goes: refused by name (exit 2), nothing
  created where it leads.

The world is a dataset of the chess goldens (no render), its questions, an oracle run, photos
with labels, copied for every case; `render` and `merge` rows render a tiny dataset."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import clevr_config, write_config
from faults import run_forked, run_process
from human_server import golden_dataset
from PIL import Image

from byo.cli import main

KEYS = ("count_pieces", "identify_color_one_piece")
OUTSIDE = "outside"  # where links lead; nothing may appear there


@dataclass(frozen=True)
class Command:
    name: str
    argv: list[str]
    folder: str  # the folder its outputs go to (relative to the world)
    output: str | None = None  # one output file a user's file or a link can stand in for
    whole_folder: bool = False  # fills its folder as a whole (export): a user's file there is refused
    needs_render: bool = False  # a render (run in a process of its own: bpy is not forked)
    rerun: tuple[str, ...] = ()  # what the same command adds to go on (render: --resume)


EXPORTS = ("hf", "lmms-eval", "inspect", "vlmevalkit", "coco", "webdataset")
COMMANDS = [
    Command("questions", ["questions", "ds", "--keys", ",".join(KEYS)], "ds", "ds/questions.jsonl"),
    Command("eval", ["eval", "ds", "--provider", "oracle", "--run", "fresh"], "ds/runs/fresh",
            "ds/runs/fresh/predictions.jsonl"),
    Command("score", ["score", "ds/runs/oracle", "--bootstrap", "0"], "ds/runs/oracle", "ds/runs/oracle/scores.json"),
    Command("report", ["report", "ds/runs/oracle", "-o", "pages/report.html", "--bootstrap", "0"], "pages",
            "pages/report.html"),
    Command("view", ["view", "ds/runs/oracle", "-o", "pages/v#1.html"], "pages", "pages/v#1.html"),
    Command("real-questions", ["real-questions", "photos", "--like", "ds"], "photos", "photos/questions.jsonl"),
    Command("import-predictions", ["import-predictions", "answers.jsonl", "--format", "jsonl", "--dataset", "ds",
                                   "--run", "imported"], "ds/runs/imported", "ds/runs/imported/predictions.jsonl"),
    *(Command(f"export {fmt}", ["export", "ds", "--format", fmt, "-o", "exported"], "exported",
              "exported/README.md", whole_folder=True) for fmt in EXPORTS),
    Command("render", ["render", "tiny.yaml", "-o", "rendered", "--in-process"], "rendered",
            "rendered/metadata.jsonl", whole_folder=True, needs_render=True, rerun=("--resume",)),
    Command("merge", ["merge", "shard0", "shard1", "-o", "merged"], "merged", "merged/metadata.jsonl",
            whole_folder=True, needs_render=True),
]
EVENTS = ("kill", "term", "disk", "user", "collide", "link")


# --- the world ----------------------------------------------------------------------------------
def photos(world: Path) -> None:
    """Two 'photos' (golden images as JPEG) and their labels, counted off their legends."""
    folder = world / "photos"
    (folder / "images").mkdir(parents=True)
    lines = ["images:"]
    for i, legend_path in enumerate(sorted((world / "ds" / "legends").glob("*.json"))):
        legend = json.loads(legend_path.read_text())
        Image.open(world / "ds" / legend["image"]).convert("RGB").save(folder / "images" / f"IMG_{i}.jpg")
        count = sum(1 for o in legend["objects"] if o.get("visible", True))
        lines.append(f"  - {{image: images/IMG_{i}.jpg, levels: {{content.count: {count}}}, "
                     f"answers: {{count_pieces: {count}}}}}")
    (folder / "labels.yaml").write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    world = tmp_path_factory.mktemp("world")
    golden_dataset(world, keys=KEYS).rename(world / "ds")
    assert main(["eval", str(world / "ds"), "--provider", "oracle", "--run", "oracle"]) == 0
    assert main(["score", str(world / "ds" / "runs" / "oracle"), "--bootstrap", "0"]) == 0
    first = json.loads((world / "ds" / "questions.jsonl").read_text().splitlines()[0])
    (world / "answers.jsonl").write_text(json.dumps({"id": first["id"], "response": "3"}) + "\n")
    photos(world)
    (world / OUTSIDE).mkdir()
    return world


@pytest.fixture(scope="module")
def rendered_template(template, tmp_path_factory) -> Path:
    """The world with a tiny config and its two shards rendered (for render and merge)."""
    world = tmp_path_factory.mktemp("rendered_world")
    shutil.copytree(template, world, dirs_exist_ok=True)
    config = write_config(world, clevr_config("tiny", seed=3, n_images=2, resolution=[64, 48]), "tiny.yaml")
    for i in range(2):
        assert main(["render", str(config), "-o", str(world / f"shard{i}"), "--shard", f"{i}/2", "--in-process"]) == 0
    return world


def snapshot(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(root.rglob("*")) if not p.is_symlink()}


def reads_whole(path: Path) -> None:
    """A file byo wrote reads as what its name says."""
    data = path.read_bytes()
    if path.suffix == ".json":
        json.loads(data)
    elif path.suffix == ".jsonl":
        [json.loads(line) for line in data.splitlines() if line.strip()]
    elif path.suffix in (".png", ".jpg"):
        with Image.open(io.BytesIO(data)) as im:
            im.load()
    elif path.suffix == ".tar":
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            for member in tar:
                tar.extractfile(member).read()
    elif path.suffix == ".parquet":
        import pyarrow.parquet as pq

        pq.read_table(path)
    elif path.suffix == ".html":
        assert data.rstrip().endswith(b"</html>"), path


def check_outputs(world: Path, command: Command) -> None:
    """Every visible file of the command's folder reads whole; nothing appeared outside."""
    for path in (world / command.folder).rglob("*"):
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(world).parts):
            reads_whole(path)
    assert not any((world / OUTSIDE).iterdir()), "written outside through a link"


def one_line(text: str) -> list[str]:
    """The lines of a message that are not progress output; there is no traceback."""
    assert "Traceback" not in text, text
    return [line for line in text.splitlines() if line.strip()]


def case_world(base: Path, tmp_path: Path) -> Path:
    world = tmp_path / "w"
    shutil.copytree(base, world, symlinks=True)
    return world



def run(command: Command, world: Path, *extra: str, **fault):
    """The command in a fork of this process, a render in a process of its own."""
    return (run_process if command.needs_render else run_forked)([*command.argv, *extra], world, **fault)


def rerun_completes(world: Path, command: Command) -> None:
    again = run(command, world, *command.rerun)
    assert again.code == 0, again.text
    one_line(again.text)
    check_outputs(world, command)


def stamps(root: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(root).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns) for p in root.rglob("*")
            if p.is_file() and not p.is_symlink()}


def largest_written(before: dict[str, tuple[int, int]], world: Path) -> int:
    """The size of the largest file a run wrote (new, or written again, since `before`)."""
    return max((world / name).stat().st_size for name, stamp in stamps(world).items() if before.get(name) != stamp)


EventCheck = Callable[[Path, Command], None]


def event_kill(world: Path, command: Command) -> None:
    clean_world = world.with_name("clean")
    shutil.copytree(world, clean_world, symlinks=True)
    steps = run(command, clean_world).steps  # how many durable-write steps a whole run takes
    assert steps >= 2, f"{command.name}: {steps} write steps"
    killed = run(command, world, kind="kill", at=steps // 2)
    assert killed.signal == 9, killed.text
    rerun_completes(world, command)


def event_term(world: Path, command: Command) -> None:
    clean_world = world.with_name("clean")
    shutil.copytree(world, clean_world, symlinks=True)
    steps = run(command, clean_world).steps
    stopped = run(command, world, kind="term", at=steps // 2)
    if stopped.code == 0:  # eval: every answer was in; the run finishes writing (docs/safety.md)
        assert command.name == "eval", stopped.text
        check_outputs(world, command)
    else:
        assert stopped.code == 143, stopped.text
        lines = one_line(stopped.err)
        assert "SIGTERM" in lines[-1], stopped.err
    rerun_completes(world, command)


def event_disk(world: Path, command: Command) -> None:
    clean_world = world.with_name("clean")
    shutil.copytree(world, clean_world, symlinks=True)
    before = stamps(clean_world)
    assert run(command, clean_world).code == 0
    limit = max(1, largest_written(before, clean_world) // 2)
    full = run(command, world, fsize=limit)
    assert full.code in (1, 2), full.text
    lines = one_line(full.err)
    if command.name == "render":  # each image fails on its own, recorded in the render log (byo status)
        assert full.code == 1 and any("failed" in line for line in lines), full.err
    else:
        assert "error:" in lines[-1] and "File too large" in lines[-1], full.err
        assert command.folder in lines[-1], "the message names none of the command's files: " + lines[-1]
    rerun_completes(world, command)


def event_user(world: Path, command: Command) -> None:
    inside = "images" if command.whole_folder and not command.needs_render else ""
    mine = world / command.folder / inside / "my_notes.txt"
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text("the user's own notes")
    result = run(command, world)
    assert mine.read_text() == "the user's own notes"
    if command.whole_folder:
        assert result.code == 2 and mine.relative_to(world / command.folder).as_posix() in result.err, result.text
        assert [p.name for p in (world / command.folder).rglob("*") if p.is_file()] == [mine.name]
        assert "Traceback" not in result.text
    else:
        assert result.code == 0, result.text
        check_outputs(world, command)


def event_collide(world: Path, command: Command) -> None:
    mine = world / command.output
    mine.parent.mkdir(parents=True, exist_ok=True)
    if mine.exists():
        mine.unlink()
    mine.write_text("the user's own file\n")
    before = snapshot(world)
    result = run(command, world)
    assert mine.read_text() == "the user's own file\n"
    assert result.code == 2, result.text
    assert mine.name in one_line(result.err)[-1], result.err
    assert snapshot(world) == before


def event_link(world: Path, command: Command) -> None:
    link = world / command.output
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.exists() or link.is_symlink():
        link.unlink()
    target = world / OUTSIDE / "target"
    link.symlink_to(target)
    result = run(command, world)
    assert not target.exists() and not any((world / OUTSIDE).iterdir()), "written through the link"
    assert link.is_symlink()
    assert result.code == 2, result.text
    assert link.name in one_line(result.err)[-1], result.err


CHECKS: dict[str, EventCheck] = {"kill": event_kill, "term": event_term, "disk": event_disk, "user": event_user,
                                 "collide": event_collide, "link": event_link}
# Commands whose output is byo's own file in byo's own folder: no user's file stands there to collide.
OWN_PLACE = {"questions", "eval", "score", "import-predictions", "render", "merge"}


def cases():
    for command in COMMANDS:
        for event in EVENTS:
            if event == "collide" and (command.name in OWN_PLACE or command.whole_folder):
                continue
            marks = [pytest.mark.render] if command.needs_render else []
            yield pytest.param(command, event, id=f"{command.name}-{event}", marks=marks)


@pytest.mark.parametrize(("command", "event"), list(cases()))
def test_command_survives(command: Command, event: str, request, tmp_path):
    if command.name == "export webdataset":
        import webdataset  # noqa: F401 (imported once here, not in each of the case's three forks: it loads torch)
    base = request.getfixturevalue("rendered_template" if command.needs_render else "template")
    world = case_world(base, tmp_path)
    CHECKS[event](world, command)
