"""`byo export` (hf, vlmevalkit, the lmms-eval and Inspect folders) and `byo import-predictions`,
in the project's virtualenv, on the fake dataset of score_fixtures (no rendering). The harnesses
themselves run in tests/export/test_harnesses.py."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from PIL import Image
from score_fixtures import make_dataset, make_fake_runs

from byo.cli import main
from byo.export.scoring import Scorer
from byo.providers.reference import answer_text


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    root = tmp_path_factory.mktemp("fake")
    questions = make_dataset(root)
    return root, questions


@pytest.fixture(scope="module")
def hf(dataset, tmp_path_factory):
    root, _ = dataset
    out = tmp_path_factory.mktemp("export") / "hf"
    assert main(["export", str(root), "--format", "hf", "-o", str(out)]) == 0
    return out


def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))


def test_hf_export_loads_offline_with_the_questions_and_answers(hf, dataset, monkeypatch, tmp_path):
    datasets = pytest.importorskip("datasets")
    offline(monkeypatch, tmp_path)
    root, questions = dataset
    ds = datasets.load_dataset(str(hf), split="test")
    assert len(ds) == len(questions)
    features = ds.features
    assert isinstance(features["image"], datasets.Image)
    for column in ("key", "task", "answer_type", "preprompt", "instruction", "family"):
        assert isinstance(features[column], datasets.ClassLabel), column
    assert features["levels"]["content.count"].dtype == "int64"
    assert isinstance(features["levels"]["blur.fstop"], datasets.ClassLabel)
    assert features["levels"]["blur.fstop"].names == ["none", "low", "high"]
    rows = ds.remove_columns("image").to_list()
    for q, row in zip(questions, rows, strict=True):
        assert row["id"] == q["id"] and row["prompt"] == q["prompt"]
        assert json.loads(row["answer_json"]) == q["answer"]
        assert row["answer"] == answer_text(q["answer"])
        for column in ("key", "task", "answer_type", "preprompt", "instruction", "family"):
            assert features[column].int2str(row[column]) == q[column], column
        assert row["choices"] == q["choices"]
        assert json.loads(row["params"]) == q["params"]
        assert row["image_id"] == q["image"].split("/")[-1].removesuffix(".png")
        levels = dict(row["levels"])
        levels["blur.fstop"] = features["levels"]["blur.fstop"].int2str(levels["blur.fstop"])
        assert levels == q["levels"]
    for i in (0, len(questions) // 2, len(questions) - 1):  # the embedded image is the rendered one
        original = np.asarray(Image.open(root / questions[i]["image"]).convert("RGB"))
        assert np.array_equal(np.asarray(ds[i]["image"].convert("RGB")), original)


def test_hf_export_stores_each_image_once_and_has_a_card(hf, dataset):
    root, questions = dataset
    images = {q["image"] for q in questions}
    image_bytes = sum((root / image).stat().st_size for image in images)
    shards = sorted((hf / "data").glob("test-*.parquet"))
    assert shards and shards[0].name == f"test-00000-of-{len(shards):05d}.parquet"
    # 27 questions per image, yet the image column holds about one copy of each image
    import pyarrow.parquet as pq

    stored = 0
    for shard in shards:
        meta = pq.ParquetFile(shard).metadata
        for g in range(meta.num_row_groups):
            group = meta.row_group(g)
            stored += sum(group.column(c).total_compressed_size for c in range(group.num_columns)
                          if group.column(c).path_in_schema == "image.bytes")
    assert image_bytes * 0.8 < stored < image_bytes * 1.1
    text = (hf / "README.md").read_text()
    head, body = text.split("---\n")[1], text.split("---\n", 2)[2]
    card = yaml.safe_load(head)
    assert card["license"] == "cc-by-4.0" and card["task_categories"] == ["visual-question-answering"]
    assert card["configs"] == [{"config_name": "default", "data_files": [{"split": "test", "path": "data/test-*"}]}]
    assert card["dataset_info"]["splits"][0]["num_examples"] == len(questions)
    assert {f["name"] for f in card["dataset_info"]["features"]} >= {"image", "answer", "levels", "key"}
    assert "| `blur.fstop` |" in body and "| `content.count` |" in body  # the levels table
    assert "![A sample of the images with their levels](thumbnails.png)" in body
    thumbs = Image.open(hf / "thumbnails.png")
    assert thumbs.width > 400 and np.asarray(thumbs.convert("L")).std() > 10


def test_vlmevalkit_tsv_layout(dataset, tmp_path):
    root, questions = dataset
    out = tmp_path / "vk"
    assert main(["export", str(root), "--format", "vlmevalkit", "-o", str(out), "--task", "BYO_fake"]) == 0
    open_rows = pd.read_csv(out / "BYO_fake.tsv", sep="\t", keep_default_na=False, dtype=str)
    mcq = pd.read_csv(out / "BYO_fake_MCQ.tsv", sep="\t", keep_default_na=False, dtype=str)
    assert "A" not in open_rows and list(mcq.columns[:8]) == ["index", "image", "question", "answer", "A", "B", "C",
                                                             "D"]
    assert len(open_rows) + len(mcq) == len(questions)
    carriers = {}
    for table in (open_rows, mcq):
        for row in table.to_dict("records"):
            q = questions[int(row["index"])]  # index: the question's line in questions.jsonl
            assert row["id"] == q["id"] and row["question"] == q["prompt"] and row["category"] == q["key"]
            assert row["answer"] == answer_text(q["answer"])
            if len(row["image"]) > 64:  # the image itself, base64 ...
                assert base64.b64decode(row["image"]) == (root / q["image"]).read_bytes()
                carriers[row["index"]] = q["image"]
            else:  # ... or the index of an earlier row of the same file that carries it
                assert carriers[row["image"]] == q["image"]
            if q["answer_type"] == "multiple_choice":
                assert [row[c] for c in "ABCD"] == q["choices"] and row["answer"] in "ABCD"
    assert "--data BYO_fake BYO_fake_MCQ" in (out / "README.md").read_text()


def function_loader():
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))
    return Loader


def test_lmms_eval_and_inspect_folders(dataset, tmp_path):
    root, questions = dataset
    lmms, inspect = tmp_path / "lmms", tmp_path / "inspect"
    assert main(["export", str(root), "--format", "lmms-eval", "-o", str(lmms), "--task", "byo_fake"]) == 0
    config = yaml.load((lmms / "byo_fake.yaml").read_text(), Loader=function_loader())
    assert config["task"] == "byo_fake" and config["process_results"] == ("function", "utils.process_results")
    # the Parquet files named relative to the YAML, as lmms-eval resolves a local builder's data_files
    files = config["dataset_kwargs"]["data_files"]["test"]
    assert config["dataset_path"] == "parquet" and files and not any(Path(f).is_absolute() for f in files)
    assert all((lmms / f).is_file() for f in files) and (lmms / "hf" / "README.md").is_file()
    assert config["generation_kwargs"]["until"] == []
    assert [m["metric"] for m in config["metric_list"]] == ["byo_accuracy", "byo_parse_rate", "byo_nmae"]
    assert (lmms / "questions.jsonl").read_text() == (root / "questions.jsonl").read_text()
    moved = tmp_path / "elsewhere" / "task"  # a moved task folder still holds its dataset
    moved.parent.mkdir()
    lmms.rename(moved)
    datasets = pytest.importorskip("datasets")
    docs = datasets.load_dataset("parquet", data_files={"test": [str(moved / f) for f in files]}, split="test")
    assert docs["id"] == [q["id"] for q in questions] and isinstance(docs.features["image"], datasets.Image)
    assert main(["export", str(root), "--format", "inspect", "-o", str(inspect), "--task", "byo_fake"]) == 0
    task = (inspect / "task.py").read_text()
    assert "@task\ndef byo_fake() -> Task:" in task and 'NAME = \'byo_fake\'' in task
    assert all((inspect / q["image"]).is_file() for q in questions)
    compile(task, "task.py", "exec")


def test_scorer_judges_as_byo_score(tmp_path):
    """The function the exported harness tasks call gives byo score's verdict on every answer."""
    root = tmp_path / "data"
    run, _ = make_fake_runs(root)
    assert main(["score", str(run), "--bootstrap", "0"]) == 0
    parsed = [json.loads(line) for line in (run / "parsed.jsonl").read_text().splitlines()]
    scorer = Scorer.from_file(root / "questions.jsonl")
    predictions = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    records = [scorer.score(p["id"], p["response"], status=p["status"]) for p in predictions]
    assert [r["correct"] for r in records] == [p["correct"] for p in parsed]
    assert [r["status"] for r in records] == [p["status"] for p in parsed]
    assert 0.3 < sum(r["correct"] for r in records) / len(records) < 0.95  # a mix, not all one way
    with pytest.raises(KeyError, match="not a question id"):
        scorer.score("nope", "3")


