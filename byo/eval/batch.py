"""`byo eval --batch`: a run's requests through the provider's Batch API (OpenAI's, Azure OpenAI's,
or any server with the same /files and /batches shape), at the batch price.

The requests the cache cannot answer are written as JSONL (one line per request: its cache key
as `custom_id`, the body the live path would send) and split into parts within the provider's
limits (requests and bytes per input file); each part is uploaded (`purpose: batch`) and made a
batch with a 24 h window. The batches are polled; a batch that ends (completed, failed, expired,
cancelled) is collected: the answers in its output file go into the same request cache as live
answers, each with its charge at the batch price, and the requests in its error file, or in
neither file, become failures (never cached: the next `byo eval --batch` sends them again).
The predictions are written as the live path writes them; an answer from a batch carries the
batch's id and is priced at the batch price.

Crash safety. The run's batches are recorded in RUN/batches.json, rewritten atomically at every
step. A part is recorded (a token of its own and the cache keys of its requests) before anything
is sent; `uploading` and `creating` are recorded before the upload and the batch's creation are
sent; the file's and the batch's ids as soon as they come back. The token names the uploaded
file (byo-TOKEN.jsonl) and goes into the batch's metadata (byo_part), so that a process killed
while one of those calls was under way finds, on the next invocation, the file or the batch
that call made, instead of making another: no request is submitted twice. A part is marked
collected only once its answers are durable in the cache, and collecting one twice (a kill in
between) neither replaces an answer nor charges it again. `byo eval --batch` again, or `byo
status RUN`, polls, collects and finishes submitting what was planned; only `byo eval --batch`
plans new parts (the questions still unanswered, failures included).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import time
import uuid
from collections import Counter
from pathlib import Path

import pydantic

from byo.core.dataset import atomic_write_text
from byo.core.errors import ConfigError, InputError
from byo.core.inputs import json_kind, read_json
from byo.core.progress import Bar
from byo.core.urls import redact_url
from byo.eval.budget import Budget, request_tokens, run_id
from byo.eval.cache import Charge, RequestCache
from byo.eval.layout import RUN_FILE, write_predictions, write_run_file
from byo.eval.predictions import add_tokens, answer_record, prediction_row
from byo.eval.requests import Prepared, prepare
from byo.eval.resolve import Evaluation
from byo.eval.runfile import run_file_info
from byo.eval.schedule import backoff_delay
from byo.eval.settings import EvalReport, EvalSettings
from byo.eval.stop import Stopped, endpoint_down, on_signals
from byo.providers import GenerationParams, ProviderFailure, Response
from byo.providers.base import error_message, failure_for_http_status
from byo.providers.keys import redact, redact_all
from byo.providers.openai_api import sdk_failure
from byo.questions.load import Question

BATCHES = "batches.json"
TERMINAL = ("completed", "failed", "expired", "cancelled")
WINDOW = "24h"  # the only completion window the Batch API offers
MAX_REQUESTS, MAX_BYTES = 50_000, 200 * 1024 * 1024  # OpenAI: per batch, per input file
LIMITS = {"azure": (100_000, 200 * 1024 * 1024)}  # Azure OpenAI's global batch
FILE_PREFIX = "byo-"
LOOKBACK_S = 600.0  # batches created this long before a part's `creating` are looked at for it (clock skew)
PREPARING = 8  # questions prepared (images read and encoded) at once


class BatchApiError(Exception):
    """A call to the files or batches API failed past its retries."""


@dataclasses.dataclass
class Item:
    """A question of the run: its cache key, what its row needs, and its request's size."""

    question: Question
    key: str | None = None
    image: dict | None = None
    shots: tuple[str, ...] = ()
    raw_input: int = 0  # input tokens as estimated before correction (byo.eval.budget)
    size: int = 0  # bytes of its JSONL line
    failure: ProviderFailure | None = None  # it could not be prepared (a missing image...)


