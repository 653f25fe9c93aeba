"""An accountable judge (`byo score RUN --judge PROVIDER:MODEL`): a language model reads the
answers the rules leave unparsed or ambiguous, and only those.

It is asked one fixed extraction prompt, shipped as a template (templates/judge_extract.txt.j2,
its sha256 recorded in scores.json): the question, its options or labels, the answer format and
the model's answer; it replies with the final answer alone, or NONE. The reply is read by the same
rules, in the question's context: a reply that gives one value of the answer type decides the
row; anything else (NONE, prose, two values, a failed request) leaves the row as the rules left
it. A judge never overrides a rule's parse: rows the rules read (ok), refusals and failed requests
are never sent.

Every row of parsed.jsonl names its `path`: "rule" or "judge"; a row sent to the judge names the
judge (`judge`) and keeps its reply (`judge_reply`); a row the judge decided keeps the rules'
reading and verdict beside the judge's (`rule_status`, `rule_method`, `rule_correct`). The report
(scores.json `run.judge`, and `byo score`'s output) gives the accuracy both ways: the rows right
as the rules read them, and right with the judge's readings of what the rules left. Judge requests are cached like eval answers
(byo.eval.cache, the run's dataset cache by default): scoring again sends none.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from byo.core.errors import ARGUMENTS, ConfigError
from byo.eval.cache import RequestCache, request_key
from byo.eval.layout import default_cache
from byo.eval.resolve import base_url_from_env
from byo.providers import (
    PROVIDERS,
    GenerationParams,
    ProviderFailure,
    Request,
    create_provider,
    providers_that,
)
from byo.providers.catalog import load_catalog, provider_entry
from byo.providers.keys import resolve_key
from byo.providers.reasoning import split_reasoning
from byo.questions.load import load_questions
from byo.score.parse import Domains, ParseContext, context_for, parse_answer
from byo.score.rows import NUMERIC, is_correct, run_paths
from byo.score.vocab import POSITION_WORDS

TEMPLATE = Path(__file__).resolve().parent / "templates" / "judge_extract.txt.j2"
ASKED = ("unparsed", "ambiguous")  # what the rules leave for the judge
NONE = "NONE"
# How the judge is told to write each answer type; another type: as the question asks.
FORMATS = {
    "integer": "a whole number in digits",
    "row": "the row's number, counted as the question counts rows",
    "column": "the column's number, counted as the question counts columns",
    "cell": "row, column (two numbers, counted as the question counts them)",
    "yes_no": "yes or no",
    "multiple_choice": "the letter of one option",
    "label": "one of the possible answers",
    "label_set": "the possible answers it names, separated by commas",
    "position_word": "one of: " + ", ".join(POSITION_WORDS),
    "card": "one playing card, rank then suit, such as QH or 10S (suits S, H, D, C)",
    "card_set": "the playing cards it names, each rank then suit such as QH or 10S, separated by commas",
}


def template_text() -> str:
    return TEMPLATE.read_text(encoding="utf-8")


def template_sha256() -> str:
    return hashlib.sha256(TEMPLATE.read_bytes()).hexdigest()


_PROMPT = jinja2.Environment(autoescape=False, keep_trailing_newline=False, undefined=jinja2.StrictUndefined)


@dataclass
class JudgeSettings:
    """`--judge PROVIDER:MODEL` and how to reach it (as `byo eval` reaches a provider)."""

    spec: str
    providers_file: Path | None = None
    base_url: str | None = None
    key_env: str | None = None
    key_file: Path | None = None
    timeout: float | None = None
    concurrency: int = 8
    retries: int = 2  # attempts after the first, for retryable failures
    cache: Path | None = None  # default: the run's dataset cache (DATASET/runs/cache.sqlite)
    backoff_base: float = 1.0


@dataclass
class JudgeReport:
    judge: str
    template: str
    template_sha256: str
    asked: int = 0  # rows the rules left unparsed or ambiguous, sent to the judge
    read: int = 0  # rows the judge's reply decided
    left: int = 0  # replies that named no answer (NONE, prose, several values): rows left as they were
    failed: int = 0  # judge requests that failed: rows left as they were
    cached: int = 0  # replies taken from the cache
    requests: int = 0  # requests sent, retries included
    asked_by_status: dict = field(default_factory=dict)
    scored: int = 0  # rows scored, all of them
    right_by_rules: int = 0  # rows right as the rules read them
    right_with_judge: int = 0  # rows right with the judge's readings in place of the rules' unread ones

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in ("judge", "template", "template_sha256", "asked", "read", "left",
                                             "failed", "cached", "requests", "asked_by_status", "scored",
                                             "right_by_rules", "right_with_judge")}
        out["accuracy_rules"] = self.right_by_rules / self.scored if self.scored else None
        out["accuracy_with_judge"] = self.right_with_judge / self.scored if self.scored else None
        return out


class Judge:
    """The judge's provider, resolved before any request is sent."""

    def __init__(self, settings: JudgeSettings):
        self.settings = s = settings
        name, sep, model = s.spec.partition(":")
        if not sep or not name or not model:
            raise ConfigError(ARGUMENTS, [("judge", f"expected PROVIDER:MODEL (openai:gpt-4o-mini), got "
                                         f"{s.spec!r}")])
        catalog = load_catalog(s.providers_file) if s.providers_file else None
        self.ptype, entry = provider_entry(name, catalog, str(s.providers_file) if s.providers_file else None)
        cls = PROVIDERS[self.ptype]
        if not cls.chat:
            raise ConfigError(ARGUMENTS, [("judge", f"{self.ptype} answers no prompt; a judge is a chat "
                                         f"model ({', '.join(providers_that('chat'))})")])
        self.name, self.model = f"{name}:{model}", model
        base_url = s.base_url or entry.base_url or base_url_from_env(self.ptype)
        api_key, _ = resolve_key(self.ptype, key_env=s.key_env or entry.api_key_env,
                                 key_file=s.key_file or entry.api_key_file)
        self.params = GenerationParams(temperature=0.0)
        self.provider = create_provider(self.ptype, model, self.params, base_url=base_url, api_key=api_key,
                                        timeout=s.timeout or entry.timeout or cls.default_timeout,
                                        connections=s.concurrency)
        self.sha256 = template_sha256()
        self.template = _PROMPT.from_string(template_text())

    def prompt(self, row: dict, ctx: ParseContext) -> str:
        labels = sorted(ctx.domain.terms) if ctx.domain is not None and not ctx.choices else []
        return self.template.render(question=row["prompt"], choices=ctx.choices or [], labels=labels,
                                    answer_format=FORMATS.get(ctx.answer_type, "the answer as the question asks for it"),
                                    response=row["response"] or "")

    def key(self, prompt: str) -> str:
        return request_key(self.provider.identity, self.model, prompt, None,
                           {**self.params.model_dump(), "judge_template": self.sha256})

    async def ask(self, prompt: str, cache: RequestCache, report: JudgeReport,
                  limit: asyncio.Semaphore) -> tuple[str | None, str | None]:
        """(reply, None) or (None, why it failed): from the cache, else from the judge."""
        key = self.key(prompt)
        if (record := cache.get(key)) is not None:
            report.cached += 1
            return record["text"], None
        async with limit:
            for attempt in range(self.settings.retries + 1):
                report.requests += 1
                try:
                    response = await self.provider.answer(Request(prompt=prompt, image=None))
                except ProviderFailure as failure:
                    if not failure.retryable or attempt == self.settings.retries:
                        return None, f"{failure.status}: {failure.message}"
                    wait = failure.retry_after if failure.retry_after is not None else \
                        self.settings.backoff_base * 2 ** attempt * random.uniform(0.5, 1.0)
                    await asyncio.sleep(min(wait, 30.0))
                    continue
                text, _ = split_reasoning(response.text)
                await cache.put(key, {"text": text, "tokens": response.tokens(), "judge": self.name,
                                      "template_sha256": self.sha256})
                return text, None
        return None, "no attempt made"

    async def ask_all(self, prompts: list[str], cache_path: Path, report: JudgeReport) -> list[tuple]:
        cache = RequestCache(cache_path)
        limit = asyncio.Semaphore(max(1, self.settings.concurrency))
        try:
            return await asyncio.gather(*(self.ask(p, cache, report, limit) for p in prompts))
        finally:
            await cache.close()
            await self.provider.close()


