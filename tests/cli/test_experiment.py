"""`byo run` (byo/cli/experiment.py, byo/api/experiment.py): the demo config from config to report
in one command, a second invocation that does no work, and a model added later that is the only
one asked."""

from __future__ import annotations

import json
from pathlib import Path

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
    sheet = tmp_path / "output" / "demo" / "contact_sheet.png"
    made = sheet.stat().st_mtime_ns
    again = run_json(capsys, str(config), "--model", "blind", "--model", "oracle")
    assert sheet.stat().st_mtime_ns == made  # nothing rendered: the contact sheet is not rewritten
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


@pytest.mark.render
def test_output_folder_and_a_model_at_a_base_url_without_an_experiment_file(tmp_path, capsys, monkeypatch):
    """`-o OUT` puts the dataset and the report under OUT (nothing in ./output); `--model
    openai-compatible:NAME@URL` reaches that server (a fake one on loopback, the real OpenAI client)
    with no experiment file. Outside a terminal the progress is plain lines, not a bar. The results
    give accuracy per level of both varied variables and per cell of the two crossed, with n, and
    a key the design fixes (all objects large: query_size_unique_shape) is listed apart, not pooled."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "demo.yaml"
    data = tiny_config(ROOT / "dataset_configs" / "demo.yaml")
    data["dataset"]["n_images"] = 4  # 16 images: 2 counts x 2 azimuths, 4 of each
    data["scene"]["content"]["sizes"] = ["large"]  # every object large: query_size_unique_shape is fixed
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "results"
    with FakeVLM(lambda seen: "3") as fake:
        capsys.readouterr()
        assert main(["run", str(config), "--model", "blind", "--model", f"openai-compatible:fake-vlm@{fake.url}/v1",
                     "-o", str(out), "--workers", "1", "--json"]) == 0
        captured = capsys.readouterr()
        result = json.loads(captured.out)
        questions = len((out / "demo" / "questions.jsonl").read_text().splitlines())
        assert len(fake.log) == questions > 0
        assert main(["run", str(config), "--model", "blind", "--model", f"openai-compatible:fake-vlm@{fake.url}/v1",
                     "-o", str(out), "--workers", "1"]) == 0
        assert len(fake.log) == questions  # nothing asked again
        printed = " ".join(capsys.readouterr().out.split())
    assert result["report"] == str(out / "report.html") and (out / "report.html").is_file()
    assert (out / "report_samples.html").is_file() and (out / "demo" / "runs" / "openai-compatible-fake-vlm").is_dir()
    assert {r["model"] for r in result["results"]} == {"blind", "openai-compatible-fake-vlm"}
    assert not (tmp_path / "output").exists()
    assert f"eval openai-compatible/fake-vlm: {questions} of {questions} q" in captured.err
    assert "━" not in captured.err

    # the user's variables: per level and per cell of the two crossed, with n; the fixed key apart
    asked = [json.loads(line) for line in (out / "demo" / "questions.jsonl").read_text().splitlines()]
    size = [q for q in asked if q["key"] == "query_size_unique_shape"]
    assert len({q["image"] for q in size}) >= 3 and {q["answer"] for q in size} == {"large"}
    by_key = {(r["model"], r["key"]): r for r in result["results"]}
    assert by_key[("blind", "query_size_unique_shape")]["fixed"] == {"answer": "large", "images": len(
        {q["image"] for q in size}), "questions": len(size)}
    fixed = {k for (m, k), r in by_key.items() if m == "blind" and r["fixed"]}
    assert by_key[("blind", "*")]["n"] == sum(1 for q in asked if q["key"] not in fixed)  # not pooled
    cells = [c for c in result["levels"] if c["model"] == "blind"]
    assert {(c["variable"], c["level"]) for c in cells if not c["variable2"]} == {
        ("content.count", "3"), ("content.count", "6"), ("camera.azimuth", "20"), ("camera.azimuth", "200")}
    crossed = {(c["level"], c["level2"]): c for c in cells if c["variable2"] == "camera.azimuth"}
    assert set(crossed) == {("3", "20"), ("3", "200"), ("6", "20"), ("6", "200")}
    assert sum(c["n"] for c in crossed.values()) == by_key[("blind", "*")]["n"]
    assert "query_size_unique_shape (fixed answer)" in printed
    assert 'query_size_unique_shape is answered "large" on every one of its' in printed
    three_by_twenty = crossed[("3", "20")]
    assert (f"content.count x camera.azimuth │ 3 x 20 │ {three_by_twenty['n']} / {three_by_twenty['images']}"
            in printed)


def test_an_experiment_file_is_checked_key_by_key_before_any_work(tmp_path, capsys):
    """Every problem on a line naming the file, the key and what was expected; nothing written."""
    config = tmp_path / "demo.yaml"
    config.write_text(yaml.safe_dump(tiny_config(ROOT / "dataset_configs" / "demo.yaml"), sort_keys=False))
    experiment = tmp_path / "exp.yaml"
    cases = [
        ({"experiment": {"configs": ["demo.yaml"], "models": ["blind"], "modles": ["oracle"]}},
         "exp.yaml: experiment.modles: unknown key: expected one of name, configs, models, baseline, questions"),
        ({"experiment": {"configs": ["demo.yaml"], "models": ["blind"], "questions": {"prompt": "byo"}}},
         "exp.yaml: experiment.questions.prompt: unknown key: expected one of preprompts, instructions, keys, "
         "prompts, unreadable"),
        ({"experiment": {"configs": ["demo.yaml"], "models": [{"provider": "blind", "url": "x"}]}},
         "exp.yaml: experiment.models[0].url: unknown key: expected one of provider, model, run, base_url, "
         "key_env, concurrency"),
        ({"experiment": {"configs": ["demo.yaml"], "models": ["blind", "openai-compatible:m@localhost:8000"]}},
         "exp.yaml: experiment.models[1].base_url: expected an http:// or https:// URL, got 'localhost:8000'"),
        ({"experiment": {"configs": ["demo.yaml"], "models": ["nosuch:model"]}},
         "exp.yaml: experiment.models[0].provider: unknown provider 'nosuch'; expected one of"),
        ({"experiment": {"configs": ["gone.yaml"], "models": ["blind"]}},
         "exp.yaml: experiment.configs[0]: no such file or folder: gone.yaml"),
        ({"experiment": {"configs": ["demo.yaml"], "models": ["blind"]}, "models": ["oracle"]},
         "exp.yaml: models: unknown key: an experiment file holds one section, experiment"),
    ]
    for data, message in cases:
        experiment.write_text(yaml.safe_dump(data))
        assert main(["run", str(experiment)]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
    assert main(["run", str(config), "--model", "openai-compatible:m@"]) == 2
    assert "--model: expected PROVIDER:MODEL" in capsys.readouterr().err
    assert not (tmp_path / "output").exists()


def test_progress_outside_a_terminal_is_plain_lines(capsys):
    from byo.core import progress

    with progress.Bar("[bold]eval[/bold] blind/blind", 8, unit="q") as bar:
        for _ in range(8):
            bar.advance()
    err = capsys.readouterr().err
    assert err.startswith("eval blind/blind: 8 of 8 q, ") and len(err.splitlines()) == 1 and "━" not in err


def test_plan_says_what_each_cell_gets_and_warns_of_a_heatmap_it_cannot_fill(tmp_path, capsys):
    """The demo's 2 counts x 2 azimuths x 2 images: 2 images a cell, under the 10 questions the
    report's heatmap of a key needs; at 10 images a combination, no warning."""
    config = tmp_path / "demo.yaml"
    data = tiny_config(ROOT / "dataset_configs" / "demo.yaml")
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    assert main(["plan", str(config), "--no-sample"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "content.count: 2 levels, 4 images each" in printed
    assert "content.count x camera.azimuth: 4 cells, 2 images each" in printed
    assert ("the report's content.count x camera.azimuth heatmap of a key needs 10 questions a cell: with 2 images a "
            "cell, ask 5 prompt variants or more") in printed
    data["dataset"]["n_images"] = 10
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    assert main(["plan", str(config), "--no-sample", "--json"]) == 0
    (cells,) = json.loads(capsys.readouterr().out)["cells"]
    assert cells == {"variables": ["content.count", "camera.azimuth"], "cells": 4, "images_per_cell": 10,
                     "fills_heatmap": True}


def shrunk_suite(tmp_path, paper: str, config: str, resolution: list[int], n_images: int) -> Path:
    """A copy of dataset_configs/PAPER/ holding its protocol.yml and one config, shrunk to
    `resolution` and `n_images` images per combination."""
    suite = tmp_path / paper
    suite.mkdir()
    (suite / "protocol.yml").write_text((ROOT / "dataset_configs" / paper / "protocol.yml").read_text())
    data = tiny_config(ROOT / "dataset_configs" / paper / config, resolution=resolution)
    data["dataset"]["n_images"] = n_images
    (suite / config).write_text(yaml.safe_dump(data, sort_keys=False))
    return suite


def headline_of(result: dict, table: str) -> dict[tuple[str, str], list[dict]]:
    """A headline table's rows per (dataset, model) in byo run's JSON."""
    return {(e["dataset"], e["model"]): e["rows"] for e in result["headline"] if e["table"] == table}


def asked_in(dataset: Path) -> list[dict]:
    return [json.loads(line) for line in (dataset / "questions.jsonl").read_text().splitlines()]


@pytest.mark.render
def test_a_papers_suite_asks_its_prompt_grid_and_pools_its_table_3_ranges(tmp_path, capsys):
    """`byo run` on a shrunk copy of BYO-Eval's suite (its protocol.yml, chess_count.yaml at 2, 3,
    5 and 6 pieces, an image each, and chess_localization_4x4.yaml at 4 images): every question in
    B.2's grid (neutral, helpful, cot x declarative, fill_blank); the levels of the count pooled
    into Table 3's ranges, in the results and the report's Table 3, with no --bins; Table 2 across
    the two tasks (a row per model: the count's and the localization's Acc, F1, MAE, MSE, NMAE),
    Tables 2/4/6 per key with both Cons and Table 5 per level, as the paper lays them out."""
    suite = tmp_path / "byo_eval"
    suite.mkdir()
    (suite / "protocol.yml").write_text((ROOT / "dataset_configs" / "byo_eval" / "protocol.yml").read_text())
    data = tiny_config(ROOT / "dataset_configs" / "byo_eval" / "chess_count.yaml", resolution=[384, 216])
    data["dataset"]["n_images"] = 1
    data["variables"]["content.count"] = {"type": "varying_all", "levels": [2, 3, 5, 6]}  # readable at 384 px
    (suite / "chess_count.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    data = tiny_config(ROOT / "dataset_configs" / "byo_eval" / "chess_localization_4x4.yaml", resolution=[384, 216])
    data["dataset"]["n_images"] = 4
    (suite / "chess_localization_4x4.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "out"
    result = run_json(capsys, str(suite), "--model", "blind", "--model", "oracle", "-o", str(out))
    grid = {(p, i) for p in ("neutral", "helpful", "cot") for i in ("declarative", "fill_blank")}
    asked = asked_in(out / "byo_eval_chess_count")
    assert {(q["preprompt"], q["instruction"]) for q in asked} == grid and len(asked) == 4 * len(grid)
    assert {q["key"] for q in asked} == {"count_pieces"}
    located = asked_in(out / "byo_eval_chess_localization_4x4")
    images = len({q["image"] for q in located})  # an image whose piece is unreadable at 384 px is not asked
    assert {(q["preprompt"], q["instruction"]) for q in located} == grid and len(located) == images * 2 * len(grid)
    assert {q["key"] for q in located} == {"localize_row_one_piece", "localize_column_one_piece"}
    ranges = {c["level"]: c for c in result["levels"] if c["model"] == "oracle" and c["variable"] == "content.count"}
    assert set(ranges) == {"1-4", "5-9"} and all(c["n"] == 12 and c["images"] == 2 for c in ranges.values())
    report = (out / "report.html").read_text()
    table_3 = report[report.index('<section id="ranges">'):report.index("</section>", report.index('id="ranges"'))]
    assert "<th>content.count: 1-4</th><th>content.count: 5-9</th>" in table_3  # Table 3's columns by default
    assert result["experiment"] == "byo_eval"

    # Table 2 across tasks: a row per (task, model), the localization's rows and columns pooled
    (table_2,) = result["across"]
    assert table_2["table"] == "byo_eval_task"
    assert table_2["datasets"] == ["byo_eval_chess_count", "byo_eval_chess_localization_4x4"]
    cells = {(r["dataset"], r["model"]): r for r in table_2["rows"]}
    assert set(cells) == {(d, m) for d in table_2["datasets"] for m in ("blind", "oracle")}
    loc = cells[("byo_eval_chess_localization_4x4", "oracle")]
    assert (loc["n"], loc["images"], loc["accuracy"], loc["mae"], loc["nmae"]) == (len(located), images, 1.0, 0.0, 0.0)
    blind = cells[("byo_eval_chess_localization_4x4", "blind")]
    truths = [q["answer"] for q in located]
    assert images >= 2 and blind["n"] == len(located) and blind["accuracy"] < 1 and blind["nmae"] is not None
    assert blind["accuracy"] == pytest.approx(
        next(r for r in result["results"] if (r["dataset"], r["key"], r["model"]) == (
            "byo_eval_chess_localization_4x4", "*", "blind"))["accuracy"])
    assert min(truths) >= 0 and cells[("byo_eval_chess_count", "oracle")]["nmae"] == 0.0

    # Tables 2/4/6 per key, both Cons; Table 5 per level of the count (every level, not the ranges)
    per_key = headline_of(result, "byo_eval")
    (oracle_count,) = per_key[("byo_eval_chess_count", "oracle")]
    assert oracle_count["key"] == "count_pieces" and oracle_count["accuracy"] == 1.0
    assert oracle_count["consistency"] is not None and oracle_count["consistency_reply"] is not None
    assert {r["key"] for r in per_key[("byo_eval_chess_localization_4x4", "blind")]} == {
        "localize_row_one_piece", "localize_column_one_piece"}
    table_5 = headline_of(result, "byo_eval_levels")[("byo_eval_chess_count", "oracle")]
    assert [(r["level"], r["n"], r["accuracy_percent"]) for r in table_5] == [
        (str(n), len(grid), 100.0) for n in (2, 3, 5, 6)]
    assert main(["run", str(suite), "--model", "blind", "--model", "oracle", "-o", str(out), "--workers", "1"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "BYO-Eval's headline: BYO-Eval's Table 2: each task's questions pooled, across the suite's tasks" in printed


@pytest.mark.render
def test_kamonbench_suite_takes_its_headline_on_the_test_split(tmp_path, capsys):
    """`byo run` on a shrunk copy of KamonBench's suite (protocol.yml and composite.yaml, 40 crests,
    3 of them in the test split): the results table pools the test crests' questions only, as the
    paper's Table 1, not the 33 training crests'."""
    suite = shrunk_suite(tmp_path, "crest", "composite.yaml", [64, 64], 40)
    out = tmp_path / "out"
    result = run_json(capsys, str(suite), "--model", "blind", "--model", "oracle", "-o", str(out))
    dataset = out / "crest_composite"
    split = {p.stem: json.loads(p.read_text())["extras"]["split"] for p in (dataset / "legends").glob("*.json")}
    asked = [json.loads(line) for line in (dataset / "questions.jsonl").read_text().splitlines()]
    # "all questions" pools what was asked unflagged (a motif under the 8 px floor is flagged unreadable)
    on_test = [q for q in asked if split[Path(q["image"]).stem] == "test" and not q.get("unreadable")]
    assert 0 < len(on_test) < len(asked)
    pooled = {r["model"]: r for r in result["results"] if r["key"] == "*"}
    assert pooled["oracle"]["n"] == pooled["blind"]["n"] == len(on_test)
    assert pooled["oracle"]["images"] == len({q["image"] for q in on_test})
    assert {(q["preprompt"], q["instruction"]) for q in asked} == {("neutral", "direct")}
    crest = headline_of(result, "crest")  # Table 1's measures, its test split first
    for model in ("blind", "oracle"):
        rows = crest[("crest_composite", model)]
        assert {r["key"] for r in rows} == {q["key"] for q in asked if q["key"].startswith("describe_")}
        for key in {r["key"] for r in rows}:
            first = next(r for r in rows if r["key"] == key)
            assert first["slice"] == "split=test" and first["n"] == sum(q["key"] == key for q in on_test)
    assert all(r["exact"] == 1.0 for r in crest[("crest_composite", "oracle")] if r["slice"] == "split=test")
    assert main(["run", str(suite), "--model", "blind", "--model", "oracle", "-o", str(out), "--workers", "1"]) == 0
    assert "on the test split (the paper's headline)" in " ".join(capsys.readouterr().out.split())


@pytest.mark.render
def test_binding_study_suite_asks_its_label_keys_on_val_and_test_only(tmp_path, capsys):
    """`byo run` on a shrunk copy of the compositional-generalisation study's suite (protocol.yml and
    two_object.yaml at 12 images over its five splits): only the paper's label keys are asked, and
    only on the validation and test splits; no CLEVR key is pooled into its results."""
    suite = shrunk_suite(tmp_path, "compgen", "two_object.yaml", [64, 64], 12)
    out = tmp_path / "out"
    result = run_json(capsys, str(suite), "--model", "blind", "-o", str(out))
    asked = [json.loads(line) for line in (out / "compgen_two_object" / "questions.jsonl").read_text().splitlines()]
    assert asked and {q["key"] for q in asked} == {"label_zsl", "label_choice"}
    assert {q["levels"]["content.split"] for q in asked} <= {"id_val", "id_test", "ood_val", "ood_test"}
    splits = {json.loads(p.read_text())["levels"]["content.split"]
              for p in (out / "compgen_two_object" / "legends").glob("*.json")}
    assert "train" in splits  # rendered, not asked
    assert {r["key"] for r in result["results"]} == {"*", "label_zsl", "label_choice"}
    assert next(r for r in result["results"] if r["key"] == "*")["n"] == len(asked)
    assert {(q["preprompt"], q["instruction"]) for q in asked} == {("neutral", "direct")}
    (table,) = headline_of(result, "compgen_splits").values()  # accuracy per split beside chance
    per_split = {(r["key"], r["split"]): r for r in table if r["split"] != "all"}
    assert per_split and {split for _, split in per_split} <= {"id_val", "id_test", "ood_val", "ood_test"}
    for (key, split), r in per_split.items():
        assert r["n"] == sum(q["key"] == key and q["levels"]["content.split"] == split for q in asked)
        assert 0 < r["chance"] < 1


@pytest.mark.render
def test_an_experiment_file_over_a_suite_follows_its_protocol_and_pools_other_keys_apart(tmp_path, capsys):
    """An experiment file listing the compositional-generalisation study's suite folder follows
    its protocol (val/test splits only), its own `questions` first: asking every key (keys null),
    the CLEVR keys beyond the paper's are reported apart ("other keys", `paper: false`), and the
    paper's row, "all questions", pools the paper's label keys alone, as do the per-level cells."""
    shrunk_suite(tmp_path, "compgen", "two_object.yaml", [64, 64], 12)  # tmp_path/compgen
    experiment = tmp_path / "exp.yaml"
    experiment.write_text(yaml.safe_dump({"experiment": {"name": "compgen_all_keys", "configs": ["compgen"],
                                                         "models": ["blind"], "questions": {"keys": None}}}))
    out = tmp_path / "out"
    result = run_json(capsys, str(experiment), "-o", str(out))
    asked = asked_in(out / "compgen_two_object")
    paper = [q for q in asked if q["key"] in ("label_zsl", "label_choice")]
    other = [q for q in asked if q["key"] not in ("label_zsl", "label_choice")]
    assert paper and other  # every key asked: the paper's and the CLEVR family's others
    assert {q["levels"]["content.split"] for q in asked} <= {"id_val", "id_test", "ood_val", "ood_test"}
    rows = {r["key"]: r for r in result["results"]}
    assert rows["*"]["paper"] and rows["*"]["n"] == len(paper)
    assert not rows["+"]["paper"] and rows["+"]["n"] == len(other) - sum(
        f["questions"] for r in result["results"] if (f := r["fixed"]) and not r["paper"])
    assert {k for k, r in rows.items() if r["paper"]} == {"*", *(q["key"] for q in paper)}
    level_n = [c["n"] for c in result["levels"] if not c["variable2"] and c["variable"] == "content.split"]
    assert sum(level_n) == len(paper)  # the per-level cells: the paper's keys alone
    assert main(["run", str(experiment), "-o", str(out), "--workers", "1"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "other keys (not the paper's), pooled apart" in printed


def test_an_experiment_file_over_two_papers_suites_or_a_suite_and_other_configs_is_refused(tmp_path, capsys,
                                                                                            monkeypatch):
    monkeypatch.chdir(tmp_path)
    for paper in ("compgen", "crest"):
        (tmp_path / paper).mkdir()
        (tmp_path / paper / "protocol.yml").write_text((ROOT / "dataset_configs" / paper / "protocol.yml").read_text())
        (tmp_path / paper / "demo.yaml").write_text(
            yaml.safe_dump(tiny_config(ROOT / "dataset_configs" / "demo.yaml"), sort_keys=False))
    experiment = tmp_path / "exp.yaml"
    experiment.write_text(yaml.safe_dump({"experiment": {"configs": ["compgen", "crest"], "models": ["blind"]}}))
    assert main(["run", str(experiment)]) == 2
    err = capsys.readouterr().err.strip()
    assert "exp.yaml: experiment.configs: folders of several papers' suites" in err and len(err.splitlines()) == 1
    experiment.write_text(yaml.safe_dump({"experiment": {"configs": ["compgen", "crest/demo.yaml"],
                                                         "models": ["blind"]}}))
    assert main(["run", str(experiment)]) == 2
    err = capsys.readouterr().err.strip()
    assert ("exp.yaml: experiment.configs: crest/demo.yaml beside the suite of the compositional-generalisation "
            "study: its protocol (keys, splits) would apply to them too") in err and len(err.splitlines()) == 1
    assert not (tmp_path / "output").exists()


@pytest.mark.render
def test_byo_eval_poker_suite_asks_its_prompt_grid_and_reports_its_key_alone(tmp_path, capsys):
    """`byo run` on a shrunk copy of BYO-Eval's suite with its poker count config (protocol.yml and
    poker_count.yaml at 2 and 3 cards, an image each): every question in B.2's grid (neutral,
    helpful, cot x declarative, fill_blank), the config's own key only, and a results table whose
    rows are that key and the pool of it, nothing else."""
    suite = tmp_path / "byo_eval"
    suite.mkdir()
    (suite / "protocol.yml").write_text((ROOT / "dataset_configs" / "byo_eval" / "protocol.yml").read_text())
    data = tiny_config(ROOT / "dataset_configs" / "byo_eval" / "poker_count.yaml", resolution=[384, 216])
    data["dataset"]["n_images"] = 1
    data["variables"]["content.total_cards"] = {"type": "varying_all", "levels": [2, 3]}
    (suite / "poker_count.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "out"
    result = run_json(capsys, str(suite), "--model", "blind", "--model", "oracle", "-o", str(out))
    asked = [json.loads(line) for line in (out / "byo_eval_poker_count" / "questions.jsonl").read_text().splitlines()]
    grid = {(p, i) for p in ("neutral", "helpful", "cot") for i in ("declarative", "fill_blank")}
    assert {(q["preprompt"], q["instruction"]) for q in asked} == grid and len(asked) == 2 * len(grid)
    assert {q["key"] for q in asked} == {"count_total_cards"}
    rows = {(r["model"], r["key"]): r for r in result["results"]}
    assert set(rows) == {(m, k) for m in ("blind", "oracle") for k in ("*", "count_total_cards")}
    assert rows[("oracle", "*")]["n"] == rows[("oracle", "count_total_cards")]["n"] == len(asked)
    assert rows[("oracle", "count_total_cards")]["accuracy"] == 1.0
    levels = {c["level"] for c in result["levels"] if c["variable"] == "content.total_cards"}
    assert levels == {"2", "3"}


@pytest.mark.render
def test_byo_eval_poker_overlap_prints_fig_36s_absolute_error_per_overlap_and_count(tmp_path, capsys):
    """`byo run` on a shrunk copy of BYO-Eval's suite with its horizontal overlap config (2 and 3
    cards x overlap 0 and 0.6, an image each): B.2's grid asked, and Fig. 36's absolute error per
    overlap x count cell, the oracle's 0 in each, the blind's its own replies' mean |error|."""
    suite = tmp_path / "byo_eval"
    suite.mkdir()
    (suite / "protocol.yml").write_text((ROOT / "dataset_configs" / "byo_eval" / "protocol.yml").read_text())
    data = tiny_config(ROOT / "dataset_configs" / "byo_eval" / "poker_count_overlap_horizontal.yaml",
                       resolution=[384, 216])
    data["dataset"]["n_images"] = 1
    data["variables"]["content.overlap.count"] = {"type": "varying_all", "levels": [2, 3]}
    data["variables"]["content.overlap.factor"] = {"type": "varying_all", "levels": [0.0, 0.6]}
    (suite / "poker_count_overlap_horizontal.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "out"
    result = run_json(capsys, str(suite), "--model", "blind", "--model", "oracle", "-o", str(out))
    dataset = out / "byo_eval_poker_count_overlap_horizontal"
    asked = asked_in(dataset)
    grid = {(p, i) for p in ("neutral", "helpful", "cot") for i in ("declarative", "fill_blank")}
    assert {(q["preprompt"], q["instruction"]) for q in asked} == grid
    assert {q["key"] for q in asked} == {"count_cards_overlap"}
    fig_36 = headline_of(result, "byo_eval_errors")
    oracle = fig_36[(dataset.name, "oracle")]
    assert {(r["variable"], r["variable2"]) for r in oracle} == {("content.overlap.count", "content.overlap.factor")}
    assert {(r["level"], r["level2"]) for r in oracle} == {(n, o) for n in ("2", "3") for o in ("0", "0.6")}
    assert all(r["mae"] == 0.0 and r["n"] == len(grid) for r in oracle)
    # the blind answers one count (the most common truth, 2 or 3) whatever the image: its error
    # is the same at both overlaps, 0 at its own count and 1 at the other
    blind = {(r["level"], r["level2"]): r["mae"] for r in fig_36[(dataset.name, "blind")]}
    assert all(blind[(n, "0")] == blind[(n, "0.6")] for n in ("2", "3"))
    assert sorted([blind[("2", "0")], blind[("3", "0")]]) == [0.0, 1.0]
    assert [e["table"] for e in result["across"]] == ["byo_eval_task"]


@pytest.mark.render
def test_autocomp_suite_asks_its_binding_keys_and_prints_table_4(tmp_path, capsys):
    """`byo run` on a shrunk copy of Auto-Comp's suite (protocol.yml and color.yaml at one N = 2
    concept, rendered Minimal and Contextual): only the paper's Swap and Confusion sets are asked,
    in one prompt variant, no CLEVR key; it prints Table 4 (accuracy beside chance per set, N and
    condition) and Table 5's paired Minimal vs Contextual rows."""
    suite = tmp_path / "autocomp"
    suite.mkdir()
    (suite / "protocol.yml").write_text((ROOT / "dataset_configs" / "autocomp" / "protocol.yml").read_text())
    data = tiny_config(ROOT / "dataset_configs" / "autocomp" / "color.yaml", resolution=[160, 120])
    data["variables"]["content.count"] = {"type": "varying_all", "levels": [2]}
    data["variables"]["content.concept"] = {"type": "varying_all_range", "min": 0, "max": 0}
    (suite / "color.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "out"
    result = run_json(capsys, str(suite), "--model", "blind", "--model", "oracle", "-o", str(out))
    asked = [json.loads(line) for line in (out / "autocomp_color" / "questions.jsonl").read_text().splitlines()]
    assert {q["key"] for q in asked} == {"autocomp_swap", "autocomp_confusion"} and len(asked) == 4
    assert {(q["preprompt"], q["instruction"]) for q in asked} == {("neutral", "direct")}
    assert {r["key"] for r in result["results"]} == {"*", "autocomp_swap", "autocomp_confusion"}
    table_4 = {e["model"]: e["rows"] for e in result["headline"] if e["table"] == "autocomp"}
    assert {(r["key"], r["task"], r["n_objects"], r["condition"]) for r in table_4["oracle"]} == {
        (k, "color", 2, c) for k in ("autocomp_swap", "autocomp_confusion") for c in ("minimal", "contextual")}
    assert all(r["accuracy"] == 1.0 and r["n"] == 1 for r in table_4["oracle"])
    assert {r["key"]: r["chance"] for r in table_4["blind"]} == pytest.approx(
        {"autocomp_swap": 1 / 2, "autocomp_confusion": 1 / 15})
    paired = {e["model"]: e["rows"] for e in result["headline"] if e["table"] == "autocomp_paired"}
    assert {(r["key"], r["concepts"], r["delta_pp"]) for r in paired["oracle"]} == {
        ("autocomp_swap", 1, 0.0), ("autocomp_confusion", 1, 0.0)}
    assert main(["run", str(suite), "--model", "blind", "--model", "oracle", "-o", str(out), "--workers", "1"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "autocomp_color, Auto-Comp's headline: Binding (Auto-Comp) beside chance" in printed
    assert "│ blind │ autocomp_swap │" in printed and "│ oracle │ autocomp_swap │" in printed  # the models side by side


def test_a_protocol_naming_an_unknown_headline_table_is_refused_before_any_work(tmp_path, capsys):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "demo.yaml").write_text(yaml.safe_dump(tiny_config(ROOT / "dataset_configs" / "demo.yaml"), sort_keys=False))
    (suite / "protocol.yml").write_text(yaml.safe_dump({"protocol": {"paper": "X", "tables": ["autocomp", "nosuch"]}}))
    assert main(["run", str(suite), "--model", "blind", "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert "protocol.yml: protocol.tables: unknown table 'nosuch'; expected one of" in err and "autocomp" in err, err
    assert len(err.splitlines()) == 1 and not (tmp_path / "out").exists()


@pytest.mark.render
def test_compass_suite_asks_composed_and_decomposed_captions_and_prints_its_integration_gap(tmp_path, capsys):
    """`byo run` on a shrunk copy of COMPASS's suite (protocol.yml and compass.yaml at one image,
    240 x 180: at 160 x 120 that image gets no question):
    only its questions are asked (composed, decomposed and skill-targeted captions at every level
    and N), in one prompt variant; it prints Table 2 (R@1 composed vs decomposed and the gap per
    structural level, the rows per N folded away) and Table 3's skill load."""
    suite = shrunk_suite(tmp_path, "compass", "compass.yaml", [240, 180], 1)
    out = tmp_path / "out"
    result = run_json(capsys, str(suite), "--model", "blind", "--model", "oracle", "-o", str(out))
    asked = [json.loads(line) for line in (out / "compass" / "questions.jsonl").read_text().splitlines()]
    kinds = {(q["key"].split("_")[1], q["key"].split("_")[3]) for q in asked}
    assert kinds == {(level, kind) for level in ("oa", "or", "oar") for kind in ("composed", "decomposed", "skill")}
    assert all(q["key"].startswith("compass_") for q in asked)
    assert {(q["preprompt"], q["instruction"]) for q in asked} == {("neutral", "direct")}
    assert all(r["key"] == "*" or r["key"].startswith("compass_") for r in result["results"])
    table_2 = {e["model"]: e["rows"] for e in result["headline"] if e["table"] == "compass_integration"}
    assert {(r["level"], r["n"]) for r in table_2["oracle"]} == {("OA", "all"), ("OR", "all"), ("OAR", "all")}
    assert all(r["r1_composed"] == r["r1_decomposed"] == 1.0 and r["delta"] == 0 for r in table_2["oracle"])
    assert {r["level"] for r in table_2["blind"]} == {"OA", "OR", "OAR"}
    skill = {(r["level"], r["skill"]) for e in result["headline"] if e["table"] == "compass_skill_load"
             for r in e["rows"] if e["model"] == "oracle"}
    assert skill == {("OA", "O"), ("OA", "A"), ("OR", "O"), ("OR", "R"), ("OAR", "O"), ("OAR", "A"), ("OAR", "R")}


@pytest.mark.render
def test_received_size_renders_for_the_models_records_it_and_refuses_a_folder_rendered_for_others(
        tmp_path, capsys, monkeypatch):
    """byo run --received-size: each config rendered at the largest size its image models receive
    (here the tiny config's own: GPT-4.1 and Claude receive 64x48 whole), the sizes in
    rendered_for.json and in every legend; a folder rendered for another model at another size is
    refused in one line before any work (never upscaled)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    config = tmp_path / "demo.yaml"
    data = tiny_config(ROOT / "dataset_configs" / "demo.yaml")
    data["dataset"]["n_images"] = 1
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    with FakeVLM(lambda seen: "3") as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")
        run_json(capsys, str(config), "--model", "blind", "--model", "openai:gpt-4.1", "--received-size",
                 "-o", str(tmp_path / "out"))
    dataset = tmp_path / "out" / "demo"
    record = json.loads((dataset / "rendered_for.json").read_text())
    assert record["config"] == record["rendered"] == [64, 48] and record["received"] == {"openai:gpt-4.1": [64, 48]}
    legend = json.loads(next((dataset / "legends").glob("*.json")).read_text())
    assert legend["setup"]["render"]["counterfactual"]["received"] == {"openai:gpt-4.1": [64, 48]}
    summary = json.loads((dataset / "questions_summary.json").read_text())
    assert summary["received"]["openai:gpt-4.1"]["received"] == [64, 48]  # decided for it too: received whole

    other = tmp_path / "other" / "demo"
    other.mkdir(parents=True)
    (other / "rendered_for.json").write_text(json.dumps({"config": [64, 48], "rendered": [32, 24],
                                                         "models": {"openai:gpt-4o": {}}}))
    capsys.readouterr()
    assert main(["run", str(config), "--model", "openai:gpt-4.1", "--received-size", "-o", str(tmp_path / "other"),
                 "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "rendered at 32x24 for openai:gpt-4.1" not in err and "openai:gpt-4.1 receives more" in err
    assert "received_size" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (other / "legends").exists()
