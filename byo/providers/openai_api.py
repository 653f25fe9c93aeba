"""OpenAI Chat Completions and Responses, Groq, and any OpenAI-compatible server.

The SDKs' own retries are off (`max_retries=0`): the evaluator retries, so it sees and
records every attempt.
"""

from __future__ import annotations

import base64
import json
from types import ModuleType

import pydantic

from byo.core.urls import redact_url
from byo.providers.base import (
    GenerationParams,
    ImageLimits,
    ImagePayload,
    Provider,
    ProviderFailure,
    Request,
    Response,
    error_message,
    failure_for_http_status,
    http_timeout,
    is_connect_timeout,
    pool_limits,
)
from byo.providers.reasoning import (
    is_reasoning_model,
    message_reasoning,
    reasoning_arguments,
    refuses_sampling_parameters,
    responses_reasoning_arguments,
)

SCHEMA_NAME = "answer"  # the name a json_schema response format carries

# Vendor limits at the time of writing; a providers file may override them.
OPENAI_LIMITS = ImageLimits(max_bytes=20 * 1024 * 1024)
GROQ_LIMITS = ImageLimits(max_bytes=3 * 1024 * 1024, max_pixels=33_177_600)  # 4 MB once base64-encoded


def openai_http_client(connections: int | None, provider: Provider | None = None):
    """The openai SDK's own HTTP client, with a pool for `connections` requests at once; every
    reply's headers go to `provider.on_headers` (its rate limits)."""
    import openai

    hooks = {"response": [provider.header_hook()]} if provider is not None else None
    return openai.DefaultAsyncHttpxClient(limits=pool_limits(connections, openai.DEFAULT_CONNECTION_LIMITS),
                                          event_hooks=hooks)


def data_uri(image: ImagePayload) -> str:
    return f"data:{image.mime};base64,{base64.b64encode(image.data).decode('ascii')}"


def sdk_failure(err: Exception, sdk: ModuleType) -> ProviderFailure | None:
    """Map an openai/groq SDK exception to a recorded status (None: not an SDK error)."""
    if isinstance(err, sdk.APITimeoutError):
        if is_connect_timeout(err.__cause__):
            return ProviderFailure("connection_error", f"could not connect: {err.__cause__ or 'connect timeout'}")
        return ProviderFailure("timeout", "request timed out")
    if isinstance(err, sdk.APIStatusError):
        return failure_for_http_status(err.status_code, error_message(err.body, err.message), err.response.headers)
    if isinstance(err, sdk.APIResponseValidationError):
        return ProviderFailure("malformed", f"response body does not match the API schema: {err.message}")
    if isinstance(err, sdk.APIConnectionError):
        cause = err.__cause__ or err
        if isinstance(cause, json.JSONDecodeError):
            return ProviderFailure("malformed", f"response body is not JSON: {cause}")
        return ProviderFailure("connection_error", f"{err.message} ({type(cause).__name__}: {cause})")
    sdk_error = getattr(sdk, "OpenAIError", None) or sdk.GroqError
    if isinstance(err, sdk_error):
        return ProviderFailure("rejected", str(err))
    if isinstance(err, json.JSONDecodeError | pydantic.ValidationError):
        return ProviderFailure("malformed", f"response body could not be read: {err}")
    return None


async def ask(call, read, sdk: ModuleType) -> Response:
    """Send an SDK request and read its reply; SDK errors become recorded failures."""
    try:
        return read(await call())
    except ProviderFailure:
        raise
    except Exception as err:
        failure = sdk_failure(err, sdk)
        if failure is None:
            raise
        raise failure from None


