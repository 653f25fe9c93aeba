"""Crash-safe per-request cache: one SQLite row per completed request, committed as it lands.

The key is a hash of what decides the answer: provider identity, model, prompt, image bytes and
generation parameters. Only completed requests are stored; failures are never cached, so a
rerun retries them. WAL with synchronous=FULL makes each commit durable before its worker takes
the next question, so a killed run loses at most the requests that were in flight.

Writes are group commits off the event loop: `put` returns a future that is done once the row is
durable, and the rows that arrive while one commit syncs to disk go together in the next, so a
disk sync per answer neither stalls the other requests nor caps the answers per second. A commit
under way finishes even when the run is stopped: `close` waits for it.

A paid answer's charge (the run that paid, its cost, live or batch) is written in the same
transaction as the answer, so a run's spend (byo.eval.budget) is exactly what it received.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path


def request_key(identity: str, model: str, prompt: str, image_sha256: str | None, params: dict) -> str:
    material = json.dumps({"provider": identity, "model": model, "prompt": prompt, "image": image_sha256,
                           "params": params}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(material.encode()).hexdigest()


@dataclass(frozen=True)
class Charge:
    """What an answer cost the run that asked for it (`run`: its run id; `how`: live or batch)."""

    run: str
    usd: float
    how: str = "live"


def connect(path: Path) -> sqlite3.Connection:
    # Autocommit unless a transaction is opened; the writer's connection is used from worker threads,
    # one commit at a time.
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    return db


class RequestCache:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.writer = connect(self.path)
        self.writer.execute("CREATE TABLE IF NOT EXISTS answers "
                            "(key TEXT PRIMARY KEY, record TEXT NOT NULL, created REAL NOT NULL)")
        self.writer.execute("CREATE TABLE IF NOT EXISTS charges (run TEXT NOT NULL, key TEXT NOT NULL, "
                            "usd REAL NOT NULL, how TEXT NOT NULL, created REAL NOT NULL)")
        self.reader = connect(self.path)  # on the event loop; WAL readers never wait for the writer
        self.pending: list[tuple[str, str, float, Charge | None, asyncio.Future]] = []
        self.committing: asyncio.Task | None = None

    def get(self, key: str) -> dict | None:
        row = self.reader.execute("SELECT record FROM answers WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def spent(self, run: str) -> float:
        """What the run `run` (its id) has paid for its answers, in USD."""
        (usd,) = self.reader.execute("SELECT COALESCE(SUM(usd), 0) FROM charges WHERE run = ?", (run,)).fetchone()
        return float(usd)

    def put(self, key: str, record: dict, charge: Charge | None = None) -> asyncio.Future:
        """Queues the row (and its charge) for the next commit; the future is done once it is
        durable. The first completed answer wins: a cached answer is never replaced (a charge is
        always kept: it was paid)."""
        durable = asyncio.get_running_loop().create_future()
        self.pending.append((key, json.dumps(record, sort_keys=True), time.time(), charge, durable))
        if self.committing is None or self.committing.done():
            self.committing = asyncio.create_task(self.commit_pending())
        return durable

    async def commit_pending(self) -> None:
        while self.pending:
            batch, self.pending = self.pending, []
            failure = None
            try:
                await asyncio.to_thread(self.write, [(key, text, created) for key, text, created, _, _ in batch],
                                        [(c.run, key, c.usd, c.how, created) for key, _, created, c, _ in batch if c])
            except Exception as err:  # handed to every put of the batch
                failure = err
            for *_, durable in batch:
                if durable.done():  # its worker was cancelled (a stopped run)
                    continue
                if failure is None:
                    durable.set_result(None)
                else:
                    durable.set_exception(failure)

    def write(self, rows: list[tuple[str, str, float]], charges: list[tuple] = ()) -> None:
        with self.writer:  # one transaction: a single sync for the whole batch
            self.writer.execute("BEGIN")
            self.writer.executemany("INSERT OR IGNORE INTO answers (key, record, created) VALUES (?, ?, ?)", rows)
            self.writer.executemany("INSERT INTO charges (run, key, usd, how, created) VALUES (?, ?, ?, ?, ?)",
                                    charges)

    async def close(self) -> None:
        """Waits for the commits under way (a stopped run keeps the answers it received), then closes."""
        if self.committing is not None:
            await asyncio.shield(self.committing)
        self.reader.close()
        self.writer.close()
