"""`byo adapt`: a breaking point found adaptively, each trial rendered on demand; `byo explain`:
which factor made each failure fail."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pydantic import ValidationError

import byo
from byo.api.experiment import model_fields
from byo.cli.console import console, new_table, out
from byo.cli.fields import flags_in
from byo.cli.options import positive, unit, whole
from byo.core.errors import ConfigError
from byo.core.schema import validation_problems
from byo.diagnose.adaptive import DIRECTIONS
from byo.providers import GenerationParams
from byo.score.psychometric import LINKS


def provider_and_model(text: str) -> tuple[str, str | None]:
    """PROVIDER:MODEL, parsed only: the provider may be one a providers file names, so it is resolved
    with that file, later."""
    try:
        fields = model_fields(text)
    except ValueError as err:
        raise ConfigError("<command line>", [("--model", str(err))]) from None
    return fields["provider"], fields["model"]


def eval_options(args) -> dict:
    """The EvalSettings fields the endpoint's options give (and the generation's, where the command
    has them: byo explain asks with the run's own)."""
    options = dict(providers_file=args.providers, base_url=args.base_url, key_env=args.key_env,
                   key_file=args.key_file, concurrency=args.concurrency)
    if hasattr(args, "temperature"):
        try:
            options["params"] = GenerationParams(temperature=args.temperature, max_tokens=args.max_tokens,
                                                 seed=args.seed)
        except ValidationError as err:
            raise ConfigError("<command line>", [("--" + key.replace("_", "-"), msg)
                                                 for key, msg in validation_problems(err)]) from None
    return {k: v for k, v in options.items() if v is not None}


def interval(estimate) -> str:
    if estimate is None:
        return "no answer yet"
    text = f"{estimate.threshold:.4g} [{estimate.lo:.4g}–{estimate.hi:.4g}]"
    return text if estimate.closed else text + " (not closed: the range does not bound it)"


def cmd_adapt(args) -> int:
    provider, model = provider_and_model(args.model)
    budget = byo.Budget(width=args.width, trials=args.max_trials or byo.Budget().trials, images=args.max_images,
                        cost=args.max_cost)

    def show(trial) -> None:
        if args.quiet or args.json:
            return
        if trial.hits:
            answers = ", ".join("right" if h else "wrong" for h in trial.hits)
        else:
            answers = f"not asked: {flags_in(trial.skipped)}" if trial.skipped else "no answer: " + ", ".join(
                q["status"] for q in trial.questions)
        console.print(f"trial {trial.index + 1:>3}  {args.variable}={trial.level:.4g}  {answers}  threshold "
                      f"{interval(trial.estimate)}", highlight=False)

    result = byo.adapt_threshold(
        args.config, args.variable, provider, model, key=args.key, out=args.output, run=args.run,
        range=tuple(args.range) if args.range else None, budget=budget, direction=args.direction, link=args.link,
        chance=args.chance, tolerance=args.tolerance, preprompts=args.preprompts, instructions=args.instructions,
        unreadable=args.unreadable, eval=eval_options(args), on_trial=show)
    if args.json:
        print(json.dumps({"estimate": result.estimate.to_json() if result.estimate else None,
                          "stopped": result.stopped, "images": result.images, "answers": result.answers,
                          "cost_usd": result.cost_usd, "dataset": str(result.out_dir), "run": str(result.run_dir),
                          "result": str(result.result), "figure": str(result.figure) if result.figure else None},
                         indent=1))
        return answered(result)
    cost = f", ${result.cost_usd:.4f}" if result.cost_usd is not None else ""
    shown = new_table("variable", "threshold [95% interval]", "trials", "answers", title=f"byo adapt: {args.key}, "
                  f"{args.model}")
    shown.add_row(args.variable, interval(result.estimate), str(result.images), str(result.answers))
    out().print(shown)
    console.print(f"stopped: {flags_in(str(result.stopped))}{cost}", highlight=False)
    console.print(f"dataset: {result.out_dir}\nrun: {result.run_dir}\nresult: {result.result}"
                  + (f"\nfigure: {result.figure}" if result.figure else ""), highlight=False)
    return answered(result)


def answered(result) -> int:
    """The exit status of byo adapt: 1 when the model answered no trial (every request failed, or
    none could be made), else 0."""
    if result.answers:
        return 0
    console.print(f"[red]byo adapt: no answer[/red] in {len(result.trials)} trials "
                  f"({flags_in(str(result.stopped))})", highlight=False)
    return 1


def add_endpoint_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--providers", type=Path, help="providers YAML: endpoints, models, prices")
    p.add_argument("--base-url", help="API base URL (openai-compatible: required)")
    p.add_argument("--key-env", help="environment variable holding the API key")
    p.add_argument("--key-file", type=Path, help="file holding the API key")
    p.add_argument("--concurrency", type=whole(1), help="requests in flight at once")


def add_model_options(p: argparse.ArgumentParser) -> None:
    add_endpoint_options(p)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--max-tokens", type=whole(1), help="maximum output tokens")
    p.add_argument("--seed", type=int, help="the generation seed (the simulated observer's draws)")


