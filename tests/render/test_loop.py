"""The one render loop (byo/render/loop.py), without Blender: an executor that returns made-up
pixels shows each result written and logged as it comes, a failure recorded, the executor's
workers stopped however the loop ends, and a resume that renders only what is missing or damaged.
And it is the one loop: no other module of byo writes a rendered image."""

from __future__ import annotations

import re

import numpy as np
from conftest import ROOT, clevr_config

from byo.core.dataset import Layout
from byo.families import load_config
from byo.render import log as renderlog
from byo.render.loop import RenderLoop
from byo.render.messages import RenderResult
from byo.render.runner import sample_tasks
from byo.scene.plan import jobs


class MadeUp:
    """An executor whose images are flat grey, failing the tasks named in `fail`; it notes whether
    its workers were stopped (its generator closed)."""

    def __init__(self, fail: tuple[str, ...] = ()):
        self.fail, self.stopped, self.handed = fail, False, []

    def run(self, tasks):
        try:
            for task in tasks:
                self.handed.append(task.name)
                if task.name in self.fail:
                    yield task, None, "RuntimeError: made to fail"
                    continue
                image = np.full((48, 64, 3), 128, np.uint8)
                legend = {"name": task.name, "image": f"images/{task.name}.png", "mask": f"masks/{task.name}.png",
                          "width": 64, "height": 48, "family": "clevr", "dataset": "loop", "split": "train",
                          "index": task.job.index, "seed": task.job.seed, "levels": task.job.levels, "setup": {},
                          "objects": []}
                yield task, RenderResult(task.name, image, np.zeros((48, 64), np.uint8), legend, task.name, 1, 0.5,
                                         10.0, "here:1", phases={"render": 0.4}), None
        finally:
            self.stopped = True


def tasks(n: int = 3):
    cfg = load_config(clevr_config("loop", n_images=n, content={"mode": "random", "count": 2}))
    return sample_tasks(cfg, jobs(cfg), "<config>")


def test_each_result_is_written_and_logged_as_it_comes_and_a_failure_recorded(tmp_path):
    layout = Layout(tmp_path / "ds")
    layout.make_dirs()
    todo = tasks()
    executor = MadeUp(fail=(todo[1].name,))
    loop = RenderLoop(layout, executor)
    loop.start(planned=3)
    outcomes = []
    for outcome in loop.render(todo):
        # written before it is handed on: the legend, written last, is on disk
        assert layout.legend(outcome.task.name).is_file() == (outcome.result is not None)
        outcomes.append(outcome)
    loop.end()
    assert [o.error for o in outcomes] == [None, "RuntimeError: made to fail", None]
    assert layout.problems(todo[0].name) == [] and layout.problems(todo[2].name) == []
    events = renderlog.read(layout.root)
    assert [e["event"] for e in events] == ["start", "image", "image", "image", "end"]
    assert events[0]["executor"] == "MadeUp" and events[0]["planned"] == 3
    done = [e for e in events if e.get("status") == "done"]
    assert [e["name"] for e in done] == [todo[0].name, todo[2].name]
    assert all(set(e["phases"]) == {"render", "write"} and e["worker"] == "here:1" for e in done)
    assert events[2] | {"time": 0, "host": "", "pid": 0} == {
        "time": 0, "host": "", "pid": 0, "event": "image", "name": todo[1].name, "status": "failed",
        "error": "RuntimeError: made to fail"}
    assert events[-1] | {"time": 0, "host": "", "pid": 0} == {"time": 0, "host": "", "pid": 0, "event": "end",
                                                              "rendered": 2, "failed": 1}
    assert executor.stopped


def test_the_executor_stops_however_the_loop_ends(tmp_path):
    layout = Layout(tmp_path / "ds")
    layout.make_dirs()
    executor = MadeUp()
    first = RenderLoop(layout, executor).render_one(tasks()[0])
    assert first.result is not None and executor.stopped and executor.handed == [first.task.name]
    executor = MadeUp()
    outcomes = RenderLoop(layout, executor).render(tasks())
    next(outcomes)
    outcomes.close()  # the caller breaks off (a stop, an error of its own)
    assert executor.stopped and len(executor.handed) == 1


def test_a_resume_renders_only_what_is_missing_or_damaged(tmp_path):
    layout = Layout(tmp_path / "ds")
    layout.make_dirs()
    todo = tasks()
    loop = RenderLoop(layout, MadeUp())
    list(loop.render(todo[:2]))
    image = layout.root / "images" / f"{todo[0].name}.png"
    image.write_bytes(image.read_bytes()[:20])  # cut short by a crash
    left, repaired = loop.still_to_render(t.job for t in todo)
    assert [j.name for j in left] == [todo[0].name, todo[2].name]
    assert [name for name, _ in repaired] == [todo[0].name] and repaired[0][1]


def test_no_other_module_writes_a_rendered_image():
    writers = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "byo").rglob("*.py")
                     if re.search(r"^\s*(from byo\.render\.writer import|import byo\.render\.writer)", p.read_text(), re.M))
    assert writers == ["byo/render/loop.py"]
    for command in ("byo/diagnose/adapt.py", "byo/diagnose/explain.py"):  # they render through the loop
        assert "RenderLoop(" in (ROOT / command).read_text() and "executor.run(" not in (ROOT / command).read_text()
