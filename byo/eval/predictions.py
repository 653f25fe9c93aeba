"""Prediction rows (one per question, in `predictions.jsonl`), the answer record kept in the
cache, and token totals. Both are redacted: a key echoed back by a server is never written."""

from __future__ import annotations

from byo.eval.layout import MAX_ANSWER_CHARS, cap_answer
from byo.eval.resolve import Evaluation
from byo.providers import Response
from byo.providers.keys import redact_all
from byo.providers.reasoning import join_reasoning, split_reasoning
from byo.questions.load import Question


def answer_record(response: Response, latency_s: float, attempts: int, secrets: list[str | None],
                  max_chars: int | None = MAX_ANSWER_CHARS) -> dict:
    """What the cache keeps of an answer: enough to write its row again without a request. An
    answer longer than `max_chars` is kept cut (see `cap_answer`), and the cut recorded. A
    reasoning model's thinking (a field of the reply, or `<think>` blocks in its text) is kept
    apart, as `reasoning`, cut the same way: the answer is what is left."""
    answer, thought = split_reasoning(response.text)
    text, cut = cap_answer(answer, max_chars)
    record = {"text": text, "tokens": response.tokens(), "finish_reason": response.finish_reason,
              "refusal": response.refusal, "latency_s": round(latency_s, 4), "attempts": attempts,
              "response_cut": cut}
    if reasoning := join_reasoning(response.reasoning, thought):
        record["reasoning"], record["reasoning_cut"] = cap_answer(reasoning, max_chars)
    return redact_all(record, secrets)


def prediction_row(ev: Evaluation, q: Question, image: dict | None, *, status: str, attempts: int,
                   latency_s: float | None, record: dict | None = None, error: str | None = None,
                   shots: tuple[str, ...] = ()) -> dict:
    tokens = record["tokens"] if record else None
    batch = record.get("batch") if record else None  # the answer came from this batch (byo eval --batch)
    price = ev.batch_price if batch else ev.price
    cost = price.cost(tokens["input"] or 0, tokens["output"] or 0) if tokens else None
    return redact_all({
        "id": q.id,
        "provider": ev.settings.provider,
        "model": ev.model,
        "reference": ev.provider.reference,
        "prompt": q.prompt,
        "response": record["text"] if record else None,
        "response_cut": record.get("response_cut") if record else None,
        # a reasoning model's thinking, apart from its answer: stored, never parsed
        **({"reasoning": record["reasoning"], "reasoning_cut": record.get("reasoning_cut")}
           if record and record.get("reasoning") else {}),
        "status": status,
        "error": error or None,
        "finish_reason": record["finish_reason"] if record else None,
        "refusal": record["refusal"] if record else None,
        "tokens": tokens,
        "cost_usd": cost,
        "latency_s": round(latency_s, 4) if latency_s is not None else None,
        "attempts": attempts,
        "parameters": ev.settings.params.model_dump(),
        "image": image,
        # --structured: the reply is JSON of the question's schema, and byo score reads it as such
        **({"structured": True} if ev.settings.structured else {}),
        **({"shots": list(shots)} if shots else {}),  # --shots: the ids of the examples sent first
        **({"batch": batch} if batch else {}),  # answered in this batch, at the batch price
    }, ev.secrets)


def add_tokens(total: dict, tokens: dict | None) -> None:
    for k, v in (tokens or {}).items():
        if v is not None:
            total[k] = total.get(k, 0) + v
