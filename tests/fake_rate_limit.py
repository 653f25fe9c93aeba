"""A fake VLM (tests/fake_vlm.py) with a provider's rate limits: at most `per_second` requests,
and at most `tokens_per_second` input tokens, per wall-clock second, counted as requests arrive
(the input tokens as the fake bills them: the prompt's words and 85 per image). Every reply states
the window as OpenAI does, in `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (the reset:
the time to the next second, rounded up to the millisecond); a request over a limit gets a 429
with the same headers and `Retry-After`. `arrivals` and `tokens` count every request, refused
ones too, by the second it arrived in."""

from __future__ import annotations

import io
import json
import math
import time
from collections import Counter

from fake_vlm import IMAGE_TOKENS, FakeVLM, _Handler, parse_request


class RateLimitedVLM(FakeVLM):
    def __init__(self, per_second: int, *, tokens_per_second: int | None = None, **kwargs):
        super().__init__(handler=_LimitedHandler, **kwargs)
        self.per_second = per_second
        self.tokens_per_second = tokens_per_second
        self.arrivals: Counter = Counter()  # wall-clock second -> requests that arrived in it
        self.tokens: Counter = Counter()  # wall-clock second -> input tokens of the requests that arrived in it
        self.refused = 0

    def admit(self, tokens: int) -> tuple[bool, dict]:
        """Counts a request of `tokens` input tokens that arrives now: (within the limits, the
        headers of its reply)."""
        with self.lock:
            now = time.time()
            second = math.floor(now)
            self.arrivals[second] += 1
            self.tokens[second] += tokens
            reset = f"{math.ceil((second + 1 - now) * 1000)}ms"
            headers = {"x-ratelimit-limit-requests": str(self.per_second),
                       "x-ratelimit-remaining-requests": str(max(0, self.per_second - self.arrivals[second])),
                       "x-ratelimit-reset-requests": reset}
            within = self.arrivals[second] <= self.per_second
            if self.tokens_per_second is not None:
                headers.update({"x-ratelimit-limit-tokens": str(self.tokens_per_second),
                                "x-ratelimit-remaining-tokens": str(max(0, self.tokens_per_second - self.tokens[second])),
                                "x-ratelimit-reset-tokens": reset})
                within = within and self.tokens[second] <= self.tokens_per_second
            self.refused += not within
            return within, headers


class _LimitedHandler(_Handler):
    rate_headers: dict = {}

    def send(self, code: int, body: bytes, headers: dict | None = None) -> None:
        super().send(code, body, {**self.rate_headers, **(headers or {})})

    def reply(self, fake: RateLimitedVLM) -> None:
        data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        _, prompt, _, images = parse_request("/v1/chat/completions", json.loads(data))
        admitted, self.rate_headers = fake.admit(len(prompt.split()) + IMAGE_TOKENS * max(1, len(images)))
        if not admitted:
            self.error(429, "Rate limit reached", {"Retry-After": "1"})
            return
        self.rfile = io.BytesIO(data)  # the fake reads the request again
        super().reply(fake)
