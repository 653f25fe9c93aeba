"""`byo eval`: every question of a dataset asked of a provider, cached and resumable."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pydantic import ValidationError
from rich.markup import escape

import byo
from byo.cli.console import add_json, add_quiet, console, new_table, out, print_json, quiet, waiting
from byo.cli.fields import flags_in, message
from byo.cli.options import add_max_answer_chars, add_wait, device_name, positive, whole
from byo.core.errors import ConfigError
from byo.core.locks import Busy
from byo.core.schema import validation_problems
from byo.eval.batch import collect_settings, run_summary
from byo.eval.layout import PREDICTIONS, RUN_FILE
from byo.eval.repeats import evaluate_repeats
from byo.eval.run import EvalSettings, evaluate
from byo.providers import PROVIDERS, GenerationParams, providers_that
from byo.providers.azure import DEFAULT_API_VERSION


def cmd_eval(args) -> int:
    try:
        params = GenerationParams(temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed,
                                  detail=args.detail, reasoning_effort=args.reasoning_effort)
    except ValidationError as err:
        raise ConfigError("<command line>", [("--" + key.replace("_", "-"), msg)
                                             for key, msg in validation_problems(err)]) from None
    fields = dict(
        dataset=args.dataset, provider=args.provider, model=args.model, params=params, questions=args.questions,
        providers_file=args.providers, run=args.run, base_url=args.base_url, api=args.api, key_env=args.key_env,
        key_file=args.key_file, concurrency=args.concurrency, rpm=args.rpm, limit=args.limit,
        timeout=args.timeout, retries=args.retries, max_side=args.max_side, cache=args.cache, repeats=args.repeats,
        max_answer_chars=args.max_answer_chars or None, wait=args.wait,
        device=args.device, dtype=args.dtype, batch_size=args.batch_size, structured=args.structured,
        shots=args.shots, shots_from=args.shots_from, shots_seed=args.shots_seed,
        text_only=args.text_only, **eval_run_options(args))
    with quiet(args.quiet):
        if args.repeats == 1:  # a signal outside the run's own handlers ends in run()'s Stopped
            reports = [byo.evaluate(on_wait=waiting, progress=not args.quiet, **fields)]
        else:
            reports = []
            for i, report in enumerate(evaluate_repeats(EvalSettings(**fields), on_wait=waiting,
                                                        show_progress=not args.quiet), start=1):
                console.print(f"[bold]repeat {i} of {args.repeats}[/bold]: {report.run_dir}")
                reports.append(report)
            if args.temperature == 0:
                console.print("[yellow]--temperature 0: the repeats differ only where the model is not "
                              "deterministic[/yellow]")
    if args.json:
        documents = [eval_document(report) for report in reports]
        print_json(documents[0] if args.repeats == 1 else {"repeats": documents})
        return max(exit_code(report) for report in reports)
    codes = []
    for report in reports:
        with quiet(args.quiet and not report.stopped):
            codes.append(eval_summary(report, args))
        if args.quiet and (Path(report.run_dir) / PREDICTIONS).is_file():
            print(report.run_dir)
    return max(codes)


def exit_code(report) -> int:
    return report.stopped.exit_code if report.stopped else 1 if report.failed else 0


def eval_document(report) -> dict:
    """byo eval --json: what the run holds and what this invocation did."""
    info = read_run_info(report.run_dir)
    return {"run": report.run_dir, "predictions": report.run_dir / PREDICTIONS, "questions": report.n_questions,
            "answered": len(report.rows), "unanswered": report.unanswered,
            "statuses": dict(sorted(report.statuses.items())), "from_cache": report.cached,
            "requests_sent": report.requests_sent, "reference": report.reference,
            "tokens_this_run": report.tokens_new, "tokens": report.tokens, "cost_this_run_usd": report.cost_new_usd,
            "cost_usd": report.cost_usd, "elapsed_s": round(report.elapsed_s, 3),
            "stopped": report.stopped.message if report.stopped else None,
            **({"model_calls": info.get("model_calls"), "without_candidates": info.get("without_candidates")}
               if info.get("ranks") else {})}


def eval_run_options(args) -> dict:
    """The EvalSettings of how a run is paid for and sent: --max-cost, --batch (--no-wait,
    --batch-poll), Azure's --api-version and --deployment."""
    return {"max_cost": args.max_cost, "batch": args.batch, "batch_wait": not args.no_wait,
            "batch_poll": args.batch_poll, "api_version": args.api_version, "deployment": args.deployment}


