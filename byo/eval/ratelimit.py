"""Rate limits as the provider states them, and requests held to what they allow.

A hosted API tells its limits in each response's headers: OpenAI, Azure OpenAI and Groq send
`x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (the reset as a duration: `1s`, `6m0s`,
`20ms`), Anthropic `anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}` (the reset as an
RFC 3339 time), and a refused request a 429 with `Retry-After`: a pause of every request to that
endpoint, those already waiting to start included (`RateLimiter.pause`), kept per endpoint for the
whole process, so that the runs that follow one another in it (byo explain's factors, repeats)
honour it too.

`RateLimiter` decides when the next request may start. The rule that keeps a run within a
limit, whatever the network's delays: a request starts only when the requests already in flight,
plus this one, fit in what the freshest header says is left. Every header whose reset lies ahead
is kept, and the least remaining among them counts; once they have all reset, the limit itself
does. A request whose reply has not come back may be counted in this window or the next one, so
counting every request in flight against the window is what makes the rule safe: the server has
counted, at most, the requests of its last header plus those in flight. Before the first reply
the limits are unknown, so one request goes alone (a reply without such headers opens the run
to its full `--concurrency`). Tokens are held the same way, with the request's estimate
(byo.eval.budget) against the tokens left. A 429 halves the concurrency, and each run of
answers as long as the concurrency raises it by one again (additive increase, multiplicative
decrease), for servers that refuse without saying their limits.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

RESOURCES = ("requests", "tokens")
DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
RESET_MARGIN = 0.05  # seconds added to every reset: a server rounding its reset down is still honoured
PAUSED_UNTIL: dict[str, float] = {}  # endpoint -> time.monotonic() before which no request starts (Retry-After)


def parse_duration(text: str) -> float | None:
    """Seconds of `1s`, `6m0s`, `2m59.56s`, `20ms`, `1h2m`, or a bare number of seconds."""
    text = text.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(n) * scale[u] for n, u in parts)


def parse_reset(text: str, now_epoch: float) -> float | None:
    """Seconds until a reset given as a duration (OpenAI) or as an RFC 3339 time (Anthropic)."""
    seconds = parse_duration(text)
    if seconds is not None:
        return seconds
    try:
        when = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now_epoch)


def number(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


@dataclass(frozen=True)
class Reading:
    """One resource as one response states it."""

    limit: float | None
    remaining: float | None
    reset_s: float | None


def read_headers(headers: Mapping[str, str], now_epoch: float) -> dict[str, Reading]:
    """The rate-limit readings in a response's headers, by resource ("requests", "tokens")."""
    lower = {k.lower(): v for k, v in headers.items()}
    out = {}
    for resource in RESOURCES:
        for limit, remaining, reset in (
                (f"x-ratelimit-limit-{resource}", f"x-ratelimit-remaining-{resource}", f"x-ratelimit-reset-{resource}"),
                (f"anthropic-ratelimit-{resource}-limit", f"anthropic-ratelimit-{resource}-remaining",
                 f"anthropic-ratelimit-{resource}-reset")):
            reading = Reading(number(lower.get(limit)), number(lower.get(remaining)),
                              parse_reset(lower[reset], now_epoch) if reset in lower else None)
            if reading.limit is not None or reading.remaining is not None:
                out[resource] = reading
                break
    return out


@dataclass
class Window:
    """What the headers say of one resource: its limit, and the readings whose reset lies ahead,
    as (reset time on the event loop's clock, remaining)."""

    limit: float | None = None
    readings: list[tuple[float, float]] = field(default_factory=list)

    def add(self, reading: Reading, now: float) -> None:
        if reading.limit is not None:
            self.limit = reading.limit
        if reading.remaining is not None and reading.reset_s is not None:
            self.readings.append((now + reading.reset_s + RESET_MARGIN, reading.remaining))

    def left(self, now: float) -> float | None:
        """What may still be used now: the least remaining of the live readings, the limit once all
        have reset, None when the headers never said."""
        self.readings = [r for r in self.readings if r[0] > now]
        if self.readings:
            return min(remaining for _, remaining in self.readings)
        return self.limit

    def next_reset(self, now: float) -> float | None:
        """Seconds until the earliest live reading resets (what is left can then only grow)."""
        live = [at for at, _ in self.readings if at > now]
        return min(live) - now if live else None


@dataclass(frozen=True)
class Hold:
    """Why a request may not start yet: `reason` for the progress line (empty: the concurrency,
    nothing to tell), `wait` seconds after which to look again (None: at the next reply),
    `stated`: a limit the provider stated."""

    reason: str
    wait: float | None = None
    stated: bool = False


