"""Requests per second of `byo eval` against a fake VLM on loopback that answers after a fixed
latency (300 ms): one request at a time, then N at a time, in the same run. The fake server runs
in a process of its own (tests/support/fake_vlm.py), a thread per request, so that it neither shares the
client's interpreter lock nor limits how many requests wait at once. Run with `make bench`."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from figures import QUICK, ROOT, Section

sys.path.insert(0, str(ROOT / "tests" / "support"))  # the small datasets live with the tests
from eval_data import make_dataset  # noqa: E402

from byo.eval.run import EvalSettings, evaluate  # noqa: E402


@contextmanager
def fake_server(latency: float):
    """The fake VLM's URL, served by `python tests/support/fake_vlm.py` until the block ends."""
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "support" / "fake_vlm.py"), "--latency", str(latency)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield proc.stdout.readline().strip()
    finally:
        proc.stdin.close()  # it stops when its input closes
        proc.wait(timeout=30)


def server_stats(url: str) -> dict:
    with urllib.request.urlopen(url + "/stats", timeout=10) as reply:
        return json.load(reply)


def timed_run(dataset: Path, url: str, *, requests: int, concurrency: int, name: str) -> dict:
    """Wall and CPU seconds of one `byo eval` run of the first `requests` questions, each run with
    a cache of its own (so nothing comes from another run's answers)."""
    settings = EvalSettings(dataset=dataset, provider="openai-compatible", model="fake-vlm", base_url=url + "/v1",
                            concurrency=concurrency, limit=requests, run=name,
                            cache=dataset / "runs" / f"{name}.sqlite")
    wall, cpu = time.perf_counter(), time.process_time()
    report = evaluate(settings, show_progress=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"wall_s": wall, "cpu_s": cpu, "ok": report.statuses["ok"], "cached": report.cached,
            "sent": report.requests_sent}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.3, help="seconds the fake server takes per answer")
    parser.add_argument("--sequential", type=int, default=8 if QUICK else 32, help="requests sent one at a time")
    parser.add_argument("--concurrency", type=int, default=32 if QUICK else 64)
    parser.add_argument("--requests", type=int, default=64 if QUICK else 640,
                        help="requests sent `--concurrency` at a time")
    parser.add_argument("--json", type=Path, help="write the section here (bench/results/eval.json)")
    args = parser.parse_args()
    latency, c = args.latency, args.concurrency
    section = Section(
        "eval", f"byo eval: requests per second against a loopback VLM with {latency * 1000:.0f} ms latency",
        f"The OpenAI-compatible provider (the openai SDK) against tests/support/fake_vlm.py in a process of its own on "
        f"127.0.0.1, which answers each request after {latency} s. In one run: a warm-up, {args.sequential} "
        f"requests one at a time, then {args.requests} requests {c} at a time; every request a distinct image, "
        f"each run with a cache of its own. Wall time of the whole `evaluate` call (questions read, "
        f"predictions and run.json written); the ideal concurrent rate is {c} / latency.")
    with tempfile.TemporaryDirectory() as tmp, fake_server(latency) as url:
        dataset = make_dataset(Path(tmp) / "ds", max(args.requests, args.sequential))
        timed_run(dataset, url, requests=4, concurrency=4, name="warm-up")  # imports, first connections
        one = timed_run(dataset, url, requests=args.sequential, concurrency=1, name="sequential")
        many = timed_run(dataset, url, requests=args.requests, concurrency=c, name="concurrent")
        stats = server_stats(url)

    sequential_rate, concurrent_rate = args.sequential / one["wall_s"], args.requests / many["wall_s"]
    section.figure("latency_ms", round(latency * 1000), "ms", "fake server latency per request")
    section.figure("sequential_requests", args.sequential, "", "requests, one at a time")
    section.figure("sequential_s", round(one["wall_s"], 2), "s", "wall time, one at a time")
    section.figure("sequential_rate", round(sequential_rate, 2), "req/s", "requests per second, one at a time")
    section.figure("sequential_overhead_ms", round(1000 * (one["wall_s"] / args.sequential - latency), 1), "ms",
                   "time per request beyond the latency, one at a time")
    section.figure("concurrency", c, "", "requests in flight at once (--concurrency)")
    section.figure("concurrent_requests", args.requests, "", f"requests, {c} at a time")
    section.figure("concurrent_s", round(many["wall_s"], 2), "s", f"wall time, {c} at a time")
    section.figure("concurrent_rate", round(concurrent_rate, 1), "req/s", f"requests per second, {c} at a time")
    section.figure("ideal_rate", round(c / latency, 1), "req/s", f"ideal requests per second ({c} / latency)")
    section.figure("client_cpu_ms", round(1000 * many["cpu_s"] / args.requests, 2), "ms",
                   f"client CPU per request, {c} at a time")
    section.figure("peak_in_flight", stats["max_in_flight"], "", "most requests the server held at once")
    section.figure("answered", f"{one['ok']} + {many['ok']} of {args.sequential} + {args.requests}", "",
                   "answered (sequential + concurrent)")
    section.figure("from_cache", one["cached"] + many["cached"], "", "answers from a cache (expected 0)")
    section.ratio("speedup", "concurrent_rate", "sequential_rate", f"requests per second, {c} at a time / one at a time",
                  at_least=30)
    section.ratio("efficiency", "concurrent_rate", "ideal_rate", "concurrent rate / ideal rate")
    section.write(args.json)


if __name__ == "__main__":
    main()