def read_run_info(run_dir: Path) -> dict:
    path = Path(run_dir) / RUN_FILE
    return json.loads(path.read_text()) if path.is_file() else {}


def eval_summary(report, args) -> int:
    if report.stopped:
        stop, said = report.stopped, flags_in(report.stopped.message)
        done = (f"{len(report.rows)} of {report.n_questions} questions answered, {report.unanswered} left "
                f"({report.requests_sent} requests sent, {report.cached} answers from the cache)")
        if stop.reason in ("endpoint", "disk"):
            kept = f"; predictions so far: {report.run_dir / PREDICTIONS}" if report.rows else ""
            console.print(f"[red]error:[/red] {escape(said)}. {done}{kept}; rerun the same command to resume",
                          highlight=False)
        elif stop.reason == "batch":
            console.print(f"{escape(said)}. {len(report.rows)} of {report.n_questions} questions answered "
                          f"({report.requests_sent} requests submitted, {report.cached} answers from the cache)",
                          highlight=False)
        elif stop.reason == "budget":
            console.print(f"[yellow]{escape(said)}[/yellow]. {done}; rerun with a higher --max-cost to go on",
                          highlight=False)
        else:
            console.print(f"{escape(said)}: {done}; rerun the same command to resume", highlight=False)
        return stop.exit_code
    statuses = ", ".join(f"{k} {n}" for k, n in sorted(report.statuses.items()))
    info = read_run_info(report.run_dir)
    if info.get("ranks"):  # an image-text model ranked the candidate captions
        calls = info.get("model_calls") or {}
        console.print(f"{len(report.rows)} questions ranked: {statuses}; {report.cached} kept from an earlier "
                      f"invocation; model calls {report.requests_sent} ({calls.get('images', 0)} images, "
                      f"{calls.get('texts', 0)} captions embedded; "
                      f"{sum((info.get('embeddings_cached') or {}).values())} embeddings from the cache)"
                      + (f"; {info['without_candidates']} questions without candidate captions left out"
                         if info.get("without_candidates") else ""), highlight=False)
        console.print(f"predictions: {report.run_dir / PREDICTIONS}")
        return 1 if report.failed else 0
    cost = f"${report.cost_new_usd:.4f}" if report.cost_new_usd is not None else "n/a (no price)"
    if report.reference:
        console.print(f"{len(report.rows)} questions: {statuses} (reference provider {args.provider}: "
                      "no model was asked)")
    else:
        console.print(f"{len(report.rows)} questions: {statuses}; {report.cached} from the cache, "
                      f"{report.requests_sent} requests sent; tokens {report.tokens_new.get('total', 0):,} "
                      f"this run ({report.tokens.get('total', 0):,} in all), cost {cost}")
    if report.undecidable:
        console.print(f"{report.undecidable} questions left out: undecidable at the size {args.provider}:"
                      f"{args.model} receives (byo questions --for)", highlight=False)
    console.print(f"predictions: {report.run_dir / PREDICTIONS}")
    if report.failed:
        console.print("[yellow]rerun the same command to retry the failed questions[/yellow]")
    return 1 if report.failed else 0


def _listed(capability: str) -> str:
    """The provider types with `capability` (a Provider class attribute), for a help text."""
    return ", ".join(providers_that(capability))


