"""`byo human` in a process of its own, on a port the OS assigns, for the tests; small datasets of
real renders (the golden chess and poker images) with their questions; and headless Chromium."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

from conftest import ROOT

from byo.cli import main

GOLDEN = ROOT / "tests" / "golden"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
# Ten keys of the chess identification golden (two images): 20 questions of every input a chess
# question uses (numbers, rows, columns, colours, the 3 x 3 position words).
CHESS_KEYS = ("count_pieces", "count_squares", "count_identification_white_pieces",
              "count_identification_black_pieces", "identify_color_one_piece", "localize_row_one_piece",
              "localize_column_one_piece", "localize_position_word_one_piece", "count_localization_pieces_on_column",
              "identify_localization_piece_color")
URL = re.compile(r"open (http://[^\s]+?:(\d+)/)(\?token=([\w-]+))?")


def golden_dataset(work: Path, name: str = "chess__identification", keys=CHESS_KEYS, unreadable: str | None = None) -> Path:
    """A copy of a golden render (legends without the file records the goldens do not keep) with
    its questions (`unreadable`: byo questions' policy, the config's by default)."""
    out = work / name
    for sub in ("images", "masks", "legends"):
        shutil.copytree(GOLDEN / name / sub, out / sub)
    for path in (out / "legends").glob("*.json"):
        legend = json.loads(path.read_text())
        legend.pop("files", None)
        path.write_text(json.dumps(legend))
    args = ["questions", str(out)] + (["--keys", ",".join(keys)] if keys else [])
    args += ["--unreadable", unreadable] if unreadable else []
    assert main(args) == 0
    return out


def questions(dataset: Path, file: str = "questions.jsonl") -> dict[str, dict]:
    return {q["id"]: q for q in map(json.loads, (dataset / file).read_text().splitlines())}


def snapshot(root: Path) -> dict[str, tuple]:
    """Every file under root: size, SHA-256 and modification time."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            st = p.stat()
            out[p.relative_to(root).as_posix()] = (st.st_size, hashlib.sha256(p.read_bytes()).hexdigest(), st.st_mtime_ns)
        elif p.is_dir():
            out[p.relative_to(root).as_posix() + "/"] = ()
    return out


class Server:
    """`byo human DATASET --port 0 ...` until stopped; `url` is where it listens."""

    def __init__(self, dataset: Path, *args: str, host: str = "127.0.0.1", launcher: tuple[str, ...] = ("-m", "byo.cli")):
        self.command = [sys.executable, *launcher, "human", str(dataset), "--host", host, "--port", "0", *args]
        self.proc = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.lines: list[str] = []
        self.url = self.token = None
        self.port = 0
        found = threading.Event()

        def read():
            for line in self.proc.stdout:
                self.lines.append(line)
                m = URL.search(line)
                if m and not found.is_set():
                    self.port = int(m.group(2))
                    self.url = f"http://127.0.0.1:{self.port}/"
                    self.token = m.group(4)
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(120) or self.url is None:
            self.stop()
            raise RuntimeError("byo human did not start:\n" + self.output)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(60)
        finally:
            time.sleep(0.05)  # the reader thread takes the last lines

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def run_command(dataset: Path, *args: str, timeout: float = 60) -> SimpleNamespace:
    """`byo human` expected to exit by itself (bad settings), in this process (in a thread, so that
    one that serves instead fails the test after `timeout` seconds): its returncode, stdout, stderr."""
    out, err, done = io.StringIO(), io.StringIO(), {}

    def command() -> None:
        try:
            done["code"] = main(["human", str(dataset), "--port", "0", *args])
        except SystemExit as stop:
            done["code"] = stop.code

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        thread = threading.Thread(target=command, daemon=True)
        thread.start()
        thread.join(timeout)
    assert "code" in done, f"byo human {' '.join(args)} did not exit within {timeout} s"
    return SimpleNamespace(returncode=done["code"], stdout=out.getvalue(), stderr=err.getvalue())
