"""Hugging Face transformers vision-language models, in this process (`--provider hf`).

`--model` is a Hub name (`HuggingFaceTB/SmolVLM-256M-Instruct`, fetched once into the Hugging
Face cache) or a local folder saved with `save_pretrained`. The model is loaded with
`AutoModelForImageTextToText` and its processor with `AutoProcessor`; each question is one user
turn (the image, then the prompt) through the processor's chat template, and the answer is the
greedy continuation (sampled when --temperature > 0), up to --max-tokens (default 512).

Requests that are in flight together (up to `--concurrency`) are generated as batches of up to
`--batch-size`, left-padded, one batch at a time in a worker thread, so the event loop (the
evaluator's journal, cache and progress) keeps going. Answers go through byo eval's cache like
an API's: a killed run resumes from the cache, and a finished one is never generated again.

Devices: `--device auto` takes CUDA, then Apple's MPS, then the CPU; `--dtype auto` takes the
checkpoint's own. The dtype is part of the cache key (it changes answers); the device is not.

torch and transformers are an optional extra: `pip install 'byo-render[hf]'`.
"""

from __future__ import annotations

import asyncio
import functools
import io
import threading

from PIL import Image

from byo.core.errors import ARGUMENTS, ConfigError
from byo.providers.base import (
    GenerationParams,
    ImageLimits,
    Provider,
    ProviderFailure,
    Request,
    Response,
)
from byo.providers.image_pipeline import Pipeline, processor_pipeline

DEFAULT_MAX_TOKENS = 512
DTYPES = ("auto", "float32", "bfloat16", "float16")
INSTALL = "pip install 'byo-render[hf]' (torch and transformers; or .[hf] from a checkout)"


def _libraries():
    try:
        import torch
        import transformers
    except ModuleNotFoundError as err:
        raise ConfigError(ARGUMENTS, [("provider", f"hf needs {err.name}, which is not installed: "
                                        f"{INSTALL}")]) from None
    return torch, transformers


def pick_device(torch, device: str) -> str:
    if device != "auto":
        return device
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


_LOADED: dict[tuple[str, str, str], tuple] = {}  # (model, dtype, device) -> (processor, model): --repeats loads once


def _load(transformers, torch, name: str, dtype: str, device: str) -> tuple:
    key = (name, dtype, device)
    if key not in _LOADED:
        try:
            processor = transformers.AutoProcessor.from_pretrained(name)
            model = transformers.AutoModelForImageTextToText.from_pretrained(
                name, dtype=dtype if dtype == "auto" else getattr(torch, dtype)).to(device).eval()
        except (OSError, ValueError, KeyError) as err:
            raise ConfigError(ARGUMENTS, [("model", f"could not load {name!r} as a transformers "
                                         f"vision-language model: {_first_line(err)}")]) from None
        except (RuntimeError, AssertionError) as err:  # a device this torch cannot use
            raise ConfigError(ARGUMENTS, [("device", f"{device}: {_first_line(err)}")]) from None
        _LOADED.clear()  # one model in memory at a time
        _LOADED[key] = processor, model
    return _LOADED[key]


