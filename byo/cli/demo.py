"""`make demo`: render the demo datasets (CLEVR-style scenes and poker tables), ask their
questions, evaluate the VLM the user has set up (a key in the environment or Ollama on this
machine; otherwise the blind text-only baseline), then score the runs and write one HTML report."""

from __future__ import annotations

import os
import sys

from byo.cli import console, main
from byo.eval.run import run_name
from byo.providers.ollama_api import ollama_host, ollama_models

DATASETS = {"output/demo": "dataset_configs/demo.yaml", "output/demo_poker": "dataset_configs/demo_poker.yaml"}
REPORT = "output/demo/report.html"
VISION_HINTS = ("vision", "llava", "gemma3", "qwen2.5vl", "qwen2.5-vl", "minicpm-v", "moondream", "llama4")


def pick_provider() -> tuple[list[str], str]:
    model = os.environ.get("BYO_DEMO_MODEL")
    if os.environ.get("OPENAI_API_KEY"):
        model = model or "gpt-4.1-mini"
        return ["--provider", "openai", "--model", model], f"OpenAI {model} (OPENAI_API_KEY is set)"
    if os.environ.get("GROQ_API_KEY"):
        model = model or "meta-llama/llama-4-scout-17b-16e-instruct"
        return ["--provider", "groq", "--model", model], f"Groq {model} (GROQ_API_KEY is set)"
    models = ollama_models() or []
    vision = [m for m in models if any(h in m.lower() for h in VISION_HINTS)]
    if model and model in models or vision:
        model = model if model in models else vision[0]
        return (["--provider", "ollama", "--model", model, "--base-url", ollama_host()],
                f"Ollama {model} at {ollama_host()}")
    why = "Ollama has no vision model" if models else "no OPENAI_API_KEY, no GROQ_API_KEY, no Ollama at " + ollama_host()
    return ["--provider", "blind"], f"the blind text-only baseline ({why}; set one up to evaluate a real VLM)"


def default_run(provider_args: list[str]) -> str:
    """The run directory name byo eval picks for these arguments (PROVIDER-MODEL)."""
    options = dict(zip(provider_args[::2], provider_args[1::2], strict=False))
    provider = options["--provider"]
    return run_name(provider, options.get("--model", provider))


def run() -> int:
    for dataset, config in DATASETS.items():
        steps = [["render", config, "--resume"],
                 ["questions", dataset, "--preprompts", "neutral,debiased", "--instructions", "direct"]]
        for step in steps:
            if (code := main(step)) != 0:
                return code
    provider, why = pick_provider()
    console.print(f"[bold]evaluating with {why}[/bold]")
    runs, outcome = [], 0
    for dataset in DATASETS:
        evaluated = main(["eval", dataset, *provider])
        if evaluated not in (0, 1):  # 1: some requests failed; they are scored as errors
            return evaluated
        outcome = max(outcome, evaluated)
        runs.append(f"{dataset}/runs/{default_run(provider)}")
        if (code := main(["score", runs[-1]])) != 0:
            return code
    # One report over both datasets (it prints its path).
    if (code := main(["report", *runs, "-o", REPORT])) != 0:
        return code
    return outcome


if __name__ == "__main__":
    sys.exit(run())
