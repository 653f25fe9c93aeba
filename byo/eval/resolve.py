"""Settings checked and resolved before any request is sent or any file written: the provider
type, model and price, the questions, the endpoint and key, the run directory and the cache."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from byo.core.errors import ConfigError, InputError
from byo.core.inputs import read_json
from byo.core.urls import redact_url, url_problem, url_secrets
from byo.eval.layout import (
    MAX_REPEATS,
    check_same_request,
    default_cache,
    repeat_run_name,
    run_name,
    run_path,
)
from byo.eval.settings import EvalSettings
from byo.eval.shots import MAX_SHOTS, Shots
from byo.providers import PROVIDERS, Provider, create_provider, providers_that, sdk_secret_variables
from byo.providers.catalog import ModelEntry, load_catalog, provider_entry
from byo.providers.image_pipeline import RENDERED_FOR, rendered_for_problem
from byo.providers.keys import redact_all, resolve_key
from byo.questions.load import QUESTIONS, Question, load_questions


def base_url_from_env(ptype: str) -> str | None:
    """The base URL the provider's SDK reads from its variable (Provider.base_url_env), if set."""
    env = PROVIDERS[ptype].base_url_env
    return os.environ.get(env) if env else None


def check_numbers(s: EvalSettings) -> None:
    bad = [(flag, expected) for flag, ok, expected in (
        ("--concurrency", s.concurrency >= 1, "at least 1"),
        ("--retries", s.retries >= 0, "0 or more"),
        ("--limit", s.limit is None or s.limit >= 1, "at least 1"),
        ("--rpm", s.rpm is None or s.rpm > 0, "a positive number"),
        ("--timeout", s.timeout is None or s.timeout > 0, "a positive number of seconds"),
        ("--max-side", s.max_side is None or s.max_side >= 1, "at least 1 pixel"),
        ("--max-answer-chars", s.max_answer_chars is None or s.max_answer_chars >= 100, "at least 100 characters"),
        ("--repeats", 1 <= s.repeats <= MAX_REPEATS, f"1 to {MAX_REPEATS} repeats"),
        ("--shots", 0 <= s.shots <= MAX_SHOTS, f"0 to {MAX_SHOTS} examples"),
        ("--shots-seed", s.shots_seed >= 0, "0 or more"),
        ("--max-cost", s.max_cost is None or s.max_cost > 0, "a positive number of US dollars"),
    ) if not ok]
    if bad:
        raise ConfigError("<command line>", [(flag, f"expected {expected}") for flag, expected in bad])


def capped_price(s: EvalSettings) -> None:
    """A cap needs the model's price: without one there is nothing to count (ConfigError, naming
    where to give it, before any request). Callers that ask as they go (byo adapt) check it before
    their first render too."""
    if s.max_cost is None:
        return
    catalog = load_catalog(s.providers_file) if s.providers_file else None
    file = str(s.providers_file) if s.providers_file else None
    ptype, entry = provider_entry(s.provider, catalog, file)
    model = s.model or ptype
    if not PROVIDERS[ptype].reference and entry.models.get(model, ModelEntry()).cost(0, 0) is None:
        raise ConfigError(file or "<command line>", [("--max-cost", f"needs the price of {model}: give "
                                                      f"providers.{s.provider}.models.{model} its "
                                                      "input_per_million and output_per_million in --providers "
                                                      "FILE")])


def check_base_url(s: EvalSettings, ptype: str, listed: str | None, file: str | None) -> None:
    """A base URL that no client can reach is refused before any request (ConfigError naming where
    it came from: --base-url, the providers file, or the environment variable the SDK reads)."""
    env = PROVIDERS[ptype].base_url_env or ""
    url = s.base_url or listed or base_url_from_env(ptype)
    if not url:
        return
    problem = url_problem(url, bare_host=PROVIDERS[ptype].bare_host)
    if problem is None:
        return
    if s.base_url:
        where, key = "<command line>", "--base-url"
    elif listed:
        where, key = file or "<providers>", f"providers.{s.provider}.base_url"
    else:
        where, key = "<environment>", env
    raise ConfigError(where, [(key, f"{problem}; got {redact_url(url)}")])


