"""byo explain's full-detail factor (render, 128x96): each failure asked again of its own image cut
to its objects' region at native resolution tells "it was resized away" from "it did not see it".

Three models behind the fake VLM on loopback (the real openai client), each asked to count the one
piece of two chess images: `small-eye` shrinks every image it receives to fit its 48-px encoder and
sees the piece only at half its pixels or more (so never in the whole 128x96 image, always in a
crop of the piece); `blind-spot` never sees it, at any size; `llava-1.5-7b` (a published pipeline:
336 px on the short side) receives the image enlarged, so nothing of it was resized away."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml
from conftest import TINY_RENDER
from fake_vlm import FakeVLM, parse_request
from PIL import Image

import byo
from byo.cli import main
from byo.core.errors import ConfigError
from byo.diagnose.explain import FLIPPED, FULL_DETAIL, STILL_WRONG, UNCHANGED

pytestmark = pytest.mark.render

ENCODER = 48  # small-eye's encoder: every image fitted into 48 x 48
WIDTH, HEIGHT = 128, 96
MODELS = ("small-eye", "blind-spot", "llava-1.5-7b")


def received_size(seen) -> tuple[int, int]:
    with Image.open(io.BytesIO(parse_request(seen.route, seen.body)[2])) as image:
        return image.size


def answer(seen) -> str:
    """The one piece is counted only by small-eye, and only when its encoder keeps half the
    image's pixels across or more; every other answer misses it."""
    if seen.model == "small-eye" and ENCODER / max(received_size(seen)) >= 0.5:
        return "1"
    return "0"


@pytest.fixture(scope="module")
def fake():
    with pytest.MonkeyPatch.context() as patch, FakeVLM(answer) as server:
        patch.setenv("FAKE_API_KEY", "sk-test-resize")
        yield server


@pytest.fixture(scope="module")
def dataset(tmp_path_factory, fake) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("resize")
    config = {"dataset": {"name": "resize", "family": "chess", "seed": 3, "n_images": 2},
              "scene": {**TINY_RENDER, "resolution": [WIDTH, HEIGHT], "content": {"count": 1}}, "variables": {}}
    path = tmp / "resize.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    out = tmp / "resize"
    assert main(["render", str(path), "-o", str(out), "--in-process"]) == 0
    byo.write_questions(out, keys=["count_pieces"], unreadable="ask")
    providers = tmp / "providers.yaml"
    providers.write_text(yaml.safe_dump({"providers": {"fake": {
        "type": "openai-compatible", "base_url": f"{fake.url}/v1", "api_key_env": "FAKE_API_KEY",
        "models": {m: {} for m in MODELS}}}}))
    for model in MODELS:
        byo.evaluate(out, "fake", model, run=model, providers_file=providers)
    return out, providers


def row(result, factor: str = FULL_DETAIL) -> dict:
    return next(r for r in result.rows if r["factor"] == factor)


def full_detail_twins(result) -> list[dict]:
    record = json.loads(result.record.read_text())
    return [t for f in record["failures"] for t in f["twins"] if t["factor"] == FULL_DETAIL]


def test_a_failure_the_resize_caused_is_turned_right_at_full_detail_and_no_scene_change_does(dataset, fake):
    out, providers = dataset
    sent = len(fake.log)
    result = byo.explain_failures(out / "runs" / "small-eye", eval={"providers_file": providers})
    full = row(result)
    assert full["failures"] == 2 and full["changed"] == 2 and full["asked"] == 2
    assert full["flipped"] == 2 and full["share"] == 1.0  # "it was resized away"
    for factor in ("bright light", "camera overhead"):  # re-rendered at 128x96: still resized away
        assert row(result, factor)["flipped"] == 0, factor
    twins = full_detail_twins(result)
    assert [t["outcome"] for t in twins] == [FLIPPED, FLIPPED]
    for twin in twins:  # the twin is a crop of the image as rendered, no larger than the render
        with Image.open(out / twin["image"]) as crop:
            assert crop.size[0] < WIDTH and crop.size[1] < HEIGHT
        assert "cut to" in twin["note"]
    # the crops were sent at their own size (small-eye then keeps half or more of their pixels)
    crops = [received_size(s) for s in fake.log[sent:] if s.model == "small-eye" and received_size(s) != (WIDTH, HEIGHT)]
    assert len(crops) == 2 and all(ENCODER / max(size) >= 0.5 for size in crops)


def test_a_failure_not_seen_at_any_size_stays_wrong_at_full_detail(dataset):
    out, providers = dataset
    result = byo.explain_failures(out / "runs" / "blind-spot", eval={"providers_file": providers},
                                  factors=[FULL_DETAIL])
    assert [r["factor"] for r in result.rows] == [FULL_DETAIL, "any factor"]
    full = row(result)
    assert full["failures"] == 2 and full["asked"] == 2 and full["flipped"] == 0  # "it did not see it"
    assert [t["outcome"] for t in full_detail_twins(result)] == [STILL_WRONG, STILL_WRONG]


def test_a_model_that_receives_the_whole_render_is_not_asked_again(dataset, fake):
    out, providers = dataset
    sent = len(fake.log)
    result = byo.explain_failures(out / "runs" / "llava-1.5-7b", eval={"providers_file": providers},
                                  factors=[FULL_DETAIL])
    full = row(result)
    assert full["failures"] == 2 and full["changed"] == 0 and full["asked"] == 0
    twins = full_detail_twins(result)
    assert [t["outcome"] for t in twins] == [UNCHANGED, UNCHANGED]
    assert all("full detail already" in t["note"] for t in twins)
    assert len(fake.log) == sent  # nothing asked


def test_an_unknown_factor_is_refused_naming_the_known_ones(dataset):
    out, providers = dataset
    with pytest.raises(ConfigError, match="factors: 'sharper' is not a factor of this run"):
        byo.explain_failures(out / "runs" / "blind-spot", eval={"providers_file": providers}, factors=["sharper"])
