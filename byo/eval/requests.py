"""A question as a provider request: the prompt, the image as the provider accepts it, and the
cache key of what decides the answer."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from byo.eval.cache import request_key
from byo.eval.resolve import Evaluation
from byo.eval.shots import answer_text
from byo.providers import Request
from byo.providers.base import ProviderFailure, Shot
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
    shots: tuple[str, ...] = ()  # the ids of the examples sent first (--shots)


async def prepare_shots(ev: Evaluation, q: Question, image_sha256: str) -> tuple[list[Shot], list[dict]]:
    """The first K examples of the question's seeded order whose image is not the one under test
    (by path and by content): the shots, and what the cache key and the row record of each."""
    s, shots, records = ev.settings, [], []
    for example in ev.shots.order(q):
        try:
            payload, info = await asyncio.to_thread(prepare_image, example.dataset / example.question.image,
                                                    ev.provider.limits, s.max_side, s.provider)
        except ProviderFailure as failure:
            raise ProviderFailure(failure.status, f"example {example.question.id}: {failure.message}") from None
        if info["sha256"] == image_sha256:
            continue  # the same picture under another name
        answer = answer_text(example.question.answer)
        shots.append(Shot(prompt=example.question.prompt, image=payload, answer=answer))
        records.append({"id": example.question.id, "image": info["sha256"], "answer": answer,
                        "prompt": example.question.prompt})
        if len(shots) == ev.shots.k:
            return shots, records
    raise ProviderFailure("image_missing", f"fewer than {ev.shots.k} examples with an image other than {q.image}")


async def prepare(ev: Evaluation, q: Question) -> Prepared:
    """Raises ProviderFailure when the image cannot be sent (missing, unreadable, too large)."""
    provider, s = ev.provider, ev.settings
    payload, image = None, None
    prompt = f"{TEXT_ONLY_PREFACE} {q.prompt}" if s.text_only else q.prompt
    if provider.needs_image and not s.text_only:
        payload, image = await asyncio.to_thread(
            prepare_image, ev.dataset / q.image, provider.limits, s.max_side, s.provider)
        # what the model receives of it, by its provider's published rule (unknown: said so)
        image = {"path": q.image, **image, "received": ev.pipeline.receive(*image["sent_size"]).to_json()}
    schema = schema_for(q) if s.structured else None
    shots, records = await prepare_shots(ev, q, image["sha256"]) if ev.shots is not None else ([], [])
    key = None
    if provider.cacheable:
        params = s.params.model_dump()
        if s.repeat > 1:  # repeats 2..K are asked anew, and cached apart from repeat 1 and from each other
            params["repeat"] = s.repeat
        if schema is not None:  # a structured answer is another request than a free-form one
            params["response_schema"] = schema
        if records:  # the examples (prompt, image, answer) decide the answer too
            params["shots"] = [{k: r[k] for k in ("prompt", "image", "answer")} for r in records]
        key = request_key(provider.identity, ev.model, prompt, image["sha256"] if image else None, params)
    return Prepared(Request(prompt=prompt, image=payload, question=q, schema=schema, shots=tuple(shots)), image, key,
                    tuple(r["id"] for r in records))
