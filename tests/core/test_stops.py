"""Ctrl-C and SIGTERM stop `byo render` cleanly: exit 130 / 143, no traceback, no temporary or
orphaned files or processes, and --resume finishes the dataset."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import clevr_config, write_config

pytestmark = pytest.mark.render


def _start_render(config: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "byo.cli", "render", str(config), "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _wait_for_legends(out: Path, n: int, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while len(list((out / "legends").glob("[!.]*.json"))) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)


def _group_gone(pgid: int, timeout: float = 15) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize(("how", "code"), [("ctrl-c", 130), ("sigterm", 143)])
def test_a_stopped_render_exits_cleanly_and_resumes(how, code, tmp_path):
    config = write_config(tmp_path, clevr_config("stops", n_images=10, render={"samples": 16, "denoise": "off"}))
    out = tmp_path / "out"
    proc = _start_render(config, out)
    _wait_for_legends(out, 2, proc)
    if how == "ctrl-c":
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal does: the whole process group
    else:
        os.kill(proc.pid, signal.SIGTERM)  # what a scheduler does: the parent alone
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err[-3000:]
    assert "Traceback" not in err and "Error" not in err, err[-3000:]
    assert "--resume" in err
    assert _group_gone(proc.pid), "a render worker outlived the stop"
    assert not [p for p in out.rglob(".*") if p.is_file()], "temporary files left behind"
    done = len(list((out / "legends").glob("[!.]*.json")))
    assert 2 <= done < 10

    resumed = subprocess.run([sys.executable, "-m", "byo.cli", "render", str(config), "-o", str(out), "--resume"],
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert len(list((out / "legends").glob("[!.]*.json"))) == 10
    assert f"already complete {done}" in resumed.stderr