def judge_rows(rows: list[dict], run_dir: Path, judge: Judge) -> JudgeReport:
    """Sends the rows the rules left unparsed or ambiguous to the judge and, where its reply names
    one answer, decides them with it; every row gets its `path`. Returns what was done."""
    dataset, questions_path = run_paths(Path(run_dir))
    questions = load_questions(questions_path, dataset)
    by_id = {q.id: q for q in questions}
    domains = Domains.from_questions(questions)
    report = JudgeReport(judge.name, TEMPLATE.name, judge.sha256)
    report.scored = len(rows)
    report.right_by_rules = report.right_with_judge = sum(bool(r.get("correct")) for r in rows)
    sent = [r for r in rows if r["status"] in ASKED and not r.get("ranked") and r["id"] in by_id]
    report.asked = len(sent)
    report.asked_by_status = {s: sum(r["status"] == s for r in sent) for s in ASKED}
    if not sent:
        asyncio.run(judge.provider.close())
        return report
    contexts = [context_for(by_id[r["id"]], domains) for r in sent]
    prompts = [judge.prompt(r, ctx) for r, ctx in zip(sent, contexts, strict=True)]
    cache_path = Path(judge.settings.cache) if judge.settings.cache else default_cache(dataset)
    replies = asyncio.run(judge.ask_all(prompts, cache_path, report))
    for row, ctx, (reply, failure) in zip(sent, contexts, replies, strict=True):
        row["judge"] = judge.name
        row["judge_reply"] = reply
        if failure is not None:
            report.failed += 1
            row["note"] = _joined(row["note"], f"the judge's request failed ({failure})")
            continue
        parsed = parse_answer(reply, ctx) if reply and reply.strip().upper().strip(".") != NONE else None
        if parsed is None or parsed.status != "ok":
            report.left += 1
            row["note"] = _joined(row["note"], "the judge named no answer")
            continue
        report.read += 1
        rules = f"the rules left it {row['status']}" + (f" ({row['note']})" if row["note"] else "")
        # the rules' reading and verdict are kept beside the judge's
        row.update({"rule_status": row["status"], "rule_method": row["method"], "rule_correct": bool(row["correct"]),
                    "status": "ok", "value": parsed.value, "method": "judge", "path": "judge", "note": rules,
                    "correct": is_correct(row["answer_type"], parsed.value, row["answer"])})
        report.right_with_judge += int(row["correct"]) - int(row["rule_correct"])
        if row["answer_type"] in NUMERIC:
            row["error"] = float(parsed.value) - float(row["answer"])
        if row.get("recall_at_1") is not None:  # a chat answer to candidate captions
            row["recall_at_1"] = row["recall_at_1_strict"] = row["recall_at_1_first"] = 1.0 if row["correct"] else 0.0
    return report


def _joined(note: str | None, more: str) -> str:
    return f"{note}; {more}" if note else more
