"""`byo render --executor slurm` through submitit's local executor: a job array of 2 tasks, merged,
equals a single run; a preempted task is requeued and resumes its shard; failed images are
collected and nothing is merged; bad settings exit 2 before anything is submitted."""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest
from conftest import assert_same_dataset, clevr_config, write_config
from hanging_render import environment as hanging

from byo.cli import main

pytestmark = pytest.mark.render
pytest.importorskip("submitit")

TINY = {"resolution": [32, 24], "render": {"samples": 1, "denoise": "off"}}


def config(tmp_path: Path, n_images: int = 5) -> Path:
    return write_config(tmp_path, clevr_config("farm", n_images=n_images, **TINY))


def starts(render_dir: Path) -> list[dict]:
    return [e for e in map(json.loads, (render_dir / "render_log.jsonl").read_text().splitlines())
            if e["event"] == "start"]


def test_two_array_tasks_merge_into_a_single_run(tmp_path):
    path = config(tmp_path)
    assert main(["render", str(path), "-o", str(tmp_path / "single"), "--in-process"]) == 0
    out = tmp_path / "farm"
    assert main(["render", str(path), "-o", str(out), "--executor", "slurm", "--shards", "2", "--slurm-local"]) == 0
    assert_same_dataset(tmp_path / "single", out)
    shards = sorted((tmp_path / "farm.shards").glob("shard-*"))
    assert [p.name for p in shards] == ["shard-0", "shard-1"]
    assert [len(list((s / "legends").glob("*.json"))) for s in shards] == [3, 2]  # images 0, 2, 4 and 1, 3
    assert [starts(s)[0]["shard"] for s in shards] == ["0/2", "1/2"]


def test_a_preempted_task_is_requeued_and_resumes(tmp_path, monkeypatch):
    """The array task is sent Slurm's preemption signal (USR2) while it renders its second image:
    submitit checkpoints and requeues it, and the shard resumes from the images it has."""
    path = config(tmp_path, n_images=3)
    assert main(["render", str(path), "-o", str(tmp_path / "single"), "--in-process"]) == 0
    marker = tmp_path / "hanging"
    for name, value in hanging("farm_000001", once=marker).items():
        monkeypatch.setenv(name, value)
    out, codes = tmp_path / "farm", []
    driver = threading.Thread(target=lambda: codes.append(main(
        ["render", str(path), "-o", str(out), "--executor", "slurm", "--shards", "1", "--slurm-local"])))
    driver.start()
    deadline = time.monotonic() + 600  # a bound against a hang, not a measurement
    while not marker.exists() and driver.is_alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert marker.exists(), "the task never reached its second image"
    os.kill(int(marker.read_text()), signal.SIGUSR2)  # what Slurm sends before preempting a job
    driver.join(timeout=600)
    assert codes == [0]
    assert_same_dataset(tmp_path / "single", out)
    shard = tmp_path / "farm.shards/shard-0"
    assert [e["to_render"] for e in starts(shard)] == [3, 2]  # requeued once, resumed after image 0


def test_failed_images_are_collected_and_nothing_is_merged(tmp_path, monkeypatch, capsys):
    path = config(tmp_path, n_images=4)
    for name, value in hanging("farm_000003").items():
        monkeypatch.setenv(name, value)
    code = main(["render", str(path), "-o", str(tmp_path / "farm"), "--executor", "slurm", "--shards", "2",
                 "--slurm-local", "--timeout", "20", "--retries", "0"])
    printed = capsys.readouterr()
    assert code == 1 and not (tmp_path / "farm").exists()
    assert "failed farm_000003: timed out after 20 s" in printed.out + printed.err  # above the progress bar
    assert "not merged" in printed.err
    monkeypatch.delenv("BYO_TEST_HANG_IMAGE")  # the handler then renders every image as usual
    # the same command again renders what is missing and merges
    assert main(["render", str(path), "-o", str(tmp_path / "farm"), "--executor", "slurm", "--shards", "2",
                 "--slurm-local"]) == 0
    assert len(list((tmp_path / "farm/legends").glob("*.json"))) == 4


def test_settings_come_from_the_config_and_bad_ones_exit_2(tmp_path, capsys):
    from byo.render.executors.slurm import SlurmSettings

    data = clevr_config("farm", n_images=2, **TINY)
    data["slurm"] = {"shards": 2, "partition": "cpu", "time_minutes": 90, "mem_gb": 8}
    path = write_config(tmp_path, data)
    assert main(["plan", str(path)]) == 0
    params = SlurmSettings(partition="cpu", time_minutes=90, mem_gb=8.0).parameters()
    assert params == {"name": "byo-render", "timeout_min": 90, "mem_gb": 8.0, "slurm_partition": "cpu"}
    data["slurm"] = {"shards": 0, "partition": "cpu; rm -rf /"}
    bad = write_config(tmp_path, data, "bad.yaml")
    assert main(["render", str(bad), "-o", str(tmp_path / "x"), "--executor", "slurm", "--slurm-local"]) == 2
    err = capsys.readouterr().err
    assert "slurm.shards" in err and "slurm.partition" in err
    no_shards = write_config(tmp_path, clevr_config("farm", n_images=2, **TINY), "none.yaml")
    assert main(["render", str(no_shards), "-o", str(tmp_path / "x"), "--executor", "slurm", "--slurm-local"]) == 2
    assert "or give --shards" in capsys.readouterr().err
    assert not (tmp_path / "x").exists() and not (tmp_path / "x.shards").exists()
    with pytest.raises(SystemExit):
        main(["render", str(path), "--executor", "slurm", "--partition", "a b"])


@pytest.mark.skipif(shutil.which("srun") is not None, reason="this machine is a Slurm node")
def test_without_slurm_the_command_says_so_and_leaves_nothing(tmp_path, capsys):
    path = config(tmp_path, n_images=2)
    assert main(["render", str(path), "-o", str(tmp_path / "farm"), "--executor", "slurm", "--shards", "2"]) == 2
    assert "--slurm-local" in capsys.readouterr().err
    assert not (tmp_path / "farm").exists() and not (tmp_path / "farm.shards").exists()
