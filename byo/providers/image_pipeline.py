"""What a model receives of the image it is sent: each provider's published resize rule as a fact.

Providers resize an image before the model looks at it, by published rules, so no model sees
the image at the size byo renders it. Each rule here is a function from the sent size (and the
request's options: OpenAI's `detail`, Qwen2-VL's `min_pixels` / `max_pixels`, LLaVA's pad or
crop) to a `Received`: the size the model's encoder gets, the image's own pixels inside it
(padding aside), its tiles where it tiles and the image tokens it is billed. Each docstring
cites its source, as read at the time of writing. A model whose rule is not published, or not
known here, says so (`Received.size is None`): byo never guesses a size.

`pipeline_for(provider_type, model, detail=...)` picks the rule of a provider and model family;
each provider class exposes its own as `Provider.image_pipeline()`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

OPENAI_VISION = "https://platform.openai.com/docs/guides/images-vision (Calculating costs)"
ANTHROPIC_VISION = "https://docs.anthropic.com/en/docs/build-with-claude/vision (Evaluate image size)"
GEMINI_TOKENS = "https://ai.google.dev/gemini-api/docs/tokens (Image tokens: Gemini 2.0)"
QWEN2_VL = ("transformers Qwen2VLImageProcessor (smart_resize) and the Qwen2-VL / Qwen2.5-VL model cards "
            "(min_pixels, max_pixels; 28 x 28 pixels a token)")
LLAVA_15 = ("LLaVA-1.5 (Liu et al. 2023, 'Improved Baselines with Visual Instruction Tuning'): CLIP ViT-L/14 at "
            "336 px; image_aspect_ratio pad in the original code, shortest edge then centre crop in "
            "transformers' CLIPImageProcessor")
LLAVA_NEXT = ("LLaVA-NeXT (Liu et al. 2024, 'LLaVA-NeXT: Improved reasoning, OCR, and world knowledge'): anyres, "
              "transformers LlavaNextImageProcessor (image_grid_pinpoints, select_best_resolution)")


@dataclass(frozen=True)
class Received:
    """The image as a model receives it. `size`: the pixels its encoder gets (width, height),
    None where the provider does not publish it; `content`: the image's own pixels inside `size`
    (less than `size` where it is padded to a square or a tile grid, the part kept where it is
    cropped); `tiles`: (columns, rows) of the tiles it is cut into, where it is; `tokens`: the
    image tokens it is billed, None where not published; `source`: the rule and where it is
    published; `note`: what the rule leaves open and what byo took."""

    sent: tuple[int, int]
    size: tuple[int, int] | None
    tokens: int | None
    source: str
    content: tuple[int, int] | None = None
    tiles: tuple[int, int] | None = None
    cropped: bool = False  # part of the image is cut away (a centre crop)
    note: str | None = None
    factor: float | None = None  # the resize's linear factor, where `content` does not give it (a crop)

    @property
    def known(self) -> bool:
        return self.size is not None

    @property
    def shown(self) -> tuple[int, int] | None:
        """The image's own pixels as received: `content`, else `size`."""
        return self.content or self.size

    @property
    def scale(self) -> float | None:
        """Received pixels per sent pixel (linear), None when the received size is unknown."""
        if self.shown is None:
            return None
        if self.factor is not None:
            return self.factor
        return min(self.shown[0] / self.sent[0], self.shown[1] / self.sent[1])

    @property
    def resampled(self) -> tuple[int, int] | None:
        """The whole sent image at the received scale (width, height): `shown`, except where a
        centre crop cuts part of it away (then the image before the crop). None when unknown."""
        if self.shown is None or self.scale is None:
            return None
        if not self.cropped:
            return self.shown
        return max(1, round(self.sent[0] * self.scale)), max(1, round(self.sent[1] * self.scale))

    def to_json(self) -> dict:
        out = {"size": list(self.size) if self.size else None, "tokens": self.tokens, "source": self.source}
        if self.content is not None and self.content != self.size:
            out["content"] = list(self.content)
        if self.tiles is not None:
            out["tiles"] = list(self.tiles)
        if self.scale is not None:  # received pixels per sent pixel (a crop's too, which `content` does not give)
            out["scale"] = round(self.scale, 6)
        if self.cropped:
            out["cropped"] = True
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Pipeline:
    """A provider's rule for one model and its request options: `receive(width, height)`."""

    name: str  # e.g. "openai tiles (detail high)"
    rule: Callable[[int, int], Received] = field(repr=False)

    def receive(self, width: int, height: int) -> Received:
        if width < 1 or height < 1:
            raise ValueError(f"an image of {width}x{height} pixels: expected both sides at least 1")
        return self.rule(int(width), int(height))


