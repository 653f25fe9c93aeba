"""`byo run` (byo/cli/experiment.py, byo/api/experiment.py): the demo config from config to report
in one command, a second invocation that does no work, and a model added later that is the only
one asked."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import ROOT
from fake_vlm import FakeVLM
from golden_data import tiny_config

from byo.cli import main


def run_json(capsys, *argv: str) -> dict:
    capsys.readouterr()
    assert main(["run", *argv, "--workers", "1", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.render
def test_the_demo_in_one_command_then_nothing_to_do_then_only_the_new_model(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "demo.yaml"
    config.write_text(yaml.safe_dump(tiny_config(ROOT / "dataset_configs" / "demo.yaml"), sort_keys=False))
    first = run_json(capsys, str(config), "--model", "blind", "--model", "oracle")
    assert first["work"][0] == "rendered 8 images of demo"
    assert (tmp_path / "output" / "demo" / "report.html").is_file()
    assert (tmp_path / "output" / "demo" / "comparisons" / "oracle--blind" / "differences.csv").is_file()
    results = {(r["model"], r["key"]): r for r in first["results"]}
    assert results[("oracle", "*")]["accuracy"] == 1.0 and results[("blind", "*")]["accuracy"] < 1.0
    assert all(r["accuracy_lo"] <= r["accuracy"] <= r["accuracy_hi"] for r in first["results"])

    again = run_json(capsys, str(config), "--model", "blind", "--model", "oracle")
    assert again["work"] == [] and again["results"] == first["results"]  # nothing rendered, asked or written

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeVLM(lambda seen: "3") as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")
        third = run_json(capsys, str(config), "--model", "blind", "--model", "oracle", "--model", "openai:fake-vlm")
        questions = len((tmp_path / "output" / "demo" / "questions.jsonl").read_text().splitlines())
        assert len(fake.log) == questions  # the new model's questions, each asked once
    assert [w for w in third["work"] if w.startswith(("rendered", "asked", "audited", "evaluated"))] == [
        f"evaluated openai-fake-vlm on demo ({questions} requests)"]
    assert {r["model"] for r in third["results"]} == {"blind", "oracle", "openai-fake-vlm"}


def test_a_bad_model_or_experiment_is_one_line_before_any_work(tmp_path, capsys):
    config = tmp_path / "demo.yaml"
    config.write_text(yaml.safe_dump(tiny_config(ROOT / "dataset_configs" / "demo.yaml"), sort_keys=False))
    assert main(["run", str(config)]) == 2
    assert "--model: no model to evaluate" in capsys.readouterr().err
    assert main(["run", str(config), "--model", "openai:"]) == 2
    assert "expected PROVIDER:MODEL" in capsys.readouterr().err
    experiment = tmp_path / "exp.yaml"
    experiment.write_text(yaml.safe_dump({"experiment": {"configs": ["demo.yaml"], "models": ["blind"],
                                                         "baseline": "oracle"}}))
    assert main(["run", str(experiment)]) == 2
    assert "--baseline: 'oracle' is none of the models' runs: blind" in capsys.readouterr().err
    experiment.write_text(yaml.safe_dump({"experiment": {"configs": [], "models": ["blind"]}}))
    assert main(["run", str(experiment)]) == 2
    err = capsys.readouterr().err
    assert "experiment.configs" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "output").exists()
