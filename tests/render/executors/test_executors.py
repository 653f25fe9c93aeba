"""The executors (the render farm): killed workers and killed runs resume to the same dataset,
damaged files are rendered again, hung images time out, status reports it all, render.device
falls back, and a two-node Ray cluster renders the same dataset. Shards and byo merge:
tests/render/test_merge.py."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FARM_IMAGES as N_IMAGES
from conftest import FARM_NAME as NAME
from conftest import assert_same_dataset, farm_config, status_of, write_config
from hanging_render import environment as hanging

from byo.cli import main
from byo.core.errors import FatalRenderError
from byo.scene.plan import Shard, selected_jobs

pytestmark = pytest.mark.render

@pytest.fixture(scope="module")
def config(farm_config_path) -> Path:
    return farm_config_path


@pytest.fixture(scope="module")
def reference(farm_reference) -> Path:
    return farm_reference


def cli(*args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "byo.cli", *args], start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, **(env or {})})


def legends_in(out: Path) -> int:
    return len(list((out / "legends").glob("[!.]*.json")))


def wait_for(condition, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def render_workers(pid: int) -> list[int]:
    """The pool's worker processes of a `byo render` process."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    workers = []
    for child in children:
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                workers.append(int(child))
        except FileNotFoundError:
            pass
    return workers


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("after", [0, 2, 5])
def test_one_killed_worker_is_replaced_and_its_image_rendered_again(config, reference, tmp_path, after):
    """kill -9 of one render worker at a random moment after `after` images: the pool replaces it
    and retries the image; the run ends complete and equal to the uninterrupted one."""
    rng = random.Random(after)
    out = tmp_path / "out"
    proc = cli("render", str(config), "-o", str(out), "--workers", "2", "--retries", "2")
    wait_for(lambda: legends_in(out) >= after and len(render_workers(proc.pid)) == 2)
    time.sleep(rng.uniform(0.0, 0.4))
    os.kill(rng.choice(render_workers(proc.pid)), signal.SIGKILL)
    output, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, output
    assert legends_in(out) == N_IMAGES
    # Resume finds nothing to do, and the dataset is the uninterrupted run's.
    assert main(["render", str(config), "-o", str(out), "--resume", "--in-process"]) == 0
    assert_same_dataset(reference, out)


@pytest.mark.parametrize(("after", "whole"), [(0, True), (1, False), (3, True), (6, False)])
def test_killed_runs_resume_to_the_same_dataset_without_leftovers(config, reference, tmp_path, capsys, after,
                                                                 whole):
    """kill -9 at a random moment after `after` images, of the whole run (the command and its
    workers) or of the command alone (its workers must not outlive it), then --resume. What a
    power cut can add to that (a 0-byte image, a legend cut short) is rendered again too."""
    rng = random.Random(after)
    out = tmp_path / "out"
    proc = cli("render", str(config), "-o", str(out), "--workers", "2")
    wait_for(lambda: legends_in(out) >= after and render_workers(proc.pid))
    time.sleep(rng.uniform(0.0, 0.5))
    workers = render_workers(proc.pid)
    if whole:
        os.killpg(proc.pid, signal.SIGKILL)
    else:
        os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    wait_for(lambda: not any(alive(w) for w in workers), seconds=20)  # no orphaned workers
    assert legends_in(out) < N_IMAGES, "the kill came too late to test anything"
    assert status_of(out)["state"] == "interrupted"
    complete = sorted(p.stem for p in (out / "legends").glob("[!.]*.json"))
    damaged = {}  # image name -> the file cut short
    if complete:
        damaged[complete[0]] = out / "images" / f"{complete[0]}.png"
    if len(complete) > 1:
        damaged[complete[-1]] = out / "legends" / f"{complete[-1]}.json"
    for path in damaged.values():
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 3] if path.suffix == ".json" else b"")
    capsys.readouterr()
    assert main(["render", str(config), "-o", str(out), "--resume", "--in-process"]) == 0
    said = capsys.readouterr().err
    assert all(f"rendered again {name}" in said for name in damaged), said
    assert_same_dataset(reference, out)