@pytest.mark.slow
def test_import_jsonl_is_a_run_like_byo_eval_writes(dataset, tmp_path):
    root, questions = dataset
    data = tmp_path / "data"
    make_dataset(data)
    assert main(["eval", str(data), "--provider", "oracle", "--run", "oracle"]) in (0, 1)
    answers = tmp_path / "answers.jsonl"
    # every other question answered by the oracle's text, the rest wrongly; in a shuffled order
    lines = [{"id": q["id"], "response": answer_text(q["answer"]) if i % 2 == 0 else "I do not know",
              "model": "elsewhere-vlm"} for i, q in enumerate(questions)]
    answers.write_text("".join(json.dumps(x) + "\n" for x in reversed(lines)))
    assert main(["import-predictions", str(answers), "--format", "jsonl", "--dataset", str(data)]) == 0
    run = data / "runs" / "jsonl-elsewhere-vlm"
    rows = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    oracle = [json.loads(line) for line in (data / "runs" / "oracle" / "predictions.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == [q["id"] for q in questions]  # question order, like byo eval
    assert set(rows[0]) == set(oracle[0])  # the same fields as byo eval's rows
    info = json.loads((run / "run.json").read_text())
    assert info["request"]["model"] == "elsewhere-vlm" and info["imported"]["format"] == "jsonl"
    assert main(["score", str(run), "--bootstrap", "0"]) == 0
    scores = json.loads((run / "scores.json").read_text())
    assert scores["run"]["model"] == "elsewhere-vlm" and scores["run"]["unanswered"] == 0
    parsed = {p["id"]: p for p in map(json.loads, (run / "parsed.jsonl").read_text().splitlines())}
    assert all(parsed[q["id"]]["correct"] for q in questions[::2])
    assert not any(parsed[q["id"]]["correct"] for q in questions[1::2])
    assert main(["report", str(run), "-o", str(tmp_path / "report.html"), "--bootstrap", "0"]) == 0
    # a second import into the same run is refused unless asked for
    assert main(["import-predictions", str(answers), "--format", "jsonl", "--dataset", str(data)]) == 2


def test_bad_input_exits_2_naming_the_problem_before_writing(dataset, tmp_path, capsys):
    root, questions = dataset
    out = tmp_path / "out"
    assert main(["export", str(tmp_path / "missing"), "--format", "hf", "-o", str(out)]) == 2
    assert "missing: <dataset>: not a directory" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["export", str(empty), "--format", "inspect", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "questions.jsonl: <file>: file not found" in err and "byo questions" in err
    with pytest.raises(SystemExit) as exit_:
        main(["export", str(root), "--format", "parquet", "-o", str(out)])
    assert exit_.value.code == 2 and "invalid choice: 'parquet'" in capsys.readouterr().err
    assert not out.exists()
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    assert main(["export", str(root), "--format", "hf", "-o", str(busy)]) == 2
    assert "busy: -o: holds files byo did not write (or changed since): keep.txt" in capsys.readouterr().err
    assert [p.name for p in busy.iterdir()] == ["keep.txt"]
    # a predictions file whose ids are not the dataset's
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": questions[0]["id"], "response": "3"}) + "\n"
                       + json.dumps({"id": "other_000001/count_pieces/neutral/direct", "response": "2"}) + "\n"
                       + json.dumps({"id": questions[0]["id"], "response": "4"}) + "\n"
                       + json.dumps({"response": "4"}) + "\n")
    assert main(["import-predictions", str(answers), "--format", "jsonl", "--dataset", str(root)]) == 2
    err = capsys.readouterr().err
    assert f"{answers}: line 4: id: required key is missing" in err
    answers.write_text("\n".join(answers.read_text().splitlines()[:3]) + "\n")
    assert main(["import-predictions", str(answers), "--format", "jsonl", "--dataset", str(root)]) == 2
    err = capsys.readouterr().err
    assert (f"{answers}: line 2: id: 'other_000001/count_pieces/neutral/direct' is not a question id of "
            f"{root / 'questions.jsonl'}; expected ids such as {questions[0]['id']!r}") in err.replace("\n", "")
    assert "line 3: id:" in err and "already answered (line 1)" in err
    assert main(["import-predictions", str(tmp_path / "none.jsonl"), "--format", "inspect", "--dataset",
                 str(root)]) == 2
    assert "none.jsonl: <file>: file not found" in capsys.readouterr().err
    not_a_log = tmp_path / "log.json"
    not_a_log.write_text("{}")
    assert main(["import-predictions", str(not_a_log), "--format", "inspect", "--dataset", str(root)]) == 2
    assert "log.json: eval: required key is missing" in capsys.readouterr().err
    assert not (root / "runs").exists()  # nothing was written


def test_inspect_json_and_lmms_logs_without_the_harness(dataset, tmp_path):
    """The readers on hand-written logs in each harness's layout; the harnesses' own logs are
    imported in tests/export/test_harnesses.py."""
    root, questions = dataset
    data = tmp_path / "data"
    make_dataset(data)
    q0, q1 = questions[0], questions[1]
    log = {"version": 2, "status": "success", "eval": {"task": "byo_fake", "model": "mockllm/model"},
           "samples": [{"id": q0["id"], "epoch": 1, "output": {"model": "mockllm/model", "choices": [
               {"message": {"role": "assistant", "content": [{"type": "text", "text": "There are 1 pieces."}]},
                "stop_reason": "stop"}], "usage": {"input_tokens": 5, "output_tokens": 4, "total_tokens": 9}},
               "total_time": 0.5},
               {"id": q1["id"], "epoch": 1, "output": {"choices": []}, "error": {"message": "boom"}}]}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    assert main(["import-predictions", str(path), "--format", "inspect", "--dataset", str(data)]) == 0
    rows = [json.loads(line) for line in (data / "runs" / "inspect-mockllm_model" / "predictions.jsonl")
            .read_text().splitlines()]
    assert [(r["id"], r["response"], r["status"]) for r in rows] == [(q0["id"], "There are 1 pieces.", "ok"),
                                                                      (q1["id"], None, "error")]
    assert rows[0]["tokens"] == {"input": 5, "output": 4, "total": 9} and rows[1]["error"] == "boom"
    # lmms-eval without byo's metric records: doc_id is the row, and the logged input must match
    samples = tmp_path / "20260101_000000_samples_byo_fake.jsonl"
    samples.write_text(json.dumps({"doc_id": 1, "input": q1["prompt"], "filtered_resps": "Row 2."}) + "\n")
    assert main(["import-predictions", str(samples), "--format", "lmms-eval", "--dataset", str(data),
                 "--model", "m"]) == 0
    rows = [json.loads(line) for line in (data / "runs" / "lmms-eval-m" / "predictions.jsonl").read_text().splitlines()]
    assert [(r["id"], r["response"]) for r in rows] == [(q1["id"], "Row 2.")]
    samples.write_text(json.dumps({"doc_id": 2, "input": q1["prompt"], "filtered_resps": "Row 2."}) + "\n")
    assert main(["import-predictions", str(samples), "--format", "lmms-eval", "--dataset", str(data),
                 "--run", "x"]) == 2



@pytest.mark.render
def test_hf_card_of_a_rendered_dataset_comes_from_its_config(tmp_path, monkeypatch):
    from conftest import clevr_config, write_config

    datasets = pytest.importorskip("datasets")
    config = write_config(tmp_path, clevr_config("cardtest", variables={
        "content.count": {"type": "varying_all", "levels": [3, 4]},
        "lighting.intensity": {"type": "varying_all", "levels": ["high", "low"]}}))
    data, out = tmp_path / "data", tmp_path / "hf"
    assert main(["render", str(config), "-o", str(data)]) == 0
    assert main(["questions", str(data), "--keys", "count_objects,exist_color_shape"]) == 0
    assert main(["export", str(data), "--format", "hf", "-o", str(out), "--license", "mit"]) == 0
    text = (out / "README.md").read_text()
    card = yaml.safe_load(text.split("---\n")[1])
    assert card["license"] == "mit" and card["pretty_name"] == "cardtest" and "clevr" in card["tags"]
    # a row per level: its images and questions (an image whose questions are all skipped counts for none)
    assert "| `lighting.intensity` | varying_all: high, low | high |" in text and "| `lighting.intensity` |  | low |" in text
    assert "| `content.count` | varying_all: 3, 4 | 3 |" in text and "| `content.count` |  | 4 |" in text
    assert "## Config" in text and "name: cardtest" in text
    offline(monkeypatch, tmp_path)
    ds = datasets.load_dataset(str(out), split="test")
    assert ds.features["levels"]["lighting.intensity"].names == ["high", "low"]  # the config's order
    questions = [json.loads(line) for line in (data / "questions.jsonl").read_text().splitlines()]
    assert ds["id"] == [q["id"] for q in questions]
    assert [json.loads(a) for a in ds["answer_json"]] == [q["answer"] for q in questions]
