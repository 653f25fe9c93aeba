"""`byo eval --max-cost USD` (and the caps of `byo adapt` and `byo explain`, which ask through the
same run): one ledger of what a run spends, which admits a request, or a batch's request, only
if its worst-case cost fits what is left of the cap.

The spend of a run is what its requests cost at the providers file's prices (the batch price for
answers from a batch), over every invocation of the run: each answer's charge is committed to
the request cache in the same transaction as the answer (`RequestCache.put(..., charge=)`), so a
killed run neither loses nor double-counts what it paid, and a rerun with a higher cap goes on
from there. Answers from the cache are free: they were paid when first asked. Retries and repeats
are requests like any other: each attempt is admitted by the ledger before it is sent.

Before a request is sent its cost is estimated: the prompt's characters over 4, plus each image's
tokens by OpenAI's published rule (85 for `detail: low`; else the image scaled down into 2048 x
2048, then down to a short side of 768, and 170 per 512-pixel tile plus 85), for input, and for
output `--max-tokens` (the most the model may write: the worst case) or, without it, the longest
answer seen so far (a guess of 512 tokens before the first). The first request goes alone (in
batch mode: the first batch holds one request, collected before the others are planned); its
usage then corrects the estimate: input tokens are scaled by the largest ratio of counted to
estimated input seen so far. A request starts only while the spend, plus the reservations of the
requests in flight (or waiting in batches), plus its own estimate stays within the cap; it is
settled from the provider's usage when it comes back. So with `--max-tokens` the spend passes the
cap only by what a request's input costs over its corrected estimate; without it, also by answers
longer than the longest seen (a deviation from a strict worst case, named here: the model's
output limit is unknown to byo).

The stop line and run.json read the same ledger, at the end of the invocation
(`Budget.stop_line`): the spend they state is the one the cache recorded.
"""

from __future__ import annotations

import asyncio
import json
import math
import uuid
from dataclasses import dataclass
from pathlib import Path

from byo.core.inputs import read_json
from byo.eval.layout import RUN_FILE
from byo.eval.requests import Prepared
from byo.eval.resolve import Evaluation
from byo.providers.catalog import ModelEntry

CHARS_PER_TOKEN = 4
FIRST_OUTPUT_GUESS = 512  # output tokens of the first request, without --max-tokens
LOW_DETAIL_TOKENS, TILE_TOKENS, TILE = 85, 170, 512


def image_tokens(size: tuple[int, int] | list[int] | None, detail: str | None) -> int:
    """Input tokens of one image by OpenAI's published tile rule (other providers differ: the
    estimate is corrected from the first answers' usage)."""
    if size is None:
        return 0
    if detail == "low":
        return LOW_DETAIL_TOKENS
    width, height = size
    scale = min(1.0, 2048 / max(width, height))
    width, height = width * scale, height * scale
    scale = min(1.0, 768 / min(width, height))
    width, height = width * scale, height * scale
    return LOW_DETAIL_TOKENS + TILE_TOKENS * math.ceil(width / TILE) * math.ceil(height / TILE)


def input_tokens(texts: list[str], images: int, size, detail: str | None) -> int:
    """A request's input tokens before correction: its texts' characters over 4, and its images."""
    return sum(len(t) for t in texts) // CHARS_PER_TOKEN + 1 + images * image_tokens(size, detail)


def request_tokens(ev: Evaluation, prepared: Prepared) -> int:
    """A prepared request's input tokens before correction: its texts (the examples' too) and images."""
    request = prepared.request
    texts = [request.prompt, *(t for shot in request.shots for t in (shot.prompt, shot.answer))]
    images = (request.image is not None) + len(request.shots)
    size = prepared.image.get("sent_size") if prepared.image else None
    return input_tokens(texts, images, size, ev.settings.params.detail)


@dataclass(frozen=True)
class Estimate:
    """A request's cost before it is sent: `raw_input` tokens as counted here, the corrected input
    and output tokens, and their price in USD (None without a price)."""

    raw_input: int
    input_tokens: int
    output_tokens: int
    usd: float | None

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


