"""Providers file (YAML): named endpoints, their models and per-token prices for cost estimates.

```yaml
providers:
  openai:
    models:
      gpt-4o-mini: {input_per_million: 0.15, output_per_million: 0.60}
  local-vllm:
    type: openai-compatible
    base_url: http://localhost:8000/v1
    models:
      Qwen/Qwen2.5-VL-7B-Instruct: {}
```
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, ValidationError, field_validator

from byo.core.errors import ARGUMENTS, ConfigError, format_key_path
from byo.core.inputs import read_text
from byo.core.schema import Strict, shown, validation_problems
from byo.providers import PROVIDERS

PROVIDER_TYPES: tuple[str, ...] = tuple(PROVIDERS)  # as registered at import; the checks below read PROVIDERS


BATCH_DISCOUNT = 0.5  # OpenAI's and Azure's Batch APIs: half the price of live requests


class ModelEntry(Strict):
    input_per_million: float | None = Field(None, ge=0)  # USD per million input tokens
    output_per_million: float | None = Field(None, ge=0)
    # Input tokens one image is billed, as sent (`byo plan --estimate`; default: OpenAI's tile rule).
    image_tokens: int | None = Field(None, ge=0)
    batch_input_per_million: float | None = Field(None, ge=0)  # byo eval --batch; default: half the live price
    batch_output_per_million: float | None = Field(None, ge=0)

    def batch(self) -> ModelEntry:
        """The prices of a batch: as given, else the live prices at BATCH_DISCOUNT."""
        def half(price: float | None) -> float | None:
            return None if price is None else price * BATCH_DISCOUNT

        return ModelEntry(
            input_per_million=self.batch_input_per_million if self.batch_input_per_million is not None
            else half(self.input_per_million),
            output_per_million=self.batch_output_per_million if self.batch_output_per_million is not None
            else half(self.output_per_million),
            image_tokens=self.image_tokens)

    def cost(self, input_tokens: int, output_tokens: int) -> float | None:
        if self.input_per_million is None or self.output_per_million is None:
            return None
        return (input_tokens * self.input_per_million + output_tokens * self.output_per_million) / 1e6


class ProviderEntry(Strict):
    type: str | None = None  # a key of PROVIDERS; default: the entry's name, when that is a provider type
    base_url: str | None = None
    api: Literal["chat", "responses"] = "chat"  # responses: OpenAI's Responses API
    api_key_env: str | None = None
    api_key_file: str | None = None
    api_version: str | None = None  # azure
    deployment: str | None = None  # azure: default the model's name
    batch_max_requests: int | None = Field(None, gt=0)  # byo eval --batch: requests per batch (default the API's)
    batch_max_bytes: int | None = Field(None, gt=0)  # and bytes per batch input file
    timeout: float | None = Field(None, gt=0)
    max_image_bytes: int | None = Field(None, gt=0)
    max_image_pixels: int | None = Field(None, gt=0)
    models: dict[str, ModelEntry] = Field(default_factory=dict)

    @field_validator("type")
    @classmethod
    def _registered(cls, value: str | None) -> str | None:
        if value is not None and value not in PROVIDERS:
            names = [repr(t) for t in PROVIDERS]
            raise ValueError(f"Input should be {', '.join(names[:-1])} or {names[-1]} (got {shown(value)})")
        return value


class Catalog(Strict):
    providers: dict[str, ProviderEntry]


def load_catalog(path: str | Path) -> Catalog:
    file = str(path)
    try:
        raw = yaml.safe_load(read_text(path))
    except yaml.YAMLError as err:
        raise ConfigError(file, [("<file>", f"not valid YAML: {str(err)[:200]}")]) from None
    except RecursionError:
        raise ConfigError(file, [("<file>", "nested too deeply")]) from None
    problems = []
    entries = raw.get("providers") if isinstance(raw, dict) else None
    for name, entry in entries.items() if isinstance(entries, dict) else []:
        if name not in PROVIDERS and not (isinstance(entry, dict) and entry.get("type")):
            problems.append((format_key_path(("providers", name, "type")),
                             f"required: {name!r} is not one of " + ", ".join(PROVIDERS)))
    try:
        catalog = Catalog.model_validate(raw)
    except ValidationError as err:
        problems += validation_problems(err)
    if problems:
        raise ConfigError(file, problems)
    return catalog


def provider_entry(name: str, catalog: Catalog | None, file: str | None) -> tuple[str, ProviderEntry]:
    """(type, entry) for `--provider NAME`: a providers-file entry, or a bare provider type."""
    if catalog is not None and name in catalog.providers:
        entry = catalog.providers[name]
        return entry.type or name, entry
    if name in PROVIDERS:
        return name, ProviderEntry()
    known = sorted(set(PROVIDERS) | set(catalog.providers if catalog else ()))
    raise ConfigError(file or ARGUMENTS, [("`provider`" if file else "provider", f"unknown provider {name!r}; "
                                           "expected one of " + ", ".join(known))])
