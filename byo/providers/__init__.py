"""VLM providers behind one interface (`byo.providers.base.Provider.answer`).

A provider type is one module and one line in `PROVIDERS`. A reference provider (a baseline
that calls no model) is built as `cls(model, params, questions=...)`; any other as
`cls(model, params, api_key=..., base_url=..., timeout=..., limits=..., connections=...)`, where
`connections` is how many requests may be in flight at once (its HTTP pool's size). The `hf`
provider runs a transformers model in this process (byo.providers.hf_local). Image-text models
(`clip`, `hf-clip`, and the reference rankers `rank-oracle`, `rank-blind`) rank candidate
captions instead of answering (byo.providers.image_text; their class says `ranks = True`).
"""

from __future__ import annotations

from pathlib import Path

from byo.core.errors import ConfigError
from byo.providers.base import (
    GenerationParams,
    ImageLimits,
    Provider,
    ProviderFailure,
    Request,
    Response,
)
from byo.providers.hf_local import HuggingFace
from byo.providers.image_text import HFClip, ImageText, OpenClip, RankBlind, RankOracle
from byo.providers.ollama_api import Ollama
from byo.providers.openai_api import ChatCompletions, Groq, OpenAICompatible, OpenAIResponses
from byo.providers.reference import Blind, Oracle
from byo.providers.simulated import Simulated

__all__ = ["PROVIDERS", "GenerationParams", "ImageLimits", "Provider", "ProviderFailure", "Request", "Response",
           "create_provider"]

# Provider type (`--provider`, or `type:` in a providers file) -> its class.
PROVIDERS: dict[str, type[Provider]] = {
    "openai": ChatCompletions,  # OpenAIResponses with --api responses
    "groq": Groq,
    "ollama": Ollama,
    "openai-compatible": OpenAICompatible,
    "blind": Blind,
    "oracle": Oracle,
    "simulated": Simulated,  # a planted psychometric function of a legend quantity (tests, benchmarks)
    "hf": HuggingFace,  # transformers in this process
    # image-text models: rank a question's candidate captions (byo.eval.ranking)
    "clip": OpenClip,  # open_clip
    "hf-clip": HFClip,  # transformers CLIP / SigLIP
    "rank-oracle": RankOracle,
    "rank-blind": RankBlind,
}


def create_provider(ptype: str, model: str, params: GenerationParams, *, api: str = "chat",
                    base_url: str | None = None, api_key: str | None = None, timeout: float = 60.0,
                    limits: ImageLimits | None = None, questions: list | None = None,
                    connections: int | None = None, local: dict | None = None,
                    dataset: Path | None = None) -> Provider:
    """A provider of type `ptype` (a key of `PROVIDERS`); `local`: the in-process model's
    options (hf: device, dtype, batch_size); `dataset`: for a provider that reads the legends
    (the simulated observer)."""
    where = "<command line>"
    if api == "responses" and ptype != "openai":
        raise ConfigError(where, [("--api", f"the Responses API is OpenAI's; {ptype} uses chat")])
    if ptype not in PROVIDERS:
        raise ConfigError(where, [("--provider", f"unknown provider type {ptype!r}; expected one of "
                                   + ", ".join(PROVIDERS))])
    if ptype == "openai-compatible" and not base_url:
        raise ConfigError(where, [("--base-url", "required for openai-compatible, e.g. http://localhost:8000/v1")])
    if api == "responses" and params.seed is not None:
        raise ConfigError(where, [("--seed", "the Responses API takes no seed; use --api chat")])
    cls = OpenAIResponses if api == "responses" else PROVIDERS[ptype]
    if cls.reference:
        return cls(model, params, questions=questions or [], **({"dataset": dataset} if cls.reads_legends else {}))
    extra = (local or {}) if issubclass(cls, HuggingFace | ImageText) else {}
    return cls(model, params, api_key=api_key, base_url=base_url, timeout=timeout, limits=limits,
               connections=connections, **extra)
