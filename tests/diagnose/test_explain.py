"""byo explain end to end at 64x48 (render): a simulated observer whose errors blur alone causes has
its failures put down to blur, and one whose errors the camera's azimuth causes to the azimuth;
the cost is stated before any render and a budget keeps a sample; the viewer shows the twins."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml
from conftest import TINY_RENDER

import byo
from byo.cli import main
from byo.core.errors import ConfigError
from byo.diagnose.explain import FLIPPED, UNCHANGED
from byo.score.rows import load_run

pytestmark = pytest.mark.render

BLUR_OBSERVER = "blur_px,threshold=1.8,slope=-10"  # no lapse: every error is the blur's (f/2 and f/2.8)
AZIMUTH_OBSERVER = "levels.camera.azimuth,threshold=10,slope=-2"  # errors at azimuth 20, whatever the blur


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("explain")
    config = {"dataset": {"name": "why", "family": "chess", "seed": 8, "n_images": 3},
              "scene": {**TINY_RENDER, "resolution": [128, 96], "content": {"count": 3}},  # blurred pieces still show
              "variables": {"blur.fstop": {"type": "varying_all", "levels": [2.0, 2.8, 8.0]},
                            "camera.azimuth": {"type": "varying_all", "levels": [0, 20]}}}
    path = tmp / "why.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    out = tmp / "why"
    assert main(["render", str(path), "-o", str(out), "--in-process"]) == 0
    # blurred pieces do not stand out: ask anyway, as a model is asked what it is shown
    byo.write_questions(out, keys=["count_pieces"], unreadable="ask")
    for run, observer in (("blur", BLUR_OBSERVER), ("azimuth", AZIMUTH_OBSERVER)):
        byo.evaluate(out, "simulated", observer, run=run)
    return out


@pytest.fixture(scope="module")
def explained(dataset):
    told = []
    blur = byo.explain_failures(dataset / "runs" / "blur", on_plan=told.append)
    azimuth = byo.explain_failures(dataset / "runs" / "azimuth")
    return blur, azimuth, told


def shares(result) -> dict[str, float]:
    return {r["factor"]: r["share"] for r in result.rows}


def credited(result, factor: str) -> bool:
    """The factor turns the failures right: at least 90% of the twins asked, and three in four of
    all failures (a twin whose question the new image cannot ask, a piece at the edge of
    visibility, is no flip)."""
    row = next(r for r in result.rows if r["factor"] == factor)
    return row["flipped"] >= 0.9 * row["asked"] and row["share"] >= 0.75


def test_failures_caused_by_blur_alone_are_put_down_to_blur(explained):
    blur, _, told = explained
    failures = blur.rows[0]["failures"]
    assert failures >= 8
    by_factor = shares(blur)
    # the azimuth the run answered best at (either: the blur observer ignores it)
    azimuth = next(f for f in by_factor if f.startswith("camera.azimuth = "))
    assert set(by_factor) == {"no blur", "bright light", "camera overhead", "blur.fstop = 8.0", azimuth,
                              "any factor"}
    assert credited(blur, "no blur") and credited(blur, "blur.fstop = 8.0")
    for other in ("bright light", "camera overhead", azimuth):
        assert by_factor[other] < 0.1, other
    assert by_factor["any factor"] >= 0.75
    # the plan was stated before: every failure, five factors
    assert told[0].failures == failures and len(told[0].changes) == 5
    assert told[0].describe().startswith(f"{failures} of {failures} failures x 5 factors")


def test_failures_caused_by_the_azimuth_are_put_down_to_it(explained, dataset):
    _, azimuth, _ = explained
    by_factor = shares(azimuth)
    blur_factor = next(f for f in by_factor if f.startswith("blur.fstop = "))  # the blur the run answered best at
    assert credited(azimuth, "camera.azimuth = 0")
    assert by_factor["no blur"] < 0.1 and by_factor[blur_factor] < 0.1
    # a failure already at that blur is not re-rendered for that factor: unchanged
    easiest = float(blur_factor.split(" = ")[1])
    rows, _ = load_run(dataset / "runs" / "azimuth")
    at_easiest = sum(1 for r in rows if not r["correct"] and r["levels"]["blur.fstop"] == easiest)
    row = next(r for r in azimuth.rows if r["factor"] == blur_factor)
    assert at_easiest > 0 and row["changed"] == row["failures"] - at_easiest
    record = json.loads(azimuth.record.read_text())
    outcomes = [t["outcome"] for f in record["failures"] for t in f["twins"] if t["factor"] == blur_factor]
    assert outcomes.count(UNCHANGED) == at_easiest


def test_the_twins_are_the_same_scene_with_one_change(explained, dataset):
    blur, _, _ = explained
    record = json.loads(blur.record.read_text())
    failure = record["failures"][0]
    twin = next(t for t in failure["twins"] if t["factor"] == "no blur")
    assert twin["outcome"] == FLIPPED
    name = Path(failure["image"]).stem
    original = json.loads((dataset / "legends" / f"{name}.json").read_text())
    twin_legend = json.loads((dataset / Path(twin["image"]).parent.parent / "legends" / f"{name}.json").read_text())
    assert twin_legend["seed"] == original["seed"]
    assert twin_legend["levels"] == {**original["levels"], "blur.fstop": "none"}
    assert not twin_legend["setup"]["blur"]["enabled"] and original["setup"]["blur"]["enabled"]
    assert [o["attributes"] for o in twin_legend["objects"]] == [o["attributes"] for o in original["objects"]]
    assert (dataset / twin["image"]).is_file()


def test_the_viewer_shows_the_twins_beside_the_failure(explained, dataset, tmp_path):
    page = tmp_path / "view.html"
    assert main(["view", str(dataset / "runs" / "blur"), "-o", str(page)]) == 0
    data = json.loads((tmp_path / "view_files" / "data.js").read_text().split("=", 1)[1].rstrip(";\n"))
    twins = data["a"][0]["twins"]
    assert len(twins) == explained[0].rows[0]["failures"]
    strings = data["strings"]
    first = next(iter(twins.values()))
    factors = {strings[f] for _, f, _, _ in first}
    assert {f for f in factors if not f.startswith("camera.azimuth = ")} == {"no blur", "bright light",
                                                                             "camera overhead", "blur.fstop = 8.0"}
    assert len(factors) == 5
    assert all((tmp_path / unquote(strings[image])).is_file() for image, _, _, _ in first)


def test_the_cost_is_stated_and_a_budget_keeps_a_sample(dataset, explained):
    byo.evaluate(dataset, "simulated", AZIMUTH_OBSERVER, run="azimuth-again")
    plans = []
    assert byo.explain_failures(dataset / "runs" / "azimuth-again", max_questions=10, on_plan=lambda p: plans.append(p)
                                or False) is None  # declined: nothing rendered
    plan = plans[0]
    assert plan.questions <= 10 and len(plan.explained) < plan.failures
    assert plan.note and "within the budget" in plan.note
    assert "no cost known" in plan.describe()
    assert not (dataset / "explain" / "azimuth-again").exists()
    with pytest.raises(ConfigError, match="explained already"):
        byo.explain_failures(dataset / "runs" / "blur")


def test_a_run_without_failures_is_said_so_and_nothing_is_written(dataset, capsys):
    byo.evaluate(dataset, "oracle", run="right")
    assert main(["explain", str(dataset / "runs" / "right")]) == 0
    assert "byo explain: the run has no failures: nothing to explain" in capsys.readouterr().err
    assert not (dataset / "explain" / "right").exists()


def test_a_cap_for_a_model_without_a_price_is_refused_before_any_work(dataset, monkeypatch, tmp_path, capsys):
    from fake_vlm import FakeVLM

    monkeypatch.setenv("FAKE_API_KEY", "sk-test-explain")
    with FakeVLM() as fake:  # answers "3": right or wrong by the image
        providers = tmp_path / "providers.yaml"
        providers.write_text(yaml.safe_dump({"providers": {"fake": {
            "type": "openai-compatible", "base_url": f"{fake.url}/v1", "api_key_env": "FAKE_API_KEY",
            "models": {"tiny-vlm": {}}}}}))
        byo.evaluate(dataset, "fake", "tiny-vlm", run="unpriced", providers_file=providers)
        sent = len(fake.log)
        assert main(["explain", str(dataset / "runs" / "unpriced"), "--providers", str(providers),
                     "--max-cost", "1"]) == 2
        assert len(fake.log) == sent
    assert "--max-cost: needs the price of tiny-vlm" in capsys.readouterr().err
    assert not (dataset / "explain" / "unpriced").exists()


def test_an_explanation_killed_early_goes_on_when_run_again(dataset, explained):
    """byo explain is killed (SIGKILL) once its first twin is rendered: the same command then
    finishes it (the renders there are kept) and writes its record; a third says it is done."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from conftest import ROOT

    byo.evaluate(dataset, "simulated", BLUR_OBSERVER, run="blur-killed")
    folder = dataset / "explain" / "blur-killed"
    command = [sys.executable, "-m", "byo.cli", "explain", str(dataset / "runs" / "blur-killed")]
    proc = subprocess.Popen(command, cwd=ROOT, env=dict(os.environ), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not list(folder.glob("twins/*/legends/*.json")):
        assert proc.poll() is None, f"byo explain exited ({proc.returncode}): {proc.stderr.read()[-3000:]}"
        assert time.monotonic() < deadline, "timed out waiting for a twin"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(300)
    assert not (folder / "explain.json").exists()
    again = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    record = json.loads((folder / "explain.json").read_text())
    reference = json.loads((dataset / "explain" / "blur" / "explain.json").read_text())
    assert record["table"] == reference["table"]  # the same observer, the same explanation
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "explained already" in done.stderr
