"""Each provider's image pipeline against the examples its source publishes."""

import pytest

from byo.providers import GenerationParams, create_provider
from byo.providers.image_pipeline import (
    LLAVA_NEXT_PINPOINTS,
    anthropic,
    best_resolution,
    gemini,
    llava_15,
    llava_next,
    openai_low,
    openai_patches,
    openai_pipeline,
    openai_tiles,
    pipeline_for,
    processor_pipeline,
    qwen2_vl,
)


@pytest.mark.parametrize(("sent", "size", "tiles", "tokens"), [
    ((1024, 1024), (768, 768), (2, 2), 765),  # OpenAI's guide: 1024 x 1024 at high, 765 tokens
    ((2048, 4096), (768, 1536), (2, 3), 1105),  # OpenAI's guide: 2048 x 4096, 1105 tokens
    ((1920, 1080), (1365, 768), (3, 2), 1105),  # the 1920x1080 render: about 1365x768
    ((500, 300), (500, 300), (1, 1), 255),  # smaller than 768 on its short side: not enlarged
])
def test_openai_tiles_match_the_guide(sent, size, tiles, tokens):
    got = openai_tiles(*sent)
    assert (got.size, got.tiles, got.tokens) == (size, tiles, tokens)


def test_openai_low_is_512_at_85_tokens():
    got = openai_low(1920, 1080)
    assert got.size == (512, 288) and got.tokens == 85
    assert max(openai_low(4000, 4000).size) == 512


@pytest.mark.parametrize(("sent", "size", "patches"), [
    ((1024, 1024), (1024, 1024), 1024),  # the guide: 1024 patches
    ((1800, 2400), (1056, 1408), 1452),  # the guide: shrunk to 1056 x 1408, 33 x 44 = 1452 patches
])
def test_openai_patches_match_the_guide(sent, size, patches):
    got = openai_patches(*sent, multiplier=1.0)
    assert got.size == size and got.tokens == patches
    assert openai_patches(*sent, multiplier=1.62).tokens == pytest.approx(patches * 1.62, abs=1)


def test_openai_families_pick_their_rule():
    assert openai_pipeline("gpt-4.1-2025-04-14").receive(1920, 1080).size == (1365, 768)
    assert openai_pipeline("gpt-4.1-mini").receive(1800, 2400).tokens == 2353  # 1452 x 1.62
    assert openai_pipeline("gpt-4o", "low").receive(1920, 1080).tokens == 85
    assert openai_pipeline("gpt-4o-mini").receive(1024, 1024).tokens == 2833 + 4 * 5667
    assert not openai_pipeline("gpt-9-vision").receive(1920, 1080).known


@pytest.mark.parametrize(("ratio", "table"), [
    ((1, 1), (1092, 1092)), ((3, 4), (951, 1268)), ((2, 3), (896, 1344)), ((9, 16), (819, 1456)),
    ((1, 2), (784, 1568))])
def test_anthropic_reproduces_its_table_within_1_5_percent(ratio, table):
    """Anthropic's largest sizes not resized, per aspect ratio: sent at twice their size, they
    arrive within 1.5% of the table's size (the table is approximate)."""
    got = anthropic(table[0] * 2, table[1] * 2)
    assert got.size[0] == pytest.approx(table[0], rel=0.015) and got.size[1] == pytest.approx(table[1], rel=0.015)
    assert got.size[0] / got.size[1] == pytest.approx(ratio[0] / ratio[1], rel=0.01)


def test_anthropic_16_9_and_tokens():
    got = anthropic(1920, 1080)
    assert got.size[0] == pytest.approx(1456, rel=0.005) and got.size[1] == pytest.approx(819, rel=0.005)
    assert got.tokens <= 1600
    small = anthropic(1000, 1000)  # the vision page: 1000x1000 is about 1,334 tokens, not resized
    assert small.size == (1000, 1000) and small.tokens == 1334
    assert max(anthropic(3000, 200).size) == 1568  # a long edge over 1568 px is scaled down


def test_gemini_tokens_and_unknown_size():
    assert gemini(384, 384).tokens == 258
    assert gemini(1920, 1080).tokens == 258 * 3 * 2
    assert gemini(1920, 1080).size is None and not gemini(100, 100).known


def test_qwen2_vl_sizes_are_multiples_of_28_within_the_pixel_bounds():
    got = qwen2_vl(1920, 1080, max_pixels=1280 * 28 * 28)
    assert got.size == (1316, 728) and got.tokens == 47 * 26
    assert qwen2_vl(1920, 1080, max_pixels=12845056).size == (1932, 1092)  # the Hub config's bound: rounded only
    tiny = qwen2_vl(20, 20, min_pixels=4 * 28 * 28)
    assert tiny.size == (56, 56) and tiny.tokens == 4  # the model card: at least 4 tokens
    for w, h in [(640, 360), (333, 777), (4000, 100)]:
        got = qwen2_vl(w, h, min_pixels=256 * 28 * 28, max_pixels=1280 * 28 * 28)
        assert got.size[0] % 28 == 0 and got.size[1] % 28 == 0
        assert 256 <= got.tokens <= 1280