def test_damaged_files_are_found_and_rendered_again_on_resume(config, reference, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["render", str(config), "-o", str(out), "--in-process"]) == 0
    damage = {
        f"{NAME}_000000": ("images", ".png", lambda b: b""),  # what a power cut can leave without fsync
        f"{NAME}_000002": ("images", ".png", lambda b: b[: len(b) // 2]),  # truncated
        f"{NAME}_000003": ("masks", ".png", lambda b: b""),
        f"{NAME}_000004": ("legends", ".json", lambda b: b[: len(b) // 2]),  # a legend cut short
        f"{NAME}_000005": ("legends", ".txt", lambda b: b.replace(b"seed", b"SEED")),  # same size, other bytes
    }
    for name, (folder, suffix, change) in damage.items():
        path = out / folder / f"{name}{suffix}"
        path.write_bytes(change(path.read_bytes()))
    quick = status_of(out)
    assert set(quick["damage"]) == set(damage) - {f"{NAME}_000005"}  # sizes only
    found = status_of(out, "--check")
    assert set(found["damage"]) == set(damage) and found["done"] == N_IMAGES - len(damage)
    assert found["damage"][f"{NAME}_000000"] == ["image: 0 bytes, the legend records " +
                                                 str(json.loads((reference / "legends" / f"{NAME}_000000.json")
                                                                .read_text())["files"]["image"]["bytes"])]
    assert found["damage"][f"{NAME}_000004"] == ["legend unreadable (truncated?)"]
    assert found["damage"][f"{NAME}_000005"] == ["legend_text: content differs from the legend's hash"]
    capsys.readouterr()
    assert main(["render", str(config), "-o", str(out), "--resume", "--in-process"]) == 0
    err = capsys.readouterr().err
    assert f"rendered 5, already complete {N_IMAGES - 5}" in err
    assert all(f"rendered again {name}" in err for name in damage)
    assert_same_dataset(reference, out)
    assert status_of(out, "--check")["done"] == N_IMAGES


def test_a_hung_image_times_out_is_retried_then_failed_while_the_rest_completes(config, reference, tmp_path):
    out = tmp_path / "out"
    hung = f"{NAME}_000003"
    started = time.monotonic()
    proc = cli("render", str(config), "-o", str(out), "--workers", "2", "--timeout", "8", "--retries", "1",
               env=hanging(hung))
    wait_for(lambda: legends_in(out) >= 2)
    running = status_of(out)  # status works while the render runs
    assert running["state"] == "running" and running["planned"] == N_IMAGES and running["done"] >= 2
    output, _ = proc.communicate(timeout=300)
    assert proc.returncode == 1, output  # some images failed
    assert time.monotonic() - started >= 16  # two attempts of 8 s
    assert f"failed {hung}: timed out after 8 s; worker killed (2 attempts)" in " ".join(output.split())
    status = status_of(out)
    assert status["state"] == "finished" and status["done"] == N_IMAGES - 1 and status["missing"] == 0
    assert status["failures"] == {hung: "timed out after 8 s; worker killed (2 attempts)"}
    assert status["seconds_per_image"]["median"] > 0
    assert not (out / "images" / f"{hung}.png").exists()
    # Without the hang, a resume renders the failed image and the dataset is complete.
    assert main(["render", str(config), "-o", str(out), "--resume", "--in-process"]) == 0
    assert_same_dataset(reference, out)


def test_an_image_does_not_depend_on_the_shard_count(config):
    from byo.families import load_config

    cfg = load_config(config)
    whole = list(selected_jobs(cfg))  # a lazy Plan: compared as the jobs it makes
    for count in (1, 3, 8):
        parts = [selected_jobs(cfg, shard=Shard(i, count)) for i in range(count)]
        assert sorted((j for part in parts for j in part), key=lambda j: j.index) == whole
    with pytest.raises(ValueError, match="0 <= I < N"):
        Shard.parse("4/4")
    with pytest.raises(SystemExit) as bad:
        main(["render", str(config), "--shard", "1of4"])
    assert bad.value.code == 2


def test_device_auto_falls_back_to_the_cpu_and_gpu_without_one_is_a_clear_error(tmp_path, capsys):
    from byo.blender.devices import gpu_backend

    if gpu_backend() is not None:
        pytest.skip("this machine has a GPU: the fallback cannot be seen here")
    cpu = tmp_path / "cpu"
    auto = tmp_path / "auto"
    assert main(["render", str(write_config(tmp_path, farm_config(), "cpu.yaml")), "-o", str(cpu),
                 "--limit", "2", "--in-process"]) == 0
    capsys.readouterr()
    assert main(["render", str(write_config(tmp_path, farm_config(device="auto"), "auto.yaml")), "-o", str(auto),
                 "--limit", "2", "--in-process"]) == 0
    said = capsys.readouterr()
    assert (said.out + said.err).count("render.device auto: no GPU that Cycles can use here, rendering on the CPU") == 1
    legend = json.loads((auto / "legends" / f"{NAME}_000000.json").read_text())
    assert legend["blender"]["device"] == "cpu" and legend["setup"]["render"]["device"] == "auto"
    for name in (f"{NAME}_000000.png", f"{NAME}_000001.png"):
        assert (auto / "images" / name).read_bytes() == (cpu / "images" / name).read_bytes()

    gpu = tmp_path / "gpu"
    for executor in (["--in-process"], ["--workers", "1"]):
        assert main(["render", str(write_config(tmp_path, farm_config(device="gpu"), "gpu.yaml")), "-o", str(gpu),
                     "--limit", "2", *executor]) == 2
        message = " ".join(capsys.readouterr().err.split())
        assert "render.device is gpu, but Cycles finds no GPU on this machine" in message
        assert "set render.device to auto" in message
        assert not gpu.exists()  # nothing rendered, nothing left: the same command can run again


def test_gpu_and_cpu_renders_agree(tmp_path):
    from byo.blender.devices import gpu_backend

    if gpu_backend() is None:
        pytest.skip("no GPU that Cycles can use on this machine")
    outs = {}
    for device in ("cpu", "gpu"):
        outs[device] = tmp_path / device
        assert main(["render", str(write_config(tmp_path, farm_config(device=device), f"{device}.yaml")),
                     "-o", str(outs[device]), "--limit", "2", "--in-process"]) == 0
    import numpy as np
    from PIL import Image

    for png in sorted((outs["cpu"] / "images").glob("*.png")):
        a = np.asarray(Image.open(png), dtype=np.int16)
        b = np.asarray(Image.open(outs["gpu"] / "images" / png.name), dtype=np.int16)
        assert np.abs(a - b).mean() < 2.0, png.name  # same scene; GPU sampling differs in the noise only
    for mask in sorted((outs["cpu"] / "masks").glob("*.png")):
        assert mask.read_bytes() == (outs["gpu"] / "masks" / mask.name).read_bytes()


@pytest.fixture(scope="module")
def ray_cluster():
    """A head and one more node (`ray start`, 1 CPU each) on loopback, stopped at the end."""
    from byo.render.executors.ray_cluster import LocalCluster

    with pytest.MonkeyPatch.context() as env:
        env.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2] / "support"))  # the workers import pool_jobs
        with LocalCluster(2, cpus_per_node=1) as address:
            yield address


def test_ray_two_node_cluster_renders_the_same_dataset(config, reference, ray_cluster, tmp_path):
    out = tmp_path / "out"
    assert main(["render", str(config), "-o", str(out), "--executor", "ray", "--address", ray_cluster,
                 "--timeout", "300"]) == 0
    assert_same_dataset(reference, out)
    from byo.render import log as renderlog

    workers = [e["worker"] for e in renderlog.read(out) if e.get("event") == "image"]
    assert len(workers) == N_IMAGES
    nodes = {w.split(" pid ")[0] for w in workers}
    assert len(nodes) == 2, workers  # the render tasks landed on both nodes


def test_ray_kills_hung_and_crashed_workers_and_retries(ray_cluster):
    from byo.render.executors.ray_cluster import RayExecutor

    executor = RayExecutor(ray_cluster, threads=1, timeout=3, retries=1, handler="pool_jobs:echo")
    seen = {task: (result, error) for task, result, error in executor.run([1, 99, 7, 13, 2, 3])}
    assert sorted(seen) == [1, 2, 3, 7, 13, 99]
    assert seen[99] == (None, "timed out after 3 s; worker killed (2 attempts)")
    assert seen[7][0] is None and seen[7][1].startswith("render worker died") and "(2 attempts)" in seen[7][1]
    assert seen[13] == (None, "unlucky")
    assert [seen[v][0]["value"] for v in (1, 2, 3)] == [1, 2, 3]
    with pytest.raises(FatalRenderError, match="no GPU here"):
        list(RayExecutor(ray_cluster, threads=1, handler="pool_jobs:echo").run([1, 666, 2]))


def test_ray_workers_ask_for_a_gpu_when_the_config_does(ray_cluster):
    from byo.families import load_config
    from byo.render.executors.ray_cluster import RayExecutor
    from byo.render.runner import sample_tasks
    from byo.scene.plan import jobs

    cfg = load_config(farm_config(device="gpu"))
    tasks = sample_tasks(cfg, jobs(cfg)[:2], "<config>")
    with pytest.raises(FatalRenderError, match="render.device is gpu, but the Ray cluster has no GPU"):
        list(RayExecutor(ray_cluster, threads=1).run(tasks))
