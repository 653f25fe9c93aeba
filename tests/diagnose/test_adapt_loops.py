"""byo adapt as a closed loop that holds (at 64x48, against the fake VLM on loopback through the real
openai client): a cap for a model without a price is refused before any request; a trial whose scene
cannot be placed is recorded as failed and the search goes on; a loop killed (SIGKILL) mid-trial is
inspected by byo status and resumed by the same command, no request sent twice; a loop whose every
request fails exits non-zero with its record and state written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, clevr_config
from fake_vlm import FakeVLM

from byo.cli import main
from byo.core.errors import ConfigError
from byo.diagnose.adapt import MAX_TRIALS, AdaptSettings, Budget, adapt

pytestmark = pytest.mark.render

PATIENCE = 300  # seconds a step may take on a loaded machine


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", "sk-test-adapt")


def far_camera_config(tmp: Path) -> Path:
    """CLEVR, 3 objects, the camera looking at a far corner of the floor: at a distance under about
    8 the objects cannot be placed in view (from 8.5 on they can)."""
    data = clevr_config("far", content={"mode": "random", "count": 3}, camera={"target": [3.0, 3.0, 0.0]},
                        render={"samples": 4, "denoise": "off", "min_visible_pixels": 2, "on_hidden": "flag"},
                        variables={"camera.distance": {"type": "varying_all", "levels": [7.0, 20.0]}})
    path = tmp / "far.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def providers(tmp: Path, url: str, *, priced: bool = True) -> Path:
    price = {"input_per_million": 1000.0, "output_per_million": 1000.0} if priced else {}
    path = tmp / "providers.yaml"
    path.write_text(yaml.safe_dump({"providers": {"fake": {
        "type": "openai-compatible", "base_url": f"{url}/v1", "api_key_env": "FAKE_API_KEY",
        "models": {"tiny-vlm": price}}}}))
    return path


def test_a_cap_for_a_model_without_a_price_is_refused_before_any_request(tmp_path, key, capsys):
    config = far_camera_config(tmp_path)
    with FakeVLM() as fake:
        file = providers(tmp_path, fake.url, priced=False)
        with pytest.raises(ConfigError, match=r"`max_cost`: needs the price of tiny-vlm: give "
                                              r"providers\.fake\.models\.tiny-vlm its input_per_million"):
            adapt(AdaptSettings(config=config, variable="camera.distance", provider="fake", model="tiny-vlm",
                                key="count_objects", out=tmp_path / "out", budget=Budget(cost=0.5),
                                eval={"providers_file": file}))
        assert main(["adapt", str(config), "--variable", "camera.distance", "--model", "fake:tiny-vlm", "--key",
                     "count_objects", "-o", str(tmp_path / "out"), "--providers", str(file), "--max-cost", "1"]) == 2
        assert "--max-cost: needs the price of tiny-vlm" in capsys.readouterr().err
        assert not fake.log and not (tmp_path / "out").exists()
    assert Budget(cost=0.5).trials == MAX_TRIALS == Budget(width=1.0).trials  # a cap keeps the default trials


def byo_adapt(config: Path, out: Path, file: Path, *flags: str) -> list[str]:
    # --unreadable ask: these tests are of the loop's bookkeeping; from afar a 64x48 image hides one of
    # the 3 objects now and then, and a count that a hidden object would change is otherwise not asked
    return [sys.executable, "-m", "byo.cli", "adapt", str(config), "--variable", "camera.distance", "--model",
            "fake:tiny-vlm", "--key", "count_objects", "--unreadable", "ask", "-o", str(out), "--providers", str(file),
            "-q", *flags]


def record(out: Path) -> dict:
    try:
        return json.loads((out / "adapt.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {"trials": []}


def test_failed_trials_are_recorded_and_a_killed_loop_is_inspected_and_resumed(tmp_path, key):
    """Trials whose scene cannot be placed are recorded as failed with their reason, and the search
    goes on. byo adapt is killed (SIGKILL) once 3 trials are recorded; byo status reads the dataset;
    the same command resumes the loop to its budget of 8 answers: every question was sent once
    (the server counts), the trials before the kill are kept as they were, and the plot is written."""
    config = far_camera_config(tmp_path)
    out = tmp_path / "out"
    with FakeVLM(latency=0.3) as fake:  # "3", right: the scenes hold 3 objects
        file = providers(tmp_path, fake.url)
        command = byo_adapt(config, out, file, "--max-trials", "8")
        env = {**os.environ, "FAKE_API_KEY": "sk-test-adapt"}
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        deadline = time.monotonic() + PATIENCE
        while len(record(out)["trials"]) < 3:
            assert proc.poll() is None, f"byo adapt exited ({proc.returncode}): {proc.stderr.read()[-3000:]}"
            assert time.monotonic() < deadline, "timed out waiting for 3 trials"
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(PATIENCE)
        before = record(out)
        assert before["stopped"] == "running"
        sent_before = len(fake.log)

        assert subprocess.run([sys.executable, "-m", "byo.cli", "status", str(out)], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=PATIENCE).returncode == 0

        again = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=PATIENCE)
        assert again.returncode == 0, again.stderr[-3000:]
        sent = Counter(s.item for s in fake.log)
    after = record(out)
    assert set(sent.values()) == {1}, "a question was sent twice"
    assert len(fake.log) >= sent_before and after["answers"] == 8 and after["stopped"] == "8 trials (the budget)"
    assert after["trials"][: len(before["trials"])] == before["trials"]
    failed = [t for t in after["trials"] if t["failed"]]
    assert failed and all(t["failed"].startswith("its scene cannot be placed: could not place 3 objects")
                          for t in failed)
    assert all(t["level"] < 8.5 for t in failed)
    assert (out / "adapt.png").is_file() and len(sent) == 8


def test_a_loop_whose_every_request_fails_exits_non_zero_with_its_state_written(tmp_path, key, capsys):
    config = far_camera_config(tmp_path)
    out = tmp_path / "out"
    with FakeVLM(fault_rate=1.0, faults=("500",)) as fake:
        file = providers(tmp_path, fake.url)
        code = main(byo_adapt(config, out, file, "--max-images", "3")[3:] + ["--concurrency", "1"])
    printed = capsys.readouterr()
    assert code == 1 and "no answer" in printed.out
    rec = record(out)
    assert rec["answers"] == 0 and rec["stopped"] != "running" and fake.log
