"""Settings checked and resolved before any request is sent or any file written: the provider
type, model and price, the questions, the endpoint and key, the run directory and the cache.
Problems name the settings' fields (`concurrency`), which the command line prints as its flags."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from byo.core.errors import ARGUMENTS, ConfigError, InputError
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
from byo.providers.catalog import ModelEntry, ProviderEntry, load_catalog, provider_entry
from byo.providers.image_pipeline import RENDERED_FOR, rendered_for_problem
from byo.providers.keys import redact_all, resolve_key
from byo.questions.load import QUESTIONS, Question, load_questions


def base_url_from_env(ptype: str) -> str | None:
    """The base URL the provider's SDK reads from its variable (Provider.base_url_env), if set."""
    env = PROVIDERS[ptype].base_url_env
    return os.environ.get(env) if env else None


def check_numbers(s: EvalSettings) -> None:
    bad = [(field, expected) for field, ok, expected in (
        ("concurrency", s.concurrency >= 1, "at least 1"),
        ("retries", s.retries >= 0, "0 or more"),
        ("limit", s.limit is None or s.limit >= 1, "at least 1"),
        ("rpm", s.rpm is None or s.rpm > 0, "a positive number"),
        ("timeout", s.timeout is None or s.timeout > 0, "a positive number of seconds"),
        ("max_side", s.max_side is None or s.max_side >= 1, "at least 1 pixel"),
        ("max_answer_chars", s.max_answer_chars is None or s.max_answer_chars >= 100, "at least 100 characters"),
        ("repeats", 1 <= s.repeats <= MAX_REPEATS, f"1 to {MAX_REPEATS} repeats"),
        ("shots", 0 <= s.shots <= MAX_SHOTS, f"0 to {MAX_SHOTS} examples"),
        ("shots_seed", s.shots_seed >= 0, "0 or more"),
        ("max_cost", s.max_cost is None or s.max_cost > 0, "a positive number of US dollars"),
    ) if not ok]
    if bad:
        raise ConfigError(ARGUMENTS, [(field, f"expected {expected}") for field, expected in bad])


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
        raise ConfigError(file or ARGUMENTS, [("`max_cost`" if file else "max_cost",
                                                f"needs the price of {model}: give providers.{s.provider}.models."
                                                f"{model} its input_per_million and output_per_million in "
                                                "`providers_file`")])