def run_id(run_dir: Path) -> str:
    """The run's own id, kept in run.json: its charges in the cache are filed under it, so that a
    run keeps its spend across invocations (and a moved dataset with it)."""
    path = run_dir / RUN_FILE
    if path.is_file():
        try:
            found = read_json(path).get("run_id")
        except (OSError, ValueError, json.JSONDecodeError):
            found = None
        if isinstance(found, str) and found:
            return found
    return uuid.uuid4().hex


class Budget:
    """The run's spend, the requests in flight, and the cap (None: no cap, spend still counted)."""

    def __init__(self, cap: float | None, price: ModelEntry, *, spent: float, max_tokens: int | None):
        self.cap = cap
        self.price = price
        self.spent = spent  # by this run, over all its invocations
        self.spent_before = spent
        self.reserved = 0.0  # estimates of the requests in flight
        self.in_flight = 0
        self.max_tokens = max_tokens
        self.input_ratio: float | None = None  # counted over estimated input tokens, largest seen
        self.longest_output: int | None = None
        self.reached: str | None = None  # why no more requests start
        self.changed = asyncio.Event()  # set (and replaced) whenever a request comes back

    def estimate(self, raw_input: int) -> Estimate:
        tokens_in = math.ceil(raw_input * (self.input_ratio or 1.0))
        if self.max_tokens is not None:  # the most the model may write
            tokens_out = self.max_tokens
        else:
            tokens_out = self.longest_output if self.longest_output is not None else FIRST_OUTPUT_GUESS
        return Estimate(raw_input, tokens_in, tokens_out, self.price.cost(tokens_in, tokens_out))

    async def reserve(self, raw_input: int) -> Estimate | None:
        """The estimate of a request of `raw_input` tokens (as counted here) when it may be sent (it
        then counts as in flight until `settle`); None when it would pass the cap. With a cap, the
        first request goes alone, and the others are estimated once its usage is known."""
        if self.cap is None:
            return self.estimate(raw_input)
        while self.in_flight and self.input_ratio is None and self.reached is None:
            await self.changed.wait()
        if self.reached is not None:
            return None
        est = self.estimate(raw_input)
        if not self.admit(est):
            return None
        self.in_flight += 1
        return est

    def admit(self, est: Estimate, price: str = "") -> bool:
        """Reserves `est` when it fits what is left of the cap (always without a cap); else records
        why no more requests start (`price`: which price, for the message) and returns False."""
        if self.cap is None:
            return True
        usd = est.usd or 0.0
        if self.spent + self.reserved + usd > self.cap:
            self.reached = (f"stopped: the next request (about ${usd:.4f}{price}) would bring the run's spend to "
                            f"${self.spent + self.reserved + usd:.4f}, over `max_cost` ${self.cap:g}")
            return False
        self.reserved += usd
        return True

    def release(self, usd: float | None) -> None:
        """A reservation ends (its request settled, or its batch collected)."""
        self.reserved = max(0.0, self.reserved - (usd or 0.0))

    def stop_line(self) -> str | None:
        """Why the run stopped at its cap, with the spend as the ledger holds it now (None: it did not)."""
        if self.reached is None:
            return None
        return f"{self.reached}; the run has spent ${self.spent:.4f} of it"

    def settle(self, est: Estimate, tokens: dict | None, usd: float | None) -> None:
        """The request came back: its usage corrects the estimates, its cost is spent. A failed or
        dropped request (`tokens` None) frees its reservation."""
        if self.cap is not None:
            self.release(est.usd)
            self.in_flight -= 1
        self.spent += usd or 0.0
        if tokens is not None:
            self.learn(est.raw_input, tokens)
        self.changed.set()  # a failed first request: the next one goes alone, uncorrected
        self.changed = asyncio.Event()

    def learn(self, raw_input: int, tokens: dict) -> None:
        """Corrects the estimates by an answer's usage (`raw_input`: its input as estimated here);
        answers from the cache teach it too."""
        counted_in, counted_out = tokens.get("input") or 0, tokens.get("output") or 0
        ratio = counted_in / max(1, raw_input)
        self.input_ratio = ratio if self.input_ratio is None else max(self.input_ratio, ratio)
        self.longest_output = max(self.longest_output or 0, counted_out)

    def summary(self) -> dict:
        """What run.json records of the spend."""
        return {"max_cost_usd": self.cap, "spent_usd": round(self.spent, 6),
                "spent_new_usd": round(self.spent - self.spent_before, 6), "budget_reached": self.stop_line()}
