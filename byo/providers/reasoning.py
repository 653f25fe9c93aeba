"""Reasoning models: what they think is kept apart from what they answer, and OpenAI's reasoning
models are called with the parameters they take.

A reasoning model's thinking comes back three ways: inside the text, as `<think>...</think>`
(DeepSeek-R1, Qwen3, QwQ through most servers; some chat templates open the block in the prompt,
so the text holds only its `</think>`); as a field of the message beside its content,
`reasoning_content` (vLLM, SGLang, DeepSeek's API) or `reasoning` (newer vLLM, OpenRouter,
Ollama's `thinking`); or as summaries of the Responses API. All of it becomes `Response.reasoning`,
stored in the prediction beside the answer and never parsed; the answer is what is left.

OpenAI's reasoning models (o1, o3, o4-mini, gpt-5 ...) refuse `max_tokens` and any temperature but
the default, and take `max_completion_tokens` and `reasoning_effort`. They are known by name, and
by the server's HTTP 400 naming one of those parameters: the request is then sent again once with
the parameters they accept, and so is every later one.
"""

from __future__ import annotations

import re

from byo.providers.base import GenerationParams, ProviderFailure

_BLOCK = re.compile(r"<(think|thinking|reasoning)>(.*?)</\1>", re.IGNORECASE | re.DOTALL)
_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)


def split_reasoning(text: str | None) -> tuple[str, str | None]:
    """(the answer, the reasoning or None) of a text that may hold `<think>` blocks: closed blocks
    anywhere; a closing tag alone (the block was opened in the prompt): all before it; an opening
    tag never closed (the model ran out of tokens while thinking): all after it, and no answer."""
    if not text or "<" not in text:
        return text or "", None
    thoughts = [m.group(2).strip() for m in _BLOCK.finditer(text)]
    rest = _BLOCK.sub("", text)
    if (close := _CLOSE.search(rest)) and not _OPEN.search(rest, 0, close.start()):
        thoughts.insert(0, rest[: close.start()].strip())
        rest = rest[close.end():]
    if opened := _OPEN.search(rest):
        thoughts.append(rest[opened.end():].strip())
        rest = rest[: opened.start()]
    if not thoughts:
        return text, None
    return rest.strip(), "\n\n".join(t for t in thoughts if t) or None


def join_reasoning(*parts: str | None) -> str | None:
    found = [p.strip() for p in parts if isinstance(p, str) and p.strip()]
    return "\n\n".join(found) or None


# Fields of a chat message that hold its reasoning, by server: vLLM / SGLang / DeepSeek, newer
# vLLM and OpenRouter, Ollama.
MESSAGE_FIELDS = ("reasoning_content", "reasoning", "thinking")


def message_reasoning(message) -> str | None:
    """The reasoning a server returned beside a message's content, if any (an SDK object keeps
    fields it does not know as extra attributes)."""
    if message is None:
        return None
    extra = getattr(message, "model_extra", None) or {}
    for name in MESSAGE_FIELDS:
        value = getattr(message, name, None)
        if value is None:
            value = extra.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return None


# o1, o1-mini, o3-pro, o4-mini-2025-04-16, gpt-5, gpt-5-mini, codex-mini-latest; "openai/" as
# routers write it. Not gpt-4o, gpt-5-chat (a chat model), nor other vendors' "o"-something names.
_OPENAI_REASONING = re.compile(r"^(?:openai/)?(?:o\d+(?:-[\w.-]+)?|gpt-5(?!-chat)(?:[-.][\w.-]+)?|codex-mini[\w.-]*)$",
                               re.IGNORECASE)


def is_reasoning_model(model: str) -> bool:
    """Whether `model` names one of OpenAI's reasoning models."""
    return bool(_OPENAI_REASONING.match(model.strip()))


def reasoning_arguments(args: dict, params: GenerationParams) -> dict:
    """Chat Completions arguments for a reasoning model: no temperature; `max_completion_tokens`
    for `max_tokens`; `reasoning_effort` when the run sets one."""
    out = {k: v for k, v in args.items() if k not in ("temperature", "max_tokens", "max_completion_tokens")}
    if params.max_tokens is not None:
        out["max_completion_tokens"] = params.max_tokens
    if params.reasoning_effort is not None:
        out["reasoning_effort"] = params.reasoning_effort
    return out


def responses_reasoning_arguments(args: dict, params: GenerationParams) -> dict:
    """The Responses API's arguments for a reasoning model: no temperature, `reasoning.effort`."""
    out = {k: v for k, v in args.items() if k != "temperature"}
    if params.reasoning_effort is not None:
        out["reasoning"] = {"effort": params.reasoning_effort}
    return out


_REFUSED = re.compile(r"\b(?:max_tokens|temperature|max_completion_tokens|top_p)\b.{0,120}"
                      r"\b(?:not supported|unsupported|does not support|only the default|use 'max_completion_tokens')"
                      r"|\bunsupported (?:parameter|value)\b.{0,80}\b(?:max_tokens|temperature)\b",
                      re.IGNORECASE | re.DOTALL)


def refuses_sampling_parameters(failure: ProviderFailure) -> bool:
    """Whether a failure is a server's HTTP 400 saying the model does not take `max_tokens` or a
    temperature (what OpenAI's reasoning models answer to chat models' parameters)."""
    return failure.http_status == 400 and bool(_REFUSED.search(failure.message))