def _fit(width: float, height: float, box_w: float, box_h: float) -> tuple[float, float]:
    """(width, height) scaled down, aspect kept, to fit box_w x box_h; never scaled up."""
    s = min(1.0, box_w / width, box_h / height)
    return width * s, height * s


def openai_tiles(width: int, height: int, *, base: int = 85, per_tile: int = 170) -> Received:
    """OpenAI's tile-based models at `detail: high` (OpenAI's images and vision guide,
    "Calculating costs", GPT-4o, GPT-4.1, GPT-4.5 and the o-series): "scale to fit in a 2048px x
    2048px square, maintaining original aspect ratio; scale so that the image's shortest side is
    768px long; count the number of 512px squares in the image; each square costs 170 tokens;
    another 85 tokens are always added" (the base and per-tile figures per model: 85 / 170 for
    GPT-4o, GPT-4.1, GPT-4.5; 2833 / 5667 for GPT-4o mini; 75 / 150 for o1 and o3). The guide's
    examples: 1024 x 1024 at high is 765 tokens (768 x 768, 4 tiles); 2048 x 4096 is 1105 tokens
    (768 x 1536, 6 tiles). The guide scales the short side to 768 only when it is longer (an
    image already smaller is not enlarged)."""
    w, h = _fit(width, height, 2048, 2048)
    s = min(1.0, 768 / min(w, h))
    w, h = round(w * s), round(h * s)
    cols, rows = math.ceil(w / 512), math.ceil(h / 512)
    return Received((width, height), (w, h), base + per_tile * cols * rows, f"{OPENAI_VISION}: tiles, detail high",
                    tiles=(cols, rows))


def openai_low(width: int, height: int, *, base: int = 85) -> Received:
    """OpenAI's `detail: low` (images and vision guide): "the model receives a low-resolution
    512px x 512px version of the image" at a fixed `base` tokens (85 for GPT-4o and GPT-4.1).
    The guide does not say whether the aspect ratio is kept: byo takes the image fitted into
    512 x 512, aspect kept (the most either side can be)."""
    w, h = _fit(width, height, 512, 512)
    return Received((width, height), (round(w), round(h)), base, f"{OPENAI_VISION}: detail low",
                    note="fitted into 512 x 512, aspect kept (the guide says 512px x 512px)")


def openai_patches(width: int, height: int, *, multiplier: float, cap: int = 1536, patch: int = 32) -> Received:
    """OpenAI's patch-based models (images and vision guide: GPT-4.1 mini x 1.62, GPT-4.1 nano
    x 2.46, o4-mini x 1.72): "calculate the number of 32px x 32px patches that are needed to
    fully cover the image; if the number of patches exceeds 1536, we scale down the image so
    that it can be covered by no more than 1536 patches; the token cost is the number of
    patches, capped at a maximum of 1536 tokens", times the model's multiplier. The guide's
    examples: 1024 x 1024 is 1024 patches; 1800 x 2400 shrinks by sqrt(32^2 x 1536 / (1800 x
    2400)) to 1086 x 1448, then to a whole number of patches across, 1056 x 1408, 33 x 44 = 1452
    patches."""
    cols, rows = math.ceil(width / patch), math.ceil(height / patch)
    w, h = float(width), float(height)
    if cols * rows > cap:
        shrink = math.sqrt(patch * patch * cap / (width * height))
        w, h = width * shrink, height * shrink
        whole = math.floor(w / patch) / (w / patch)  # a whole number of patches across
        w, h = w * whole, h * whole
        cols, rows = math.ceil(w / patch), math.ceil(h / patch)
    patches = min(cap, cols * rows)
    return Received((width, height), (int(w), int(h)), math.ceil(patches * multiplier),
                    f"{OPENAI_VISION}: 32-px patches, at most {cap}, x {multiplier:g}", tiles=(cols, rows))