def preflight(s: EvalSettings) -> None:
    """What can be checked of a run's settings before its output folder exists (byo adapt checks
    them before its first render): the cap's price and the base URL."""
    capped_price(s)
    catalog = load_catalog(s.providers_file) if s.providers_file else None
    file = str(s.providers_file) if s.providers_file else None
    ptype, entry = provider_entry(s.provider, catalog, file)
    check_base_url(s, ptype, entry.base_url, file)


class Evaluation:
    """Everything resolved and validated, before any request or file is written. `questions`: the
    questions to ask, instead of the question file's (a run asked as its questions are made: byo
    adapt, which starts with none)."""

    def __init__(self, settings: EvalSettings, questions: list[Question] | None = None):
        s = self.settings = settings
        self.dataset = Path(s.dataset)
        if not self.dataset.is_dir():
            raise ConfigError(str(self.dataset), [("<dataset>", "not a directory")])
        catalog = load_catalog(s.providers_file) if s.providers_file else None
        file = str(s.providers_file) if s.providers_file else None
        self.ptype, entry = provider_entry(s.provider, catalog, file)
        reference = PROVIDERS[self.ptype].reference
        if s.structured and not PROVIDERS[self.ptype].structured:
            raise ConfigError("<command line>", [("--structured", f"the {self.ptype} provider takes no JSON schema for "
                                                  "its replies; " + ", ".join(providers_that("structured")) + " do")])
        self.model = s.model or (self.ptype if reference else None)
        if not self.model:
            raise ConfigError("<command line>", [("--model", f"required for the {self.ptype} provider")])
        self.price = entry.models.get(self.model, ModelEntry())
        self.batch_price = self.price.batch()  # byo eval --batch
        self.batch_limits = (entry.batch_max_requests, entry.batch_max_bytes)
        if entry.models and self.model not in entry.models and file:
            raise ConfigError(file, [(f'providers.{s.provider}.models', f"has no model {self.model!r}; "
                                      "expected one of " + ", ".join(entry.models))])
        if s.batch and PROVIDERS[self.ptype].batch_route is None:
            raise ConfigError("<command line>", [("--batch", f"the {self.ptype} provider has no batch API through byo; "
                                                  + ", ".join(providers_that("batch_route")) + " do (a server with "
                                                  "/files and /batches)")])
        capped_price(s)
        questions_path = Path(s.questions) if s.questions else self.dataset / QUESTIONS
        all_questions = load_questions(questions_path, self.dataset) if questions is None else list(questions)
        # byo questions --for MODEL: what this model receives too small to decide is not asked of it
        names = {f"{s.provider}:{self.model}", f"{self.ptype}:{self.model}"}
        self.received_as = sorted(names)  # the names unreadable_for may give this model (run.json records them)
        self.undecidable_here = [q.id for q in all_questions if names & set(q.unreadable_for or {})]
        if self.undecidable_here:
            all_questions = [q for q in all_questions if not names & set(q.unreadable_for or {})]
        self.questions_path = questions_path
        self.all_questions = all_questions  # the run keeps its earlier answers beyond --limit
        self.questions = all_questions[: s.limit] if s.limit is not None else all_questions
        check_numbers(s)
        if s.shots and not PROVIDERS[self.ptype].few_shot:
            raise ConfigError("<command line>", [("--shots", f"the {self.ptype} provider sends no examples; "
                                                  + ", ".join(providers_that("few_shot")) + " do")])
        if s.shots and s.structured:
            raise ConfigError("<command line>", [("--shots", "examples answer in free form; leave out --structured")])
        if s.shots and s.text_only:
            raise ConfigError("<command line>", [("--shots", "examples show their images; leave out --text-only")])
        self.shots = Shots(s.shots, s.shots_from, s.shots_seed, self.dataset, self.questions, all_questions) \
            if s.shots else None
        if PROVIDERS[self.ptype].ranks and not any(q.retrieval is not None for q in self.questions):
            raise ConfigError(str(questions_path), [("retrieval", f"no question carries candidate captions, which "
                                                     f"the image-text provider {self.ptype} ranks; ask chat models "
                                                     "these questions, or write questions of a key that has them "
                                                     "(docs/image_text.md)")])
        if s.text_only and not PROVIDERS[self.ptype].text_only:
            raise ConfigError("<command line>", [("--text-only", f"asks a language model the questions without "
                                                  f"their images through {', '.join(providers_that('text_only'))}; "
                                                  f"not {self.ptype}")])

        self.timeout = s.timeout or entry.timeout or PROVIDERS[self.ptype].default_timeout
        self.api = s.api or entry.api
        # The SDKs also read these variables; naming the URL here puts it into the cache key.
        self.base_url = s.base_url or entry.base_url or base_url_from_env(self.ptype)
        check_base_url(s, self.ptype, entry.base_url, file)
        # Redacted from every recorded message (keys an SDK reads by itself, Provider.sdk_secret_env; a
        # server may echo the URL, and with it a key in its user information or query).
        self.secrets = [*(os.environ.get(v) for v in sdk_secret_variables()), *url_secrets(self.base_url)]
        if reference:
            self.api_key, self.key_source = None, "none"
        else:
            key_file = s.key_file or entry.api_key_file
            self.api_key, self.key_source = resolve_key(self.ptype, key_env=s.key_env or entry.api_key_env,
                                                        key_file=key_file)
            self.secrets.append(self.api_key)
        self.provider: Provider = create_provider(
            self.ptype, self.model, s.params, api=self.api, base_url=self.base_url, api_key=self.api_key,
            timeout=self.timeout, questions=all_questions, connections=s.concurrency, dataset=self.dataset,
            local={"device": s.device, "dtype": s.dtype, "batch_size": s.batch_size},
            deployment={"api_version": s.api_version or entry.api_version, "deployment": s.deployment or entry.deployment})
        if entry.max_image_bytes:
            self.provider.limits = replace(self.provider.limits, max_bytes=entry.max_image_bytes)
        if entry.max_image_pixels:
            self.provider.limits = replace(self.provider.limits, max_pixels=entry.max_image_pixels)
        self.pipeline = self.provider.image_pipeline()  # what the model receives of each image sent
        rendered_for = self.dataset / RENDERED_FOR  # byo render --for: rendered smaller, for those models
        if rendered_for.is_file() and self.provider.needs_image and not reference and not s.text_only:
            problem = rendered_for_problem(read_json(rendered_for), f"{self.ptype}:{self.model}", self.pipeline)
            if problem:
                raise InputError(rendered_for, problem, key="models")

        name = s.run if s.run is not None else (run_name(s.provider, self.model) + ("-structured" if s.structured else "")
                                                + (f"-{s.shots}shot" if s.shots else "")
                                                + ("-text-only" if s.text_only else ""))
        self.run_dir = run_path(self.dataset, repeat_run_name(name, s.repeat))
        self.cache_path = Path(s.cache) if s.cache else default_cache(self.dataset)
        # Redacted as run.json records it (a key can hide in a URL), so that resuming compares like with like.
        self.identity = redact_all({"provider": s.provider, "type": self.ptype, "endpoint": self.provider.identity,
                                    "model": self.model, "parameters": s.params.model_dump(),
                                    "max_side": s.max_side, **({"repeat": s.repeat} if s.repeat > 1 else {}),
                                    **({"structured": True} if s.structured else {}),
                                    **({"shots": self.shots.identity()} if self.shots else {}),
                                    **({"text_only": True} if s.text_only else {})},
                                   self.secrets)
        check_same_request(self.run_dir, self.identity)
