"""Image-text models (`byo eval --provider hf-clip / clip / rank-oracle / rank-blind`): a tiny
randomly initialised CLIP and SigLIP (tests/support/clip_tiny.py, built from configs, nothing downloaded)
rank every question's candidate captions end to end through byo eval and byo score; a second run
reuses every cached embedding (0 model calls, shown by the counter); a run killed midway resumes
without computing an embedding or a question twice; the reference rankers score 1 and the
chance; missing libraries and questions without candidates are clear errors."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from retrieval_data import make_retrieval_dataset

from byo.cli import main

ROOT = Path(__file__).resolve().parents[2]
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def run_info(dataset: Path, run: str) -> dict:
    return json.loads((dataset / "runs" / run / "run.json").read_text())


def distinct_items(dataset: Path) -> tuple[int, int]:
    qs = rows(dataset / "questions.jsonl")
    return len({q["image"] for q in qs}), len({c for q in qs for c in q["retrieval"]["captions"]})


def embeddings_stored(dataset: Path) -> int:
    with sqlite3.connect(dataset / "runs" / "embeddings.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]


# --- reference rankers (no model) ------------------------------------------------------------
def test_rank_oracle_scores_one_and_rank_blind_ties_at_the_chance(tmp_path):
    ds = make_retrieval_dataset(tmp_path / "ds", 12, variants=("neutral", "cot"))
    for provider in ("rank-oracle", "rank-blind"):
        assert main(["eval", str(ds), "--provider", provider, "--run", provider]) == 0
        assert main(["score", str(ds / "runs" / provider)]) == 0
    oracle = rows(ds / "runs/rank-oracle/parsed.jsonl")
    blind = rows(ds / "runs/rank-blind/parsed.jsonl")
    assert len(oracle) == len(blind) == 24
    assert all(r["recall_at_1"] == 1.0 and r["correct"] for r in oracle)
    # the blind ranker cannot tell the captions apart: a tie at the top of every question, credited
    # 1 / k as a uniformly random tie-break scores on average: the chance (docs/scoring.md)
    assert all(math.isclose(r["recall_at_1"], 1 / r["n_candidates"]) and r["recall_at_1_strict"] == 0.0
               and r["status"] == "ambiguous" and len(r["candidates"]) == r["n_candidates"]
               and math.isclose(r["chance"], 1 / r["n_candidates"]) for r in blind)
    assert {r["n_candidates"] for r in blind} == {3, 4, 5}
    table = json.loads((ds / "runs/rank-blind/scores.json").read_text())["tables"]["retrieval"]
    overall = next(t for t in table if t["variant"] == "all")
    assert math.isclose(overall["recall_at_1"], overall["chance"]) and overall["recall_at_1_strict"] == 0.0
    assert run_info(ds, "rank-oracle")["model_calls"] == {"image_batches": 0, "text_batches": 0, "images": 0,
                                                         "texts": 0}


def test_questions_without_candidates_are_a_clear_error(tmp_path, capsys):
    from eval_data import make_dataset

    ds = make_dataset(tmp_path / "ds", 3)
    assert main(["eval", str(ds), "--provider", "rank-oracle"]) == 2
    err = capsys.readouterr().err
    assert "no question carries candidate captions" in err and "questions.jsonl" in err


def test_a_missing_library_names_the_extra(tmp_path, monkeypatch, capsys):
    ds = make_retrieval_dataset(tmp_path / "ds", 2)
    for k, v in OFFLINE.items():
        monkeypatch.setenv(k, v)
    for library in ("transformers", "open_clip"):  # importing either fails, as where it is not installed
        monkeypatch.setitem(sys.modules, library, None)
    for provider, model, missing in (("hf-clip", "org/model", "transformers"), ("clip", "ViT-B-32/laion2b_s34b_b79k",
                                                                                "open_clip")):
        assert main(["eval", str(ds), "--provider", provider, "--model", model]) == 2
        err = capsys.readouterr().err
        assert missing in err and "byo-render[clip]" in err
        assert "Traceback" not in err


def test_open_clip_model_names_are_checked_before_loading(tmp_path, capsys):
    ds = make_retrieval_dataset(tmp_path / "ds", 2)
    assert main(["eval", str(ds), "--provider", "clip", "--model", "ViT-B-32"]) == 2
    assert "ARCH/PRETRAINED" in capsys.readouterr().err


# --- tiny transformers models ----------------------------------------------------------------
HAVE_TORCH = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers"))
needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="torch and transformers (the dev extra) are not installed")


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    for k, v in OFFLINE.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory) -> Path:
    from clip_tiny import save_tiny_clip

    return save_tiny_clip(tmp_path_factory.mktemp("tiny-clip"))


@pytest.fixture(scope="module")
def tiny_siglip(tmp_path_factory) -> Path:
    from clip_tiny import save_tiny_siglip

    return save_tiny_siglip(tmp_path_factory.mktemp("tiny-siglip"))


def eval_command(dataset: Path, model: Path, run: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "byo.cli", "eval", str(dataset), "--provider", "hf-clip", "--model", str(model),
            "--run", run, "--device", "cpu", *extra]


@needs_torch
def test_tiny_clip_ranks_end_to_end_and_a_second_run_calls_no_model(tiny_clip, tmp_path, capsys, monkeypatch):
    ds = make_retrieval_dataset(tmp_path / "ds", 10, variants=("neutral", "cot"))
    for k, v in {**OFFLINE, "HF_HOME": str(tmp_path / "hf-home")}.items():  # both runs in this process
        monkeypatch.setenv(k, v)
    assert main(eval_command(ds, tiny_clip, "first", "--batch-size", "3")[3:]) == 0
    images, captions = distinct_items(ds)
    calls = run_info(ds, "first")["model_calls"]
    # every image and caption embedded once, at most --batch-size at a time
    assert (calls["images"], calls["texts"]) == (images, captions)
    assert calls["image_batches"] >= math.ceil(images / 3) and calls["text_batches"] >= math.ceil(captions / 3)
    assert calls["images"] / calls["image_batches"] <= 3 and calls["texts"] / calls["text_batches"] <= 3
    assert embeddings_stored(ds) == images + captions
    predictions = rows(ds / "runs/first/predictions.jsonl")
    assert len(predictions) == 20 and all(p["status"] == "ok" and p["ranked"] for p in predictions)
    for p in predictions:  # the ranking orders the similarities; the response is the top caption
        sims = p["similarities"]
        assert [sims[k] for k in p["ranking"]] == sorted(sims, reverse=True)
        assert all(-1.0 - 1e-6 <= s <= 1.0 + 1e-6 for s in sims)
    # what the model receives beside the sent size: its processor's shortest edge and centre crop
    crop = json.loads((tiny_clip / "processor_config.json").read_text())["image_processor"]["crop_size"]["height"]
    assert all(p["image"]["received"]["size"] == [crop, crop] and p["image"]["received"]["cropped"]
               and p["image"]["sent_size"] for p in predictions)
    # stored as computed, not rounded to 6 decimals (a rounding makes ties of near-equal similarities)
    assert any(round(s, 6) != s for p in predictions for s in p["similarities"])

    capsys.readouterr()
    assert main(eval_command(ds, tiny_clip, "second", "--batch-size", "3")[3:]) == 0
    assert "model calls 0 (0 images, 0 captions embedded" in " ".join(capsys.readouterr().err.split())
    assert run_info(ds, "second")["model_calls"] == {"image_batches": 0, "text_batches": 0, "images": 0, "texts": 0}
    again = rows(ds / "runs/second/predictions.jsonl")
    assert [(p["id"], p["ranking"], p["similarities"]) for p in again] == \
        [(p["id"], p["ranking"], p["similarities"]) for p in predictions]

    assert main(["score", str(ds / "runs/first")]) == 0
    parsed = rows(ds / "runs/first/parsed.jsonl")
    truth = {q["id"]: q["retrieval"]["truth"] for q in rows(ds / "questions.jsonl")}
    for r, p in zip(parsed, predictions, strict=True):
        assert r["recall_at_1"] == (1.0 if p["ranking"][0] == truth[p["id"]] else 0.0)
    table = json.loads((ds / "runs/first/scores.json").read_text())["tables"]["retrieval"]
    overall = next(t for t in table if t["variant"] == "all")
    assert overall["n"] == 20 and overall["ranked"]
    assert math.isclose(overall["recall_at_1"], sum(r["recall_at_1"] for r in parsed) / 20)


@pytest.mark.slow
@needs_torch
def test_a_killed_run_resumes_without_computing_anything_twice(tiny_clip, tmp_path, monkeypatch):
    ds = make_retrieval_dataset(tmp_path / "ds", 32)
    predictions = ds / "runs/tiny/predictions.jsonl"
    env = {**os.environ, **OFFLINE, "HF_HOME": str(tmp_path / "hf-home")}
    proc = subprocess.Popen(eval_command(ds, tiny_clip, "tiny", "--batch-size", "1"), cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300  # a bound against a hang, not a measurement
    while len(rows(predictions)) < 8 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    _, err = proc.communicate()
    assert proc.returncode == -signal.SIGKILL, err.decode()[-2000:]
    journalled = {r["id"]: r for r in rows(predictions) if r["status"] == "ok"}
    assert 8 <= len(journalled) < 32, "the kill should land mid-run"
    stored_before = embeddings_stored(ds)

    for k, v in {**OFFLINE, "HF_HOME": env["HF_HOME"]}.items():  # resumed in this process
        monkeypatch.setenv(k, v)
    assert main(eval_command(ds, tiny_clip, "tiny", "--batch-size", "1")[3:]) == 0
    info = run_info(ds, "tiny")
    assert info["resumed"] == len(journalled)  # journalled questions are not ranked again
    images, captions = distinct_items(ds)
    calls = info["model_calls"]
    # no embedding computed twice: the resumed run embeds exactly what the killed one had not stored
    assert calls["images"] + calls["texts"] == images + captions - stored_before
    assert embeddings_stored(ds) == images + captions
    final = rows(predictions)
    assert [r["id"] for r in final] == [q["id"] for q in rows(ds / "questions.jsonl")]
    assert all(r["status"] == "ok" for r in final)
    assert all(r["similarities"] == journalled[r["id"]]["similarities"] for r in final if r["id"] in journalled)


@needs_torch
def test_tiny_siglip_ranks_through_the_same_path(tiny_siglip, tmp_path):
    ds = make_retrieval_dataset(tmp_path / "ds", 4)
    assert main(["eval", str(ds), "--provider", "hf-clip", "--model", str(tiny_siglip), "--run", "siglip",
                 "--batch-size", "2", "--device", "cpu"]) == 0
    predictions = rows(ds / "runs/siglip/predictions.jsonl")
    assert len(predictions) == 4 and all(p["ranked"] and len(p["ranking"]) == len(p["similarities"])
                                         for p in predictions)
    assert run_info(ds, "siglip")["model_calls"]["images"] == 4


@needs_torch
def test_a_folder_that_is_not_an_image_text_model_is_named(tmp_path, capsys):
    ds = make_retrieval_dataset(tmp_path / "ds", 2)
    (tmp_path / "empty").mkdir()
    assert main(["eval", str(ds), "--provider", "hf-clip", "--model", str(tmp_path / "empty"), "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert "--model" in err and "could not load" in err


def _open_clip_importable() -> bool:
    try:
        import open_clip  # noqa: F401
    except Exception:  # not installed, or its torchvision built for another torch
        return False
    return True


@pytest.mark.skipif(not _open_clip_importable(), reason="open_clip is not importable here: it needs torchvision, "
                    "and PyPI's torchvision does not import beside the local CPU torch 2.13.0 wheel")
def test_a_tiny_open_clip_model_ranks_end_to_end(tmp_path, monkeypatch):
    import open_clip
    import torch

    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "tiny-byo.json").write_text(json.dumps({
        "embed_dim": 16,
        "vision_cfg": {"image_size": 32, "layers": 1, "width": 16, "patch_size": 8, "head_width": 8},
        "text_cfg": {"context_length": 32, "vocab_size": 49408, "width": 16, "heads": 2, "layers": 1}}))
    open_clip.add_model_config(configs)
    torch.manual_seed(0)
    checkpoint = tmp_path / "tiny.pt"
    torch.save(open_clip.create_model("tiny-byo").state_dict(), checkpoint)
    ds = make_retrieval_dataset(tmp_path / "ds", 4)
    assert main(["eval", str(ds), "--provider", "clip", "--model", f"tiny-byo/{checkpoint}", "--run", "oc",
                 "--device", "cpu", "--batch-size", "2"]) == 0
    predictions = rows(ds / "runs/oc/predictions.jsonl")
    assert len(predictions) == 4 and all(p["ranked"] for p in predictions)
    assert run_info(ds, "oc")["model_calls"]["images"] == 4
    assert main(["eval", str(ds), "--provider", "clip", "--model", f"tiny-byo/{checkpoint}", "--run", "oc2",
                 "--device", "cpu"]) == 0
    assert run_info(ds, "oc2")["model_calls"]["images"] == 0
