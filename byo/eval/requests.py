"""A question as a provider request: the prompt, the image as the provider accepts it, and the
cache key of what decides the answer."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from byo.eval.cache import request_key
from byo.eval.resolve import Evaluation
from byo.providers import Request
from byo.providers.images import prepare_image
from byo.questions.answer_schema import schema_for
from byo.questions.load import Question

# What the text-only baseline (byo eval --text-only) tells a language model before the question:
# it reads the options without the image, as the blind LLM of Auto-Comp's Table 9 (after
# SugarCrepe) picks the caption from the shuffled positive and negatives without visual input.
TEXT_ONLY_PREFACE = ("You cannot see the image this question is about. Answer as well as you can from the "
                     "question and its options alone.")


@dataclass(frozen=True)
class Prepared:
    request: Request
    image: dict | None  # the row's `image`: path, sha256, sizes; None when the provider sees no image
    key: str | None  # the cache key; None for a provider that is not cached


async def prepare(ev: Evaluation, q: Question) -> Prepared:
    """Raises ProviderFailure when the image cannot be sent (missing, unreadable, too large)."""
    provider, s = ev.provider, ev.settings
    payload, image = None, None
    prompt = f"{TEXT_ONLY_PREFACE} {q.prompt}" if s.text_only else q.prompt
    if provider.needs_image and not s.text_only:
        payload, image = await asyncio.to_thread(
            prepare_image, ev.dataset / q.image, provider.limits, s.max_side, s.provider)
        image = {"path": q.image, **image}
    schema = schema_for(q) if s.structured else None
    key = None
    if provider.cacheable:
        params = s.params.model_dump()
        if s.repeat > 1:  # repeats 2..K are asked anew, and cached apart from repeat 1 and from each other
            params["repeat"] = s.repeat
        if schema is not None:  # a structured answer is another request than a free-form one
            params["response_schema"] = schema
        key = request_key(provider.identity, ev.model, prompt, image["sha256"] if image else None, params)
    return Prepared(Request(prompt=prompt, image=payload, question=q, schema=schema), image, key)