@pytest.mark.slow
def test_llava_next_choice_agrees_with_transformers_where_importable():
    module = pytest.importorskip("transformers.image_processing_utils")
    for w, h in [(1920, 1080), (640, 360), (37, 1000)]:
        hf = module.select_best_resolution((h, w), [list(p) for p in LLAVA_NEXT_PINPOINTS])
        assert best_resolution(w, h, LLAVA_NEXT_PINPOINTS) == (hf[1], hf[0])


def test_llava_15_pad_and_crop():
    pad = llava_15(1920, 1080, mode="pad")
    assert pad.size == (336, 336) and pad.content == (336, 189) and pad.tokens == 576
    crop = llava_15(1920, 1080, mode="crop")
    assert crop.content == (336, 336) and crop.cropped
    assert crop.scale == pytest.approx(336 / 1080, rel=0.01)  # a 24 px pawn: 7.5 px; padded: 4.2 px
    assert pad.scale == pytest.approx(336 / 1920, rel=0.01)


def test_llava_next_picks_the_grid_that_keeps_most():
    got = llava_next(1920, 1080)
    assert got.size == (672, 672) and got.tiles == (2, 2) and got.content == (672, 378)
    assert llava_next(1000, 300).size == (1008, 336)


def test_processor_configs_are_read():
    qwen = {"image_processor_type": "Qwen2VLImageProcessor", "min_pixels": 3136, "max_pixels": 12845056,
            "patch_size": 14, "merge_size": 2}
    assert processor_pipeline(qwen).receive(1920, 1080).size == (1932, 1092)
    clip = {"image_processor_type": "CLIPImageProcessor", "size": {"shortest_edge": 336},
            "crop_size": {"height": 336, "width": 336}, "do_center_crop": True}
    assert processor_pipeline(clip).receive(1920, 1080).cropped
    # transformers' CLIPImageProcessor: the short side to 336 (1920x1080 -> 597x336), the centre 336 x 336
    got = processor_pipeline(clip).receive(1920, 1080)
    assert got.size == (336, 336) and got.resampled == (597, 336) and got.tokens is None
    assert processor_pipeline(clip, "llava-hf/llava-1.5-7b-hf").receive(1920, 1080).tokens == 576
    nxt = {"image_processor_type": "LlavaNextImageProcessor", "image_grid_pinpoints": [[336, 672], [672, 336]],
           "crop_size": {"height": 336, "width": 336}, "size": {"shortest_edge": 336}}
    assert processor_pipeline(nxt).receive(1920, 1080).size == (672, 336)
    assert not processor_pipeline({"image_processor_type": "SiglipImageProcessor"}).receive(64, 48).known
    assert not processor_pipeline({"size": 384, "crop_size": 384, "do_center_crop": True}).receive(64, 48).known


def test_each_provider_exposes_its_pipeline():
    params = GenerationParams()
    claude = create_provider("anthropic", "claude-sonnet-4", params, api_key="k")
    assert claude.image_pipeline().receive(1920, 1080).size == anthropic(1920, 1080).size
    gpt = create_provider("openai", "gpt-4.1", GenerationParams(detail="low"), api_key="k")
    assert gpt.image_pipeline().receive(1920, 1080).size == (512, 288)
    assert not create_provider("blind", "", params).image_pipeline().receive(64, 48).known
    assert pipeline_for("openai-compatible", "Qwen/Qwen2.5-VL-7B-Instruct").receive(1920, 1080).size == (1316, 728)
    assert not pipeline_for("ollama", "llama3.2-vision").receive(1920, 1080).known
    assert not pipeline_for("anthropic", "claude-opus-4-7").receive(1920, 1080).known  # a higher-resolution model
    assert pipeline_for("anthropic", "claude-opus-4-1").receive(1920, 1080).size == anthropic(1920, 1080).size
    with pytest.raises(ValueError, match="at least 1"):
        gpt.image_pipeline().receive(0, 10)


def test_qwen2_vl_agrees_with_transformers_smart_resize_where_importable():
    module = pytest.importorskip("transformers.models.qwen2_vl.image_processing_pil_qwen2_vl")
    for w, h in [(1920, 1080), (1365, 768), (640, 360), (64, 48), (20, 20), (333, 777), (4000, 100), (8000, 6000)]:
        for lo, hi in [(3136, 1003520), (256 * 28 * 28, 1280 * 28 * 28), (3136, 12845056)]:
            hf_h, hf_w = module.smart_resize(h, w, factor=28, min_pixels=lo, max_pixels=hi)
            assert qwen2_vl(w, h, min_pixels=lo, max_pixels=hi).size == (hf_w, hf_h), (w, h, lo, hi)
