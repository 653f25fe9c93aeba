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


@dataclass(frozen=True)
class Prepared:
    request: Request
    image: dict | None  # the row's `image`: path, sha256, sizes; None when the provider sees no image
    key: str | None  # the cache key; None for a provider that is not cached


async def prepare(ev: Evaluation, q: Question) -> Prepared:
    """Raises ProviderFailure when the image cannot be sent (missing, unreadable, too large)."""
    provider, s = ev.provider, ev.settings
    payload, image = None, None
    if provider.needs_image:
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
        key = request_key(provider.identity, ev.model, q.prompt, image["sha256"] if image else None, params)
    return Prepared(Request(prompt=q.prompt, image=payload, question=q, schema=schema), image, key)
