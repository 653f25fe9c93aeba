"""Ctrl-C and SIGTERM at any moment of a command's start: while the command line is imported,
while the arguments are read, and once the command has begun: one line, exit 130 or 143, no
traceback, nothing written. The signal is sent by the process to itself when a chosen module is
imported (a hook on the import system), so the moment is the same on every run."""

from __future__ import annotations

import signal
import subprocess
import sys
import tomllib

import pytest
from conftest import ROOT

LAUNCH = """
import importlib.abc, os, signal, sys
class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == {trigger!r}:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), {signum})
        return None
sys.meta_path.insert(0, Hook())
sys.argv = ["byo", *{argv!r}]
from byo.__main__ import main
sys.exit(main())
"""

# (the module whose import sends the signal, when that is, the command)
MOMENTS = [
    ("rich", "importing the command line", ["export", "ds", "--format", "hf", "-o", "out"]),
    ("pydantic", "importing the command line", ["report", "run", "-o", "r.html"]),
    ("byo.export", "reading the arguments", ["export", "ds", "--format", "hf", "-o", "out"]),
    ("byo.export.source", "running the command", ["export", "ds", "--format", "hf", "-o", "out"]),
    ("byo.export.predictions", "running the command", ["import-predictions", "a.jsonl", "--format", "jsonl",
                                                        "--dataset", "ds"]),
]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize(("trigger", "moment", "argv"), MOMENTS, ids=[f"{m[0]}" for m in MOMENTS])
def test_a_signal_while_starting_is_one_line_and_its_exit_code(trigger, moment, argv, signum, tmp_path):
    (tmp_path / "ds").mkdir()
    before = sorted(p.name for p in tmp_path.rglob("*"))
    proc = subprocess.run([sys.executable, "-c", LAUNCH.format(trigger=trigger, signum=int(signum), argv=argv)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    name = signal.Signals(signum).name
    assert proc.returncode == 128 + signum, (moment, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "KeyboardInterrupt" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"stopped by {name}" in lines[0], proc.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written


def test_the_byo_script_starts_with_the_signal_handlers():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["byo"] == "byo.__main__:main"
    assert "def main" in (ROOT / "byo" / "__main__.py").read_text()
