"""VLM providers behind one interface (`byo.providers.base.Provider.answer`).

A provider type is one module and one line in `PROVIDERS`: its class describes it (its key and
base-URL variables, its capabilities, its price source and image handling; `Provider`'s attributes),
and the settings checks, key lookup, `byo doctor` and `byo eval --help` read them. A reference provider (a baseline
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

from byo.core.errors import ARGUMENTS, ConfigError
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
           "create_provider", "key_variables", "pipeline_of", "providers_that",
           "sdk_secret_variables"]


class _Classes(Mapping):
    """Provider type -> its class, each module imported on first use (the API clients and the
    model libraries are heavy, and imported by a request's first call; `byo --help` imports
    none of them). `where`: provider type -> "module:Class", the registration."""

    def __init__(self, where: dict[str, str]):
        self.where = where

    def __getitem__(self, ptype: str) -> type[Provider]:
        module, _, name = self.where[ptype].partition(":")
        return getattr(import_module(module), name)

    def __iter__(self):
        return iter(self.where)

    def __len__(self) -> int:
        return len(self.where)


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


def providers_that(capability: str) -> list[str]:
    """The provider types whose class has `capability` (a class attribute of Provider: text_only,
    structured, few_shot, batch_route, chat, reasoning, ranks...), in `PROVIDERS` order."""
    return [ptype for ptype, cls in PROVIDERS.items() if getattr(cls, capability)]


def key_variables() -> list[str]:
    """The environment variables of the providers' API keys (byo doctor), sorted."""
    return sorted({cls.key_env for cls in PROVIDERS.values() if cls.key_env})


def sdk_secret_variables() -> list[str]:
    """The variables any provider's SDK reads by itself that hold a secret: redacted from every record."""
    return sorted({env for cls in PROVIDERS.values() for env in cls.sdk_secret_env})


def create_provider(ptype: str, model: str, params: GenerationParams, *, api: str = "chat",
                    base_url: str | None = None, api_key: str | None = None, timeout: float = 60.0,
                    limits: ImageLimits | None = None, questions: list | None = None,
                    connections: int | None = None, local: dict | None = None,
                    dataset: Path | None = None, deployment: dict | None = None) -> Provider:
    """A provider of type `ptype` (a key of `PROVIDERS`); `local`: the in-process model's
    options (hf: device, dtype, batch_size); `dataset`: for a provider that reads the legends
    (the simulated observer); `deployment`: api_version and deployment, for a provider of
    `deployments` (Azure)."""
    where = ARGUMENTS
    if api == "responses" and ptype != "openai":
        raise ConfigError(where, [("api", f"the Responses API is OpenAI's; {ptype} uses chat")])
    if ptype not in PROVIDERS:
        raise ConfigError(where, [("provider", f"unknown provider type {ptype!r}; expected one of "
                                   + ", ".join(PROVIDERS))])
    if PROVIDERS[ptype].base_url_required and not base_url:
        raise ConfigError(where, [("base_url", f"required for {ptype}: {PROVIDERS[ptype].base_url_required}")])
    if api == "responses" and params.seed is not None:
        raise ConfigError(where, [("seed", "the Responses API takes no seed; set `api` to chat")])
    cls = import_module("byo.providers.openai_api").OpenAIResponses if api == "responses" else PROVIDERS[ptype]
    if cls.reference:
        return cls(model, params, questions=questions or [], **({"dataset": dataset} if cls.reads_legends else {}))
    extra = (local or {}) if cls.local else {}
    if cls.deployments:
        extra = deployment or {}
    base_url = base_url or cls.default_base_url  # anthropic, gemini: the vendor's
    return cls(model, params, api_key=api_key, base_url=base_url, timeout=timeout, limits=limits,
               connections=connections, **extra)


def pipeline_of(spec: str, *, detail: str | None = None, field: str = "for_models") -> Pipeline:
    """What model `spec` (PROVIDER:MODEL, a provider type and its model) receives of a sent image
    (byo.providers.image_pipeline), with OpenAI's `detail` when given."""
    ptype, _, model = spec.partition(":")
    if ptype not in PROVIDERS or not model:
        raise ConfigError(ARGUMENTS, [(field, f"{spec!r}: expected PROVIDER:MODEL with PROVIDER one of "
                                       + ", ".join(PROVIDERS))])
    return PROVIDERS[ptype].pipeline_of(model, GenerationParams(detail=detail))