class ChatCompletions(Provider):
    """`/chat/completions` with a text part and an `image_url` part (a base64 data URI)."""

    type = "openai"
    text_only = True
    reasoning = True  # reasoning_effort (byo.providers.reasoning)
    key_env = "OPENAI_API_KEY"
    key_required = True
    base_url_env = "OPENAI_BASE_URL"
    max_tokens_field = "max_completion_tokens"
    sdk_name = "openai"
    structured = True  # response_format: json_schema
    few_shot = True  # examples as earlier user (text + image) and assistant turns
    reads_rate_headers = True  # x-ratelimit-* headers, through the HTTP client's event hook
    batch_route = "/v1/chat/completions"  # the Batch API (byo eval --batch)

    def __init__(self, model: str, params: GenerationParams, *, api_key: str | None,
                 base_url: str | None = None, timeout: float = 60.0, limits: ImageLimits | None = None,
                 connections: int | None = None):
        super().__init__(model, params, base_url=base_url, limits=limits or self.default_limits())
        self.client = self.make_client(api_key=api_key, base_url=base_url, timeout=timeout,
                                       connections=connections)
        # a reasoning model's parameters (byo.providers.reasoning): known by name, or learnt from a 400
        self.reasoning_api = is_reasoning_model(model)

    def default_limits(self) -> ImageLimits:
        return OPENAI_LIMITS

    @property
    def endpoint(self) -> str:
        return redact_url(str(self.client.base_url))

    def make_client(self, *, api_key, base_url, timeout, connections):
        import openai

        self.sdk = openai
        kwargs = {"base_url": base_url} if base_url else {}
        return openai.AsyncOpenAI(api_key=api_key, timeout=http_timeout(timeout, openai.Timeout), max_retries=0,
                                  http_client=openai_http_client(connections, self), **kwargs)

    def user_turn(self, prompt: str, image: ImagePayload | None) -> dict:
        """A user turn: the text, then the image (None: the text-only baseline, byo eval --text-only)."""
        content = [{"type": "text", "text": prompt}]
        if image is not None:
            image_url = {"url": data_uri(image)}
            if self.params.detail is not None:
                image_url["detail"] = self.params.detail
            content.append({"type": "image_url", "image_url": image_url})
        return {"role": "user", "content": content}

    def arguments(self, request: Request) -> dict:
        shots = [turn for shot in request.shots
                 for turn in (self.user_turn(shot.prompt, shot.image), {"role": "assistant", "content": shot.answer})]
        args = {
            "model": self.model,
            "messages": [*shots, self.user_turn(request.prompt, request.image)],
            "temperature": self.params.temperature,
        }
        if self.params.max_tokens is not None:
            args[self.max_tokens_field] = self.params.max_tokens
        if self.params.seed is not None:
            args["seed"] = self.params.seed
        if request.schema is not None:
            args["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": SCHEMA_NAME, "schema": request.schema, "strict": True}}
        return self.for_reasoning(args)

    def for_reasoning(self, args: dict) -> dict:
        """The arguments a reasoning model takes (when this is one), and the run's reasoning effort."""
        if self.reasoning_api:
            return reasoning_arguments(args, self.params)
        if self.params.reasoning_effort is not None:
            return {**args, "reasoning_effort": self.params.reasoning_effort}
        return args

    async def answer(self, request: Request) -> Response:
        return await self.answer_learning_parameters(
            lambda: ask(lambda: self.client.chat.completions.create(**self.arguments(request)), self.read, self.sdk))

    async def answer_learning_parameters(self, send) -> Response:
        """`send()`; a 400 refusing `max_tokens` or the temperature makes this a reasoning model's
        provider, and the request is sent once more with the parameters such models take."""
        try:
            return await send()
        except ProviderFailure as failure:
            if self.reasoning_api or not refuses_sampling_parameters(failure):
                raise
            self.reasoning_api = True
        return await send()

    @staticmethod
    def read(completion) -> Response:
        if not getattr(completion, "choices", None):
            raise ProviderFailure("malformed", "response has no choices")
        choice = completion.choices[0]
        message = choice.message
        refusal = getattr(message, "refusal", None)
        text = message.content if message.content is not None else (refusal or "")
        if not isinstance(text, str):
            raise ProviderFailure("malformed", f"message content is not text: {type(text).__name__}")
        usage = completion.usage
        details = getattr(usage, "completion_tokens_details", None)
        prompt_details = getattr(usage, "prompt_tokens_details", None)
        return Response(
            text=text,
            input_tokens=usage.prompt_tokens if usage else 0,
            output_tokens=usage.completion_tokens if usage else 0,
            reasoning_tokens=getattr(details, "reasoning_tokens", None),
            cached_input_tokens=getattr(prompt_details, "cached_tokens", None),
            finish_reason=choice.finish_reason,
            refusal=bool(refusal),
            reasoning=message_reasoning(message),
        )

    async def close(self) -> None:
        await self.client.close()


