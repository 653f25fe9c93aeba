"""The one interface every provider implements: `await provider.answer(request) -> Response`.

A provider turns a prompt and an image into text and token counts, or raises `ProviderFailure`
with a status. It never retries: retries, timeouts and rate limits belong to the evaluator, so
every attempt is counted and every failure is recorded the same way for all providers.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer

from byo.core.urls import redact_url
from byo.providers.image_pipeline import Pipeline, pipeline_for, unknown

CONNECT_TIMEOUT = 10.0  # seconds to open a connection; a server that is there accepts at once


def http_timeout(timeout: float, timeout_class: type):
    """A client's timeout, of its HTTP library's class (httpx, or httpx2 for openai 3): `timeout`
    per request, but a wrong or unreachable host fails within CONNECT_TIMEOUT."""
    return timeout_class(timeout, connect=min(timeout, CONNECT_TIMEOUT))


def pool_limits(connections: int | None, default):
    """A client's connection pool, of the same `Limits` class as the SDK's `default`: grown so that
    `connections` requests (the run's concurrency) can be in flight at once and keep their
    connections open between requests. The SDKs' own pools stop at 100 (groq, ollama: 20 kept open)."""
    if connections is None:
        return default
    return type(default)(max_connections=max(connections, default.max_connections or 0),
                         max_keepalive_connections=max(connections, default.max_keepalive_connections or 0))


def is_connect_timeout(err: BaseException | None) -> bool:
    """httpx's or httpx2's ConnectTimeout: no connection was made, so no server is answering slowly."""
    return err is not None and any(cls.__name__ == "ConnectTimeout" for cls in type(err).__mro__)


class GenerationParams(BaseModel):
    """What changes the answer: part of the cache key and of every prediction row."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1)
    seed: int | None = None
    detail: Literal["auto", "low", "high"] | None = None  # OpenAI image detail; None: not sent
    # a reasoning model's effort (OpenAI's reasoning_effort); None: not sent, and not written, so
    # that the cache keys of runs that never set it stay what they were
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None

    @model_serializer(mode="wrap")
    def _without_unset_effort(self, handler):
        out = handler(self)
        if out.get("reasoning_effort") is None:
            out.pop("reasoning_effort", None)
        return out


@dataclass(frozen=True)
class ImagePayload:
    data: bytes
    mime: str  # the real format: image/png for rendered datasets


@dataclass(frozen=True)
class Shot:
    """A solved example before the question (byo eval --shots): its prompt, image and answer."""

    prompt: str
    image: ImagePayload
    answer: str


@dataclass(frozen=True)
class Request:
    prompt: str
    image: ImagePayload | None  # None only for providers with `needs_image = False`
    question: Any = None  # the Question; only the reference providers look at it
    schema: dict | None = None  # --structured: the JSON schema the reply must follow
    shots: tuple[Shot, ...] = ()  # --shots K: examples sent first, as user / assistant turns


@dataclass
class Response:
    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int | None = None
    cached_input_tokens: int | None = None
    finish_reason: str | None = None
    refusal: bool = False  # the API flagged a refusal (OpenAI's `message.refusal`)
    reasoning: str | None = None  # a reasoning model's thinking, apart from the answer (byo.providers.reasoning)

    def tokens(self) -> dict:
        out = {"input": self.input_tokens, "output": self.output_tokens,
               "total": self.input_tokens + self.output_tokens}
        if self.reasoning_tokens is not None:
            out["reasoning"] = self.reasoning_tokens
        if self.cached_input_tokens is not None:
            out["cached_input"] = self.cached_input_tokens
        return out


# Failure statuses recorded in predictions; the first group is worth another attempt.
RETRYABLE = {"rate_limited", "server_error", "timeout", "malformed", "connection_error"}
FINAL = {"rejected", "image_too_large", "image_unreadable", "image_missing"}
NEVER_RETRIED = {501, 505}  # server errors that say what the server cannot do: not implemented, no such HTTP version


class ProviderFailure(Exception):
    def __init__(self, status: str, message: str, *, http_status: int | None = None,
                 retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.http_status = http_status
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        return self.status in RETRYABLE


def failure_for_http_status(code: int, message: str, headers: Mapping[str, str] | None = None) -> ProviderFailure:
    if code == 429:
        status = "rate_limited"
    elif code == 408:
        status = "timeout"
    elif code == 409 or (code >= 500 and code not in NEVER_RETRIED):
        status = "server_error"
    else:
        status = "rejected"  # 400 (e.g. image refused), 401, 403, 404, 413, 422, 501: retrying won't help
    return ProviderFailure(status, f"HTTP {code}: {message}", http_status=code,
                           retry_after=parse_retry_after(headers or {}))


def error_message(body: object, fallback: str) -> str:
    """The human part of an error body: {"error": {"message": ...}}, {"error": "..."} or text."""
    if isinstance(body, dict) and "error" in body:
        body = body["error"]
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    if isinstance(body, str) and body:
        return body
    return fallback


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from `retry-after-ms`, or `retry-after` (seconds or an HTTP date)."""
    if (ms := headers.get("retry-after-ms")) is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        return None if parsed is None else max(0.0, email.utils.mktime_tz(parsed) - time.time())


@dataclass
class ImageLimits:
    """What a provider accepts; an image over a limit is an error unless downscaling is requested."""

    max_bytes: int | None = None  # of the encoded file, before base64
    max_pixels: int | None = None


class Provider:
    """Base class. `identity` goes into the cache key: the type, plus the base URL when one is set
    (redacted: a key in the URL does not change the answers).

    A provider describes itself in its class attributes: what it can do (the capabilities below),
    where its key and base URL come from, how its cost is known and how it takes images
    (`needs_image`, `default_limits`, `pipeline_of`). Settings are checked, keys resolved, `byo
    doctor` and `byo eval --help` written from them (byo.eval.resolve, byo.providers.keys); adding a
    provider is its module and one line in `byo.providers.PROVIDERS`."""

    type = ""
    # Capabilities
    chat = True  # answers a prompt with a model (a judge can be one); not a baseline, not a ranker
    text_only = False  # a language model that can be asked without the image (byo eval --text-only)
    reasoning = False  # sends a reasoning model's effort (GenerationParams.reasoning_effort)
    # Where its key and endpoint come from
    key_env: str | None = None  # the environment variable of its API key (the default of --key-env)
    key_required = False  # no request without a key
    base_url_env: str | None = None  # the variable its SDK reads for the base URL (put in the cache key)
    base_url_required: str | None = None  # when a base URL is required: what to give, with an example
    sdk_secret_env: tuple[str, ...] = ()  # variables its SDK reads by itself that hold a secret (redacted)
    deployments = False  # an Azure resource: takes an api_version and a deployment (create_provider's `azure`)
    bare_host = False  # a base URL may be HOST[:PORT] alone, taken as http (as the ollama client takes it)
    # How its cost is known: "tokens" (the API's token counts at the providers file's prices; byo
    # plan --estimate counts the prompt and the image pipeline's tokens), "processor" (an
    # in-process model whose processor counts the tokens), "embeddings" (an image-text model: no
    # token estimate), None (a baseline: free)
    price_source: str | None = "tokens"
    needs_image = True
    reference = False  # a baseline that calls no model (blind, oracle)
    local = False  # runs a model in this process: takes its options (device, dtype, batch_size)
    reads_legends = False  # a reference that reads each image's legend (the simulated observer): given the dataset
    ranks = False  # an image-text model: ranks a question's candidate captions (byo.eval.ranking)
    cacheable = True
    default_timeout = 60.0  # seconds per request, unless --timeout or the providers file says
    structured = False  # takes a JSON schema for its reply (Request.schema; byo eval --structured)
    few_shot = False  # sends Request.shots (byo eval --shots) as earlier turns of the conversation
    reads_rate_headers = False  # its client hands every reply's headers to `on_headers` (rate limits)
    batch_route: str | None = None  # the endpoint of its batches (/files + /batches; byo.eval.batch), if any
    default_base_url: str | None = None  # where it is asked without --base-url (a vendor's endpoint)

    def __init__(self, model: str, params: GenerationParams, *, base_url: str | None = None,
                 limits: ImageLimits | None = None):
        self.model = model
        self.params = params
        self.base_url = base_url
        self.limits = limits or ImageLimits()
        # Told the headers of every reply when `reads_rate_headers` (byo.eval.ratelimit sets it).
        self.on_headers: Callable[[Mapping[str, str]], None] | None = None

    def header_hook(self):
        """An httpx response event hook that hands each reply's headers to `on_headers`."""
        async def hook(response) -> None:
            if self.on_headers is not None:
                self.on_headers(response.headers)
        return hook

    @property
    def identity(self) -> str:
        """The type and base URL, redacted (run.json records it; a key can hide in a URL)."""
        return f"{self.type}@{redact_url(self.base_url)}" if self.base_url else self.type

    @property
    def endpoint(self) -> str:
        """Where requests go, for messages: the URL the client uses, redacted."""
        return redact_url(self.base_url) if self.base_url else self.type

    @classmethod
    def pipeline_of(cls, model: str, params: GenerationParams) -> Pipeline:
        """What `model` receives of a sent image: its provider's published rule for this model
        and request options (byo.providers.image_pipeline); unknown where none is known."""
        if cls.reference or not cls.needs_image:
            return unknown(f"{cls.type} is a baseline: no model receives the image")
        return pipeline_for(cls.type, model, detail=params.detail)

    def image_pipeline(self) -> Pipeline:
        """What this provider's model receives of a sent image (`pipeline_of`)."""
        return self.pipeline_of(self.model, self.params)

    async def answer(self, request: Request) -> Response:
        raise NotImplementedError

    async def close(self) -> None:
        return None
