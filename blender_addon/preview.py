"""Render preview in a background process, so the interface stays responsive: the design's
config is written to a temporary folder and rendered by `byo render --limit 1` (the first image
of the experiment), in Blender's own executable when the add-on runs in one (preview_job.py),
else with this Python (the bpy module). A timer watches the process; the image is then shown in
an image editor and its legend kept for Show legend."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import bpy
import yaml

IMAGE_NAME = "BYO preview"
POLL_SECONDS = 0.5
JOB_SCRIPT = Path(__file__).resolve().parent / "preview_job.py"


@dataclass
class PreviewJob:
    scene: str  # the scene whose design asked
    dataset: str  # the config's dataset name (the image's file name)
    folder: Path
    process: subprocess.Popen
    started: float = field(default_factory=time.monotonic)

    @property
    def output(self) -> Path:
        return self.folder / "out"

    @property
    def log(self) -> Path:
        return self.folder / "log.txt"

    def seconds(self) -> float:
        return time.monotonic() - self.started


JOBS: dict[str, PreviewJob] = {}  # scene name -> its running preview


def command(config: Path, output: Path, byo_folder: str) -> list[str]:
    render = ["render", str(config), "-o", str(output), "--limit", "1", "--in-process"]
    if bpy.app.binary_path:  # a Blender executable: a background Blender of the same build
        return [bpy.app.binary_path, "-b", "--factory-startup", "-noaudio", "-P", str(JOB_SCRIPT), "--",
                byo_folder, *render]
    return [sys.executable, "-m", "byo.cli", *render]  # the bpy module in this Python


def start(scene_name: str, config: dict, byo_folder: str) -> PreviewJob:
    """Start rendering the first image of `config`; the timer finishes the job."""
    cancel(scene_name)
    folder = Path(tempfile.mkdtemp(prefix="byo_preview_"))
    config_path = folder / "config.yaml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))
    with open(folder / "log.txt", "wb") as log:
        process = subprocess.Popen(command(config_path, folder / "out", byo_folder), stdout=log,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    job = PreviewJob(scene_name, config["dataset"]["name"], folder, process)
    JOBS[scene_name] = job
    if not bpy.app.timers.is_registered(poll):
        bpy.app.timers.register(poll, first_interval=POLL_SECONDS)
    return job


def cancel(scene_name: str) -> None:
    job = JOBS.pop(scene_name, None)
    if job is not None:
        if job.process.poll() is None:
            job.process.kill()
            job.process.wait()
        shutil.rmtree(job.folder, ignore_errors=True)


def poll() -> float | None:
    """The timer: finish the jobs that ended; run again while any is running."""
    for name, job in list(JOBS.items()):
        if job.process.poll() is not None:
            JOBS.pop(name)
            finish(job)
    _redraw_panels()
    return POLL_SECONDS if JOBS else None


def finish(job: PreviewJob) -> str | None:
    """Show a finished job's image and keep its legend; returns the error, if any."""
    scene = bpy.data.scenes.get(job.scene)
    design = scene.byo if scene is not None else None
    image_path = job.output / "images" / f"{job.dataset}_000000.png"
    legend_path = job.output / "legends" / f"{job.dataset}_000000.json"
    error = None
    if job.process.returncode != 0 or not image_path.is_file():
        tail = job.log.read_text(errors="replace").strip().splitlines()[-6:] if job.log.is_file() else []
        error = f"preview failed (exit {job.process.returncode}): " + " | ".join(tail)
    else:
        image = load_image(image_path)
        show_image(image)
        if design is not None:
            design.legend_json = json.dumps(json.loads(legend_path.read_text()))
    if design is not None:
        design.status = error or f"preview rendered in {job.seconds():.1f} s"
    shutil.rmtree(job.folder, ignore_errors=True)
    return error


def load_image(path: Path):
    """The preview image, packed into the file (its temporary folder goes away)."""
    image = bpy.data.images.get(IMAGE_NAME)
    if image is not None:
        bpy.data.images.remove(image)
    image = bpy.data.images.load(str(path), check_existing=False)
    image.name = IMAGE_NAME
    image.pack()
    return image


def _areas(kind: str):
    """The open editors of a kind (none without a user interface: background, the bpy module)."""
    wm = bpy.context.window_manager
    for window in wm.windows if wm and not bpy.app.background else []:
        for area in window.screen.areas:
            if area.type == kind:
                yield window, area


def show_image(image) -> None:
    """In an open image editor, else in Blender's render window (headless: nowhere)."""
    if bpy.app.background:
        return
    found = next(_areas("IMAGE_EDITOR"), None)
    if found is None:
        windows = bpy.context.window_manager.windows if bpy.context.window_manager else []
        if not windows:
            return
        with bpy.context.temp_override(window=windows[0]):
            bpy.ops.render.view_show("INVOKE_DEFAULT")
        found = next(_areas("IMAGE_EDITOR"), None)
    if found is not None:
        found[1].spaces.active.image = image
        found[1].tag_redraw()


def show_text(text) -> None:
    """In an open text editor, else in a new window turned into one (headless: nowhere)."""
    if bpy.app.background:
        return
    found = next(_areas("TEXT_EDITOR"), None)
    if found is None:
        view = next(_areas("VIEW_3D"), None)
        if view is None:
            return
        window, area = view
        with bpy.context.temp_override(window=window, area=area):
            bpy.ops.wm.window_new()
        window = bpy.context.window_manager.windows[-1]
        area = window.screen.areas[0]
        area.type = "TEXT_EDITOR"
        found = (window, area)
    found[1].spaces.active.text = text
    found[1].tag_redraw()


def _redraw_panels() -> None:
    for _, area in _areas("VIEW_3D"):
        area.tag_redraw()
