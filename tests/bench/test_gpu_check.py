"""bench/gpu_check.sh, the GPU path's check, on a machine without a GPU: in its CPU-only mode it
renders each family on both sides and prints the time per image, the PSNR between the two and the
denoiser used; asked for the GPU where Cycles finds none, it says so and exits 3."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

SCRIPT = ROOT / "bench" / "gpu_check.sh"


def _run(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "VENV": sys.prefix}  # the tests' own environment: nothing to install
    return subprocess.run(["bash", str(SCRIPT), *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=900)


@pytest.mark.render
def test_the_cpu_only_mode_renders_each_family_on_both_sides(tmp_path):
    table = tmp_path / "gpu_check.json"
    done = _run("--cpu-only", "--", "--size", "48x27", "--families", "chess,poker", "--threads", "1",
                "--json", str(table), tmp_path=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "using" in done.stdout and "exit 0" in done.stdout
    result = json.loads(table.read_text())
    assert result["cpu_only"] and result["size"] == [48, 27]
    assert [r["family"] for r in result["rows"]] == ["chess", "poker"]
    for row in result["rows"]:
        assert row["other"] == "auto" and row["other_device"] == "cpu"  # auto falls back to the CPU here
        assert row["cpu_wall_s"] > 0 and row["other_wall_s"] > 0 and row["cpu_cpu_s"] > 0
        # one device, one seed: the same image, up to a few values of floating-point order (91 dB measured at 320x180)
        assert row["psnr_db"] == "identical" or row["psnr_db"] >= 60
        assert row["ssim"] >= 0.999
        assert row["cpu_denoiser"] == row["other_denoiser"] == "openimagedenoise on the cpu"
    for column in ("PSNR (dB)", "denoiser (CPU / other)", "chess_200_48x27", "poker_64_48x27"):
        assert column in done.stdout


@pytest.mark.render
def test_asking_for_the_gpu_without_one_says_so(tmp_path):
    from byo.blender import devices

    if devices.gpu_backend() is not None:
        pytest.skip("this machine has a GPU for Cycles")
    done = _run("--", "--families", "clevr", tmp_path=tmp_path)
    assert done.returncode == 3
    assert "no GPU for Cycles here" in done.stdout and "--cpu-only" in done.stdout


def test_an_unknown_option_is_one_line(tmp_path):
    done = _run("--fast", tmp_path=tmp_path)
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0 and "--fast" in done.stderr
