"""Render 200 small CLEVR scenes in one worker process; report time per image over the run
(is it flat?) and memory growth. Run with `make bench`."""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import yaml
from figures import show

from byo.executors.inprocess import InProcess
from byo.render.messages import RenderResult
from byo.runner import render_dataset

CONFIG = {
    "dataset": {"name": "bench", "family": "clevr", "seed": 1, "n_images": 1},
    "scene": {"resolution": [64, 48], "render": {"samples": 4, "denoise": "off"}, "content": {"mode": "random"}},
    "variables": {"content.count": {"type": "varying_among_range", "min": 3, "max": 10}},
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=200)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        config = dict(CONFIG, dataset={**CONFIG["dataset"], "n_images": args.images})
        path = Path(tmp) / "bench.yaml"
        path.write_text(yaml.safe_dump(config))
        samples: list[tuple[float, float]] = []  # (seconds, rss MB) per image, in render order
        last = [time.perf_counter()]

        def record(result: RenderResult) -> None:
            now = time.perf_counter()
            samples.append((now - last[0], result.rss_mb))
            last[0] = now

        started = time.perf_counter()
        report = render_dataset(str(path), str(Path(tmp) / "out"), executor=InProcess(), on_result=record)
        total = time.perf_counter() - started

    n = len(samples)
    window = max(1, n // 5)
    first = [s for s, _ in samples[1 : window + 1]]  # image 0 pays for Blender's first-render set-up
    final = [s for s, _ in samples[-window:]]
    rss = [m for _, m in samples]
    figures = {
        "images": n, "failed": len(report.failed), "total_s": round(total, 1),
        "mean_s_per_image": round(total / max(1, n), 4),
        "median_s_first_window": round(statistics.median(first), 4),
        "median_s_last_window": round(statistics.median(final), 4),
        "time_ratio_last_over_first": round(statistics.median(final) / statistics.median(first), 3),
        # Median seconds per image in five consecutive windows: flat means no slowdown over the run.
        "median_s_by_window": [round(statistics.median(s for s, _ in samples[k * window + 1:(k + 1) * window + 1]
                                                      or [samples[-1][0]]), 4) for k in range(5)],
        "rss_mb_after_first": round(rss[0], 1), "rss_mb_at_end": round(rss[-1], 1),
        "rss_growth_mb": round(rss[-1] - rss[0], 1),
        "rss_growth_mb_per_100_images": round(100 * (rss[-1] - rss[min(window, n - 1)]) / max(1, n - window), 2),
    }
    show(f"{n} scenes (64x48, Cycles 4 samples) in one worker", figures, args.json)


if __name__ == "__main__":
    main()
