"""Throughput of `byo eval` against a fake VLM on loopback that answers after a fixed latency:
concurrency N versus sequential requests, measured in the same run. Run with `make bench`."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the fake server and the small datasets live with the tests

from eval_data import make_dataset  # noqa: E402
from fake_vlm import FakeVLM  # noqa: E402
from figures import show  # noqa: E402

from byo.eval.run import EvalSettings, evaluate  # noqa: E402


def timed_run(dataset: Path, url: str, concurrency: int, name: str) -> tuple[float, int]:
    settings = EvalSettings(dataset=dataset, provider="openai-compatible", model="fake-vlm", base_url=url + "/v1",
                            concurrency=concurrency, run=name, cache=dataset / "runs" / f"{name}.sqlite")
    started = time.perf_counter()
    report = evaluate(settings, show_progress=False)
    return time.perf_counter() - started, report.statuses["ok"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.3, help="seconds the fake server takes per answer")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, FakeVLM(latency=args.latency) as fake:
        dataset = make_dataset(Path(tmp) / "ds", args.requests)
        sequential_s, sequential_ok = timed_run(dataset, fake.url, 1, "sequential")
        concurrent_s, concurrent_ok = timed_run(dataset, fake.url, args.concurrency, "concurrent")
        peak = fake.max_in_flight

    n = args.requests
    figures = {
        "requests": n, "latency_s": args.latency, "concurrency": args.concurrency,
        "sequential_s": round(sequential_s, 2), "sequential_req_per_s": round(n / sequential_s, 2),
        "concurrent_s": round(concurrent_s, 2), "concurrent_req_per_s": round(n / concurrent_s, 2),
        "speedup": round(sequential_s / concurrent_s, 1),
        "ideal_speedup": min(args.concurrency, n),
        "peak_in_flight": peak, "answered": f"{sequential_ok} / {concurrent_ok} of {n}",
    }
    show(f"byo eval: {n} requests, fake VLM with {args.latency * 1000:.0f} ms latency", figures, args.json)


if __name__ == "__main__":
    main()
