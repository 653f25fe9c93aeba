"""`byo import-predictions --format inspect` of a large log in bounded memory. An Inspect log
keeps every sample's messages and events, images included (as data URIs): a log of a few MB on
disk decompresses to hundreds. The import keeps only the fields it reads, one sample at a time.

The log here: 300 samples, each with three copies of a 1 MB image string (its input message,
the model event, an attachment), 900 MB once decompressed, about 1 MB zipped. The import runs in
a process of its own under an address-space limit (RLIMIT_AS) of its baseline (the same import
of a 3-sample log, measured in the same test) plus MEMORY_BOUND: reading the samples all at once
(900 MB) would fail under it."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from eval_data import make_dataset

MEMORY_BOUND = 300 * 2**20  # bytes of address space above the baseline
IMAGE = "data:image/png;base64," + "iVBORw0KGgo" * (2**20 // 11)  # ~1 MB, compresses to almost nothing

RUNNER = """
import resource, sys
limit = int(sys.argv[1])
if limit:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from byo.cli import main
code = main(sys.argv[2:])
print("peak_rss_kib", open("/proc/self/status").read().split("VmHWM:")[1].split()[0], file=sys.stderr)
sys.exit(code)
"""


def eval_log(path: Path, ids: list[str], *, heavy: bool, as_json: bool = False) -> Path:
    header = {"version": 2, "status": "success", "eval": {"task": "byo_demo", "model": "openai/fake-vlm"}}
    samples = []
    for i, qid in enumerate(ids):
        image = IMAGE if heavy else "data:image/png;base64,AAAA"
        samples.append({
            "id": qid, "epoch": 1,
            "input": [{"role": "user", "content": [{"type": "image", "image": image}, {"type": "text", "text": "?"}]}],
            "events": [{"event": "model", "input": [{"content": [{"type": "image", "image": image}]}]}],
            "attachments": {f"a{i}": image},
            "output": {"model": "fake-vlm", "completion": str(2 + i % 5),
                       "choices": [{"message": {"role": "assistant", "content": str(2 + i % 5)},
                                    "stop_reason": "stop"}],
                       "usage": {"input_tokens": 100, "output_tokens": 1, "total_tokens": 101}},
            "total_time": 0.5})
    if as_json:
        path.write_text(json.dumps({**header, "samples": samples}))
        return path
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("header.json", json.dumps(header))
        for s in samples:
            archive.writestr(f"samples/{s['id']}_epoch_1.json", json.dumps(s))
    return path


def import_under_limit(log: Path, dataset: Path, run: str, limit: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", RUNNER, str(limit), "import-predictions", str(log), "--format",
                           "inspect", "--dataset", str(dataset), "--run", run],
                          capture_output=True, text=True, timeout=600)


def peak_rss(proc: subprocess.CompletedProcess) -> int:
    """The import's own peak resident size (VmHWM: getrusage's ru_maxrss would keep the peak of
    the test process it was forked from)."""
    return int(proc.stderr.split("peak_rss_kib")[-1].split()[0]) * 1024


def baseline_address_space(log: Path, dataset: Path) -> int:
    """The peak virtual size of the import of a small log: its /proc status, read at the end."""
    code = RUNNER.replace('print("peak_rss_kib"', 'print("vm", open("/proc/self/status").read().split("VmPeak:")[1]'
                                                  '.split()[0], "peak_rss_kib"')
    proc = subprocess.run([sys.executable, "-c", code, "0", "import-predictions", str(log), "--format", "inspect",
                           "--dataset", str(dataset), "--run", "small"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return int(proc.stderr.split("vm")[-1].split()[0]) * 1024


@pytest.mark.slow
def test_a_large_inspect_log_imports_within_the_memory_bound(tmp_path):
    dataset = make_dataset(tmp_path / "ds", n=300)
    ids = [json.loads(line)["id"] for line in (dataset / "questions.jsonl").read_text().splitlines()]
    small = eval_log(tmp_path / "small.eval", ids[:3], heavy=False)
    large = eval_log(tmp_path / "large.eval", ids, heavy=True)
    assert large.stat().st_size < 8 * 2**20  # a few MB on disk
    with zipfile.ZipFile(large) as archive:
        assert sum(i.file_size for i in archive.infolist()) > 900 * 10**6  # 900 MB of JSON inside

    limit = baseline_address_space(small, dataset) + MEMORY_BOUND
    proc = import_under_limit(large, dataset, "large", limit)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "300 answers (ok 300)" in proc.stderr
    rows = [json.loads(line) for line in (dataset / "runs" / "large" / "predictions.jsonl").read_text().splitlines()]
    assert [r["response"] for r in rows[:5]] == ["2", "3", "4", "5", "6"]
    assert peak_rss(proc) < 400 * 2**20, peak_rss(proc)  # measured: see docs/safety.md


@pytest.mark.slow
def test_a_large_json_log_keeps_one_sample_of_objects(tmp_path):
    """The .json form is read as text (its size in memory), its samples decoded one at a time."""
    dataset = make_dataset(tmp_path / "ds", n=60)
    ids = [json.loads(line)["id"] for line in (dataset / "questions.jsonl").read_text().splitlines()]
    small = eval_log(tmp_path / "small.json", ids[:3], heavy=False, as_json=True)
    large = eval_log(tmp_path / "large.json", ids, heavy=True, as_json=True)  # 180 MB of text
    limit = baseline_address_space(small, dataset) + large.stat().st_size + MEMORY_BOUND
    proc = import_under_limit(large, dataset, "large", limit)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "60 answers (ok 60)" in proc.stderr


def test_an_entry_that_inflates_past_the_bound_is_one_line_not_a_memory_error(tmp_path):
    """A sample entry of 400 MB of zeros (400 KB zipped), under an address-space limit of the small
    import's plus MEMORY_BOUND: the import is refused in one line naming the file (exit 2), instead
    of inflating the entry until memory runs out."""
    dataset = make_dataset(tmp_path / "ds", n=3)
    ids = [json.loads(line)["id"] for line in (dataset / "questions.jsonl").read_text().splitlines()]
    small = eval_log(tmp_path / "small.eval", ids, heavy=False)
    bomb = tmp_path / "bomb.eval"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("header.json", json.dumps({"version": 2, "status": "success",
                                                    "eval": {"task": "byo_demo", "model": "openai/fake-vlm"}}))
        with archive.open(f"samples/{ids[0]}_epoch_1.json", "w") as member:
            zeros = bytes(2**20)
            for _ in range(400):
                member.write(zeros)
    assert bomb.stat().st_size < 4 * 2**20
    limit = baseline_address_space(small, dataset) + MEMORY_BOUND
    proc = import_under_limit(bomb, dataset, "bomb", limit)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "MemoryError" not in proc.stderr and "Traceback" not in proc.stderr
    assert f"{bomb}: not an Inspect log" in proc.stderr and "not a log byo reads" in proc.stderr
    assert not (dataset / "runs" / "bomb").exists()
