"""Rate limits: the x-ratelimit-* headers a server states are never exceeded, counted by the server
per wall-clock second; 429s halve the concurrency; the headers' forms are read."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest
from eval_data import answerer, evaluate_fake, make_dataset
from fake_rate_limit import RateLimitedVLM
from fake_vlm import IMAGE_TOKENS, FakeVLM

from byo.eval.progress import figures
from byo.eval.ratelimit import RateLimiter, parse_duration, parse_reset, read_headers
from byo.providers.catalog import ModelEntry


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-rate-limits")


def run_file(report) -> dict:
    return json.loads((report.run_dir / "run.json").read_text())


def test_no_second_of_a_run_passes_the_requests_its_server_allows(tmp_path, key):
    """4 requests per wall-clock second, 8 workers: the server counts every arrival, refused or not,
    by the second it arrived in. The limiter holds requests by what the headers say is left, so the
    guarantee does not rest on the machine being fast: a slow client only sends less."""
    ds = make_dataset(tmp_path / "ds", 24)
    with RateLimitedVLM(4, answer=answerer(ds), latency=0.02) as fake:
        report = evaluate_fake(ds, "openai", fake.url + "/v1", concurrency=8, backoff_base=0.01)
    assert report.statuses == {"ok": 24}
    assert sum(fake.arrivals.values()) == 24 and fake.refused == 0
    assert max(fake.arrivals.values()) <= 4, sorted(fake.arrivals.items())
    assert len(fake.arrivals) >= 6  # 24 requests at 4 a second span at least 6 seconds
    limits = run_file(report)["rate_limits"]
    assert limits["stated"] == {"requests": 4} and limits["rate_limited_replies"] == 0


def test_no_second_passes_the_tokens_its_server_allows(tmp_path, key):
    """A token limit of 3 requests' input a second (and no request limit to speak of): the
    estimate of each request's tokens, corrected by the first answers' usage, keeps every second
    within it."""
    ds = make_dataset(tmp_path / "ds", 18)
    prompt_tokens = len(json.loads((ds / "questions.jsonl").read_text().splitlines()[0])["prompt"].split())
    per_request = prompt_tokens + IMAGE_TOKENS
    with RateLimitedVLM(1000, tokens_per_second=3 * per_request, answer=answerer(ds, "right")) as fake:
        report = evaluate_fake(ds, "openai", fake.url + "/v1", concurrency=8, backoff_base=0.01)
    assert report.statuses == {"ok": 18} and fake.refused == 0
    assert max(fake.tokens.values()) <= 3 * per_request, sorted(fake.tokens.items())
    assert run_file(report)["rate_limits"]["stated"] == {"requests": 1000, "tokens": 3 * per_request}


def test_429s_without_stated_limits_lower_the_concurrency_and_the_run_completes(tmp_path, key):
    """The server refuses the 2nd to 5th requests it receives with a 429 and Retry-After 0, and
    states no limits: the refusals lower the concurrency (how far depends on how many answers come
    between them: at least the first halving), and every question is answered."""
    ds = make_dataset(tmp_path / "ds", 16)
    arrived = Counter()

    def plan(seen, before):
        arrived["n"] += 1
        return "429" if 2 <= arrived["n"] <= 5 else None

    with FakeVLM(answerer(ds), plan=plan) as fake:
        report = evaluate_fake(ds, "openai", fake.url + "/v1", concurrency=8, backoff_base=0.01)
    assert report.statuses == {"ok": 16}
    assert Counter(s.outcome for s in fake.log) == {"ok": 16, "429": 4}
    limits = run_file(report)["rate_limits"]
    assert limits["rate_limited_replies"] == 4 and limits["lowest_concurrency"] <= 4 and limits["stated"] == {}


def test_each_429_halves_the_concurrency_and_answers_raise_it_by_one():
    """Additive increase, multiplicative decrease: a 429 halves the concurrency (at least 1), and
    as many answers in a row as the concurrency raise it by one, up to --concurrency."""
    async def scenario() -> list[int]:
        limiter = RateLimiter(8, reads_headers=False)
        caps = []
        for _ in range(4):
            await limiter.acquire()
            limiter.release(0, answered=False, rate_limited=True)
            caps.append(limiter.cap)
        for _ in range(1 + 2 + 3):  # 1 answer at 1, 2 at 2, 3 at 3
            await limiter.acquire()
            limiter.release(0, answered=True, rate_limited=False)
        caps.append(limiter.cap)
        return caps

    assert asyncio.run(scenario()) == [4, 2, 1, 1, 4]


def test_rate_limit_headers_are_read_in_their_forms():
    assert parse_duration("1s") == 1 and parse_duration("6m0s") == 360 and parse_duration("20ms") == 0.02
    assert parse_duration("2m59.56s") == pytest.approx(179.56) and parse_duration("1h2m") == 3720
    assert parse_duration("0.5") == 0.5 and parse_duration("soon") is None and parse_duration("1s later") is None
    assert parse_reset("2030-01-01T00:00:10Z", 1893456000.0) == 10  # Anthropic: an RFC 3339 time
    openai = read_headers({"X-RateLimit-Limit-Requests": "500", "x-ratelimit-remaining-requests": "499",
                           "x-ratelimit-reset-requests": "120ms", "x-ratelimit-limit-tokens": "30000",
                           "x-ratelimit-remaining-tokens": "29000", "x-ratelimit-reset-tokens": "2s"}, 0.0)
    assert (openai["requests"].limit, openai["requests"].remaining, openai["requests"].reset_s) == (500, 499, 0.12)
    assert (openai["tokens"].limit, openai["tokens"].remaining, openai["tokens"].reset_s) == (30000, 29000, 2)
    anthropic = read_headers({"anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "3",
                              "anthropic-ratelimit-requests-reset": "1970-01-01T00:01:00Z"}, 30.0)
    assert (anthropic["requests"].remaining, anthropic["requests"].reset_s) == (3, 30)
    assert read_headers({"content-type": "application/json"}, 0.0) == {}


def test_the_progress_line_says_what_holds_requests_back():
    async def scenario() -> list[str]:
        limiter = RateLimiter(8, reads_headers=True)
        notes = [limiter.note()]
        await limiter.acquire(100)
        notes.append(limiter.note())  # the first request goes alone
        limiter.observe({"x-ratelimit-limit-requests": "3", "x-ratelimit-remaining-requests": "1",
                         "x-ratelimit-reset-requests": "30s"})
        limiter.release(100, answered=True, rate_limited=False)
        await limiter.acquire(100)
        notes.append(limiter.note())  # one left, one in flight
        limiter.release(100, answered=False, rate_limited=True)
        notes.append(limiter.note())
        return notes

    fresh, probing, held, lowered = asyncio.run(scenario())
    assert fresh == "" and probing == "waiting for the first reply's rate limits"
    assert held == "rate limit: requests left 1, in flight 1"
    assert lowered == "concurrency 4 of 8 after 429s"  # the request fits what is left; the 429 halved the workers
    line = figures(sent=3, elapsed_s=1.0, tokens_new={"total": 10}, price=ModelEntry(), cached=0, failed=0,
                   limit=held)
    assert line == "3.0 req/s  10 tok  $ n/a  cached 0  [yellow]rate limit: requests left 1, in flight 1[/yellow]"


def test_a_retry_after_pauses_every_worker_those_waiting_to_start_included(tmp_path, key):
    """The first request (sent alone, to learn the limits) is refused with a 429 and Retry-After 2;
    the 7 other workers are already waiting to start. None of them may reach the server within
    the pause: the server counts what arrives in the 1.5 s after the refusal (a slow machine only
    makes arrivals later), and every question is answered after it."""
    ds = make_dataset(tmp_path / "ds", 16)

    def plan(seen, before):
        return "429" if seen is fake.log[0] else None

    with FakeVLM(answerer(ds), plan=plan, retry_after="2") as fake:
        report = evaluate_fake(ds, "openai", fake.url + "/v1", concurrency=8, backoff_base=0.01)
    refused = fake.log[0]
    assert refused.outcome == "429" and report.statuses == {"ok": 16}
    early = [s for s in fake.log[1:] if s.at < refused.at + 1.5]
    assert not early, f"{len(early)} requests arrived within the pause"
    assert run_file(report)["rate_limits"]["rate_limited_replies"] == 1


def test_a_pause_holds_requests_by_the_injected_clock_and_outlives_the_run():
    """By an injected clock: a Retry-After holds every request to the endpoint until it passes,
    in a limiter made afterwards for the same endpoint too (the next run of the process), and not
    another endpoint's."""
    now = [100.0]
    first = RateLimiter(4, reads_headers=False, endpoint="http://pause.test/v1", clock=lambda: now[0])

    async def pause() -> None:
        first.pause(2.0)

    asyncio.run(pause())
    later = RateLimiter(4, reads_headers=False, endpoint="http://pause.test/v1", clock=lambda: now[0])
    other = RateLimiter(4, reads_headers=False, endpoint="http://other.test/v1", clock=lambda: now[0])
    for limiter in (first, later):
        hold = limiter.blocked(0, now[0])
        assert hold is not None and hold.wait == pytest.approx(2.0) and "Retry-After" in hold.reason
    assert other.blocked(0, now[0]) is None
    now[0] += 1.9
    assert later.blocked(0, now[0]).wait == pytest.approx(0.1)
    now[0] += 0.2
    assert first.blocked(0, now[0]) is None and later.blocked(0, now[0]) is None