class RateLimiter:
    """Holds each request until the rate limits the provider has stated, and the concurrency, let it
    start (see the module's docstring). `reads_headers`: the provider reports its replies' headers
    (Provider.on_headers); when False, only the concurrency (and its halving after a 429) applies."""

    def __init__(self, concurrency: int, *, reads_headers: bool, endpoint: str = "", clock=time.monotonic):
        self.endpoint = endpoint  # the pauses a Retry-After asks for are the endpoint's
        self.clock = clock  # the clock of every hold (the event loop's runs on time.monotonic too)
        self.most = concurrency
        self.cap = concurrency
        self.in_flight = 0
        self.tokens_in_flight = 0
        self.probing = reads_headers  # one request alone until the first reply
        self.windows = {r: Window() for r in RESOURCES}
        self.answers_at_cap = 0
        self.lowest_cap = concurrency
        self.rate_limited = 0  # 429s seen
        self.held_s = 0.0  # time requests spent waiting on a stated limit (summed over workers)
        self.change: asyncio.Future | None = None  # done at the next reply or release

    def loop(self) -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()

    def pause(self, seconds: float) -> None:
        """No request to the endpoint starts for `seconds` (a Retry-After), those waiting included."""
        PAUSED_UNTIL[self.endpoint] = max(PAUSED_UNTIL.get(self.endpoint, 0.0), self.clock() + seconds)
        self.notify()  # the waiting ones look again, and find the pause

    def notify(self) -> None:
        if self.change is not None and not self.change.done():
            self.change.set_result(None)

    def observe(self, headers: Mapping[str, str]) -> None:
        """A reply's headers (every reply: answers, 429s and errors alike)."""
        now = self.clock()
        for resource, reading in read_headers(headers, time.time()).items():
            self.windows[resource].add(reading, now)
        self.notify()

    def blocked(self, tokens: int, now: float) -> Hold | None:
        """What holds a request of about `tokens` tokens back now; None when it may start."""
        paused = PAUSED_UNTIL.get(self.endpoint, 0.0) - self.clock()
        if paused > 0:
            return Hold(f"paused {paused:.1f} s by the server's Retry-After", paused, stated=True)
        if self.in_flight >= self.cap:
            return Hold(f"concurrency {self.cap} of {self.most} after 429s" if self.cap < self.most else "")
        if self.probing and self.in_flight:
            return Hold("waiting for the first reply's rate limits")
        requests = self.windows["requests"].left(now)
        if requests is not None and self.in_flight + 1 > requests:
            return Hold(f"rate limit: requests left {max(0, int(requests))}, in flight {self.in_flight}",
                        self.windows["requests"].next_reset(now), stated=True)
        left = self.windows["tokens"].left(now)
        if left is not None and self.tokens_in_flight + tokens > left:
            resets = self.windows["tokens"].next_reset(now)
            if self.in_flight or resets is not None:  # a request larger than the whole limit still goes alone
                return Hold(f"rate limit: tokens left {max(0, int(left)):,}", resets, stated=True)
        return None

    async def acquire(self, tokens: int = 0) -> None:
        """Waits until a request of about `tokens` tokens may start, and counts it in flight."""
        loop = self.loop()
        while (hold := self.blocked(tokens, self.clock())) is not None:
            if self.change is None or self.change.done() or self.change.get_loop() is not loop:
                self.change = loop.create_future()
            began = self.clock()
            await asyncio.wait([self.change], timeout=hold.wait)
            if hold.stated:
                self.held_s += self.clock() - began
        self.in_flight += 1
        self.tokens_in_flight += tokens

    def release(self, tokens: int, *, answered: bool, rate_limited: bool) -> None:
        """A request's reply came back (its headers already observed), or it was dropped."""
        self.in_flight -= 1
        self.tokens_in_flight -= tokens
        self.probing = False
        if rate_limited:
            self.rate_limited += 1
            self.cap = max(1, self.cap // 2)
            self.lowest_cap = min(self.lowest_cap, self.cap)
            self.answers_at_cap = 0
        elif answered and self.cap < self.most:
            self.answers_at_cap += 1
            if self.answers_at_cap >= self.cap:
                self.cap += 1
                self.answers_at_cap = 0
        self.notify()

    def note(self) -> str:
        """The progress line's word on rate limits: empty when nothing holds requests back."""
        hold = self.blocked(0, self.clock())
        if hold is not None and hold.reason:
            return hold.reason
        if self.cap < self.most:
            return f"concurrency {self.cap} of {self.most} after 429s"
        return ""

    def summary(self) -> dict:
        """What run.json records: the limits stated, 429s, the lowest concurrency, time held."""
        return {"stated": {r: w.limit for r, w in self.windows.items() if w.limit is not None},
                "rate_limited_replies": self.rate_limited, "lowest_concurrency": self.lowest_cap,
                "held_s": round(self.held_s, 3)}
