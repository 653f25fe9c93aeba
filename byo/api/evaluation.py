"""The evaluate stage of the public API: a model asked every question of a dataset."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from byo.eval.run import EvalReport, EvalSettings
from byo.eval.run import evaluate as _evaluate
from byo.providers import GenerationParams

__all__ = ["EvalReport", "evaluate"]


def evaluate(dataset: str | Path, provider: str, model: str | None = None, *,
             params: GenerationParams | None = None, on_wait: Callable[[str], None] | None = None,
             progress: bool = True, **settings) -> EvalReport:
    """Ask `provider` (openai, groq, ollama, openai-compatible, hf, clip, hf-clip, blind, oracle...)
    every question of `dataset`; cached and resumable. Settings as byo.eval.settings.EvalSettings
    (run, concurrency, limit, base_url, shots...). `.run_dir` is the run to score."""
    return _evaluate(EvalSettings(dataset=Path(dataset), provider=provider, model=model,
                                  params=params or GenerationParams(), **settings), on_wait=on_wait,
                     show_progress=progress)
