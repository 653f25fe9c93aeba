"""Questions, model calls and their cost before any work (`byo plan --estimate --model ...`).

The questions are those the calibration images of byo.render.estimate ask (the real question
generator on the real legends, readability rules included), per image, times the config's
images. Each model asks every question once per repeat. Its cost is the price file's per-token
prices (the providers file, byo.providers.catalog) times the tokens of the calibration
questions, per question, times the questions:

- an in-process transformers model (`hf`) reads the tokens its own processor makes of the chat
  template, the prompt and the image: counted exactly, without loading the model;
- an API model reads the prompt, at OpenAI's rule of thumb of 4 characters per token, and the
  image as sent: the price file's `image_tokens` for the model where it gives one, else the
  tokens of the model's own image pipeline (byo.providers.image_pipeline: OpenAI's tiles or
  patches, Claude's width x height / 750, Gemini's 258 a tile...), the same function that
  records what each prediction row's model received; a model whose rule gives no tokens is
  counted at OpenAI's tile rule (the image fit into 2048x2048, its shorter side then to at most
  768 px, 85 tokens plus 170 per 512-px tile), and the estimate says so;
- it writes `answer_tokens` per answer (`--answer-tokens`; default ANSWER_TOKENS: a short
  answer, or a reasoning for a chain-of-thought preprompt): an assumption, said so in the output.

Reference providers (blind, oracle, rank-blind, rank-oracle) and local rankers call nothing paid.
"""

from __future__ import annotations

import math
import statistics
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from byo.providers import PROVIDERS, GenerationParams
from byo.providers.catalog import Catalog, ModelEntry, provider_entry
from byo.providers.hf_local import input_tokens as hf_input_tokens
from byo.providers.image_pipeline import Pipeline, openai_tiles
from byo.questions.generate import DEFAULT_PROMPTS, generate
from byo.questions.load import Question, load_questions

CHARS_PER_TOKEN = 4  # OpenAI's rule of thumb for English text
ANSWER_TOKENS = {"cot": 250, "debiased_cot": 250}  # per preprompt; any other: DEFAULT_ANSWER_TOKENS
DEFAULT_ANSWER_TOKENS = 10


def tile_tokens(width: int, height: int) -> int:
    """OpenAI's documented image tokens for its tile-based models at detail high or auto."""
    return openai_tiles(width, height).tokens


@dataclass(frozen=True)
class QuestionEstimate:
    """The questions of a config, from those of its calibration images."""

    images: int  # the config's
    sampled_images: int
    sample: list[Question]  # the calibration images' questions
    by_key: Counter = field(default_factory=Counter)  # key -> questions over the calibration images

    @property
    def per_image(self) -> float:
        return len(self.sample) / self.sampled_images

    @property
    def total(self) -> int:
        return round(self.per_image * self.images)


def estimate_questions(dataset: Path, images: int, sampled_images: int, *, preprompts=("neutral",),
                       instructions=("direct",), keys=None, unreadable: str | None = None,
                       prompts: str = DEFAULT_PROMPTS) -> QuestionEstimate:
    """The questions the calibration `dataset` asks (written to a temporary file, the dataset left
    as it is), scaled from its `sampled_images` images to `images`."""
    with tempfile.TemporaryDirectory(prefix="byo_plan_") as tmp:
        path, summary = generate(dataset, preprompts=list(preprompts), instructions=list(instructions),
                                 keys=list(keys) if keys else None, unreadable=unreadable, prompts=prompts,
                                 out=Path(tmp) / "questions.jsonl")
        sample = load_questions(path, dataset)
    return QuestionEstimate(images=images, sampled_images=sampled_images, sample=sample,
                            by_key=Counter(summary.questions))


