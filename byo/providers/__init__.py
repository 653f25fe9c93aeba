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

from collections.abc import Mapping
from importlib import import_module
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
from byo.providers.image_pipeline import Pipeline

__all__ = ["PROVIDERS", "GenerationParams", "ImageLimits", "Provider", "ProviderFailure", "Request", "Response",
           "create_provider", "pipeline_of"]


class _Classes(Mapping):
    """Provider type -> its class, each module imported on first use (the API clients and the
    model libraries are heavy; `byo doctor` and `byo --help` need none of them)."""

    def __init__(self, where: dict[str, str]):
        self._where = where

    def __getitem__(self, ptype: str) -> type[Provider]:
        module, _, name = self._where[ptype].partition(":")
        return getattr(import_module(module), name)

    def __iter__(self):
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


# Provider type (`--provider`, or `type:` in a providers file) -> its class: one line each.
PROVIDERS: Mapping[str, type[Provider]] = _Classes({
    "openai": "byo.providers.openai_api:ChatCompletions",  # OpenAIResponses with --api responses
    "groq": "byo.providers.openai_api:Groq",
    "ollama": "byo.providers.ollama_api:Ollama",
    "openai-compatible": "byo.providers.openai_api:OpenAICompatible",
    "azure": "byo.providers.azure:AzureOpenAI",  # Azure OpenAI: a deployment, an api-version, the api-key header
    "anthropic": "byo.providers.anthropic_compat:AnthropicCompatible",  # Claude, OpenAI-compatible endpoint
    "gemini": "byo.providers.gemini_compat:GeminiCompatible",  # Gemini, OpenAI-compatible endpoint
    "blind": "byo.providers.reference:Blind",
    "oracle": "byo.providers.reference:Oracle",
    "hf": "byo.providers.hf_local:HuggingFace",  # transformers in this process
    "simulated": "byo.providers.simulated:Simulated",  # a planted psychometric function of a legend quantity
    # image-text models: rank a question's candidate captions (byo.eval.ranking)
    "clip": "byo.providers.image_text:OpenClip",  # open_clip
    "hf-clip": "byo.providers.image_text:HFClip",  # transformers CLIP / SigLIP
    "rank-oracle": "byo.providers.image_text:RankOracle",
    "rank-blind": "byo.providers.image_text:RankBlind",
})


def create_provider(ptype: str, model: str, params: GenerationParams, *, api: str = "chat",
                    base_url: str | None = None, api_key: str | None = None, timeout: float = 60.0,
                    limits: ImageLimits | None = None, questions: list | None = None,
                    connections: int | None = None, local: dict | None = None,
                    dataset: Path | None = None, azure: dict | None = None) -> Provider:
    """A provider of type `ptype` (a key of `PROVIDERS`); `local`: the in-process model's
    options (hf: device, dtype, batch_size); `dataset`: for a provider that reads the legends
    (the simulated observer); `azure`: api_version and deployment."""
    where = "<command line>"
    if api == "responses" and ptype != "openai":
        raise ConfigError(where, [("--api", f"the Responses API is OpenAI's; {ptype} uses chat")])
    if ptype not in PROVIDERS:
        raise ConfigError(where, [("--provider", f"unknown provider type {ptype!r}; expected one of "
                                   + ", ".join(PROVIDERS))])
    if ptype == "openai-compatible" and not base_url:
        raise ConfigError(where, [("--base-url", "required for openai-compatible, e.g. http://localhost:8000/v1")])
    if ptype == "azure" and not base_url:
        raise ConfigError(where, [("--base-url", "required for azure: the resource's endpoint, e.g. "
                                   "https://RESOURCE.openai.azure.com (or AZURE_OPENAI_ENDPOINT)")])
    if api == "responses" and params.seed is not None:
        raise ConfigError(where, [("--seed", "the Responses API takes no seed; use --api chat")])
    cls = import_module("byo.providers.openai_api").OpenAIResponses if api == "responses" else PROVIDERS[ptype]
    if cls.reference:
        return cls(model, params, questions=questions or [], **({"dataset": dataset} if cls.reads_legends else {}))
    extra = (local or {}) if cls.local else {}
    if ptype == "azure":
        extra = azure or {}
    base_url = base_url or cls.default_base_url  # anthropic, gemini: the vendor's
    return cls(model, params, api_key=api_key, base_url=base_url, timeout=timeout, limits=limits,
               connections=connections, **extra)


def pipeline_of(spec: str, *, detail: str | None = None, flag: str = "--for") -> Pipeline:
    """What model `spec` (PROVIDER:MODEL, a provider type and its model) receives of a sent image
    (byo.providers.image_pipeline), with OpenAI's `detail` when given."""
    ptype, _, model = spec.partition(":")
    if ptype not in PROVIDERS or not model:
        raise ConfigError("<command line>", [(flag, f"{spec!r}: expected PROVIDER:MODEL with PROVIDER one of "
                                              + ", ".join(PROVIDERS))])
    return PROVIDERS[ptype].pipeline_of(model, GenerationParams(detail=detail))
