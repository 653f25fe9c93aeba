"""The ranking path of `byo eval`: image-text models (byo.providers.image_text) rank every
candidate caption of a question (`retrieval` in questions.jsonl) by the similarity of its
embedding to the image's.

Questions go in chunks of a few batches. For a chunk, the distinct images and captions whose
embeddings are not cached (byo.eval.embeddings) are embedded `--batch-size` at a time, the new
embeddings committed in one transaction, then each question's similarities computed and its row
journalled. The prompt variants of one question, and every question sharing an image or a
caption, reuse its embeddings (cached by content). A rerun of the same command resumes: questions already journalled
are kept as they are, and an embedding is never computed twice (a second run over the same
dataset calls the model 0 times, which run.json's `model_calls` shows).

Only questions with a candidate set are asked; the others are counted in run.json
(`without_candidates`) and left out of the run.
"""

from __future__ import annotations

import hashlib
import signal
import time
from collections import Counter
from pathlib import Path

import numpy as np

from byo import __version__
from byo.core.progress import Bar
from byo.eval.embeddings import EMBEDDINGS, EmbeddingCache, embedding_key
from byo.eval.layout import (
    journal_row,
    open_journal,
    recorded_path,
    write_predictions,
    write_run_file,
)
from byo.eval.resolve import Evaluation
from byo.eval.settings import EvalReport
from byo.eval.stop import SIGNALS, Stopped, by_signal
from byo.providers import ProviderFailure
from byo.providers.images import prepare_image
from byo.questions.load import Question

CHUNK_BATCHES = 4  # batches of questions embedded before their rows are journalled


def ranking_of(similarities: list[float]) -> list[int]:
    """Caption indices, most similar first (ties in caption order)."""
    return sorted(range(len(similarities)), key=lambda k: (-similarities[k], k))