def chat_text(processor, prompt: str) -> str:
    """One question as the model reads it: a user turn of the image, then the prompt."""
    return processor.apply_chat_template(
        [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": prompt}]}], add_generation_prompt=True)


@functools.cache
def _processor(name: str):
    _, transformers = _libraries()
    try:
        return transformers.AutoProcessor.from_pretrained(name)
    except (OSError, ValueError, KeyError) as err:
        raise ConfigError(ARGUMENTS, [("model", f"could not load the processor of {name!r}: "
                                     f"{_first_line(err)}")]) from None


def input_tokens(name: str, prompt: str, image: Image.Image) -> int:
    """The tokens model `name` reads for one question (the image's tokens and the chat template's
    included), counted by its own processor without loading the model: what its run records."""
    inputs = _processor(name)(text=[chat_text(_processor(name), prompt)], images=[[image.convert("RGB")]],
                              return_tensors="np")
    return int(inputs["attention_mask"].sum())


def image_processor_config(processor) -> dict:
    """The image processor's settings of a loaded processor (its preprocessor_config.json)."""
    image_processor = getattr(processor, "image_processor", processor)
    return image_processor.to_dict() if hasattr(image_processor, "to_dict") else {}


def model_pipeline(name: str) -> Pipeline:
    """What model `name` receives, read from its processor, without loading the model."""
    return processor_pipeline(image_processor_config(_processor(name)), name)


class HuggingFace(Provider):
    type = "hf"
    local = True
    price_source = "processor"
    default_timeout = 900.0  # a batch on a CPU takes minutes; a request waits for its batch

    def __init__(self, model: str, params: GenerationParams, *, api_key: str | None = None,
                 base_url: str | None = None, timeout: float = 60.0, limits: ImageLimits | None = None,
                 connections: int | None = None, device: str = "auto", dtype: str = "auto", batch_size: int = 8):
        super().__init__(model, params, limits=limits)
        self.model_name = model  # self.model becomes the loaded model
        torch, transformers = _libraries()
        if dtype not in DTYPES:
            raise ConfigError(ARGUMENTS, [("dtype", f"expected one of {', '.join(DTYPES)}, got {dtype!r}")])
        self.torch = torch
        self.dtype = dtype
        self.device = pick_device(torch, device)
        self.batch_size = max(1, min(batch_size, connections or batch_size))
        self.processor, self.model = _load(transformers, torch, model, dtype, self.device)
        tokenizer = getattr(self.processor, "tokenizer", None)
        if tokenizer is not None:
            tokenizer.padding_side = "left"  # generation continues from the end of every row
        self.pending: list[tuple[Request, asyncio.Future]] = []
        self.worker: asyncio.Task | None = None
        self.generating = threading.Lock()

    @property
    def identity(self) -> str:
        return f"hf:{self.dtype}"

    @classmethod
    def pipeline_of(cls, model: str, params: GenerationParams) -> Pipeline:
        """What `model` receives: read from its own image processor's config (the processor is
        fetched, not the model)."""
        return model_pipeline(model)

    def image_pipeline(self) -> Pipeline:
        """What the loaded model receives: read from its own image processor's config."""
        return processor_pipeline(image_processor_config(self.processor), self.model_name)

    @property
    def endpoint(self) -> str:
        return f"transformers on {self.device}"

    async def answer(self, request: Request) -> Response:
        future = asyncio.get_running_loop().create_future()
        self.pending.append((request, future))
        if self.worker is None or self.worker.done():
            self.worker = asyncio.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        """Generate what is pending, a batch at a time, until nothing is."""
        while self.pending:
            await asyncio.sleep(0)  # requests sent in the same turn of the loop join this batch
            batch = [(r, f) for r, f in self.pending[: self.batch_size] if not f.done()]
            del self.pending[: self.batch_size]
            if not batch:
                continue
            try:
                responses = await asyncio.to_thread(self._generate, [r for r, _ in batch])
            except ProviderFailure as failure:
                for _, future in batch:
                    if not future.done():
                        future.set_exception(failure)
                continue
            for (_, future), response in zip(batch, responses, strict=True):
                if not future.done():  # a request the evaluator timed out is dropped
                    future.set_result(response)

    def _generate(self, requests: list[Request]) -> list[Response]:
        torch = self.torch
        try:
            images = [Image.open(io.BytesIO(r.image.data)).convert("RGB") for r in requests]
        except OSError as err:
            raise ProviderFailure("image_unreadable", str(err)) from None
        texts = [chat_text(self.processor, r.prompt) for r in requests]
        max_tokens = self.params.max_tokens or DEFAULT_MAX_TOKENS
        sample = self.params.temperature > 0
        with self.generating, torch.inference_mode():
            try:
                inputs = self.processor(text=texts, images=[[im] for im in images], return_tensors="pt",
                                        padding=True).to(self.device)
                if sample and self.params.seed is not None:
                    torch.manual_seed(self.params.seed)
                options = {"temperature": self.params.temperature} if sample else {}
                output = self.model.generate(**inputs, max_new_tokens=max_tokens, do_sample=sample, **options)
            except (RuntimeError, ValueError) as err:  # out of memory, a prompt too long for the model
                raise ProviderFailure("rejected", f"generation failed: {str(err).splitlines()[0]}") from None
        prompt_length = inputs["input_ids"].shape[1]
        new = output[:, prompt_length:]
        texts = self.processor.batch_decode(new, skip_special_tokens=True)
        eos = self._eos_ids()
        pad = getattr(getattr(self.processor, "tokenizer", None), "pad_token_id", None)
        responses = []
        for row, text, mask in zip(new.tolist(), texts, inputs["attention_mask"].tolist(), strict=True):
            ended = next((k for k, t in enumerate(row) if t in eos), None)
            produced = ended + 1 if ended is not None else sum(1 for t in row if t != pad)
            responses.append(Response(text=text.strip(), input_tokens=int(sum(mask)), output_tokens=produced,
                                      finish_reason="stop" if ended is not None else "length"))
        return responses

    def _eos_ids(self) -> set[int]:
        eos = self.model.generation_config.eos_token_id
        return set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