def add_eval_arguments(p: argparse.ArgumentParser) -> None:
    baselines = [t for t, cls in PROVIDERS.items() if cls.reference and not cls.ranks]
    rankers = providers_that("ranks")
    in_process = [t for t, cls in PROVIDERS.items() if cls.local and cls.chat]
    keys = ", ".join(f"{t} {cls.key_env}" for t, cls in PROVIDERS.items() if cls.key_env)
    p.add_argument("dataset", type=Path, help="dataset directory (with questions.jsonl)")
    p.add_argument("--provider", required=True,
                   help=f"a chat model's provider: {_listed('chat')} ({', '.join(in_process)} in this process); "
                   f"a baseline that asks no model: {', '.join(baselines)}; an image-text model, which ranks "
                   f"candidate captions: {', '.join(rankers)}; or a --providers entry")
    p.add_argument("--model", help=f"model name (optional for {', '.join(baselines)}; hf: a Hub name or a local "
                   "folder)")
    p.add_argument("--questions", type=Path, help="question file (default DATASET/questions.jsonl)")
    p.add_argument("--providers", type=Path, help="providers YAML: endpoints, models, prices")
    p.add_argument("--run", help="run name: DATASET/runs/RUN (default PROVIDER-MODEL); rerun it to resume")
    p.add_argument("--base-url", help=f"API base URL (required for {_listed('base_url_required')}; default: "
                   + ", ".join(f"{t} {cls.base_url_env}" for t, cls in PROVIDERS.items() if cls.base_url_env) + ")")
    p.add_argument("--api", choices=["chat", "responses"], help="OpenAI API (default chat)")
    p.add_argument("--key-env", help=f"environment variable holding the API key (default: {keys})")
    p.add_argument("--key-file", type=Path, help="file holding the API key (alone, or NAME=KEY lines)")
    p.add_argument("--concurrency", type=whole(1), default=8, help="requests in flight at once")
    p.add_argument("--rpm", type=positive, help="at most this many requests per minute")
    p.add_argument("--limit", type=whole(1), help="only the first N questions")
    p.add_argument("--timeout", type=positive, help="seconds per request (default 60)")
    p.add_argument("--retries", type=whole(0), default=4, help="retries of a failed request (429, 5xx, timeouts)")
    p.add_argument("--temperature", type=float, default=0.0, help="sampling temperature")
    p.add_argument("--max-tokens", type=whole(1), help="maximum output tokens (default: the provider's own)")
    p.add_argument("--seed", type=int, help="sampling seed sent with each request, where the API takes one "
                   "(default: none sent)")
    p.add_argument("--detail", choices=["auto", "low", "high"], help="OpenAI image detail")
    p.add_argument("--reasoning-effort", choices=["minimal", "low", "medium", "high"],
                   help=f"a reasoning model's effort (OpenAI's reasoning_effort; {_listed('reasoning')}); its "
                   "reasoning is stored apart")
    p.add_argument("--max-side", type=whole(16), help="downscale images whose longest side exceeds this (pixels)")
    p.add_argument("--cache", type=Path, help="request cache (default DATASET/runs/cache.sqlite)")
    p.add_argument("--structured", action="store_true", help="ask for the answer as JSON of a schema built from its "
                   "answer type (response_format; ollama: format), read without heuristics; the run is "
                   "PROVIDER-MODEL-structured: byo report and byo compare set it against the free-form run")
    p.add_argument("--text-only", action="store_true", help="the text-only baseline: ask a language model "
                   f"({_listed('text_only')}) each question without its image, to measure what the "
                   "options alone give away (caption priors, Auto-Comp's blind LLM); the run is PROVIDER-MODEL-text-only")
    hf = p.add_argument_group(f"--provider {_listed('local')} (pip install 'byo-render[hf]' or '[clip]')")
    hf.add_argument("--device", default="auto", type=device_name, help="where the model runs: auto (CUDA, then MPS, then CPU), cpu, "
                    "cuda, cuda:1, mps")
    hf.add_argument("--dtype", choices=["auto", "float32", "bfloat16", "float16"], default="auto",
                    help="the weights' dtype (auto: the checkpoint's)")
    hf.add_argument("--batch-size", type=whole(1), default=8, help="hf: questions generated together (at most "
                    "--concurrency); clip, hf-clip: images or captions embedded together")
    p.add_argument("--repeats", type=whole(1), default=1, help="ask each question K times: repeat 1 is the run, "
                   "repeat r the run RUN.repeat-r (asked anew, cached per repeat); byo score reports their agreement")
    shots = p.add_argument_group(f"few-shot prompts ({_listed('few_shot')})")
    shots.add_argument("--shots", type=whole(0), default=0, help="K solved examples (image, prompt, true answer) of "
                       "the same question key and prompt before each question, never its own image; the run is "
                       "PROVIDER-MODEL-Kshot")
    shots.add_argument("--shots-from", metavar="SPLIT|DATASET", help="where the examples come from: a split of the "
                       "dataset (train, val, test) or another dataset directory (default: the whole dataset)")
    shots.add_argument("--shots-seed", type=whole(0), default=0, help="which examples are drawn (per question)")
    add_max_answer_chars(p)
    add_wait(p, "run")
    add_json(p)
    add_quiet(p, "the run's folder")
    add_cost_arguments(p)