def add_adapt(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", type=Path, help="a dataset config: its base scene (other enumerated variables are "
                   "left out; random ones stay) and its seed")
    p.add_argument("--variable", required=True, metavar="PATH", help="the dotted scene path the trials move "
                   "(blur.fstop, camera.distance, camera.elevation, content.count...)")
    p.add_argument("--model", required=True, metavar="PROVIDER:MODEL", help="openai:gpt-4.1-mini, ollama:gemma3:4b, "
                   "oracle, or simulated:QUANTITY,threshold=T,slope=S[,lapse=L] (a planted observer)")
    p.add_argument("--key", required=True, help="the question key asked of each trial's image (count_pieces)")
    p.add_argument("-o", "--output", type=Path, help="a new dataset directory (default output/NAME_adapt_VARIABLE)")
    p.add_argument("--run", help="run name (default PROVIDER-MODEL)")
    p.add_argument("--range", type=float, nargs=2, metavar=("LO", "HI"),
                   help="the tested range (default: the config's levels of the variable)")
    stop = p.add_argument_group("when to stop (the first reached; at most 100 answers unless --max-trials)")
    stop.add_argument("--width", type=positive, help="the 95%% interval at most this wide, in the variable's units")
    stop.add_argument("--max-trials", type=whole(1), help="answers")
    stop.add_argument("--max-images", type=whole(1), help="images rendered")
    stop.add_argument("--max-cost", type=positive, help="USD spent (needs a price: --providers)")
    model = p.add_argument_group("the psychometric model")
    model.add_argument("--direction", choices=list(DIRECTIONS), default="either",
                       help="how accuracy moves as the variable grows, if known")
    model.add_argument("--link", choices=list(LINKS), default="logistic")
    model.add_argument("--chance", type=unit, help="the guess rate (default: the question's own; 0 for counts)")
    model.add_argument("--tolerance", type=whole(0), default=0, help="counts: |error| <= this is a hit")
    asking = p.add_argument_group("asking")
    asking.add_argument("--preprompts", nargs="+", default=["neutral"], help="prompt variants asked of each image")
    asking.add_argument("--instructions", nargs="+", default=["direct"])
    asking.add_argument("--unreadable", choices=["skip", "flag", "ask"],
                        help="a question the image does not show (default: the config's questions.unreadable, skip)")
    add_model_options(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no line per trial")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.usage = "%(prog)s CONFIG --variable PATH --model PROVIDER:MODEL --key KEY [options]"
    p.set_defaults(func=cmd_adapt)


def cmd_explain(args) -> int:
    def told(plan) -> bool:
        console.print(f"byo explain: {plan.describe()}", highlight=False)
        if args.dry_run:
            return False
        if not plan.questions and plan.failures:
            console.print("nothing to render or ask")
        return True

    result = byo.explain_failures(args.run, tolerance=args.tolerance, max_failures=args.max_failures,
                                  max_questions=args.max_questions, max_cost=args.max_cost, seed=args.sample_seed,
                                  eval=eval_options(args), on_plan=told, factors=args.factor)
    if result is None:
        return 0
    if args.json:
        print(json.dumps({"record": str(result.record), "table": result.rows, "cost_usd": result.cost_usd}, indent=1))
        return 0
    for key in dict.fromkeys(r["key"] for r in result.rows):
        rows = [r for r in result.rows if r["key"] == key]
        shown = new_table("factor", "change", "changed", "asked", "turned right", "share of failures",
                      title=f"{key}: {rows[0]['failures']} failures, which change turns the answer right")
        for r in rows:
            shown.add_row(r["factor"], r["changes"] or "", "" if r["changed"] is None else str(r["changed"]),
                          "" if r["asked"] is None else str(r["asked"]), str(r["flipped"]), f"{r['share']:.0%}")
        out().print(shown)
    cost = f" (${result.cost_usd:.4f})" if result.cost_usd is not None else ""
    console.print(f"record: {result.record}{cost}\ntable: {result.table}\nthe twins beside each failure: byo view "
                  f"{args.run}", highlight=False)
    return 0


def add_explain(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", type=Path, help="a run DATASET/runs/NAME (scored or not)")
    p.add_argument("--max-failures", type=whole(1), help="explain a seeded sample of at most this many failures")
    p.add_argument("--max-questions", type=whole(1), help="at most this many questions asked of twins")
    p.add_argument("--max-cost", type=positive, help="at most this many USD, at the run's own cost per answer")
    p.add_argument("--sample-seed", type=whole(0), default=0, help="which failures a sample keeps")
    p.add_argument("--tolerance", type=whole(0), default=0, help="counts: |error| <= this is no failure")
    p.add_argument("--factor", action="append", metavar="NAME", help="try only this factor (repeatable; default: "
                   "every one): a family's (no blur...), a variable's ('blur.fstop = 8.0') or 'full detail' (each "
                   "failure's image cut to its objects at native resolution: was it resized away?)")
    p.add_argument("--dry-run", action="store_true", help="state the cost and stop")
    add_endpoint_options(p)  # the run's own model, asked with its own generation parameters
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.set_defaults(func=cmd_explain)


PARSERS = {"adapt": add_adapt, "explain": add_explain}
