"""VLM providers behind one interface (`byo.providers.base.Provider.answer`)."""

from __future__ import annotations

from byo.errors import ConfigError
from byo.providers.base import (
    GenerationParams,
    ImageLimits,
    Provider,
    ProviderFailure,
    Request,
    Response,
)

__all__ = ["GenerationParams", "ImageLimits", "Provider", "ProviderFailure", "Request", "Response",
           "create_provider"]


def create_provider(ptype: str, model: str, params: GenerationParams, *, api: str = "chat",
                    base_url: str | None = None, api_key: str | None = None, timeout: float = 60.0,
                    limits: ImageLimits | None = None, questions: list | None = None) -> Provider:
    """A provider of type `ptype` (see byo.providers.catalog.PROVIDER_TYPES)."""
    where = "<command line>"
    if api == "responses" and ptype != "openai":
        raise ConfigError(where, [("--api", f"the Responses API is OpenAI's; {ptype} uses chat")])
    if ptype in ("blind", "oracle"):
        from byo.providers.reference import Blind, Oracle

        if ptype == "blind":
            return Blind(model, params, questions=questions or [])
        return Oracle(model, params)
    if ptype == "ollama":
        from byo.providers.ollama_api import Ollama

        return Ollama(model, params, base_url=base_url, timeout=timeout, limits=limits)

    from byo.providers.openai_api import ChatCompletions, Groq, OpenAICompatible, OpenAIResponses

    if ptype == "openai-compatible" and not base_url:
        raise ConfigError(where, [("--base-url", "required for openai-compatible, e.g. http://localhost:8000/v1")])
    if api == "responses" and params.seed is not None:
        raise ConfigError(where, [("--seed", "the Responses API takes no seed; use --api chat")])
    cls = {"openai": OpenAIResponses if api == "responses" else ChatCompletions, "groq": Groq,
           "openai-compatible": OpenAICompatible}.get(ptype)
    if cls is None:
        raise ConfigError(where, [("--provider", f"unknown provider type {ptype!r}")])
    return cls(model, params, api_key=api_key, base_url=base_url, timeout=timeout, limits=limits)
