"""Ollama's native `/api/chat`, through the ollama SDK (images as bytes, options as Ollama names)."""

from __future__ import annotations

import json
import os
import urllib.request

import pydantic

from byo.core.urls import redact_url
from byo.providers.base import (
    GenerationParams,
    ImageLimits,
    Provider,
    ProviderFailure,
    Request,
    Response,
    error_message,
    failure_for_http_status,
    http_timeout,
    pool_limits,
)
from byo.providers.reasoning import message_reasoning

LOCAL_OLLAMA = "http://127.0.0.1:11434"  # unless OLLAMA_HOST says otherwise


def ollama_host() -> str:
    host = os.environ.get("OLLAMA_HOST", LOCAL_OLLAMA)
    return host if host.startswith("http") else f"http://{host}"


def ollama_models() -> list[str] | None:
    """The models of the Ollama server at `ollama_host()`; None when it does not answer."""
    try:
        with urllib.request.urlopen(f"{ollama_host()}/api/tags", timeout=1.0) as reply:
            return [m["name"] for m in json.load(reply).get("models", [])]
    except (OSError, ValueError):
        return None


class Ollama(Provider):
    type = "ollama"
    text_only = True
    base_url_env = "OLLAMA_HOST"
    bare_host = True
    sdk_secret_env = ("OLLAMA_API_KEY",)  # the SDK sends it by itself
    structured = True  # `format`: a JSON schema
    few_shot = True  # examples as earlier user (text + images) and assistant messages

    def __init__(self, model: str, params: GenerationParams, *, api_key: str | None = None,
                 base_url: str | None = None, timeout: float = 60.0, limits: ImageLimits | None = None,
                 connections: int | None = None):
        import httpx
        import ollama

        super().__init__(model, params, base_url=base_url, limits=limits)
        # The SDK's default timeout is none; it reads OLLAMA_HOST only when no host is given, and
        # OLLAMA_API_KEY by itself (api_key is not used). Its pool is httpx's default.
        self.client = ollama.AsyncClient(host=base_url, timeout=http_timeout(timeout, httpx.Timeout),
                                         limits=pool_limits(connections, httpx.Limits()))

    @property
    def endpoint(self) -> str:
        # The SDK resolves the host (base_url, OLLAMA_HOST or localhost) but keeps it in its httpx client.
        return redact_url(str(getattr(getattr(self.client, "_client", None), "base_url", None) or self.base_url
                              or self.type))

    def options(self) -> dict:
        options = {"temperature": self.params.temperature}
        if self.params.seed is not None:
            options["seed"] = self.params.seed
        if self.params.max_tokens is not None:
            options["num_predict"] = self.params.max_tokens
        return options

    async def answer(self, request: Request) -> Response:
        import httpx
        import ollama

        shots = [turn for shot in request.shots for turn in (
            {"role": "user", "content": shot.prompt, "images": [shot.image.data]},
            {"role": "assistant", "content": shot.answer})]
        message = {"role": "user", "content": request.prompt}
        if request.image is not None:  # None: the text-only baseline (byo eval --text-only)
            message["images"] = [request.image.data]
        try:
            extra = {"format": request.schema} if request.schema is not None else {}
            reply = await self.client.chat(model=self.model, messages=[*shots, message], options=self.options(),
                                           stream=False, **extra)
        except ollama.ResponseError as err:
            raise failure_for_http_status(err.status_code, error_message(err.error, str(err))) from None
        except httpx.ConnectTimeout as err:  # no server answered: not a slow reply
            raise ProviderFailure("connection_error", f"could not connect: {err or 'connect timeout'}") from None
        except httpx.TimeoutException:
            raise ProviderFailure("timeout", "request timed out") from None
        except (ConnectionError, httpx.TransportError) as err:
            raise ProviderFailure("connection_error", f"{type(err).__name__}: {err}") from None
        except (json.JSONDecodeError, pydantic.ValidationError, TypeError) as err:
            raise ProviderFailure("malformed", f"response body could not be read: {err}") from None
        text = reply.message.content if reply.message else None
        if not isinstance(text, str):
            raise ProviderFailure("malformed", "response has no message content")
        return Response(text=text, input_tokens=reply.prompt_eval_count or 0,
                        output_tokens=reply.eval_count or 0, finish_reason=reply.done_reason,
                        reasoning=message_reasoning(reply.message))  # a thinking model's `thinking`

    async def close(self) -> None:
        await self.client.close()