class Ledger:
    """RUN/batches.json: the settings that made the batches, and every part as a dict: token,
    keys, requests, bytes, usd_estimate, state (planned, uploading, uploaded, creating,
    submitted, collected), file_id, batch_id, status, counts, failures {key: [status, message]}."""

    def __init__(self, run_dir: Path):
        self.path = run_dir / BATCHES
        self.data: dict = {"parts": []}
        if self.path.exists():
            data = read_json(self.path)
            if not isinstance(data, dict) or not isinstance(data.get("parts"), list) \
                    or not all(isinstance(p, dict) and isinstance(p.get("keys"), list) for p in data["parts"]):
                raise InputError(self.path, f"expected the run's batches (an object with a list of parts), got "
                                 f"{json_kind(data)}; it is written by a run with `batch`", key="parts")
            self.data = data

    @property
    def parts(self) -> list[dict]:
        return self.data["parts"]

    def save(self) -> None:
        atomic_write_text(self.path, json.dumps(self.data, indent=1) + "\n")

    def unsent(self) -> list[dict]:
        return [p for p in self.parts if p["state"] in ("planned", "uploading", "uploaded", "creating")]

    def waiting(self) -> list[dict]:
        """Parts whose requests are, or may be, at the provider and not collected."""
        return [p for p in self.parts if p["state"] != "collected"]

    def latest(self) -> dict[str, dict]:
        """Each key's latest part (a failed request is sent again in a later part)."""
        return {key: p for p in self.parts for key in p["keys"]}


def settings_record(s: EvalSettings, run_dir: Path) -> dict:
    """The settings `byo status RUN` needs to rebuild the run (paths absolute; a base URL that
    holds a secret is not written, and `byo status` then asks for byo eval --batch again)."""
    record = {}
    for f in dataclasses.fields(s):
        value = getattr(s, f.name)
        if f.name in ("dataset", "wait", "batch_wait", "collect_only"):
            continue
        if isinstance(value, Path):
            value = str(value.resolve())
        elif isinstance(value, GenerationParams):
            value = value.model_dump()
        record[f.name] = value
    if s.base_url and redact_url(s.base_url) != s.base_url:
        record["base_url"], record["base_url_secret"] = None, True
    # repeat r >= 2 lives in NAME.repeat-r: keep NAME, which the settings' repeat extends again
    name = run_dir.name
    record["run"] = name.removesuffix(f".repeat-{s.repeat}") if s.repeat > 1 else name
    return record


def settings_from_record(run_dir: Path, record: dict) -> EvalSettings:
    """The settings of the run's batches, to poll and collect them (byo status RUN)."""
    if record.pop("base_url_secret", False):
        raise ConfigError(str(run_dir / BATCHES), [("settings.base_url", "the run's base URL holds a secret, which "
                                                   "byo does not write; evaluate again with `batch` and the same "
                                                   "settings to collect its batches")])
    names = {f.name: f for f in dataclasses.fields(EvalSettings)}
    unknown = sorted(set(record) - set(names))
    if unknown:
        raise InputError(run_dir / BATCHES, f"unknown settings {', '.join(unknown)}; written by a newer byo?",
                         key="settings")
    values = {k: (Path(v) if v is not None and k in ("questions", "providers_file", "key_file", "cache") else v)
              for k, v in record.items() if k != "params"}
    values.update(batch=True, collect_only=True, batch_wait=False)
    return EvalSettings(dataset=run_dir.parent.parent, params=GenerationParams(**record.get("params", {})), **values)


def reply_from_body(ev: Evaluation, body: dict) -> Response:
    """A batch output line's body read as the live path reads a reply."""
    import openai  # as the provider imports it: when a client is made

    provider = ev.provider
    try:
        if provider.batch_route.endswith("/responses"):
            return provider.read_response(openai.types.responses.Response.model_validate(body))
        return provider.read(openai.types.chat.ChatCompletion.model_validate(body))
    except pydantic.ValidationError as err:
        raise ProviderFailure("malformed", f"the batch's answer does not match the API schema: "
                              f"{str(err).splitlines()[0]}") from None


def line_failure(entry: dict) -> tuple[str, str]:
    """(status, message) of a request the batch did not answer (a line of its error file)."""
    error = entry.get("error")
    if isinstance(error, dict) and error.get("code") == "batch_expired":
        return "timeout", "the batch expired (its 24 h window) before this request ran"
    response = entry.get("response") if isinstance(entry.get("response"), dict) else {}
    code = response.get("status_code")
    if isinstance(code, int) and code != 200:
        failure = failure_for_http_status(code, error_message(response.get("body"), "no message"))
        return failure.status, failure.message
    message = error.get("message") if isinstance(error, dict) else None
    return "server_error", f"the batch could not run this request: {message or 'no reason given'}"


