"""The ask stage of the public API: a dataset's questions, and their audit against the pixels."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from byo.api.rendered_for import rendered_for
from byo.audit.run import AuditReport
from byo.audit.run import audit_dataset as _audit
from byo.providers import pipeline_of
from byo.questions.generate import DEFAULT_PROMPTS, Summary, generate

__all__ = ["AuditReport", "Questions", "audit_dataset", "write_questions"]


@dataclass(frozen=True)
class Questions:
    """The question file written and what was asked, skipped and flagged per key and level."""

    path: Path
    summary: Summary

    @property
    def count(self) -> int:
        return sum(self.summary.questions.values())


def _receiver(pipeline):
    """A pipeline as the question generator takes it: sent size -> the whole image at the received
    scale (`Received.resampled`: a centre crop's image before it is cut)."""
    return lambda width, height: pipeline.receive(width, height).resampled


def write_questions(dataset: str | Path, *, keys: Sequence[str] | None = None,
                    preprompts: Sequence[str] | None = None, instructions: Sequence[str] | None = None,
                    prompts: str = DEFAULT_PROMPTS, unreadable: str | None = None,
                    for_models: Sequence[str] = (), detail: str | None = None, **options) -> Questions:
    """Write DATASET/questions.jsonl: every key of the family (or `keys`, patterns allowed) in each
    preprompt x instruction variant (default: the prompt set's grid; the project's own set asks
    the neutral question alone, BYO-Eval's its six), skipping what the image cannot decide
    (`unreadable`: skip, flag or ask). Further options as byo.questions.generate.generate
    (templates, out, options...). `for_models` (PROVIDER:MODEL each, with OpenAI's `detail`):
    each question also decided at the size that model receives (byo.providers.image_pipeline),
    and marked `unreadable_for` the models that cannot decide it there; default: the models the
    dataset was rendered for (`byo render --for`, its rendered_for.json), at their detail."""
    if not for_models:
        for_models, detail = rendered_for(dataset)[0], detail or rendered_for(dataset)[1]
    if for_models:
        options["received"] = {spec: _receiver(pipeline_of(spec, detail=detail)) for spec in for_models}
    path, summary = generate(dataset, keys=list(keys) if keys else None,
                             preprompts=list(preprompts) if preprompts else None,
                             instructions=list(instructions) if instructions else None, prompts=prompts,
                             unreadable=unreadable, **options)
    return Questions(path=path, summary=summary)


def audit_dataset(dataset: str | Path, questions: str | Path | None = None, *, progress: bool = True) -> AuditReport:
    """Every answer recomputed from the masks, the images and the camera (`.failed`: any wrong or
    ill-posed question, or a legend field disagreeing with the pixels)."""
    return _audit(dataset, questions=questions, show_progress=progress)
