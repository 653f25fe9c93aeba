"""Crash-safe cache of image and text embeddings for image-text models (byo.eval.ranking).

One SQLite row per embedding, keyed by a hash of the model (provider identity and name), the
kind (image or text) and the content (the image file's sha256, or the caption's text). A batch
of new embeddings is committed in one transaction (WAL, synchronous=FULL) before the questions
that use it are journalled, so a killed run never computes an embedding twice. The cache lives
beside the request cache (DATASET/runs/embeddings.sqlite) and is shared by every run of the
dataset: the same image or caption in another question, run or question file costs nothing.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path

import numpy as np

EMBEDDINGS = "embeddings.sqlite"


def embedding_key(identity: str, model: str, kind: str, content: str) -> str:
    material = json.dumps({"provider": identity, "model": model, "kind": kind, "content": content},
                          sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(material.encode()).hexdigest()


class EmbeddingCache:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("CREATE TABLE IF NOT EXISTS embeddings "
                        "(key TEXT PRIMARY KEY, vector BLOB NOT NULL, dim INTEGER NOT NULL, created REAL NOT NULL)")

    def get_many(self, keys: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), 500):  # SQLite's bound on parameters
            chunk = keys[start: start + 500]
            marks = ",".join("?" * len(chunk))
            for key, blob, dim in self.db.execute(
                    f"SELECT key, vector, dim FROM embeddings WHERE key IN ({marks})", chunk):
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.size == dim:  # a damaged row is computed again
                    out[key] = vector
        return out

    def put_many(self, rows: dict[str, np.ndarray]) -> None:
        """One durable transaction; a row already there is kept (the first embedding wins)."""
        now = time.time()
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR IGNORE INTO embeddings (key, vector, dim, created) VALUES (?, ?, ?, ?)",
                [(k, np.asarray(v, dtype=np.float32).tobytes(), int(np.asarray(v).size), now)
                 for k, v in rows.items()])

    def close(self) -> None:
        self.db.close()