def missing_failure(batch) -> tuple[str, str]:
    """(status, message) of a request in neither of an ended batch's files."""
    if batch.status == "failed":
        errors = getattr(getattr(batch, "errors", None), "data", None) or []
        said = "; ".join(f"{e.code}: {e.message}" for e in errors if e is not None) or "no reason given"
        return "rejected", f"the batch failed ({said})"
    if batch.status == "expired":
        return "timeout", "the batch expired (its 24 h window) before this request ran"
    if batch.status == "cancelled":
        return "timeout", "the batch was cancelled before this request ran"
    return "malformed", "the batch's output files have no line for this request"


class BatchRun:
    """One invocation of a batched run (see the module's docstring)."""

    def __init__(self, ev: Evaluation):
        self.ev = ev
        s = ev.settings
        self.client = ev.provider.client
        self.route = ev.provider.batch_route
        most_requests, most_bytes = LIMITS.get(ev.ptype, (MAX_REQUESTS, MAX_BYTES))
        self.max_requests = ev.batch_limits[0] or most_requests
        self.max_bytes = ev.batch_limits[1] or most_bytes
        self.run_id = run_id(ev.run_dir)
        self.ledger = Ledger(ev.run_dir)
        self.cache: RequestCache | None = None
        self.budget: Budget | None = None
        self.items: list[Item] = []
        self.cached = 0
        self.submitted = 0  # requests sent in batches by this invocation
        self.collected = 0  # answers collected by this invocation
        self.tokens_new: dict = {}
        self.stopped: Stopped | None = None
        self.planned: set[str] = set()  # the keys this invocation put in parts
        self.probing = False  # the plan holds one request alone until its usage corrects the estimates
        self.woken = asyncio.Event()
        self.rng = random.Random()
        self.settings_record = settings_record(s, ev.run_dir)

    def stop(self, why: Stopped) -> None:
        """A signal: stop waiting. A call under way finishes and is recorded; the batches go on at
        the provider, and byo status RUN or byo eval --batch collects them."""
        if self.stopped is None:
            self.stopped = why
        self.woken.set()

    # --- the provider's files and batches ----------------------------------------------
    async def call(self, what: str, request):
        """An API call, retried as live requests are (429, 5xx, timeouts, connection errors)."""
        attempt = 0
        while True:
            attempt += 1
            try:
                return await request()
            except Exception as err:
                failure = sdk_failure(err, self.ev.provider.sdk)
                if failure is None:
                    raise
                if not failure.retryable or attempt > self.ev.settings.retries or self.stopped is not None:
                    raise BatchApiError(f"{what} at {self.ev.provider.endpoint} failed: "
                                        f"{failure.status}: {failure.message}") from None
                delay = backoff_delay(attempt, self.ev.settings.backoff_base, self.ev.settings.backoff_max, self.rng)
                await asyncio.sleep(max(delay, failure.retry_after or 0))

    async def find_file(self, part: dict) -> str | None:
        """The file an interrupted upload of `part` made, if the provider has it."""
        name = FILE_PREFIX + part["token"] + ".jsonl"

        async def search():
            async for f in self.client.files.list(purpose="batch"):
                if f.filename == name:
                    return f.id
            return None

        return await self.call("listing files", search)

    async def find_batch(self, part: dict):
        """The batch an interrupted creation of `part` made, if the provider has it (newest first)."""
        since = part.get("creating_at", 0) - LOOKBACK_S

        async def search():
            async for b in self.client.batches.list(limit=100):
                if (b.metadata or {}).get("byo_part") == part["token"]:
                    return b
                if b.created_at < since:
                    return None
            return None

        return await self.call("listing batches", search)

    # --- preparing and planning ---------------------------------------------------------
    async def prepare_items(self) -> list[Item]:
        gate = asyncio.Semaphore(PREPARING)

        async def one(q: Question) -> Item:
            async with gate:
                try:
                    prepared = await prepare(self.ev, q)
                except ProviderFailure as failure:
                    return Item(q, image={"path": q.image}, failure=failure)
                return Item(q, prepared.key, prepared.image, prepared.shots, request_tokens(self.ev, prepared),
                            len(self.line(prepared)) + 1)

        return list(await asyncio.gather(*(one(q) for q in self.ev.questions)))

    def line(self, prepared: Prepared) -> bytes:
        body = self.ev.provider.arguments(prepared.request)
        return json.dumps({"custom_id": prepared.key, "method": "POST", "url": self.route, "body": body},
                          separators=(",", ":")).encode()

    async def part_file(self, part: dict) -> bytes:
        """The part's JSONL, made again from its questions (the same bytes: the key is the request)."""
        first, keys = {}, set(part["keys"])
        for item in self.items:
            if item.key in keys and item.key not in first:
                first[item.key] = item.question
        missing = [k for k in part["keys"] if k not in first]
        if missing:
            raise ConfigError(str(self.ledger.path), [(f"parts[{part['token']}]", f"{len(missing)} of its requests "
                                                       "are no longer among the run's questions; restore the "
                                                       "question file the batches were made from")])
        lines = [self.line(await prepare(self.ev, first[key])) for key in part["keys"]]
        return b"\n".join(lines) + b"\n"

    def plan(self) -> list[dict]:
        """New parts for the requests neither cached nor waiting in a batch, within the cap and
        the provider's limits; recorded before anything is sent."""
        waiting = {key for p in self.ledger.waiting() for key in p["keys"]}
        todo, seen = [], set()
        for item in self.items:
            if item.key is None or item.key in seen or item.key in waiting or item.key in self.planned \
                    or self.cache.get(item.key) is not None:
                continue
            seen.add(item.key)
            todo.append(item)
        parts, current = [], None
        for item in todo:
            if item.size > self.max_bytes:
                item.failure = ProviderFailure("rejected", f"the request alone ({item.size:,} bytes) is larger than a "
                                               f"batch input file may be ({self.max_bytes:,} bytes)")
                continue
            if self.budget.cap is not None and self.budget.input_ratio is None and (parts or waiting):
                # nothing learnt of this model's usage yet: one request goes alone, and the others are
                # estimated from its usage once it is collected (this invocation, or the next one)
                self.probing = True
                break
            est = self.budget.estimate(item.raw_input)
            if not self.budget.admit(est, " at the batch price"):
                break
            usd = est.usd or 0.0
            if current is None or len(current["keys"]) >= self.max_requests \
                    or current["bytes"] + item.size > self.max_bytes:
                current = {"token": uuid.uuid4().hex, "keys": [], "bytes": 0, "usd_estimate": 0.0,
                           "state": "planned", "file_id": None, "batch_id": None, "status": None, "counts": None,
                           "failures": {}, "planned_at": time.time()}
                parts.append(current)
            current["keys"].append(item.key)
            self.planned.add(item.key)  # a request that fails is sent again by the next invocation, not this one
            current["bytes"] += item.size
            current["usd_estimate"] += usd
        for part in parts:
            part["requests"] = len(part["keys"])
        self.ledger.parts.extend(parts)
        self.ledger.save()  # before anything is sent
        return parts

    # --- submitting, polling, collecting -------------------------------------------------
    async def submit(self, part: dict) -> None:
        """Upload the part's file and create its batch, each found again when a kill interrupted it."""
        ledger, token = self.ledger, part["token"]
        if part["state"] in ("planned", "uploading"):
            file_id = await self.find_file(part) if part["state"] == "uploading" else None
            if file_id is None:
                data = await self.part_file(part)
                part["state"] = "uploading"
                ledger.save()
                upload = await self.call("uploading a batch file", lambda: self.client.files.create(
                    file=(FILE_PREFIX + token + ".jsonl", data, "application/jsonl"), purpose="batch"))
                file_id = upload.id
            part.update(file_id=file_id, state="uploaded")
            ledger.save()
        if part["state"] in ("uploaded", "creating"):
            batch = await self.find_batch(part) if part["state"] == "creating" else None
            if batch is None:
                part.update(state="creating", creating_at=time.time())
                ledger.save()
                batch = await self.call("creating a batch", lambda: self.client.batches.create(
                    input_file_id=part["file_id"], endpoint=self.route, completion_window=WINDOW,
                    metadata={"byo_part": token, "byo_run": self.run_id}))
                self.submitted += part["requests"]
            part.update(batch_id=batch.id, state="submitted", status=batch.status)
            ledger.save()

    async def collect(self, part: dict, batch, bar: Bar) -> None:
        """An ended batch's answers into the cache (durable before the part is marked collected),
        its other requests as failures."""
        ev = self.ev
        keys = set(part["keys"])
        answers: dict[str, Response] = {}
        failures: dict[str, list] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            content = await self.call("downloading a batch's results", lambda f=file_id: self.client.files.content(f))
            for raw in content.text.splitlines():
                try:
                    entry = json.loads(raw)
                    key = entry["custom_id"]
                except (ValueError, KeyError, TypeError):
                    continue  # its request ends as missing from the output
                if key not in keys or key in answers:
                    continue
                response = entry.get("response") if isinstance(entry.get("response"), dict) else {}
                if response.get("status_code") == 200 and not entry.get("error"):
                    try:
                        answers[key] = reply_from_body(ev, response.get("body"))
                        failures.pop(key, None)
                    except ProviderFailure as failure:
                        failures[key] = [failure.status, failure.message]
                else:
                    failures.setdefault(key, list(line_failure(entry)))
        for key in keys - set(answers) - set(failures):
            failures[key] = list(missing_failure(batch))
        raw_inputs = {item.key: item.raw_input for item in self.items}
        commits = []
        for key, reply in answers.items():
            earlier = self.cache.get(key)
            if earlier is not None and earlier.get("batch") == batch.id:
                continue  # collected before a kill, and charged then
            record = {**answer_record(reply, 0.0, 1, ev.secrets, ev.settings.max_answer_chars),
                      "latency_s": None, "batch": batch.id}
            cost = ev.batch_price.cost(record["tokens"]["input"], record["tokens"]["output"])
            commits.append(self.cache.put(key, record, Charge(self.run_id, cost, "batch") if cost is not None else None))
            add_tokens(self.tokens_new, record["tokens"])
            self.budget.spent += cost or 0.0
            if key in raw_inputs:  # a question of this invocation (a smaller --limit leaves some out)
                self.budget.learn(raw_inputs[key], record["tokens"])
            self.collected += 1
        await asyncio.gather(*commits)
        self.budget.release(part.get("usd_estimate"))
        part.update(state="collected", failures=redact_all(failures, ev.secrets))
        self.ledger.save()
        bar.advance(len(answers), note=self.note())

    def note(self) -> str:
        states = Counter(p["status"] or p["state"] for p in self.ledger.waiting())
        waiting = sum(p["requests"] for p in self.ledger.waiting())
        return (f"{waiting} requests in {sum(states.values())} batches: "
                + ", ".join(f"{k} {n}" for k, n in sorted(states.items()))) if states else "all batches collected"

    async def poll(self, bar: Bar) -> None:
        s = self.ev.settings
        while True:
            for part in [p for p in self.ledger.parts if p["state"] == "submitted"]:
                if self.stopped is not None:
                    return
                batch = await self.call("polling a batch", lambda p=part: self.client.batches.retrieve(p["batch_id"]))
                counts = getattr(batch, "request_counts", None)
                part.update(status=batch.status, counts=counts.model_dump() if counts is not None else None)
                if batch.status in TERMINAL:
                    await self.collect(part, batch, bar)
                self.ledger.save()
            bar.advance(0, note=self.note())
            if not self.ledger.waiting() or not s.batch_wait or self.stopped is not None:
                return
            self.woken.clear()
            try:
                await asyncio.wait_for(self.woken.wait(), timeout=s.batch_poll)
            except TimeoutError:
                pass

    # --- the run ------------------------------------------------------------------------
    def rows(self) -> list[dict]:
        ev, latest, rows = self.ev, self.ledger.latest(), []
        for item in self.items:
            q = item.question
            if item.failure is not None:
                rows.append(prediction_row(ev, q, item.image, status=item.failure.status, attempts=0, latency_s=None,
                                           error=item.failure.message, shots=item.shots))
                continue
            record = self.cache.get(item.key)
            if record is not None:
                rows.append(prediction_row(ev, q, item.image, status="ok", attempts=record["attempts"],
                                           latency_s=record["latency_s"], record=record, shots=item.shots))
                continue
            part = latest.get(item.key)
            if part is not None and part["state"] == "collected" and item.key in part["failures"]:
                status, message = part["failures"][item.key]
                rows.append(prediction_row(ev, q, item.image, status=status, attempts=1, latency_s=None,
                                           error=message, shots=item.shots))
        return rows

    async def run(self, show_progress: bool) -> EvalReport:
        ev, s = self.ev, self.ev.settings
        ev.run_dir.mkdir(parents=True, exist_ok=True)
        self.cache = RequestCache(ev.cache_path)
        self.budget = Budget(s.max_cost, ev.batch_price, spent=self.cache.spent(self.run_id),
                             max_tokens=s.params.max_tokens)
        self.budget.reserved = sum(p.get("usd_estimate") or 0.0 for p in self.ledger.waiting())
        if not s.collect_only:
            self.ledger.data["settings"] = self.settings_record
        write_run_file(ev.run_dir, self.run_info(None))
        started = time.perf_counter()
        try:
            self.items = await self.prepare_items()
            for item in self.items:
                if item.key is not None and (record := self.cache.get(item.key)) is not None:
                    self.cached += 1
                    self.budget.learn(item.raw_input, record["tokens"])
            bar = Bar(f"[bold]eval (batch)[/bold] {s.provider}/{ev.model}", len(self.items), unit="q",
                      enabled=show_progress)
            with on_signals(self.stop), bar:
                bar.advance(self.cached, note=self.note())
                try:
                    while True:
                        self.probing = False
                        if not s.collect_only:
                            self.plan()
                        for part in self.ledger.unsent():
                            if self.stopped is not None:
                                break
                            await self.submit(part)
                        await self.poll(bar)
                        # the first request's usage is known once its batch is collected: plan the rest
                        if not self.probing or self.budget.input_ratio is None or self.ledger.waiting() \
                                or self.stopped is not None:
                            break
                except BatchApiError as err:
                    self.stopped = endpoint_down(redact(str(err), ev.secrets))
            rows = self.rows()
        finally:
            await ev.provider.close()
            await self.cache.close()
        if self.stopped is None and self.budget.reached is not None:
            self.stopped = Stopped("budget", self.budget.stop_line(), 1)
        if self.stopped is None and self.ledger.waiting():
            waiting = sum(p["requests"] for p in self.ledger.waiting())
            self.stopped = Stopped("batch", f"{waiting} requests wait in {len(self.ledger.waiting())} batches at "
                                   f"the provider; evaluating again with `batch` (or byo status {ev.run_dir}) "
                                   "collects them", 0)
        write_predictions(ev.run_dir, rows)
        report = self.report(rows, time.perf_counter() - started)
        write_run_file(ev.run_dir, self.run_info(report))
        return report

    def report(self, rows: list[dict], elapsed_s: float) -> EvalReport:
        tokens: dict = {}
        for r in rows:
            add_tokens(tokens, r["tokens"])
        costs = [r["cost_usd"] for r in rows if r["tokens"]]
        new = self.tokens_new
        return EvalReport(
            run_dir=self.ev.run_dir, rows=rows, statuses=Counter(r["status"] for r in rows),
            requests_sent=self.submitted, cached=self.cached, tokens=tokens, tokens_new=new,
            cost_usd=sum(costs) if None not in costs else None,
            cost_new_usd=self.ev.batch_price.cost(new.get("input", 0), new.get("output", 0)),
            elapsed_s=elapsed_s, n_questions=len(self.items), stopped=self.stopped,
            spent_usd=self.budget.spent, max_cost_usd=self.budget.cap)

    def run_info(self, report: EvalReport | None) -> dict:
        batches = [{"batch_id": p["batch_id"], "state": p["state"], "status": p["status"], "requests": p["requests"],
                    "counts": p["counts"], "failed": len(p["failures"])} for p in self.ledger.parts]
        return run_file_info(self.ev, self.run_id, report, {**self.budget.summary(), "batches": batches,
                                                            "batch_price": self.ev.batch_price.model_dump()})


def run_batches(ev: Evaluation, show_progress: bool = True) -> EvalReport:
    return asyncio.run(BatchRun(ev).run(show_progress))


def collect_settings(run_dir: Path) -> EvalSettings | None:
    """The settings that poll and collect a run's batches (byo status RUN); None for a run made
    without --batch."""
    path = Path(run_dir) / BATCHES
    if not path.is_file():
        return None
    record = Ledger(Path(run_dir)).data.get("settings")
    if not isinstance(record, dict):
        raise InputError(path, f"expected the settings of the run's batches (an object), got {json_kind(record)}",
                         key="settings")
    return settings_from_record(Path(run_dir), dict(record))


def run_summary(run_dir: Path) -> dict:
    """What byo status says of a run: its run.json's totals and its batches."""
    info = read_json(Path(run_dir) / RUN_FILE)
    if not isinstance(info, dict):
        raise InputError(Path(run_dir) / RUN_FILE, f"expected an object, got {json_kind(info)}")
    keys = ("n_questions", "answered", "statuses", "finished", "stopped", "requests_sent", "cached", "cost_usd",
            "spent_usd", "max_cost_usd", "batches")
    return {"run": str(run_dir), **{k: info.get(k) for k in keys}}
