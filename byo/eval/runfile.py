"""What run.json records of a run, live (byo.eval.run) or batched (byo.eval.batch): its settings,
and its totals once an invocation ends."""

from __future__ import annotations

from byo import __version__
from byo.eval.layout import recorded_path
from byo.eval.resolve import Evaluation
from byo.eval.settings import EvalReport
from byo.providers.keys import redact_all


def run_file_info(ev: Evaluation, run_id: str, report: EvalReport | None, totals: dict) -> dict:
    """The contents of run.json; `totals` (budget, rate limits, batches) join the report's."""
    s = ev.settings
    info = {
        "request": ev.identity,
        "run_id": run_id,  # the run's charges in the cache are filed under it
        "byo_version": __version__,
        "reference": ev.provider.reference,
        "questions": recorded_path(ev.questions_path, ev.dataset),
        "n_questions": len(ev.questions),
        "api": ev.api,
        "key_source": ev.key_source,  # where the key came from; never the key
        "concurrency": s.concurrency, "rpm": s.rpm, "timeout_s": ev.timeout, "retries": s.retries,
        "limit": s.limit, "max_answer_chars": s.max_answer_chars,
        "repeat": s.repeat, "repeats": s.repeats,
        "image_limits": {"max_bytes": ev.provider.limits.max_bytes,
                         "max_pixels": ev.provider.limits.max_pixels},
        "price": ev.price.model_dump(),
        "cache": str(ev.cache_path) if ev.provider.cacheable else None,
        "max_cost_usd": s.max_cost,
        "batch": s.batch,
        # byo questions --for: the questions left out as undecidable at the size this model receives
        "undecidable": len(ev.undecidable_here), "received_as": ev.received_as,
        "finished": report is not None and report.stopped is None,
        "stopped": report.stopped.message if report is not None and report.stopped else None,
    }
    if report is not None:
        info.update({"answered": len(report.rows),
                     "statuses": dict(sorted(report.statuses.items())), "requests_sent": report.requests_sent,
                     "cached": report.cached, "tokens": report.tokens, "tokens_new": report.tokens_new,
                     "cost_usd": report.cost_usd, "cost_new_usd": report.cost_new_usd, **totals,
                     "elapsed_s": round(report.elapsed_s, 3)})
    return redact_all(info, ev.secrets)  # a key can hide in a URL
