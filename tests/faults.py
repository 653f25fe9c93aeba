"""A command line run with a fault at a chosen moment, for the safety table (tests/test_safety_table.py)
and the human study's kill test: a fork of the test process (byo already imported: fast) or a
process of its own (`python tests/faults.py KIND AT -- byo arguments`, for `byo human`).

The moments are the command's durable-write steps: each call of os.fsync and os.replace. A run
counts them (`count`); a fault then strikes at the k-th one: `kill` (SIGKILL, before the step is
done: a kill -9 in the middle of writing) or `term` (SIGTERM to itself: handled as a user's
kill). `fsize`: a limit on the size of any file written (RLIMIT_FSIZE, with SIGXFSZ ignored, so
that a write past it fails as on a full disk)."""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

EVENTS = ("fsync", "replace")
ANSWER = b'"provider": "human"'  # the `cut` fault: the k-th write of a human's answer, cut in half


class Faults:
    def __init__(self, kind: str | None, at: int):
        self.kind, self.at, self.count = kind, at, 0
        self.real = {name: getattr(os, name) for name in (*EVENTS, "write")}
        for name in EVENTS:
            setattr(os, name, self._wrap(name))
        self.answers = 0
        if kind == "cut":
            os.write = self._cut

    def _wrap(self, name):
        real = self.real[name]

        def step(*args, **kwargs):
            self.count += 1
            if self.count == self.at and self.kind == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            result = real(*args, **kwargs)
            if self.count == self.at and self.kind == "term":
                os.kill(os.getpid(), signal.SIGTERM)
            return result

        return step

    def _cut(self, fd, data):
        """os.write, but the `at`-th answer of a human is written in half, then SIGKILL."""
        if ANSWER in bytes(data):
            self.answers += 1
            if self.answers == self.at:
                self.real["write"](fd, bytes(data)[: len(data) // 2])
                os.kill(os.getpid(), signal.SIGKILL)
        return self.real["write"](fd, data)


@dataclass
class Result:
    code: int | None  # the exit status; None when killed by a signal
    signal: int | None
    out: str
    err: str
    steps: int  # durable-write steps taken (a counting run)

    @property
    def text(self) -> str:
        return self.out + self.err


def run_forked(argv: list[str], cwd: Path, *, kind: str | None = None, at: int = 0, fsize: int | None = None,
               timeout: float = 300) -> Result:
    """`byo ARGV` in a fork of this process, with the fault asked for."""
    from byo.cli import main

    logs = Path(cwd) / ".faults"
    logs.mkdir(exist_ok=True)
    out, err, steps = logs / "out", logs / "err", logs / "steps"
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 98
        try:
            os.chdir(cwd)
            for fd, path in ((1, out), (2, err)):
                f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(f, fd)
                os.close(f)
            sys.stdout = open(1, "w", closefd=False)
            sys.stderr = open(2, "w", closefd=False)
            if fsize is not None:
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
                resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, hard))
            faults = Faults(kind, at)
            try:
                code = main(argv)
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 2
            _unlimit()
            faults.real["replace"](str(_write(steps, str(faults.count))), str(steps))
        except BaseException:
            _unlimit()
            traceback.print_exc()
        finally:  # whatever happened, the child ends here: it never returns into the test
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise TimeoutError(f"byo {' '.join(argv)} did not end in {timeout} s")
        time.sleep(0.02)
    result = Result(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else None,
                    os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                    out.read_text(errors="replace"), err.read_text(errors="replace"),
                    int(steps.read_text()) if steps.is_file() else 0)
    for path in (out, err, steps):
        path.unlink(missing_ok=True)
    logs.rmdir()
    return result


def run_process(argv: list[str], cwd: Path, *, kind: str | None = None, at: int = 0, fsize: int | None = None,
                timeout: float = 600) -> Result:
    """`byo ARGV` in a process of its own (for a render: bpy is not forked), with the fault asked for."""
    import subprocess

    def limit() -> None:
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an ignored signal stays ignored across exec
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    proc = subprocess.run([sys.executable, __file__, kind or "none", str(at), "--", *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, preexec_fn=limit)
    steps = 0
    for line in proc.stderr.splitlines():
        if line.startswith('{"fault steps"'):
            steps = json.loads(line)["fault steps"]
    err = "".join(line + "\n" for line in proc.stderr.splitlines() if not line.startswith('{"fault steps"'))
    return Result(proc.returncode if proc.returncode >= 0 else None, -proc.returncode if proc.returncode < 0 else None,
                  proc.stdout, err, steps)


def _unlimit() -> None:
    hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
    resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))


def _write(path: Path, text: str) -> Path:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    return tmp


def main() -> None:
    """`python tests/faults.py KIND AT -- ARGV`: byo ARGV in this process with the fault (KIND
    none: counting only; the count is printed to stderr as `fault steps: N` at the end)."""
    kind, at = sys.argv[1], int(sys.argv[2])
    argv = sys.argv[sys.argv.index("--") + 1:]
    faults = Faults(None if kind == "none" else kind, at)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from byo.cli import main as byo_main

    try:
        code = byo_main(argv)
    finally:
        print(json.dumps({"fault steps": faults.count}), file=sys.stderr, flush=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