# Anthropic: a long edge over 1568 px or more than about 1,600 tokens (tokens = width x height / 750)
ANTHROPIC_MAX_EDGE = 1568
ANTHROPIC_MAX_TOKENS = 1600
ANTHROPIC_PIXELS_PER_TOKEN = 750


def anthropic(width: int, height: int) -> Received:
    """Claude (Anthropic's vision page, "Evaluate image size"): "if your image's long edge is
    more than 1568 pixels, or your image is more than ~1,600 tokens, it will first be scaled
    down, preserving aspect ratio, until it's within the size limits"; tokens = (width x
    height) / 750. Its table of the largest sizes not resized: 1:1 1092 x 1092, 3:4 951 x 1268,
    2:3 896 x 1344, 9:16 819 x 1456, 1:2 784 x 1568. The table is approximate (951 x 1268 is
    1608 tokens, 784 x 1568 1639): byo takes 1,600 tokens exactly, which reproduces every entry
    within 1.5% (a 1920 x 1080 render arrives as 1460 x 821, the table's 16:9 being 1456 x 819)."""
    w, h = _fit(width, height, ANTHROPIC_MAX_EDGE, ANTHROPIC_MAX_EDGE)
    most = ANTHROPIC_MAX_TOKENS * ANTHROPIC_PIXELS_PER_TOKEN
    if w * h > most:
        s = math.sqrt(most / (w * h))
        w, h = w * s, h * s
    w, h = int(w + 1e-6), int(h + 1e-6)
    return Received((width, height), (w, h), math.ceil(w * h / ANTHROPIC_PIXELS_PER_TOKEN),
                    f"{ANTHROPIC_VISION}: long edge 1568 px, about 1,600 tokens")


def gemini(width: int, height: int) -> Received:
    """Gemini 2.x (Google's "Understand and count tokens"): "image inputs with both dimensions
    <= 384 pixels are counted as 258 tokens; images larger in one or both dimensions are cropped
    and scaled as needed into tiles of 768 x 768 pixels, each counted as 258 tokens". How the
    tiles are cut is not published, nor what a model of the Gemini 3 family receives at each
    `media_resolution`: the received size is unknown; the tokens are Google's rule, tiles
    counted as ceil(width / 768) x ceil(height / 768)."""
    if width <= 384 and height <= 384:
        tokens, tiles = 258, (1, 1)
    else:
        tiles = (math.ceil(width / 768), math.ceil(height / 768))
        tokens = 258 * tiles[0] * tiles[1]
    return Received((width, height), None, tokens, f"{GEMINI_TOKENS}: 258 tokens per 768-px tile", tiles=tiles,
                    note="received size not published (how the 768-px tiles are cut is not said)")


# Qwen2-VL's processor defaults: transformers' and the Hub's preprocessor_config.json differ
QWEN_FACTOR = 28  # a 14-px patch, 2 x 2 patches merged into one token
QWEN_MIN_PIXELS = 56 * 56
QWEN_MAX_PIXELS = 28 * 28 * 1280  # transformers' default; the Hub configs of Qwen2-VL give 12845056


