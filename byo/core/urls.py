"""URLs as byo writes or prints them: a key can hide in a URL (`https://user:KEY@host/v1`,
`https://host/v1?api_key=KEY`), so every URL is redacted before it is written or shown: the
user information and the value of every query parameter become [redacted] (except a few that
name an API version, which are no secret and tell endpoints apart)."""

from __future__ import annotations

import base64
import re
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

REDACTED = "[redacted]"
KEPT_PARAMETERS = {"api-version", "api_version", "version"}
# A URL inside any text: a scheme, then everything up to white space or a quote or bracket.
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>()\[\]{}]+")


def _parameter(part: str) -> str:
    name, sep, _ = part.partition("=")
    return part if not sep or unquote(name).lower() in KEPT_PARAMETERS else f"{name}={REDACTED}"


def redact_url(url: str) -> str:
    """`url` without its secrets: user information and query values (fragments too)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # not a URL urllib can take apart: nothing of it is kept
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{'[' + host + ']' if ':' in host else host}{port}"
    query = "&".join(_parameter(p) for p in parts.query.split("&")) if parts.query else ""
    fragment = REDACTED if parts.fragment else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def redact_urls(text: str) -> str:
    """Every URL in `text` redacted."""
    return _URL.sub(lambda m: redact_url(m.group(0)), text)


def url_secrets(url: str | None) -> list[str]:
    """What `redact_url` hides of `url` (user, password, query values), as given and decoded: looked
    for in every text byo writes, since a server may echo a URL back in an error message."""
    if not url:
        return []
    try:
        parts = urlsplit(url)
        found = [parts.username, parts.password, parts.fragment]
    except ValueError:
        return [url]
    found += [v for k, v in parse_qsl(parts.query, keep_blank_values=False) if k.lower() not in KEPT_PARAMETERS]
    if parts.username is not None or parts.password is not None:  # as an HTTP client sends them: basic auth
        found.append(base64.b64encode(unquote(f"{parts.username or ''}:{parts.password or ''}").encode()).decode())
    return [s for v in found if v for s in {v, unquote(v)}]


def url_problem(url: str, *, bare_host: bool = False) -> str | None:
    """What makes `url` no endpoint an HTTP client can reach (None: nothing): a scheme other than
    http or https, no host, a port that is no number, white space. `bare_host`: `HOST[:PORT]`
    alone is taken as http (as the ollama client takes OLLAMA_HOST)."""
    if any(c.isspace() for c in url):
        return "expected a URL without spaces"
    if bare_host and "://" not in url:
        url = "http://" + url
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is no number or out of range
    except ValueError as err:
        return f"expected a URL such as http://localhost:8000/v1 ({err})"
    if parts.scheme not in ("http", "https"):
        return "expected an http:// or https:// URL such as http://localhost:8000/v1"
    if not parts.hostname:
        return "expected a host in the URL, such as http://localhost:8000/v1"
    return None
