"""The API's fields as the command line's flags. Below byo/cli/ a problem names what a function was
given by its field (`ConfigError(ARGUMENTS, [("concurrency", ...)])`, "`max_cost`" inside a
message, a failure or a stop); the command line prints it with its flags (`<command line>:
--concurrency: ...`, "over --max-cost"). Files keep the field form: what a run or a render writes
is read by the API as much as by the command line."""

from __future__ import annotations

import re

from byo.core.errors import ARGUMENTS, ConfigError

COMMAND_LINE = "<command line>"

# field -> the flag that sets it (one table for every command)
FLAGS: dict[str, str] = {
    "answer_tokens": "--answer-tokens", "api": "--api", "base": "--base", "base_url": "--base-url",
    "baseline": "--baseline", "batch": "--batch",
    "chance": "--chance", "concurrency": "--concurrency", "correction": "--correction", "cost": "--max-cost",
    "dataset": "--dataset", "device": "--device", "direction": "--direction", "dtype": "--dtype",
    "executor": "--executor", "family": "--family", "for_models": "--for", "force": "--force", "format": "--format",
    "host": "--host", "images": "--max-images", "instructions": "--instructions", "judge": "--judge",
    "key_env": "--key-env", "key_file": "--key-file", "keys": "--keys", "limit": "--limit", "link": "--link",
    "max_answer_chars": "--max-answer-chars", "max_cost": "--max-cost", "max_images": "--max-images", "max_side": "--max-side",
    "model": "--model", "options": "--options", "out": "-o", "output": "-o", "perplexity_model": "--perplexity-model",
    "port": "--port", "preprompts": "--preprompts", "prompts": "--prompts", "provider": "--provider",
    "providers_file": "--providers", "quality": "--quality", "range": "--range", "repeats": "--repeats", "report": "--report",
    "require_complete": "--require-complete", "resolution": "--resolution", "resume": "--resume",
    "retries": "--retries", "rpm": "--rpm", "run": "--run", "sample": "--sample", "seed": "--seed",
    "shards": "--shards", "shots": "--shots", "shots_from": "--shots-from", "shots_seed": "--shots-seed",
    "slurm_local": "--slurm-local", "structured": "--structured", "task": "--task",
    "text_only": "--text-only", "threads": "--threads", "timeout": "--timeout", "trials": "--max-trials",
    "unreadable": "--unreadable", "variable": "--variable", "variant": "--variant", "wait": "--wait",
    "width": "--width",
}

_QUOTED = re.compile(r"`([a-z][a-z0-9_]*)`")


def flags_in(text: str) -> str:
    """`text` with each backquoted field of FLAGS written as its flag (a failure's message, a stop's
    reason, a table's note, as the command line prints them)."""
    return _QUOTED.sub(lambda m: FLAGS.get(m.group(1), m.group(0)), text)


def _key(key: str | None, arguments: bool) -> str | None:
    if key is None:
        return None
    quoted = _QUOTED.fullmatch(key)
    if quoted and quoted.group(1) in FLAGS:
        return FLAGS[quoted.group(1)]
    if arguments and key in FLAGS:
        return FLAGS[key]
    return flags_in(key)


def in_flags(err: ConfigError) -> ConfigError:
    """`err` as the command line says it: the problems with a function's arguments are the command
    line's, their fields its flags; a field named in a message is its flag too."""
    arguments = err.file == ARGUMENTS
    return ConfigError(COMMAND_LINE if arguments else err.file,
                       [(_key(key, arguments), flags_in(text)) for key, text in err.problems])


def message(err: BaseException) -> str:
    """What the command line prints of `err`: a ConfigError in its flags (`in_flags`), any other
    error (a RenderError, a stop) with the fields its text names as flags."""
    return str(in_flags(err)) if isinstance(err, ConfigError) else flags_in(str(err))
