"""`make demo`: render the demo datasets (CLEVR-style scenes and poker tables), ask their
questions, evaluate the VLM the user has set up (a key in the environment or Ollama on this
machine; otherwise the blind text-only baseline), then score the runs and write one HTML report,
all through the public API (byo.api)."""

from __future__ import annotations

import os
import sys

import byo
from byo.cli.console import console
from byo.providers.ollama_api import ollama_host, ollama_models

DATASETS = {"output/demo": "dataset_configs/demo.yaml", "output/demo_poker": "dataset_configs/demo_poker.yaml"}
REPORT = "output/demo/report.html"
VISION_HINTS = ("vision", "llava", "gemma3", "qwen2.5vl", "qwen2.5-vl", "minicpm-v", "moondream", "llama4")


def pick_provider() -> tuple[dict, str]:
    """The provider to evaluate, as byo.evaluate's arguments, and why it was picked."""
    model = os.environ.get("BYO_DEMO_MODEL")
    if os.environ.get("OPENAI_API_KEY"):
        model = model or "gpt-4.1-mini"
        return {"provider": "openai", "model": model}, f"OpenAI {model} (OPENAI_API_KEY is set)"
    if os.environ.get("GROQ_API_KEY"):
        model = model or "meta-llama/llama-4-scout-17b-16e-instruct"
        return {"provider": "groq", "model": model}, f"Groq {model} (GROQ_API_KEY is set)"
    models = ollama_models() or []
    vision = [m for m in models if any(h in m.lower() for h in VISION_HINTS)]
    if model and model in models or vision:
        model = model if model in models else vision[0]
        return ({"provider": "ollama", "model": model, "base_url": ollama_host()},
                f"Ollama {model} at {ollama_host()}")
    why = "Ollama has no vision model" if models else "no OPENAI_API_KEY, no GROQ_API_KEY, no Ollama at " + ollama_host()
    return {"provider": "blind"}, f"the blind text-only baseline ({why}; set one up to evaluate a real VLM)"


def demo() -> int:
    for dataset, config in DATASETS.items():
        rendered = byo.render_dataset(config, dataset, resume=True)
        console.print(f"{config}: {len(rendered.rendered)} rendered, {rendered.skipped} already complete")
        if rendered.failed:
            return 1
        asked = byo.write_questions(dataset, preprompts=["neutral", "debiased"], instructions=["direct"])
        console.print(f"{dataset}: {asked.count} questions")
    provider, why = pick_provider()
    console.print(f"[bold]evaluating with {why}[/bold]")
    runs, outcome = [], 0
    for dataset in DATASETS:
        report = byo.evaluate(dataset, **provider)
        outcome = max(outcome, 1 if report.failed else 0)  # failed requests are scored as errors
        scores = byo.score_run(report.run_dir)
        console.print(f"{report.run_dir}: accuracy {scores.overall['accuracy']:.0%} over {len(scores.rows)} questions")
        runs.append(scores)
    console.print(f"[bold]report: {byo.write_report(runs, REPORT).resolve()}[/bold]")
    return outcome


if __name__ == "__main__":
    sys.exit(demo())
