"""The recycling worker pool: every job reported once, crashes reported, workers recycled."""

from __future__ import annotations

from byo.pool import run_jobs


def run(values, **kw):
    seen = {}

    def done(key, result, error):
        assert key not in seen
        seen[key] = (result, error)

    run_jobs(((v, (v,)) for v in values), on_done=done, handler="pool_jobs:echo", threads=3, **kw)
    return seen


def test_every_job_once_and_workers_recycled():
    values = [v for v in range(12) if v != 7]  # 7 crashes its worker
    seen = run(values, workers=2, recycle_after=3)
    assert sorted(seen) == values
    results = [r for r, _ in seen.values()]
    assert sorted(r["value"] for r in results) == values
    pids = {r["pid"] for r in results}
    assert len(pids) >= 4  # 10 jobs, at most 3 per process
    assert all(r["threads"] == 3 for r in results)


def test_errors_and_crashes_are_reported_and_the_run_goes_on():
    seen = run([1, 7, 13, 20, 21], workers=1, recycle_after=50)
    assert seen[13] == (None, "unlucky")
    assert seen[7][0] is None and "render worker died (exit code 3)" in seen[7][1]
    assert all(seen[v][1] is None for v in (1, 20, 21))