def check_base_url(s: EvalSettings, ptype: str, listed: str | None, file: str | None) -> None:
    """A base URL that no client can reach is refused before any request (ConfigError naming where
    it came from: `base_url`, the providers file, or the environment variable the SDK reads)."""
    env = PROVIDERS[ptype].base_url_env or ""
    url = s.base_url or listed or base_url_from_env(ptype)
    if not url:
        return
    problem = url_problem(url, bare_host=PROVIDERS[ptype].bare_host)
    if problem is None:
        return
    if s.base_url:
        where, key = ARGUMENTS, "base_url"
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
    adapt, which starts with none).

    Built in the order a user fixes things: the provider (read, then checked), the questions
    (read, then checked), then what is constructed from them (the endpoint and key, the provider
    client, the run's folder and identity)."""

    def __init__(self, settings: EvalSettings, questions: list[Question] | None = None):
        self.settings = settings
        entry, file = self._read_provider()
        self._check_provider(entry, file)
        self._read_questions(questions)
        self._check_questions()
        self._construct(entry, file)

    def _read_provider(self) -> tuple[ProviderEntry, str | None]:
        """The dataset, the provider's type, model and prices (from the providers file, if any)."""
        s = self.settings
        self.dataset = Path(s.dataset)
        if not self.dataset.is_dir():
            raise ConfigError(str(self.dataset), [("<dataset>", "not a directory")])
        catalog = load_catalog(s.providers_file) if s.providers_file else None
        file = str(s.providers_file) if s.providers_file else None
        self.ptype, entry = provider_entry(s.provider, catalog, file)
        self.model = s.model or (self.ptype if PROVIDERS[self.ptype].reference else None)
        self.price = entry.models.get(self.model, ModelEntry())
        self.batch_price = self.price.batch()  # byo eval --batch
        self.batch_limits = (entry.batch_max_requests, entry.batch_max_bytes)
        return entry, file

    def _check_provider(self, entry: ProviderEntry, file: str | None) -> None:
        """The settings the provider must be able to honour (its class's capabilities)."""
        s, cls = self.settings, PROVIDERS[self.ptype]
        if s.structured and not cls.structured:
            raise ConfigError(ARGUMENTS, [("structured", f"the {self.ptype} provider takes no JSON schema for its "
                                           "replies; " + ", ".join(providers_that("structured")) + " do")])
        if not self.model:
            raise ConfigError(ARGUMENTS, [("model", f"required for the {self.ptype} provider")])
        if entry.models and self.model not in entry.models and file:
            raise ConfigError(file, [(f'providers.{s.provider}.models', f"has no model {self.model!r}; "
                                      "expected one of " + ", ".join(entry.models))])
        if s.batch and cls.batch_route is None:
            raise ConfigError(ARGUMENTS, [("batch", f"the {self.ptype} provider has no batch API through byo; "
                                           + ", ".join(providers_that("batch_route")) + " do (a server with "
                                           "/files and /batches)")])
        capped_price(s)

    def _read_questions(self, questions: list[Question] | None) -> None:
        """The questions to ask: the question file's (or `questions`), less those this model
        receives too small to decide (byo questions --for MODEL), the first `limit` of them."""
        s = self.settings
        questions_path = Path(s.questions) if s.questions else self.dataset / QUESTIONS
        all_questions = load_questions(questions_path, self.dataset) if questions is None else list(questions)
        names = {f"{s.provider}:{self.model}", f"{self.ptype}:{self.model}"}
        self.received_as = sorted(names)  # the names unreadable_for may give this model (run.json records them)
        self.undecidable_here = [q.id for q in all_questions if names & set(q.unreadable_for or {})]
        if self.undecidable_here:
            all_questions = [q for q in all_questions if not names & set(q.unreadable_for or {})]
        self.questions_path = questions_path
        self.all_questions = all_questions  # the run keeps its earlier answers beyond `limit`
        self.questions = all_questions[: s.limit] if s.limit is not None else all_questions

    def _check_questions(self) -> None:
        """The numbers, and what the provider is asked to do with these questions."""
        s, cls = self.settings, PROVIDERS[self.ptype]
        check_numbers(s)
        if s.shots and not cls.few_shot:
            raise ConfigError(ARGUMENTS, [("shots", f"the {self.ptype} provider sends no examples; "
                                           + ", ".join(providers_that("few_shot")) + " do")])
        if s.shots and s.structured:
            raise ConfigError(ARGUMENTS, [("shots", "examples answer in free form; leave out `structured`")])
        if s.shots and s.text_only:
            raise ConfigError(ARGUMENTS, [("shots", "examples show their images; leave out `text_only`")])
        self.shots = Shots(s.shots, s.shots_from, s.shots_seed, self.dataset, self.questions, self.all_questions) \
            if s.shots else None
        if cls.ranks and not any(q.retrieval is not None for q in self.questions):
            raise ConfigError(str(self.questions_path), [("retrieval", f"no question carries candidate captions, "
                                                          f"which the image-text provider {self.ptype} ranks; ask "
                                                          "chat models these questions, or write questions of a key "
                                                          "that has them (docs/image_text.md)")])
        if s.text_only and not cls.text_only:
            raise ConfigError(ARGUMENTS, [("text_only", f"asks a language model the questions without their images "
                                           f"through {', '.join(providers_that('text_only'))}; not {self.ptype}")])

    def _construct(self, entry: ProviderEntry, file: str | None) -> None:
        """The endpoint and key, the provider's client, what its model receives of an image, the
        run's folder, cache and identity (checked against the run's earlier invocations)."""
        s, cls = self.settings, PROVIDERS[self.ptype]
        self.timeout = s.timeout or entry.timeout or cls.default_timeout
        self.api = s.api or entry.api
        # The SDKs also read these variables; naming the URL here puts it into the cache key.
        self.base_url = s.base_url or entry.base_url or base_url_from_env(self.ptype)
        check_base_url(s, self.ptype, entry.base_url, file)
        # Redacted from every recorded message (keys an SDK reads by itself, Provider.sdk_secret_env; a
        # server may echo the URL, and with it a key in its user information or query).
        self.secrets = [*(os.environ.get(v) for v in sdk_secret_variables()), *url_secrets(self.base_url)]
        if cls.reference:
            self.api_key, self.key_source = None, "none"
        else:
            key_file = s.key_file or entry.api_key_file
            self.api_key, self.key_source = resolve_key(self.ptype, key_env=s.key_env or entry.api_key_env,
                                                        key_file=key_file)
            self.secrets.append(self.api_key)
        self.provider: Provider = create_provider(
            self.ptype, self.model, s.params, api=self.api, base_url=self.base_url, api_key=self.api_key,
            timeout=self.timeout, questions=self.all_questions, connections=s.concurrency, dataset=self.dataset,
            local={"device": s.device, "dtype": s.dtype, "batch_size": s.batch_size},
            deployment={"api_version": s.api_version or entry.api_version,
                        "deployment": s.deployment or entry.deployment})
        if entry.max_image_bytes:
            self.provider.limits = replace(self.provider.limits, max_bytes=entry.max_image_bytes)
        if entry.max_image_pixels:
            self.provider.limits = replace(self.provider.limits, max_pixels=entry.max_image_pixels)
        self.pipeline = self.provider.image_pipeline()  # what the model receives of each image sent
        rendered_for = self.dataset / RENDERED_FOR  # byo render --for: rendered smaller, for those models
        if rendered_for.is_file() and self.provider.needs_image and not cls.reference and not s.text_only:
            problem = rendered_for_problem(read_json(rendered_for), f"{self.ptype}:{self.model}", self.pipeline)
            if problem:
                raise InputError(rendered_for, problem, key="models")
        self.run_dir = run_path(self.dataset, repeat_run_name(self.run_name(), s.repeat))
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

    def run_name(self) -> str:
        """`run`, else PROVIDER-MODEL with what sets the run apart (-structured, -Kshot, -text-only)."""
        s = self.settings
        if s.run is not None:
            return s.run
        return (run_name(s.provider, self.model) + ("-structured" if s.structured else "")
                + (f"-{s.shots}shot" if s.shots else "") + ("-text-only" if s.text_only else ""))
