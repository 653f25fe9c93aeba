"""Questions decided at the size each model receives (byo questions --for MODEL)."""

import json
from pathlib import Path

import numpy as np
from PIL import Image

import byo
from byo.questions.received import at_size

GOLDEN = Path(__file__).parents[1] / "golden" / "byo_eval__chess_identification_distance"
CLAUDE, LOW = "anthropic:claude-sonnet-4", "openai:gpt-4o"  # gpt-4o asked at detail low: 512 px


def full_hd(work: Path, name: str = "byo_eval_chess_identification_distance_000000") -> Path:
    """A 1920x1080 dataset of one golden chess image (a queen 6 px tall at 64x48): the image, its
    mask and its legend scaled up to 720x540 together and centred on a 1920x1080 canvas, so that
    the queen stands 68 px tall: readable at 1920x1080 (over the silhouette rule's 20 px) and at
    Claude's 1461x822 (52 px), not at a 512-px receipt (19 px)."""
    legend = json.loads((GOLDEN / "legends" / f"{name}.json").read_text())
    legend.pop("files", None)
    rgb = np.asarray(Image.open(GOLDEN / "images" / f"{name}.png").convert("RGB"))
    mask = np.asarray(Image.open(GOLDEN / "masks" / f"{name}.png").convert("L"))
    big = at_size(legend, rgb, mask, (720, 540))
    dx, dy = (1920 - 720) // 2, (1080 - 540) // 2
    canvas = np.pad(big.rgb, ((dy, dy), (dx, dx), (0, 0)), mode="edge")
    canvas_mask = np.pad(big.mask, ((dy, dy), (dx, dx)))
    objects = []
    for o in big.legend["objects"]:
        x0, y0, x1, y1 = o["bbox"]
        x, y, *rest = o["pixel_coords"]
        objects.append({**o, "bbox": [x0 + dx, y0 + dy, x1 + dx, y1 + dy], "pixel_coords": [x + dx, y + dy, *rest]})
    scaled = {**big.legend, "width": 1920, "height": 1080, "objects": objects,
              "setup": {**big.legend["setup"], "resolution": [1920, 1080]}}
    root = work / "full_hd"
    for sub in ("images", "masks", "legends"):
        (root / sub).mkdir(parents=True)
    Image.fromarray(canvas).save(root / "images" / f"{name}.png")
    Image.fromarray(canvas_mask).save(root / "masks" / f"{name}.png")
    (root / "legends" / f"{name}.json").write_text(json.dumps(scaled))
    return root


def test_a_question_decidable_at_full_hd_is_asked_of_claude_and_not_at_a_512_px_receipt(tmp_path):
    dataset = full_hd(tmp_path)
    asked = byo.write_questions(dataset, keys=["identify_type_one_piece"], unreadable="flag",
                                for_models=[CLAUDE, LOW], detail="low", out=tmp_path / "q.jsonl")
    rows = [json.loads(line) for line in asked.path.read_text().splitlines()]
    assert rows and all("unreadable" not in r for r in rows)  # decidable as rendered, at 1920x1080
    assert all(set(r.get("unreadable_for", {})) == {LOW} for r in rows)
    assert {r["unreadable_for"][LOW]["rule"] for r in rows} == {"type"}
    received = asked.summary.received
    assert received[LOW]["received"] == [512, 288] and received[LOW]["undecidable"] == len(rows)
    assert received[CLAUDE]["undecidable"] == 0 and received[CLAUDE]["received"] == [1460, 821]
    heights = received[LOW]["examples"][0]["height_px"]
    (rendered, shown), = [(h["rendered"], h["received"]) for h in heights.values()]
    assert rendered == 68 and shown == 19  # the queen in rendered and in received pixels


def test_without_for_nothing_is_decided_per_model(tmp_path):
    dataset = full_hd(tmp_path)
    asked = byo.write_questions(dataset, keys=["identify_type_one_piece"], unreadable="flag", out=tmp_path / "q.jsonl")
    rows = [json.loads(line) for line in asked.path.read_text().splitlines()]
    assert rows and not any("unreadable_for" in r for r in rows) and not asked.summary.received


def test_the_question_is_asked_of_the_model_that_can_decide_it_and_not_of_the_one_receiving_512_px(
        tmp_path, monkeypatch):
    """End to end: decided per model by byo questions --for, then byo eval of each model (the real
    OpenAI client against a fake server on loopback): GPT-4o at detail low receives 512x288, where
    the queen is 19 px tall, and is not asked; Qwen2.5-VL receives 1316x728 (46 px) and is."""
    from eval_data import FAKE_KEYS, evaluate_fake
    from fake_vlm import FakeVLM

    from byo.providers import GenerationParams

    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    qwen = "openai-compatible:Qwen2.5-VL-7B-Instruct"
    dataset = full_hd(tmp_path)
    asked = byo.write_questions(dataset, keys=["identify_type_one_piece"], unreadable="flag",
                                for_models=[LOW, qwen], detail="low")
    rows = [json.loads(line) for line in asked.path.read_text().splitlines()]
    assert rows and all(set(r.get("unreadable_for", {})) == {LOW} for r in rows)
    assert asked.summary.received[qwen]["received"] == [1316, 728] and asked.summary.received[qwen]["undecidable"] == 0
    with FakeVLM() as fake:
        gpt = evaluate_fake(dataset, "openai", fake.url + "/v1", model="gpt-4o", run="gpt",
                            params=GenerationParams(detail="low"))
        other = evaluate_fake(dataset, "openai-compatible", fake.url + "/v1", model="Qwen2.5-VL-7B-Instruct",
                              run="qwen")
    assert gpt.rows == [] and gpt.undecidable == len(rows)
    assert sorted(r["id"] for r in other.rows) == sorted(r["id"] for r in rows)
    assert {tuple(r["image"]["received"]["size"]) for r in other.rows} == {(1316, 728)}
    assert {tuple(r["image"]["sent_size"]) for r in other.rows} == {(1920, 1080)}


def test_the_command_says_when_the_check_was_taken_as_rendered(tmp_path, capsys):
    from byo.cli import main

    dataset = full_hd(tmp_path)
    assert main(["questions", str(dataset), "--keys", "identify_type_one_piece", "--unreadable", "flag",
                 "--for", LOW, "--detail", "low", "-o", str(tmp_path / "q.jsonl")]) == 0
    said = " ".join(capsys.readouterr().err.split())
    assert f"{LOW}: receives 1920x1080 as 512x288" in said
    assert "the counterfactual check as rendered: byo render --for the model measures it at its size" in said