@dataclass(frozen=True)
class ModelEstimate:
    """One model's calls, tokens and cost for a config's questions."""

    model: str  # as given: PROVIDER:MODEL
    calls: int
    input_tokens: int | None  # None: the model is billed nothing (a reference or a local ranker)
    output_tokens: int | None
    price: ModelEntry | None  # the price file's entry, when it prices the model
    assumptions: tuple[str, ...] = ()

    @property
    def cost_usd(self) -> float | None:
        if self.price is None or self.input_tokens is None:
            return None
        return self.price.cost(self.input_tokens, self.output_tokens or 0)


def _image(dataset: Path, q: Question) -> Image.Image:
    with Image.open(dataset / q.image) as im:
        return im.copy()


def image_tokens(size: tuple[int, int], entry: ModelEntry | None, pipeline: Pipeline) -> tuple[int, str]:
    """The input tokens of one image sent at `size`, and where the figure comes from: the price
    file's `image_tokens`, else the model's image pipeline, else OpenAI's tile rule."""
    if entry is not None and entry.image_tokens is not None:
        return entry.image_tokens, "the price file's image_tokens"
    tokens = pipeline.receive(*size).tokens
    if tokens is not None:
        return tokens, f"the model's image pipeline ({pipeline.name})"
    return tile_tokens(*size), f"OpenAI's tile rule (85 + 170 per 512-px tile): {pipeline.name}"


def _api_input_tokens(q: Question, size: tuple[int, int], entry: ModelEntry | None,
                      pipeline: Pipeline) -> tuple[int, str]:
    image, source = image_tokens(size, entry, pipeline)
    return math.ceil(len(q.prompt) / CHARS_PER_TOKEN) + image, source


def estimate_model(model: str, questions: QuestionEstimate, dataset: Path, *, catalog: Catalog | None = None,
                   catalog_file: str | None = None, repeats: int = 1, answer_tokens: int | None = None,
                   max_side: int | None = None) -> ModelEstimate:
    """Calls, tokens and cost of `model` (PROVIDER:MODEL, or a reference provider alone) asking
    `questions` `repeats` times; the tokens per question are the mean over the calibration
    questions (`dataset` holds their images)."""
    provider, _, name = model.partition(":")
    ptype, entry = provider_entry(provider, catalog, catalog_file)
    cls = PROVIDERS[ptype]
    calls = questions.total * repeats
    if cls.price_source in (None, "embeddings") or not questions.sample:  # free, or no token estimate
        return ModelEstimate(model, calls, None, None, None)
    price = entry.models.get(name)
    assumptions = []
    sizes = {}
    for q in questions.sample:
        if q.image not in sizes:
            with Image.open(dataset / q.image) as im:
                w, h = im.size
            scale = min(1.0, max_side / max(w, h)) if max_side else 1.0
            sizes[q.image] = (max(1, round(w * scale)), max(1, round(h * scale)))
    if cls.price_source == "processor":
        per_question = [hf_input_tokens(name, q.prompt, _image(dataset, q).resize(sizes[q.image])) for q in questions.sample]
    else:
        pipeline = cls.pipeline_of(name, GenerationParams())
        counted = [_api_input_tokens(q, sizes[q.image], price, pipeline) for q in questions.sample]
        per_question = [tokens for tokens, _ in counted]
        assumptions.append(f"text at {CHARS_PER_TOKEN} characters per token, images at "
                           + "; ".join(dict.fromkeys(source for _, source in counted)))
    if answer_tokens is None:
        answers = [ANSWER_TOKENS.get(q.preprompt, DEFAULT_ANSWER_TOKENS) for q in questions.sample]
        assumptions.append(f"answers of {statistics.fmean(answers):.0f} tokens on average (the preprompts' "
                           "defaults; `answer_tokens` sets it)")
    else:
        answers = [answer_tokens] * len(questions.sample)
        assumptions.append(f"answers of {answer_tokens} tokens (`answer_tokens`)")
    scale = calls / len(questions.sample)
    return ModelEstimate(model, calls, round(sum(per_question) * scale), round(sum(answers) * scale), price,
                         tuple(assumptions))
