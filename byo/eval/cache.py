"""Crash-safe per-request cache: one SQLite row per completed request, committed as it lands.

The key is a hash of what decides the answer: provider identity, model, prompt, image bytes and
generation parameters. Only completed requests are stored; failures are never cached, so a
rerun retries them. WAL with synchronous=FULL makes each commit durable before the next request
is counted as done, so a killed run loses at most the requests that were in flight.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path


def request_key(identity: str, model: str, prompt: str, image_sha256: str | None, params: dict) -> str:
    material = json.dumps({"provider": identity, "model": model, "prompt": prompt, "image": image_sha256,
                           "params": params}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(material.encode()).hexdigest()


class RequestCache:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, isolation_level=None)  # autocommit: one transaction per put
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("CREATE TABLE IF NOT EXISTS answers "
                        "(key TEXT PRIMARY KEY, record TEXT NOT NULL, created REAL NOT NULL)")

    def get(self, key: str) -> dict | None:
        row = self.db.execute("SELECT record FROM answers WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, record: dict) -> None:
        # The first completed answer wins: a cached answer is never replaced.
        self.db.execute("INSERT OR IGNORE INTO answers (key, record, created) VALUES (?, ?, ?)",
                        (key, json.dumps(record, sort_keys=True), time.time()))

    def close(self) -> None:
        self.db.close()