def qwen2_vl(width: int, height: int, *, min_pixels: int = QWEN_MIN_PIXELS, max_pixels: int = QWEN_MAX_PIXELS,
             factor: int = QWEN_FACTOR) -> Received:
    """Qwen2-VL and Qwen2.5-VL (the model cards; transformers' Qwen2VLImageProcessor,
    `smart_resize`): each side rounded to a multiple of 28 (a 14-px patch, 2 x 2 patches merged
    into a token); a product over `max_pixels` scaled down by sqrt(width x height / max_pixels),
    each side then floored to a multiple of 28; under `min_pixels` scaled up by
    sqrt(min_pixels / (width x height)), each side ceiled to a multiple of 28. Tokens: one per
    28 x 28 pixels (the model cards: "each 28x28 pixel corresponds to a token"). Resampled
    bicubic."""
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt(width * height / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (width * height))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return Received((width, height), (w_bar, h_bar), (w_bar // factor) * (h_bar // factor),
                    f"{QWEN2_VL}: min_pixels {min_pixels}, max_pixels {max_pixels}")


def llava_15(width: int, height: int, *, mode: str = "pad", side: int = 336) -> Received:
    """LLaVA-1.5: one 336 x 336 image to CLIP ViT-L/14-336 (576 tokens, 24 x 24 patches of 14
    px). `pad` (the original code's image_aspect_ratio pad): the image padded to a square with
    the mean colour, then resized to 336 x 336, so its own pixels are its long side scaled to
    336; `crop` (transformers' CLIPImageProcessor, as llava-hf's checkpoints ship it): the short
    side resized to 336, then the centre 336 x 336 kept."""
    if mode == "pad":
        s = side / max(width, height)
        content = (max(1, round(width * s)), max(1, round(height * s)))
        cropped = False
    elif mode == "crop":
        s = side / min(width, height)
        content = (min(side, max(1, round(width * s))), min(side, max(1, round(height * s))))
        cropped = content != (round(width * s), round(height * s))
    else:
        raise ValueError(f"LLaVA-1.5 mode {mode!r}: expected pad or crop")
    return Received((width, height), (side, side), (side // 14) ** 2, f"{LLAVA_15}: {mode}", content=content,
                    cropped=cropped, factor=s)


CLIP_PROCESSOR = ("transformers CLIPImageProcessor (resize: the shortest edge to size['shortest_edge'], bicubic; "
                  "center_crop: crop_size)")


def shortest_edge_crop(width: int, height: int, *, side: int) -> Received:
    """A CLIP-style processor (transformers' CLIPImageProcessor, SigLIP's with a crop): the short
    side resized to `side`, then the centre `side` x `side` kept. Tokens depend on the encoder's
    patch, which the processor does not state: not counted."""
    got = llava_15(width, height, mode="crop", side=side)
    return Received((width, height), got.size, None, f"{CLIP_PROCESSOR}: {side} px", content=got.content,
                    cropped=got.cropped, factor=got.factor)


LLAVA_NEXT_PINPOINTS = ((336, 672), (672, 336), (672, 672), (1008, 336), (336, 1008))  # (height, width)


def best_resolution(width: int, height: int, pinpoints: Sequence[Sequence[int]]) -> tuple[int, int]:
    """LLaVA-NeXT's anyres choice among `pinpoints` ((height, width) each): the one that keeps
    the most of the image's pixels once it is fitted in, then the one that wastes the least;
    returns (width, height)."""
    best, most, least = None, -1, math.inf
    for ph, pw in pinpoints:
        s = min(pw / width, ph / height)
        kept = min(int(width * s) * int(height * s), width * height)
        wasted = pw * ph - kept
        if kept > most or (kept == most and wasted < least):
            best, most, least = (pw, ph), kept, wasted
    assert best is not None, "no pinpoints"
    return best


def llava_next(width: int, height: int, *, pinpoints: Sequence[Sequence[int]] = LLAVA_NEXT_PINPOINTS,
               side: int = 336) -> Received:
    """LLaVA-NeXT (anyres): the grid resolution of `image_grid_pinpoints` that keeps the most of
    the image (`best_resolution`), the image fitted into it aspect kept and padded, cut into
    336-px tiles, plus the whole image at 336 x 336 as the first tile. The received size is the
    grid's; the image's own pixels in it are `content`. Its tokens (576 a tile, less the
    padding's rows and columns, plus a newline token a row) are not counted here."""
    gw, gh = best_resolution(width, height, pinpoints)
    s = min(gw / width, gh / height)
    content = (min(gw, math.ceil(width * s)), min(gh, math.ceil(height * s)))
    return Received((width, height), (gw, gh), None, f"{LLAVA_NEXT}: grid {gw}x{gh}", content=content,
                    tiles=(gw // side, gh // side),
                    note="tokens not counted (the padding's features are dropped); plus a 336 x 336 overview")


def unknown(why: str) -> Pipeline:
    """A model whose received size byo does not know: says so, never guesses."""
    return Pipeline(f"unknown: {why}", lambda w, h: Received((w, h), None, None, "unknown", note=why))


def _sized(name: str, fn, **options) -> Pipeline:
    return Pipeline(name, lambda w, h: fn(w, h, **options))


# OpenAI's model families (images and vision guide, "Calculating costs"): base and per-tile tokens
# of the tile-based models, the multiplier of the patch-based ones.
OPENAI_TILES = {"gpt-4o": (85, 170), "gpt-4.1": (85, 170), "gpt-4.5-preview": (85, 170), "gpt-4o-mini": (2833, 5667),
                "o1": (75, 150), "o1-pro": (75, 150), "o3": (75, 150), "computer-use-preview": (65, 129)}
OPENAI_PATCHES = {"gpt-4.1-mini": 1.62, "gpt-4.1-nano": 2.46, "o4-mini": 1.72}
_DATED = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def openai_pipeline(model: str, detail: str | None = None) -> Pipeline:
    """The rule of an OpenAI model (a dated snapshot is its family's); `detail` None or auto is
    taken as high: the guide says auto "looks at the image input size and decides", and does not
    say how."""
    family = _DATED.sub("", model)
    if family in OPENAI_PATCHES:
        return _sized(f"openai patches ({family})", openai_patches, multiplier=OPENAI_PATCHES[family])
    if family in OPENAI_TILES:
        base, per_tile = OPENAI_TILES[family]
        if detail == "low":
            return _sized(f"openai detail low ({family})", openai_low, base=base)
        name = f"openai tiles, detail {detail or 'auto'} taken as high ({family})" if detail != "high" \
            else f"openai tiles, detail high ({family})"
        return _sized(name, openai_tiles, base=base, per_tile=per_tile)
    return unknown(f"OpenAI model {model!r}: its image rule is not one byo knows (it knows "
                   + ", ".join(sorted([*OPENAI_TILES, *OPENAI_PATCHES])) + ")")


def processor_pipeline(config: Mapping, model: str = "") -> Pipeline:
    """A transformers model's rule, read from its image processor's config (its
    preprocessor_config.json, or `image_processor.to_dict()`): Qwen2-VL's min/max pixels,
    LLaVA-NeXT's grid pinpoints, a CLIP-style shortest edge and centre crop, or a fixed square
    resize. Any other processor says it is unknown."""
    kind = str(config.get("image_processor_type", ""))
    size = config.get("size") if isinstance(config.get("size"), Mapping) else {}
    if "min_pixels" in config or "max_pixels" in config or "Qwen2VL" in kind:
        lo = config.get("min_pixels") or size.get("shortest_edge") or QWEN_MIN_PIXELS
        hi = config.get("max_pixels") or size.get("longest_edge") or QWEN_MAX_PIXELS
        factor = int(config.get("patch_size", 14)) * int(config.get("merge_size", 2))
        return _sized(f"processor: Qwen2-VL ({model})", qwen2_vl, min_pixels=int(lo), max_pixels=int(hi),
                      factor=factor)
    crop = config.get("crop_size") or {}
    side = crop.get("height") if isinstance(crop, Mapping) else crop
    if config.get("image_grid_pinpoints"):
        return _sized(f"processor: LLaVA-NeXT anyres ({model})", llava_next,
                      pinpoints=[tuple(p) for p in config["image_grid_pinpoints"]], side=int(side or 336))
    if "shortest_edge" in size and config.get("do_center_crop") and side:
        if int(side) == int(size["shortest_edge"]):
            if "llava" in model.lower():
                return _sized(f"processor: LLaVA-1.5, shortest edge {side}, centre crop ({model})", llava_15,
                              mode="crop", side=int(side))
            return _sized(f"processor: shortest edge {side}, centre crop ({model})", shortest_edge_crop,
                          side=int(side))
    return unknown(f"the image processor of {model or 'this model'} ({kind or 'no type'}) is not one byo reads")


def pipeline_for(provider_type: str, model: str, *, detail: str | None = None) -> Pipeline:
    """The rule of `model` behind a provider of type `provider_type`: OpenAI's (and Azure's, a
    deployment named as its model) by model family, Claude's, Gemini's tokens, Qwen2-VL and
    LLaVA by model name behind a local server, else unknown. An in-process transformers model
    (`hf`) reads its processor: `byo.providers.hf_local.HuggingFace.image_pipeline`."""
    name = model.rsplit("/", 1)[-1].lower()
    if provider_type in ("openai", "azure"):
        return openai_pipeline(model, detail)
    if provider_type == "anthropic":
        if re.search(r"opus-4[-.]7", name):  # and, likely, later models: the vision page's rule is the 1568 px one
            return unknown(f"{model}: Claude Opus 4.7 reads images at a higher resolution (about 3.75 megapixels, "
                           "as reported at its release) than the 1568 px rule of Anthropic's vision page; its exact "
                           "rule is not one byo knows")
        return Pipeline("anthropic", anthropic)
    if provider_type == "gemini":
        return Pipeline("gemini tokens", gemini)
    if provider_type in ("openai-compatible", "ollama", "groq", "hf"):
        if re.match(r"qwen2(\.5)?-vl", name):
            return _sized(f"Qwen2-VL processor defaults ({model})", qwen2_vl)
        if name.startswith("llava-1.5") or name.startswith("llava-v1.5"):
            return _sized(f"LLaVA-1.5, crop ({model})", llava_15, mode="crop")
        if name.startswith(("llava-v1.6", "llava-next")):
            return Pipeline(f"LLaVA-NeXT anyres ({model})", llava_next)
    return unknown(f"{provider_type} model {model!r}: no published image rule byo knows")


# --- rendering what is received (byo render --for MODEL) ------------------------------------------
RENDERED_FOR = "rendered_for.json"  # a dataset's record of the models it was rendered for


def render_size(config_size: tuple[int, int], pipelines: Mapping[str, Pipeline]) -> tuple[tuple[int, int], dict]:
    """The size to render for `pipelines` (name -> rule): the largest image's own pixels any of
    them receives of a render at `config_size` (by area), never above `config_size`; and what each
    receives. A model whose received size is unknown is a ValueError naming it (rendering smaller
    for it would be a guess)."""
    received = {name: p.receive(*config_size) for name, p in pipelines.items()}
    unknown_models = [name for name, r in received.items() if not r.known]
    if unknown_models:
        raise ValueError(f"the size {', '.join(unknown_models)} receives is not published: render at the config's "
                         "resolution (leave out `for_models`)")
    # the whole image at each model's scale (a centre crop's before it cuts), the largest by area
    shown = max((r.resampled for r in received.values()), key=lambda s: (s[0] * s[1], s))
    size = config_size if shown[0] >= config_size[0] or shown[1] >= config_size[1] else shown
    return size, {name: r.to_json() for name, r in received.items()}


def rendered_for_problem(record: Mapping, name: str, pipeline: Pipeline) -> str | None:
    """Why model `name` may not be asked about a dataset rendered smaller for other models
    (`record`: its RENDERED_FOR file): it would receive more of a render at the config's size
    than was rendered, so it would be sent an image upscaled, or smaller than it takes."""
    try:
        config, rendered = (int(record["config"][0]), int(record["config"][1])), \
            (int(record["rendered"][0]), int(record["rendered"][1]))
        models = list(record.get("models") or {})
    except (KeyError, IndexError, TypeError, ValueError):
        return ("expected config and rendered as [width, height] and models as a mapping (a render for models, "
                "`for_models`, writes it)")
    if name in models or rendered == config:
        return None
    got = pipeline.receive(*config)
    if not got.known:
        return (f"rendered at {rendered[0]}x{rendered[1]} for {', '.join(models)}; the size {name} "
                f"receives is not published: render again at the config's {config[0]}x{config[1]}")
    whole = got.resampled  # the whole image at its scale (a centre crop's before the cut)
    if whole[0] > rendered[0] or whole[1] > rendered[1]:
        return (f"rendered at {rendered[0]}x{rendered[1]} for {', '.join(models)}; {name} receives "
                f"{whole[0]}x{whole[1]} of the config's {config[0]}x{config[1]}: render again with "
                f"`for_models` {name}")
    return None
