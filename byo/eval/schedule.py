"""When requests go out: a requests-per-minute limit, Retry-After pauses, the rate limits the
provider states in its headers (byo.eval.ratelimit), retries with backoff and a hard timeout per
attempt, a fixed number of workers sharing the questions, and a circuit breaker that stops the
run when the endpoint itself cannot answer."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from byo.eval.ratelimit import RateLimiter
from byo.providers import Provider, ProviderFailure, Request, Response

MAX_RETRY_AFTER = 300.0  # seconds; a longer Retry-After is cut to this
BREAKER_FAILURES = 5  # refused keys or missing routes in a row that stop a run
BREAKER_CONNECTIONS = 3  # connection failures in a row that stop a run...
BREAKER_SECONDS = 2.0  # ...once they span this long (a network blip passes)
MAX_DETAIL = 200  # characters of the last failure quoted in the breaker's message


class EndpointDown(Exception):
    """The endpoint failed every one of the last requests in a way no other request can escape."""


def endpoint_fault(failure: ProviderFailure) -> str | None:
    """What to check when this failure, repeated, means no request can succeed; None when it says
    nothing about the endpoint (a 500, a rate limit or a refused image: the server is there)."""
    if failure.status == "connection_error":
        return "check that the server is running and reachable, and the URL (`base_url`)"
    if failure.http_status in (401, 403):
        return "check the API key (its variable, `key_env` or `key_file`) and that it may use this model"
    if failure.http_status in (404, 405, 501):
        return ("check the URL (`base_url`; OpenAI-compatible servers usually end in /v1) and the model "
                "name (`model`)")
    return None


class Breaker:
    """Counts endpoint failures in a row; any answer, or any other failure, ends the streak. A refused
    key or a missing route stops the run after `failures`; connection failures after `connections`
    that span `seconds`, so that a dropped connection or a brief outage does not stop a long run."""

    def __init__(self, failures: int = BREAKER_FAILURES, connections: int = BREAKER_CONNECTIONS,
                 seconds: float = BREAKER_SECONDS):
        self.failures, self.connections, self.seconds = failures, connections, seconds
        self.streak = 0
        self.since = 0.0  # when the first failure of the streak came back

    def record(self, failure: ProviderFailure | None, endpoint: str) -> None:
        """One attempt's outcome; raises EndpointDown when the streak is long enough."""
        hint = endpoint_fault(failure) if failure is not None else None
        if hint is None:
            self.streak = 0
            return
        now = time.monotonic()
        if self.streak == 0:
            self.since = now
        self.streak += 1
        if failure.status == "connection_error":
            down = self.streak >= self.connections and now - self.since >= self.seconds
        else:
            down = self.streak >= self.failures
        if down:
            detail = failure.message if len(failure.message) <= MAX_DETAIL else failure.message[:MAX_DETAIL] + "..."
            raise EndpointDown(f"{self.streak} requests in a row failed at {endpoint} over {now - self.since:.1f} s "
                               f"({failure.status}: {detail}); {hint}")


class Throttle:
    """Spaces request starts to `rpm` per minute (a Retry-After pauses them in the rate limiter,
    which every request passes last, right before it is sent)."""

    def __init__(self, rpm: float | None):
        self.interval = 60.0 / rpm if rpm else 0.0
        self.next_start = 0.0
        self.lock = asyncio.Lock()

    async def wait(self) -> None:
        loop = asyncio.get_running_loop()
        async with self.lock:
            now = loop.time()
            start = max(now, self.next_start)
            self.next_start = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """Exponential backoff with jitter: half fixed, half random, so workers spread out."""
    delay = min(cap, base * 2 ** (attempt - 1))
    return delay / 2 + rng.uniform(0, delay / 2)


@dataclass(frozen=True)
class Outcome:
    """The answer, or the failure of the last attempt."""

    response: Response | None
    failure: ProviderFailure | None
    attempts: int
    latency_s: float  # of the last attempt


class Scheduler:
    def __init__(self, *, concurrency: int, rpm: float | None, timeout: float, retries: int,
                 backoff_base: float, backoff_max: float, reads_headers: bool = False, endpoint: str = ""):
        self.concurrency = concurrency
        self.throttle = Throttle(rpm)
        self.limiter = RateLimiter(concurrency, reads_headers=reads_headers, endpoint=endpoint)
        self.timeout = timeout
        self.retries = retries
        self.backoff_base, self.backoff_max = backoff_base, backoff_max
        self.rng = random.Random()
        self.sent = 0  # attempts sent to a model (reference providers call none)
        self.breaker = Breaker()

    async def send(self, provider: Provider, request: Request, tokens: int = 0) -> Outcome:
        """Attempts until an answer, a failure not worth retrying, or the retries are spent; each
        attempt waits for the throttle and the rate limiter (`tokens`: the request's estimate).
        Raises EndpointDown when the circuit breaker trips."""
        attempt = 0
        while True:
            attempt += 1
            await self.throttle.wait()
            await self.limiter.acquire(tokens)
            if not provider.reference:
                self.sent += 1
            started = time.perf_counter()
            failure = None
            try:
                async with asyncio.timeout(self.timeout * 1.25 + 1):  # hard cap over the client's timeout
                    response = await provider.answer(request)
            except TimeoutError:
                failure = ProviderFailure("timeout", f"no response within {self.timeout} s")
            except ProviderFailure as err:
                failure = err
            except Exception as err:  # an unexpected client error: recorded, not retried
                failure = ProviderFailure("error", f"{type(err).__name__}: {err}")
            finally:  # also when the run is stopped mid-request
                self.limiter.release(tokens, answered=failure is None and not asyncio.current_task().cancelling(),
                                     rate_limited=failure is not None and failure.status == "rate_limited")
            if failure is None:
                self.breaker.record(None, provider.endpoint)
                return Outcome(response, None, attempt, time.perf_counter() - started)

            latency = time.perf_counter() - started
            self.breaker.record(failure, provider.endpoint)
            if not failure.retryable or attempt > self.retries:
                return Outcome(None, failure, attempt, latency)
            delay = backoff_delay(attempt, self.backoff_base, self.backoff_max, self.rng)
            if failure.retry_after is not None:
                wait = min(failure.retry_after, MAX_RETRY_AFTER)
                self.limiter.pause(wait)
                delay = max(delay, wait)
            await asyncio.sleep(delay)

    async def each(self, items: list, handle: Callable[[object], Awaitable[None]]) -> None:
        """`handle` every item, at most `concurrency` at a time."""
        todo = iter(items)

        async def worker() -> None:
            for item in todo:  # the shared iterator hands each item to exactly one worker
                await handle(item)

        async with asyncio.TaskGroup() as group:
            for _ in range(min(self.concurrency, len(items))):
                group.create_task(worker())
