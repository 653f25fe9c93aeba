"""Reference providers: baselines that call no model. Their rows say `reference: true`.

- `blind` never sees the image. It answers each question with the most frequent ground-truth
  answer for that question key across the whole question file (ties: first in file order): the
  text-only prior a model could learn without looking. It reads the truth of the other
  questions, so it is an optimistic baseline.
- `oracle` returns the ground-truth answer, to check the pipeline end to end.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

from byo.providers.base import GenerationParams, Provider, Request, Response
from byo.questions.answer_schema import as_structured


def answer_text(answer: Any) -> str:
    return answer if isinstance(answer, str) else json.dumps(answer)


class Reference(Provider):
    """A baseline built from the question file; it calls no model, so nothing is cached. With a
    schema (--structured) it replies with JSON of it."""

    needs_image = False
    reference = True
    chat = False
    price_source = None
    cacheable = False
    structured = True

    @staticmethod
    def reply(request: Request, answer: Any) -> str:
        if request.schema is None:
            return answer_text(answer)
        return json.dumps({**({"reasoning": ""} if "reasoning" in request.schema["properties"] else {}),
                           "answer": as_structured(request.question.answer_type, answer)})

    def __init__(self, model: str, params: GenerationParams, *, questions: list):
        super().__init__(model, params)


class Oracle(Reference):
    type = "oracle"

    async def answer(self, request: Request) -> Response:
        return Response(text=self.reply(request, request.question.answer), finish_reason="reference")


class Blind(Reference):
    type = "blind"

    def __init__(self, model: str, params: GenerationParams, *, questions: list):
        super().__init__(model, params, questions=questions)
        counts: dict[str, Counter] = defaultdict(Counter)
        for q in questions:
            counts[q.key][json.dumps(q.answer)] += 1
        self.prior = {key: json.loads(c.most_common(1)[0][0]) for key, c in counts.items()}

    async def answer(self, request: Request) -> Response:
        return Response(text=self.reply(request, self.prior[request.question.key]), finish_reason="reference")
