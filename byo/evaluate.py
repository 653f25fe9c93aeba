"""`byo eval`: ask a provider every question of a dataset, with bounded concurrency, an optional
requests-per-minute limit, retries and a crash-safe cache.

A run lives in DATASET/runs/RUN/: `predictions.jsonl` (one row per question, in question order
once the run ends; in completion order while it runs) and `run.json` (settings and totals).
Rerunning the same command resumes: cached answers are reused without a request, failures are
tried again. The cache (DATASET/runs/cache.sqlite) is shared by all runs of the dataset.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from byo import __version__
from byo.cache import RequestCache, request_key
from byo.dataset import atomic_write_text
from byo.errors import ConfigError
from byo.providers import GenerationParams, Provider, ProviderFailure, Request, create_provider
from byo.providers.catalog import ModelEntry, load_catalog, provider_entry
from byo.providers.images import prepare_image
from byo.providers.keys import redact, resolve_key
from byo.questions.load import QUESTIONS, Question, load_questions

RUNS = "runs"
PREDICTIONS = "predictions.jsonl"
RUN_FILE = "run.json"
CACHE = "cache.sqlite"
MAX_RETRY_AFTER = 300.0  # seconds; a longer Retry-After is cut to this
BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "groq": "GROQ_BASE_URL", "ollama": "OLLAMA_HOST"}


@dataclass
class EvalSettings:
    dataset: Path
    provider: str
    model: str | None = None
    params: GenerationParams = field(default_factory=GenerationParams)
    questions: Path | None = None  # default DATASET/questions.jsonl
    providers_file: Path | None = None
    run: str | None = None  # default PROVIDER-MODEL
    base_url: str | None = None
    api: str | None = None  # chat | responses (openai only)
    key_env: str | None = None
    key_file: Path | None = None
    concurrency: int = 8
    rpm: float | None = None
    limit: int | None = None
    timeout: float | None = None  # seconds per attempt; default 60
    retries: int = 4  # attempts after the first, for retryable failures
    max_side: int | None = None  # downscale images whose longest side exceeds this
    cache: Path | None = None
    backoff_base: float = 1.0  # seconds; doubled per attempt, with jitter
    backoff_max: float = 60.0


@dataclass
class EvalReport:
    run_dir: Path
    rows: list[dict]
    statuses: Counter
    requests_sent: int  # HTTP attempts made by this invocation, retries included
    cached: int  # answers reused from the cache
    tokens: dict  # over all answered rows of the run
    tokens_new: dict  # over the answers requested by this invocation
    cost_usd: float | None
    cost_new_usd: float | None
    elapsed_s: float
    reference: bool = False

    @property
    def failed(self) -> int:
        return sum(n for status, n in self.statuses.items() if status != "ok")


class Throttle:
    """Spaces request starts to `rpm` per minute; after a Retry-After, every worker waits."""

    def __init__(self, rpm: float | None):
        self.interval = 60.0 / rpm if rpm else 0.0
        self.next_start = 0.0
        self.paused_until = 0.0
        self.lock = asyncio.Lock()

    async def wait(self) -> None:
        loop = asyncio.get_running_loop()
        async with self.lock:
            now = loop.time()
            start = max(now, self.next_start, self.paused_until)
            self.next_start = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)

    def pause(self, seconds: float) -> None:
        self.paused_until = max(self.paused_until, asyncio.get_running_loop().time() + seconds)


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """Exponential backoff with jitter: half fixed, half random, so workers spread out."""
    delay = min(cap, base * 2 ** (attempt - 1))
    return delay / 2 + rng.uniform(0, delay / 2)


def run_name(provider: str, model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{provider}-{model}").strip("_")


def add_tokens(total: dict, tokens: dict | None) -> None:
    for k, v in (tokens or {}).items():
        if v is not None:
            total[k] = total.get(k, 0) + v


class Evaluation:
    """Everything resolved and validated, before any request or file is written."""

    def __init__(self, settings: EvalSettings):
        s = self.settings = settings
        self.dataset = Path(s.dataset)
        if not self.dataset.is_dir():
            raise ConfigError(str(self.dataset), [("<dataset>", "not a directory")])
        catalog = load_catalog(s.providers_file) if s.providers_file else None
        file = str(s.providers_file) if s.providers_file else None
        self.ptype, entry = provider_entry(s.provider, catalog, file)
        reference = self.ptype in ("blind", "oracle")
        self.model = s.model or (self.ptype if reference else None)
        if not self.model:
            raise ConfigError("<command line>", [("--model", f"required for the {self.ptype} provider")])
        self.price = entry.models.get(self.model, ModelEntry())
        if entry.models and self.model not in entry.models and file:
            raise ConfigError(file, [(f'providers.{s.provider}.models', f"has no model {self.model!r}; "
                                      "expected one of " + ", ".join(entry.models))])
        questions_path = Path(s.questions) if s.questions else self.dataset / QUESTIONS
        all_questions = load_questions(questions_path, self.dataset)
        self.questions_path = questions_path
        self.questions = all_questions[: s.limit] if s.limit is not None else all_questions
        bad = [(flag, expected) for flag, ok, expected in (
            ("--concurrency", s.concurrency >= 1, "at least 1"),
            ("--retries", s.retries >= 0, "0 or more"),
            ("--limit", s.limit is None or s.limit >= 1, "at least 1"),
            ("--rpm", s.rpm is None or s.rpm > 0, "a positive number"),
            ("--timeout", s.timeout is None or s.timeout > 0, "a positive number of seconds"),
            ("--max-side", s.max_side is None or s.max_side >= 1, "at least 1 pixel"),
        ) if not ok]
        if bad:
            raise ConfigError("<command line>", [(flag, f"expected {expected}") for flag, expected in bad])

        self.timeout = s.timeout or entry.timeout or 60.0
        self.api = s.api or entry.api
        # The SDKs also read these variables; naming the URL here puts it into the cache key.
        self.base_url = s.base_url or entry.base_url or os.environ.get(BASE_URL_ENV.get(self.ptype, ""))
        # Redacted from every recorded message (the ollama SDK reads OLLAMA_API_KEY by itself).
        self.secrets = [os.environ.get("OLLAMA_API_KEY")]
        if reference:
            self.api_key, self.key_source = None, "none"
        else:
            key_file = s.key_file or entry.api_key_file
            self.api_key, self.key_source = resolve_key(self.ptype, key_env=s.key_env or entry.api_key_env,
                                                        key_file=key_file)
            self.secrets.append(self.api_key)
        self.provider: Provider = create_provider(
            self.ptype, self.model, s.params, api=self.api, base_url=self.base_url, api_key=self.api_key,
            timeout=self.timeout, questions=all_questions)
        if entry.max_image_bytes:
            self.provider.limits = replace(self.provider.limits, max_bytes=entry.max_image_bytes)
        if entry.max_image_pixels:
            self.provider.limits = replace(self.provider.limits, max_pixels=entry.max_image_pixels)

        self.run_dir = self.dataset / RUNS / (s.run or run_name(s.provider, self.model))
        self.cache_path = Path(s.cache) if s.cache else self.dataset / RUNS / CACHE
        self.identity = {"provider": s.provider, "type": self.ptype, "endpoint": self.provider.identity,
                         "model": self.model, "parameters": s.params.model_dump(),
                         "max_side": s.max_side}
        previous = self.run_dir / RUN_FILE
        if previous.is_file():
            before = json.loads(previous.read_text()).get("request")
            if before != self.identity:
                changed = ", ".join(k for k, v in self.identity.items() if (before or {}).get(k) != v)
                raise ConfigError(str(previous), [("request", f"this run was made with different settings "
                                                   f"({changed} changed); choose another --run NAME")])

    # --- rows ---------------------------------------------------------------------------
    def row(self, q: Question, image: dict | None, *, status: str, attempts: int, latency_s: float | None,
            record: dict | None = None, error: str | None = None) -> dict:
        tokens = record["tokens"] if record else None
        cost = self.price.cost(tokens["input"] or 0, tokens["output"] or 0) if tokens else None
        return {
            "id": q.id,
            "provider": self.settings.provider,
            "model": self.model,
            "reference": self.provider.reference,
            "prompt": q.prompt,
            "response": record["text"] if record else None,
            "status": status,
            "error": redact(error, self.secrets) if error else None,
            "finish_reason": record["finish_reason"] if record else None,
            "refusal": record["refusal"] if record else None,
            "tokens": tokens,
            "cost_usd": cost,
            "latency_s": round(latency_s, 4) if latency_s is not None else None,
            "attempts": attempts,
            "parameters": self.settings.params.model_dump(),
            "image": image,
        }

    # --- one question -----------------------------------------------------------------------
    async def ask(self, q: Question, throttle: Throttle, stats: dict, rng: random.Random) -> dict:
        s, provider = self.settings, self.provider
        payload, image = None, None
        if provider.needs_image:
            try:
                payload, image = await asyncio.to_thread(
                    prepare_image, self.dataset / q.image, provider.limits, s.max_side, self.settings.provider)
            except ProviderFailure as failure:
                return self.row(q, {"path": q.image}, status=failure.status, attempts=0, latency_s=None,
                                error=failure.message)
            image = {"path": q.image, **image}
        key = None
        if provider.cacheable:
            key = request_key(provider.identity, self.model, q.prompt, image["sha256"] if image else None,
                              s.params.model_dump())
            if (record := self.cache.get(key)) is not None:
                stats["cached"] += 1
                return self.row(q, image, status="ok", attempts=record["attempts"],
                                latency_s=record["latency_s"], record=record)

        request = Request(prompt=q.prompt, image=payload, question=q)
        attempt = 0
        while True:
            attempt += 1
            await throttle.wait()
            if not provider.reference:
                stats["sent"] += 1
            started = time.perf_counter()
            try:
                async with asyncio.timeout(self.timeout * 1.25 + 1):  # hard cap over the client's timeout
                    response = await provider.answer(request)
            except TimeoutError:
                failure = ProviderFailure("timeout", f"no response within {self.timeout} s")
            except ProviderFailure as err:
                failure = err
            except Exception as err:  # an unexpected client error: recorded, not retried
                failure = ProviderFailure("error", f"{type(err).__name__}: {err}")
            else:
                latency = time.perf_counter() - started
                record = {"text": response.text, "tokens": response.tokens(),
                          "finish_reason": response.finish_reason, "refusal": response.refusal,
                          "latency_s": round(latency, 4), "attempts": attempt}
                if key is not None:
                    self.cache.put(key, record)
                add_tokens(stats["tokens_new"], record["tokens"])
                return self.row(q, image, status="ok", attempts=attempt, latency_s=latency, record=record)

            latency = time.perf_counter() - started
            if not failure.retryable or attempt > s.retries:
                return self.row(q, image, status=failure.status, attempts=attempt, latency_s=latency,
                                error=failure.message)
            delay = backoff_delay(attempt, s.backoff_base, s.backoff_max, rng)
            if failure.retry_after is not None:
                wait = min(failure.retry_after, MAX_RETRY_AFTER)
                throttle.pause(wait)
                delay = max(delay, wait)
            stats["retries"] += 1
            await asyncio.sleep(delay)

    # --- the run ------------------------------------------------------------------------
    async def run_async(self, show_progress: bool) -> EvalReport:
        s = self.settings
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.cache = RequestCache(self.cache_path) if self.provider.cacheable else None
        self.write_run_file(None)
        throttle = Throttle(s.rpm)
        rng = random.Random()
        stats = {"sent": 0, "cached": 0, "retries": 0, "tokens_new": {}}
        rows: dict[str, dict] = {}
        statuses: Counter = Counter()
        started = time.perf_counter()
        progress = Progress(TextColumn(f"[bold]eval[/bold] {s.provider}/{self.model}"), BarColumn(),
                            MofNCompleteColumn(), TextColumn("{task.fields[stats]}"), TimeElapsedColumn(),
                            TimeRemainingColumn(), disable=not show_progress)
        journal = (self.run_dir / PREDICTIONS).open("w")  # completion order; rewritten in order at the end
        todo = iter(self.questions)

        def describe() -> str:
            elapsed = max(time.perf_counter() - started, 1e-9)
            new = stats["tokens_new"]
            cost = self.price.cost(new.get("input", 0), new.get("output", 0))
            failed = sum(n for k, n in statuses.items() if k != "ok")
            return (f"{stats['sent'] / elapsed:.1f} req/s  {new.get('total', 0):,} tok  "
                    + (f"${cost:.4f}" if cost is not None else "$ n/a") + f"  cached {stats['cached']}"
                    + (f"  [red]failed {failed}[/red]" if failed else ""))

        async def worker(task) -> None:
            for q in todo:  # the shared iterator hands each question to exactly one worker
                row = await self.ask(q, throttle, stats, rng)
                rows[q.id] = row
                statuses[row["status"]] += 1
                journal.write(json.dumps(row) + "\n")
                journal.flush()
                progress.update(task, advance=1, stats=describe())

        try:
            with progress:
                task = progress.add_task("eval", total=len(self.questions), stats="")
                async with asyncio.TaskGroup() as group:
                    for _ in range(min(s.concurrency, len(self.questions))):
                        group.create_task(worker(task))
        finally:
            journal.close()
            await self.provider.close()
            if self.cache is not None:
                self.cache.close()

        ordered = [rows[q.id] for q in self.questions]
        atomic_write_text(self.run_dir / PREDICTIONS, "".join(json.dumps(r) + "\n" for r in ordered))
        tokens: dict = {}
        for r in ordered:
            add_tokens(tokens, r["tokens"])
        new = stats["tokens_new"]
        report = EvalReport(
            run_dir=self.run_dir, rows=ordered, statuses=statuses, requests_sent=stats["sent"],
            cached=stats["cached"], tokens=tokens, tokens_new=new,
            cost_usd=self.price.cost(tokens.get("input", 0), tokens.get("output", 0)),
            cost_new_usd=self.price.cost(new.get("input", 0), new.get("output", 0)),
            elapsed_s=time.perf_counter() - started, reference=self.provider.reference)
        self.write_run_file(report)
        return report

    def write_run_file(self, report: EvalReport | None) -> None:
        s = self.settings
        info = {
            "request": self.identity,
            "byo_version": __version__,
            "reference": self.provider.reference,
            "questions": str(self.questions_path),
            "n_questions": len(self.questions),
            "api": self.api,
            "key_source": self.key_source,  # where the key came from; never the key
            "concurrency": s.concurrency, "rpm": s.rpm, "timeout_s": self.timeout, "retries": s.retries,
            "limit": s.limit,
            "image_limits": {"max_bytes": self.provider.limits.max_bytes,
                             "max_pixels": self.provider.limits.max_pixels},
            "price": self.price.model_dump(),
            "cache": str(self.cache_path) if self.provider.cacheable else None,
            "finished": report is not None,
        }
        if report is not None:
            info.update({"statuses": dict(sorted(report.statuses.items())), "requests_sent": report.requests_sent,
                         "cached": report.cached, "tokens": report.tokens, "tokens_new": report.tokens_new,
                         "cost_usd": report.cost_usd, "cost_new_usd": report.cost_new_usd,
                         "elapsed_s": round(report.elapsed_s, 3)})
        atomic_write_text(self.run_dir / RUN_FILE, json.dumps(info, indent=1) + "\n")


def evaluate(settings: EvalSettings, *, show_progress: bool = True) -> EvalReport:
    evaluation = Evaluation(settings)
    return asyncio.run(evaluation.run_async(show_progress))
