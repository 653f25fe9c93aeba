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


def rendered_images(render_log) -> int:
    """Images the render log records as rendered, over every invocation."""
    return sum(json.loads(line).get("event") == "image" for line in render_log.read_text().splitlines())


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

    render_log = tmp_path / "output" / "demo" / "render_log.jsonl"
    rendered = rendered_images(render_log)
    assert rendered == 8
    again = run_json(capsys, str(config), "--model", "blind", "--model", "oracle")
    assert again["work"] == [] and again["results"] == first["results"]  # nothing rendered, asked or written
    assert rendered_images(render_log) == rendered

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeVLM(lambda seen: "3") as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")
        third = run_json(capsys, str(config), "--model", "blind", "--model", "oracle", "--model", "openai:fake-vlm")
        questions = len((tmp_path / "output" / "demo" / "questions.jsonl").read_text().splitlines())
        assert len(fake.log) == questions  # the new model's questions, each asked once
        assert [w for w in third["work"] if w.startswith(("rendered", "asked", "audited", "evaluated"))] == [
            f"evaluated openai-fake-vlm on demo ({questions} requests)"]
        assert {r["model"] for r in third["results"]} == {"blind", "oracle", "openai-fake-vlm"}
        fourth = run_json(capsys, str(config), "--model", "blind", "--model", "oracle", "--model", "openai:fake-vlm")
        assert len(fake.log) == questions and fourth["work"] == []  # no request, no render the second time
    assert rendered_images(render_log) == rendered


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


def test_a_name_from_the_file_that_would_lead_outside_and_a_malformed_base_url_are_refused_first(
        tmp_path, capsys, monkeypatch):
    """An experiment name that is no plain folder name (it names the report's folder), and a model's
    base URL that no client can reach, are one line each before any render or request."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    config = tmp_path / "demo.yaml"
    config.write_text(yaml.safe_dump(tiny_config(ROOT / "dataset_configs" / "demo.yaml"), sort_keys=False))
    experiment = tmp_path / "exp.yaml"
    experiment.write_text(yaml.safe_dump({"experiment": {"name": "../../escaped", "configs": ["demo.yaml"],
                                                         "models": ["blind"]}}))
    assert main(["run", str(experiment)]) == 2
    err = capsys.readouterr().err
    assert "experiment.name: expected a plain folder name" in err and len(err.strip().splitlines()) == 1
    experiment.write_text(yaml.safe_dump({"experiment": {"configs": ["demo.yaml"], "models": [
        {"provider": "blind", "run": "../../out"}]}}))
    assert main(["run", str(experiment)]) == 2
    assert "experiment.models[0].run: expected a plain folder name" in capsys.readouterr().err
    for url, says in (("localhost:8000/v1", "expected an http:// or https:// URL"),
                      ("http://localhost:80x0/v1", "expected a URL such as"), ("http:///v1", "expected a host")):
        experiment.write_text(yaml.safe_dump({"experiment": {"configs": ["demo.yaml"], "models": [
            {"provider": "openai", "model": "fake-vlm", "base_url": url}]}}))
        assert main(["run", str(experiment)]) == 2
        err = capsys.readouterr().err
        assert f"base_url: {says}" in err or f"--base-url: {says}" in err, err
    assert not (tmp_path / "output").exists() and not (tmp_path.parent / "escaped").exists()


def test_byo_eval_refuses_a_malformed_base_url_before_any_request(tmp_path, capsys, monkeypatch):
    from eval_data import make_dataset

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    ds = make_dataset(tmp_path / "ds", 2)
    assert main(["eval", str(ds), "--provider", "openai", "--model", "m", "--base-url", "htp://localhost:1/v1"]) == 2
    assert "--base-url: expected an http:// or https:// URL" in capsys.readouterr().err
    assert not (ds / "runs").exists()


def test_a_users_report_or_folder_in_the_way_is_refused_before_any_render(tmp_path, capsys, monkeypatch):
    """A file of the user's where the report goes is refused before any work (--force would replace
    it); a folder of the user's where the dataset goes is not rendered into, --resume-like as byo run
    is; neither is touched."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "demo.yaml"
    config.write_text(yaml.safe_dump(tiny_config(ROOT / "dataset_configs" / "demo.yaml"), sort_keys=False))
    mine = tmp_path / "mine.html"
    mine.write_text("my own page")
    assert main(["run", str(config), "--model", "blind", "--report", str(mine)]) == 2
    err = capsys.readouterr().err
    assert "--report: exists and byo did not write it" in err and "pass --force" in err
    assert mine.read_text() == "my own page" and not (tmp_path / "output").exists()

    folder = tmp_path / "output" / "demo"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("my notes")
    assert main(["run", str(config), "--model", "blind", "--report", str(tmp_path / "report.html")]) == 2
    err = capsys.readouterr().err
    assert "holds files that are no render's (notes.txt)" in err
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