class OpenAICompatible(ChatCompletions):
    """vLLM, llama.cpp server, LM Studio, Ollama's /v1: any base URL serving /chat/completions."""

    type = "openai-compatible"
    key_env = "OPENAI_COMPATIBLE_API_KEY"
    key_required = False  # local servers often need none
    base_url_env = None
    base_url_required = "the server's URL, e.g. http://localhost:8000/v1"
    max_tokens_field = "max_tokens"  # what most local servers understand

    def default_limits(self) -> ImageLimits:
        return ImageLimits()

    def make_client(self, *, api_key, base_url, timeout, connections):
        import openai

        self.sdk = openai
        # Local servers often need no key, but the SDK insists on one.
        return openai.AsyncOpenAI(api_key=api_key or "no-key", base_url=base_url,
                                  timeout=http_timeout(timeout, openai.Timeout), max_retries=0,
                                  http_client=openai_http_client(connections, self))


class Groq(ChatCompletions):
    """Groq's OpenAI-shaped chat API, through the groq SDK (which appends /openai/v1)."""

    type = "groq"
    key_env = "GROQ_API_KEY"
    base_url_env = "GROQ_BASE_URL"
    batch_route = None  # not through byo

    def default_limits(self) -> ImageLimits:
        return GROQ_LIMITS

    def make_client(self, *, api_key, base_url, timeout, connections):
        import groq

        self.sdk = groq
        kwargs = {"base_url": base_url} if base_url else {}
        http_client = groq.DefaultAsyncHttpxClient(limits=pool_limits(connections, groq.DEFAULT_CONNECTION_LIMITS),
                                                   event_hooks={"response": [self.header_hook()]})
        return groq.AsyncGroq(api_key=api_key, timeout=http_timeout(timeout, groq.Timeout), max_retries=0,
                              http_client=http_client, **kwargs)


class OpenAIResponses(ChatCompletions):
    """The Responses API (`--api responses`): `input_text` and `input_image` parts, `store=False`."""

    type = "openai-responses"
    batch_route = "/v1/responses"

    def user_turn(self, prompt: str, image: ImagePayload | None) -> dict:
        content = [{"type": "input_text", "text": prompt}]
        if image is not None:  # None: the text-only baseline
            content.append({"type": "input_image", "image_url": data_uri(image), "detail": self.params.detail or "auto"})
        return {"role": "user", "content": content}

    def arguments(self, request: Request) -> dict:
        shots = [turn for shot in request.shots
                 for turn in (self.user_turn(shot.prompt, shot.image), {"role": "assistant", "content": shot.answer})]
        args = {
            "model": self.model,
            "input": [*shots, self.user_turn(request.prompt, request.image)],
            "temperature": self.params.temperature,
            "store": False,  # the API stores responses unless told not to
        }
        if self.params.max_tokens is not None:
            args["max_output_tokens"] = self.params.max_tokens
        if request.schema is not None:
            args["text"] = {"format": {"type": "json_schema", "name": SCHEMA_NAME, "schema": request.schema,
                                       "strict": True}}
        return self.for_reasoning(args)

    def for_reasoning(self, args: dict) -> dict:
        if self.reasoning_api or self.params.reasoning_effort is not None:
            return responses_reasoning_arguments(args, self.params) if self.reasoning_api else \
                {**args, "reasoning": {"effort": self.params.reasoning_effort}}
        return args

    async def answer(self, request: Request) -> Response:
        return await self.answer_learning_parameters(
            lambda: ask(lambda: self.client.responses.create(**self.arguments(request)), self.read_response, self.sdk))

    @staticmethod
    def read_response(response) -> Response:
        if not isinstance(getattr(response, "output", None), list):
            raise ProviderFailure("malformed", "response has no output list")
        refusals = [part.refusal for item in response.output if item.type == "message"
                    for part in item.content if part.type == "refusal"]
        text = response.output_text or "".join(refusals)
        summaries = [part.text for item in response.output if item.type == "reasoning"
                     for part in (getattr(item, "summary", None) or []) if getattr(part, "text", None)]
        usage = response.usage
        return Response(
            text=text,
            input_tokens=usage.input_tokens if usage else 0,
            output_tokens=usage.output_tokens if usage else 0,
            reasoning_tokens=getattr(getattr(usage, "output_tokens_details", None), "reasoning_tokens", None),
            cached_input_tokens=getattr(getattr(usage, "input_tokens_details", None), "cached_tokens", None),
            finish_reason=response.status,
            refusal=bool(refusals) and not response.output_text,
            reasoning="\n\n".join(summaries) or None,
        )
