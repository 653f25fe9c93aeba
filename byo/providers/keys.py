"""API keys: read from the environment or from a file the user names, held in memory only.

Nothing the toolkit writes contains a key: run files record where the key came from (the
variable or file name), and every string written (answers, errors, run files, the cache) goes
through `redact`, which finds a key in any spelling: any letter case, and URL-encoded.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import quote

from byo.core.errors import ConfigError
from byo.core.inputs import read_bytes
from byo.providers import PROVIDERS


def resolve_key(provider_type: str, *, key_env: str | None = None,
                key_file: str | Path | None = None) -> tuple[str | None, str]:
    """(key, where it came from): from `key_file`, else the variable `key_env`, else the provider
    class's `key_env`. A key file holds the key alone, or `NAME=value` lines."""
    cls = PROVIDERS.get(provider_type)
    name = key_env or (cls.key_env if cls else None)
    if key_file is not None:
        return _key_from_file(Path(key_file), name), f"file {key_file}"
    if name and os.environ.get(name):
        return os.environ[name].strip(), f"environment {name}"
    if key_env or (cls and cls.key_required):
        raise ConfigError("<environment>", [(name, f"not set: the {provider_type} provider needs an API key; "
                                             "export it or give its file as `key_file`")])
    return None, "none"


def _key_from_file(path: Path, name: str | None) -> str:
    file = str(path)
    if not path.exists():
        raise ConfigError(file, [("<file>", "key file not found")])
    try:
        lines = [line.strip() for line in read_bytes(path).decode("utf-8").splitlines()]
    except UnicodeDecodeError:  # the message never quotes the file's content
        raise ConfigError(file, [("<file>", "not UTF-8 text: expected the key alone on one line, or a line "
                                            "NAME=KEY")]) from None
    lines = [line for line in lines if line and not line.startswith("#")]
    if len(lines) == 1 and "=" not in lines[0]:
        return lines[0]
    for line in lines:
        var, sep, value = line.removeprefix("export ").partition("=")
        if sep and var.strip() == name and value.strip():
            return value.strip().strip("'\"")
    # The message never quotes the file's content.
    raise ConfigError(file, [("<file>", f"expected the key alone on one line, or a line {name or 'NAME'}=KEY")])


REDACTED = "[redacted]"
MIN_SECRET = 4  # shorter "keys" (placeholders) are not looked for


def secret_pattern(secrets: list[str | None]) -> re.Pattern | None:
    """One case-insensitive pattern for every secret as typed and URL-encoded, longest first."""
    forms = {form for s in secrets if s and len(s) >= MIN_SECRET for form in (s, quote(s, safe=""))}
    if not forms:
        return None
    return re.compile("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)), re.IGNORECASE)


def redact(text: str, secrets: list[str | None]) -> str:
    pattern = secret_pattern(secrets)
    return pattern.sub(REDACTED, text) if pattern else text


def redact_all(value, secrets: list[str | None]):
    """`value` (strings inside dicts and lists too) with every secret replaced."""
    pattern = secret_pattern(secrets)
    return _redacted(value, pattern) if pattern else value


def _redacted(value, pattern: re.Pattern):
    if isinstance(value, str):
        return pattern.sub(REDACTED, value)
    if isinstance(value, dict):
        return {_redacted(k, pattern): _redacted(v, pattern) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(v, pattern) for v in value]
    return value