class RankingRun:
    def __init__(self, ev: Evaluation, earlier: dict[str, dict]):
        self.ev = ev
        self.provider = ev.provider
        self.earlier = earlier
        self.rows: dict[str, dict] = {}
        self.stopped: Stopped | None = None
        self.cache: EmbeddingCache | None = None
        self.hits = Counter()  # embeddings found in the cache, by kind
        self.questions = [q for q in ev.questions if q.retrieval is not None]
        self.without = len(ev.questions) - len(self.questions)

    def _stop(self, signum, frame) -> None:
        if self.stopped is not None:
            raise SystemExit(128 + signum)  # a second signal: at once (embeddings are committed per batch)
        self.stopped = by_signal(signum)

    def run(self, show_progress: bool) -> EvalReport:
        ev = self.ev
        ev.run_dir.mkdir(parents=True, exist_ok=True)
        if not self.provider.reference:
            self.cache = EmbeddingCache(ev.cache_path.parent / EMBEDDINGS)
        write_run_file(ev.run_dir, self.run_info(None))
        started = time.perf_counter()
        todo = [q for q in self.questions if (self.earlier.get(q.id) or {}).get("status") != "ok"]
        done_before = len(self.questions) - len(todo)
        journal = open_journal(ev.run_dir)
        previous = {sig: signal.getsignal(sig) for sig in SIGNALS}
        for sig in SIGNALS:
            signal.signal(sig, self._stop)
        bar = Bar(f"[bold]rank[/bold] {ev.settings.provider}/{ev.model}", len(todo), unit="q", enabled=show_progress)
        try:
            with bar:
                size = self.provider_batch() * CHUNK_BATCHES
                for start in range(0, len(todo), size):
                    if self.stopped is not None:
                        break
                    for row in self.rank_chunk(todo[start: start + size]):
                        self.rows[row["id"]] = row
                        journal_row(journal, row)
                    bar.advance(len(todo[start: start + size]), note=self.note(time.perf_counter() - started))
        finally:
            journal.close()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            if self.cache is not None:
                self.cache.close()
        kept = [row for q in self.ev.all_questions if (row := self.rows.get(q.id) or self.earlier.get(q.id))]
        write_predictions(ev.run_dir, kept)
        report = EvalReport(
            run_dir=ev.run_dir, rows=kept, statuses=Counter(r["status"] for r in kept),
            requests_sent=self.provider.calls["image_batches"] + self.provider.calls["text_batches"],
            cached=done_before, tokens={}, tokens_new={}, cost_usd=None, cost_new_usd=None,
            elapsed_s=time.perf_counter() - started, reference=self.provider.reference,
            n_questions=len(self.questions), stopped=self.stopped)
        write_run_file(ev.run_dir, self.run_info(report))
        return report

    def provider_batch(self) -> int:
        return getattr(self.provider, "batch_size", 8)

    def note(self, elapsed: float) -> str:
        calls = self.provider.calls
        return (f"model calls {calls['image_batches'] + calls['text_batches']} "
                f"({calls['images']} images, {calls['texts']} captions embedded, "
                f"{sum(self.hits.values())} from the cache)  {elapsed:.0f} s")

    # -- one chunk ---------------------------------------------------------------------------
    def rank_chunk(self, questions: list[Question]) -> list[dict]:
        started = time.perf_counter()
        if self.provider.reference:
            return [self.row(q, None, self.provider.scores(q), 0.0) for q in questions]
        images: dict[str, tuple[bytes, dict] | ProviderFailure] = {}
        for q in questions:
            if q.image not in images:
                try:
                    payload, info = prepare_image(self.ev.dataset / q.image, self.provider.limits,
                                                  self.ev.settings.max_side, self.ev.settings.provider)
                    # what the model receives of it, beside the sent size (unknown where not published: said so)
                    received = self.ev.pipeline.receive(*info["sent_size"]).to_json()
                    images[q.image] = (payload.data, {"path": q.image, **info, "received": received})
                except ProviderFailure as failure:
                    images[q.image] = failure
        image_keys = {path: self.key("image", got[1]["sha256"]) for path, got in images.items()
                      if not isinstance(got, ProviderFailure)}
        captions = list(dict.fromkeys(c for q in questions for c in q.retrieval.captions))
        text_keys = {c: self.key("text", hashlib.sha256(c.encode()).hexdigest()) for c in captions}
        vectors = self.embeddings("image", {image_keys[p]: images[p][0] for p in image_keys})
        vectors.update(self.embeddings("text", {text_keys[c]: c for c in captions}))
        latency = (time.perf_counter() - started) / max(1, len(questions))
        out = []
        for q in questions:
            got = images[q.image]
            if isinstance(got, ProviderFailure):
                out.append(self.row(q, {"path": q.image}, None, latency, failure=got))
                continue
            image = vectors[image_keys[q.image]]
            sims = [float(np.dot(image, vectors[text_keys[c]])) for c in q.retrieval.captions]
            out.append(self.row(q, got[1], sims, latency))
        return out

    def key(self, kind: str, content: str) -> str:
        return embedding_key(self.provider.identity, self.ev.model, kind, content)

    def embeddings(self, kind: str, items: dict[str, bytes | str]) -> dict[str, np.ndarray]:
        """key -> embedding for `items` (key -> image bytes or caption), from the cache or the
        model, `batch_size` at a time; new ones are committed before they are used."""
        found = self.cache.get_many(list(items))
        self.hits[kind] += len(found)
        missing = [k for k in items if k not in found]
        embed = self.provider.embed_images if kind == "image" else self.provider.embed_texts
        size = self.provider_batch()
        for start in range(0, len(missing), size):
            keys = missing[start: start + size]
            new = embed([items[k] for k in keys])
            fresh = dict(zip(keys, new, strict=True))
            self.cache.put_many(fresh)
            found.update(fresh)
        return found

    def row(self, q: Question, image: dict | None, sims: list[float] | None, latency: float,
            failure: ProviderFailure | None = None) -> dict:
        ev = self.ev
        ranking = ranking_of(sims) if sims is not None else None
        return {
            "id": q.id, "provider": ev.settings.provider, "model": ev.model, "reference": self.provider.reference,
            "prompt": q.prompt, "response": q.retrieval.captions[ranking[0]] if ranking else None,
            "response_cut": None, "status": "ok" if failure is None else failure.status,
            "error": failure.message if failure is not None else None, "finish_reason": "ranked" if ranking else None,
            "refusal": False if ranking else None, "tokens": None, "cost_usd": None, "latency_s": round(latency, 4),
            "attempts": 1 if ranking else 0, "parameters": ev.settings.params.model_dump(), "image": image,
            "ranked": True, "ranking": ranking,
            "similarities": [float(s) for s in sims] if sims is not None else None,  # unrounded: no tie made
        }

    def run_info(self, report: EvalReport | None) -> dict:
        ev, s = self.ev, self.ev.settings
        info = {
            "request": ev.identity, "byo_version": __version__, "reference": self.provider.reference,
            "ranks": True, "questions": recorded_path(ev.questions_path, ev.dataset),
            "n_questions": len(self.questions), "without_candidates": self.without,
            "batch_size": self.provider_batch(), "device": getattr(self.provider, "device", None),
            "limit": s.limit, "max_side": s.max_side,
            "embeddings": str(Path(ev.cache_path).parent / EMBEDDINGS) if self.cache is not None else None,
            "finished": report is not None and report.stopped is None,
            "stopped": report.stopped.message if report is not None and report.stopped else None,
        }
        if report is not None:
            info.update({"answered": len(report.rows), "statuses": dict(sorted(report.statuses.items())),
                         "resumed": report.cached, "model_calls": dict(self.provider.calls),
                         "embeddings_cached": dict(self.hits), "elapsed_s": round(report.elapsed_s, 3)})
        return info
