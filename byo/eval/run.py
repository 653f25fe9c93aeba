"""`evaluate(settings)`: resolve the settings, ask every question through the cache and the
scheduler, journal each row as it lands, then write the predictions in order and `run.json`.
A run stopped early (a signal, a dead endpoint) writes what it has in the same way, marked
unfinished, and says so in its report.

What the rest of byo uses of byo.eval is imported from here: `evaluate`, `EvalSettings`,
`EvalReport` and `run_name`.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from byo.core.errors import InputError
from byo.core.locks import writer_lock
from byo.core.progress import Bar
from byo.eval.batch import run_batches
from byo.eval.budget import Budget, request_tokens, run_id
from byo.eval.cache import Charge, RequestCache
from byo.eval.layout import (
    PREDICTIONS,
    RUN_FILE,
    check_run_folder,
    check_same_request,
    journal_row,
    lost_answers,
    open_journal,
    read_predictions,
    remove_unanswered_run,
    run_name,
    write_predictions,
    write_run_file,
)
from byo.eval.predictions import add_tokens, answer_record, prediction_row
from byo.eval.progress import figures
from byo.eval.ranking import RankingRun
from byo.eval.requests import prepare
from byo.eval.resolve import Evaluation
from byo.eval.runfile import run_file_info
from byo.eval.schedule import EndpointDown, Scheduler
from byo.eval.settings import EvalReport, EvalSettings
from byo.eval.stop import Stopped, budget_reached, endpoint_down, on_signals, write_failed
from byo.providers import ProviderFailure
from byo.providers.keys import redact
from byo.questions.load import Question

__all__ = ["EvalReport", "EvalSettings", "Session", "evaluate", "run_name"]


def evaluate(settings: EvalSettings, *, show_progress: bool = True,
             on_wait: Callable[[str], None] | None = None, wait_flag: str | None = "`wait`") -> EvalReport:
    """Ask every question. One process writes a run: another one on the same run is refused (exit
    2, naming it, and `wait_flag`, the caller's way to wait, when it has one), or waited for with
    `settings.wait` (`on_wait(holder)` is told)."""
    return run_locked(Evaluation(settings), show_progress=show_progress, on_wait=on_wait, wait_flag=wait_flag)


def run_locked(ev: Evaluation, *, show_progress: bool = True,
               on_wait: Callable[[str], None] | None = None, wait_flag: str | None = "`wait`") -> EvalReport:
    """Run a resolved evaluation while holding its run's lock (see `evaluate`)."""
    check_run_folder(ev.run_dir, ev.dataset)
    with writer_lock(ev.run_dir, what="run", wait=ev.settings.wait, on_wait=on_wait, wait_flag=wait_flag):
        check_same_request(ev.run_dir, ev.identity)  # again, now that no one else writes
        earlier = earlier_rows(ev.run_dir / PREDICTIONS)
        lost_answers(earlier, ev.all_questions, ev.run_dir / PREDICTIONS)
        # a new run that ends with no answer leaves no folder; a batch run keeps its submitted batches
        new = not earlier and not (ev.run_dir / RUN_FILE).exists() and not ev.settings.batch
        try:
            if ev.provider.ranks:  # an image-text model ranks the candidate captions
                report = RankingRun(ev, earlier).run(show_progress)
            elif ev.settings.batch:  # through the provider's Batch API
                report = run_batches(ev, show_progress)
            else:
                report = asyncio.run(Run(ev).run(show_progress))
        except BaseException:
            if new:
                remove_unanswered_run(ev.run_dir)
            raise
        if new and report.stopped is not None and not report.rows:
            remove_unanswered_run(ev.run_dir)
        return report


def earlier_rows(path: Path) -> dict[str, dict]:
    """The rows an earlier invocation of the run wrote. A last line cut short by a kill is no
    problem (its question is asked again); other damage is named, and nothing is overwritten."""
    rows, problems = read_predictions(path)
    if problems:
        where, what = problems[0]
        raise InputError(path, f"{what}; move the file away (its answers are in the request cache) or choose "
                         "another `run`", key=where)
    return rows


class Run:
    """One invocation of a run: its cache, its scheduler and what it has counted so far."""

    def __init__(self, ev: Evaluation):
        s = ev.settings
        self.ev = ev
        self.cache: RequestCache | None = None
        self.scheduler = Scheduler(concurrency=s.concurrency, rpm=s.rpm, timeout=ev.timeout, retries=s.retries,
                                   backoff_base=s.backoff_base, backoff_max=s.backoff_max,
                                   reads_headers=ev.provider.reads_rate_headers, endpoint=ev.provider.endpoint)
        ev.provider.on_headers = self.scheduler.limiter.observe  # the rate limits each reply states
        self.run_id = run_id(ev.run_dir)
        self.budget: Budget | None = None  # once the cache (and with it the run's spend) is open
        self.rows: dict[str, dict] = {}
        self.statuses: Counter = Counter()
        self.cached = 0
        self.tokens_new: dict = {}
        self.work: asyncio.Task | None = None  # asking every question
        self.stopped: Stopped | None = None

    def stop(self, why: Stopped) -> None:
        """Stop asking: the requests in flight are dropped, the answers received are kept. Once every
        question is done, there is nothing left to stop."""
        if self.stopped is not None or (self.work is not None and self.work.done()):
            return
        self.stopped = why
        if self.work is not None:
            self.work.cancel()

    async def ask(self, q: Question) -> tuple[dict | None, asyncio.Future | None]:
        """The question's row (None: not asked, the run's spend being at --max-cost), and the cache
        commit of its new answer (None when there is none)."""
        ev = self.ev
        try:
            prepared = await prepare(ev, q)
        except ProviderFailure as failure:
            return prediction_row(ev, q, {"path": q.image}, status=failure.status, attempts=0, latency_s=None,
                                  error=failure.message), None
        image, key = prepared.image, prepared.key
        if key is not None and (record := self.cache.get(key)) is not None:
            self.cached += 1
            self.budget.learn(request_tokens(ev, prepared), record["tokens"])
            return prediction_row(ev, q, image, status="ok", attempts=record["attempts"],
                                  latency_s=record["latency_s"], record=record, shots=prepared.shots), None
        estimate = await self.budget.reserve(request_tokens(ev, prepared))
        if estimate is None:
            return None, None  # over --max-cost: not asked
        outcome = None
        try:
            outcome = await self.scheduler.send(ev.provider, prepared.request, tokens=estimate.tokens)
        finally:
            answered = outcome is not None and outcome.failure is None
            tokens = outcome.response.tokens() if answered else None
            cost = ev.price.cost(tokens["input"], tokens["output"]) if tokens else None
            self.budget.settle(estimate, tokens, cost)
        if outcome.failure is not None:
            return prediction_row(ev, q, image, status=outcome.failure.status, attempts=outcome.attempts,
                                  latency_s=outcome.latency_s, error=outcome.failure.message,
                                  shots=prepared.shots), None
        record = answer_record(outcome.response, outcome.latency_s, outcome.attempts, ev.secrets,
                               ev.settings.max_answer_chars)
        charge = Charge(self.run_id, cost) if cost is not None else None
        committed = self.cache.put(key, record, charge) if key is not None else None
        add_tokens(self.tokens_new, record["tokens"])
        return prediction_row(ev, q, image, status="ok", attempts=outcome.attempts, latency_s=outcome.latency_s,
                              record=record, shots=prepared.shots), committed

    async def run(self, show_progress: bool) -> EvalReport:
        ev = self.ev
        earlier = earlier_rows(ev.run_dir / PREDICTIONS)  # rows of an interrupted invocation
        ev.run_dir.mkdir(parents=True, exist_ok=True)
        self.cache = RequestCache(ev.cache_path) if ev.provider.cacheable else None
        self.budget = Budget(ev.settings.max_cost, ev.price, max_tokens=ev.settings.params.max_tokens,
                             spent=self.cache.spent(self.run_id) if self.cache is not None else 0.0)
        write_run_file(ev.run_dir, self.run_info(None))
        started = time.perf_counter()
        bar = Bar(f"[bold]eval[/bold] {ev.settings.provider}/{ev.model}", len(ev.questions), unit="q",
                  enabled=show_progress)
        journal = open_journal(ev.run_dir, say=lambda line: print(line, file=sys.stderr, flush=True))

        def describe() -> str:
            return figures(sent=self.scheduler.sent, elapsed_s=time.perf_counter() - started,
                           tokens_new=self.tokens_new, price=ev.price, cached=self.cached,
                           failed=sum(n for k, n in self.statuses.items() if k != "ok"),
                           limit=self.scheduler.limiter.note(), cap=ev.settings.max_cost,
                           spent=self.budget.spent)

        async def handle(q: Question) -> None:
            try:
                row, committed = await self.ask(q)
            except EndpointDown as down:
                self.stop(endpoint_down(redact(str(down), ev.secrets)))
                return
            if row is None:  # not asked: the spend is at --max-cost
                return
            # Kept at once, with no await in between: a stop from here on loses nothing of this
            # answer, whose commit finishes before the cache closes.
            self.rows[q.id] = row
            self.statuses[row["status"]] += 1
            try:
                journal_row(journal, row)
            except OSError as err:  # a full disk: the answer is in the cache; stop and write what fits
                self.stop(write_failed(err))
                return
            bar.advance(note=describe())
            if committed is not None:
                await committed  # the next question waits until this answer is durable

        with on_signals(self.stop):  # inside, a second signal exits at once
            try:
                with bar:
                    self.work = asyncio.create_task(self.scheduler.each(ev.questions, handle))
                    if self.stopped is not None:  # a signal came before the work began
                        self.work.cancel()
                    try:
                        await self.work
                    except asyncio.CancelledError:
                        if self.stopped is None:
                            raise
            finally:
                journal.close()
                await ev.provider.close()
                if self.cache is not None:
                    await self.cache.close()

            if self.stopped is None and self.budget.reached is not None:
                self.stopped = budget_reached(self.budget.stop_line())
            kept = [row for q in ev.all_questions if (row := self.rows.get(q.id) or earlier.get(q.id))]
            write_predictions(ev.run_dir, kept)
            report = self.report(kept, time.perf_counter() - started)
            write_run_file(ev.run_dir, self.run_info(report))
        return report

    def report(self, kept: list[dict], elapsed_s: float) -> EvalReport:
        tokens: dict = {}
        for r in kept:
            add_tokens(tokens, r["tokens"])
        new, price = self.tokens_new, self.ev.price
        return EvalReport(
            run_dir=self.ev.run_dir, rows=kept, statuses=Counter(r["status"] for r in kept),
            requests_sent=self.scheduler.sent, cached=self.cached, tokens=tokens, tokens_new=new,
            cost_usd=price.cost(tokens.get("input", 0), tokens.get("output", 0)),
            cost_new_usd=price.cost(new.get("input", 0), new.get("output", 0)),
            elapsed_s=elapsed_s, reference=self.ev.provider.reference, n_questions=len(self.ev.questions),
            stopped=self.stopped, spent_usd=self.budget.spent, max_cost_usd=self.budget.cap,
            undecidable=len(self.ev.undecidable_here))

    def run_info(self, report: EvalReport | None) -> dict:
        """The contents of run.json: the settings, and the totals once the run has finished."""
        return run_file_info(self.ev, self.run_id, report, {**self.budget.summary(),
                                                            "rate_limits": self.scheduler.limiter.summary()})


class Session(Run):
    """A run asked a few questions at a time, the caller doing other work in between (byo adapt
    renders the next trial's image from the answers so far): `open`, `ask` as often as needed,
    `close`. Rows are journalled as they land, each answer committed to the cache before the next
    question; `close` writes the predictions in the order asked, and run.json. The caller holds
    the run's lock."""

    async def open(self, earlier: list[Question] | None = None) -> None:
        """Opens the run. `earlier`: the questions an interrupted invocation asked, in order (byo
        adapt resuming): their rows are kept; other rows of that invocation are dropped (their
        questions, asked again, are answered from the cache). Without it, the run starts empty."""
        ev = self.ev
        before = earlier_rows(ev.run_dir / PREDICTIONS)
        if before and earlier is None:
            raise InputError(ev.run_dir / PREDICTIONS, "a run asked question by question starts empty; choose "
                             "another run or output directory")
        ev.run_dir.mkdir(parents=True, exist_ok=True)
        self.cache = RequestCache(ev.cache_path) if ev.provider.cacheable else None
        self.budget = Budget(ev.settings.max_cost, ev.price, max_tokens=ev.settings.params.max_tokens,
                             spent=self.cache.spent(self.run_id) if self.cache is not None else 0.0)
        self.asked: list[Question] = []
        for q in earlier or []:
            if q.id in before:
                self.rows[q.id] = before[q.id]
                self.statuses[before[q.id]["status"]] += 1
                self.asked.append(q)
        self.ev.questions = self.asked
        self.started = time.perf_counter()
        write_run_file(ev.run_dir, self.run_info(None))
        self.journal = open_journal(ev.run_dir)

    async def ask_all(self, questions: list[Question]) -> list[dict]:
        """Each question's prediction row (asked concurrently, at most the run's concurrency at
        once); a question not asked (the run's --max-cost reached) has none. A dead endpoint raises
        EndpointDown, the rows received so far kept."""

        async def handle(q: Question) -> None:
            row, committed = await self.ask(q)
            if row is None:
                return
            self.rows[q.id] = row
            self.statuses[row["status"]] += 1
            journal_row(self.journal, row)
            if committed is not None:
                await committed

        self.asked += questions
        self.ev.questions = self.asked
        await self.scheduler.each(questions, handle)
        return [self.rows[q.id] for q in questions if q.id in self.rows]

    def cost(self) -> float | None:
        """USD spent on the answers so far (the provider's price; None without one)."""
        tokens: dict = {}
        for row in self.rows.values():
            add_tokens(tokens, row["tokens"])
        return self.ev.price.cost(tokens.get("input", 0), tokens.get("output", 0))

    async def close(self) -> EvalReport:
        self.journal.close()
        await self.ev.provider.close()
        if self.cache is not None:
            await self.cache.close()
        kept = [self.rows[q.id] for q in self.asked if q.id in self.rows]
        write_predictions(self.ev.run_dir, kept)
        report = self.report(kept, time.perf_counter() - self.started)
        write_run_file(self.ev.run_dir, self.run_info(report))
        return report
