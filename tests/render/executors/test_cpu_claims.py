"""Render workers that are not told their CPUs (Ray actors, --in-process) claim distinct ones."""

import json
import os
import subprocess
import sys

import pytest

CLAIMER = """
import json, os, sys
from byo.render.executors import claim_cpus
os.sched_setaffinity(0, {cpus})
claimed = claim_cpus(1, lock_dir=sys.argv[1])
print(json.dumps([sorted(claimed or []), sorted(os.sched_getaffinity(0))]), flush=True)
sys.stdin.readline()  # hold the claim until told to exit
"""


def _claimer(cpus: set[int], lock_dir) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CLAIMER.format(cpus=cpus), str(lock_dir)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to share out")
def test_workers_claim_distinct_cpus_and_release_them_when_they_exit(tmp_path):
    two = set(sorted(os.sched_getaffinity(0))[:2])
    workers, seen = [], []
    try:
        for _ in range(3):  # one after the other: each has claimed before the next starts
            workers.append(_claimer(two, tmp_path))
            seen.append(json.loads(workers[-1].stdout.readline()))
        first = workers[0]
        (claimed_1, kept_1), (claimed_2, kept_2), (claimed_3, kept_3) = seen
        assert sorted(claimed_1 + claimed_2) == sorted(two)  # one CPU each, not the same one
        assert (kept_1, kept_2) == (claimed_1, claimed_2)
        assert claimed_3 == [] and set(kept_3) == two  # all taken: left as it was
        first.communicate("\n")
        workers.append(_claimer(two, tmp_path))
        assert json.loads(workers[-1].stdout.readline())[0] == claimed_1  # freed when its holder exited
    finally:
        for p in workers:
            if p.poll() is None:
                p.communicate("\n")
