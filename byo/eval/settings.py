"""What `byo eval` is asked to do, and what it reports when it is done."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from byo.eval.layout import MAX_ANSWER_CHARS
from byo.eval.stop import Stopped
from byo.providers import GenerationParams


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
    api_version: str | None = None  # azure: the api-version query parameter
    deployment: str | None = None  # azure: the deployment (default: the model's name)
    concurrency: int = 8
    rpm: float | None = None
    limit: int | None = None
    timeout: float | None = None  # seconds per attempt; default 60
    retries: int = 4  # attempts after the first, for retryable failures
    max_side: int | None = None  # downscale images whose longest side exceeds this
    cache: Path | None = None
    structured: bool = False  # ask for the answer as JSON of a schema built from its answer type
    text_only: bool = False  # the text-only baseline: the question without its image (caption priors)
    device: str = "auto"  # hf: where the model runs
    dtype: str = "auto"  # hf: the weights' dtype
    batch_size: int = 8  # hf: questions generated together; image-text: images or captions embedded together
    repeats: int = 1  # --repeats K: each question asked K times, repeat r >= 2 in its own run (byo.eval.repeats)
    repeat: int = 1  # which of the K repeats this run is
    shots: int = 0  # --shots K: solved examples before each question (byo.eval.shots)
    shots_from: str | None = None  # a split of the dataset (train, val, test) or a dataset directory
    shots_seed: int = 0  # which examples are drawn
    max_answer_chars: int | None = MAX_ANSWER_CHARS  # longer answers are stored cut; None: kept whole
    wait: bool = False  # another process writing the run: wait for it (else exit 2 naming it)
    backoff_base: float = 1.0  # seconds; doubled per attempt, with jitter
    backoff_max: float = 60.0
    max_cost: float | None = None  # USD: no request that would bring the run's spend over it (byo.eval.budget)
    batch: bool = False  # through the provider's Batch API (byo.eval.batch)
    batch_wait: bool = True  # --batch: wait for the batches, polling, and collect them (else return once submitted)
    batch_poll: float = 30.0  # --batch: seconds between polls
    collect_only: bool = False  # byo status RUN: poll and collect the run's batches, submit none but those planned


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
    n_questions: int = 0  # the questions the run was asked; `rows` has fewer when it stopped early
    stopped: Stopped | None = None  # why the run ended early, if it did
    spent_usd: float = 0.0  # what the run's requests cost, over all its invocations
    max_cost_usd: float | None = None
    # questions left out: undecidable at the size this model receives (byo questions --for)
    undecidable: int = 0

    @property
    def failed(self) -> int:
        return sum(n for status, n in self.statuses.items() if status != "ok")

    @property
    def unanswered(self) -> int:
        return self.n_questions - len(self.rows)