def add_cost_arguments(p: argparse.ArgumentParser) -> None:
    """--max-cost, --batch and its options, Azure's --api-version and --deployment."""
    p.add_argument("--max-cost", type=positive, metavar="USD", help="send no request that would bring the "
                   "run's spend (over all its invocations, at the --providers prices) over USD; rerun with a higher "
                   "cap to go on")
    batch = p.add_argument_group(f"batches ({_listed('batch_route')})")
    batch.add_argument("--batch", action="store_true", help="send the requests the cache cannot answer through the "
                       "provider's Batch API (/files and /batches; half price at OpenAI), wait for them, polling, and "
                       "collect them; rerun (or byo status RUN) to collect after a stop or a crash")
    batch.add_argument("--no-wait", action="store_true", help="--batch: return once the batches are submitted")
    batch.add_argument("--batch-poll", type=positive, default=30.0, metavar="SECONDS",
                       help="--batch: seconds between polls")
    azure = p.add_argument_group(f"--provider {_listed('deployments')} (deployments)")
    azure.add_argument("--api-version", help=f"the api-version query parameter (default: OPENAI_API_VERSION, else "
                       f"{DEFAULT_API_VERSION})")
    azure.add_argument("--deployment", help="the deployment to ask (default: --model)")


def cmd_run_status(args) -> int:
    """byo status RUN: a run's answers, spend and batches; batches ended at the provider are collected."""
    settings = collect_settings(args.dataset)
    busy = None
    if settings is not None:
        try:
            evaluate(settings, show_progress=False)
        except Busy as err:  # a byo eval --batch of the run is waiting for its batches: it collects them
            busy = message(err)
    summary = run_summary(args.dataset)
    if args.json:
        print_json(summary)
        return 0
    shown = out()
    cost = f", spent ${summary['spent_usd']:.4f}" if summary.get("spent_usd") is not None else ""
    cap = f" of --max-cost ${summary['max_cost_usd']:g}" if summary.get("max_cost_usd") is not None else ""
    why = "" if summary["finished"] else f"; not finished: {escape(flags_in(summary['stopped'] or 'stopped'))}"
    shown.print(f"{summary['run']}: {summary['answered'] or 0} of {summary['n_questions']} questions answered "
                f"({', '.join(f'{k} {n}' for k, n in (summary['statuses'] or {}).items())}){cost}{cap}{why}",
                highlight=False)
    if busy:
        shown.print(f"[yellow]not polled[/yellow]: {escape(busy)}", highlight=False)
    if summary.get("batches"):
        table = new_table("batch", "state", "status", "requests", "completed", "failed", title="batches")
        for b in summary["batches"]:
            counts = b["counts"] or {}
            table.add_row(b["batch_id"] or "(not created)", b["state"], b["status"] or "", str(b["requests"]),
                          str(counts.get("completed", "")), str(b["failed"] if b["state"] == "collected"
                                                                 else counts.get("failed", "")))
        shown.print(table)
    return 0


def add_eval(p: argparse.ArgumentParser) -> None:
    add_eval_arguments(p)
    # its options are many: the usage line an error repeats names the required ones (byo eval -h: all)
    p.usage = "%(prog)s DATASET --provider PROVIDER [--model MODEL] [options]"
    p.set_defaults(func=cmd_eval)


PARSERS = {"eval": add_eval}
