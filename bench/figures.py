"""How every benchmark reports: a table of its figures on the console, and a section file
bench/results/<name>.json that bench/report.py merges into bench/results.json and results.md
(its docstring gives the format). `Section` records the machine at the start and the end."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")  # small sizes: `make bench-quick`


def show(title: str, figures: dict, json_path: Path | None = None) -> None:
    table = Table("figure", "value", title=title)
    for key, value in figures.items():
        table.add_row(key, str(value))
    Console().print(table)
    if json_path:
        json_path.write_text(json.dumps(figures, indent=1) + "\n")


def write_block(path: Path, block: str, begin: str, end: str) -> None:
    """Put `block` (which starts with the `begin` marker and ends with `end`) in place of the one
    between those markers in the doc at `path`, or at its end; a blank line follows it."""
    text = path.read_text()
    if begin in text:
        head, rest = text.split(begin, 1)
        text = head + block + "\n" + rest.split(end, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + block
    path.write_text(text)


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def cpu_model() -> str | None:
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.processor() or None
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), None)


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def machine_at_start() -> dict:
    status = git("status", "--porcelain", "--untracked-files=no")
    return {
        "cpus": os.cpu_count(), "cpus_usable": len(os.sched_getaffinity(0)), "cpu_model": cpu_model(),
        "python": platform.python_version(), "platform": platform.platform(),
        "git_commit": git("rev-parse", "HEAD"), "git_dirty": bool(status) if status is not None else None,
        "started": now(), "load_average_start": load_average(),
    }


class Section:
    """One benchmark's results: figures with units, ratios between them, tables."""

    def __init__(self, name: str, title: str, about: str = ""):
        self.name, self.title, self.about = name, title, about
        self.machine = machine_at_start()
        self.figures: dict[str, dict] = {}
        self.ratios: dict[str, dict] = {}
        self.tables: list[dict] = []

    def figure(self, key: str, value, unit: str = "", label: str = "", *, at_least: float | None = None,
               at_most: float | None = None) -> None:
        """`at_least` / `at_most`: what the issue requires of it."""
        entry = {"value": value, "unit": unit, "label": label or key}
        entry.update({k: v for k, v in (("at_least", at_least), ("at_most", at_most)) if v is not None})
        self.figures[key] = entry

    def ratio(self, key: str, of: str, to: str, label: str = "", *, at_least: float | None = None) -> None:
        """figures[of] / figures[to], both already given."""
        top, bottom = self.figures[of]["value"], self.figures[to]["value"]
        entry = {"value": round(top / bottom, 2) if bottom else None, "of": of, "to": to, "label": label or key}
        if at_least is not None:
            entry["at_least"] = at_least
        self.ratios[key] = entry

    def table(self, name: str, columns: list[tuple[str, str]], rows: list[list]) -> None:
        """`columns`: (name, unit) pairs, unit "" for none."""
        self.tables.append({"name": name, "columns": [{"name": c, "unit": u} for c, u in columns], "rows": rows})

    def to_json(self) -> dict:
        return {"section": self.name, "title": self.title, "about": self.about, "quick": QUICK,
                "machine": self.machine, "figures": self.figures, "ratios": self.ratios, "tables": self.tables}

    def write(self, path: Path | None) -> dict:
        """Ends the section (the load average now), prints it, and writes it to `path` if given."""
        self.machine.update({"finished": now(), "load_average_end": load_average()})
        console = Console()
        table = Table("figure", "value", "unit", title=self.title)
        for entry in self.figures.values():
            table.add_row(entry["label"], str(entry["value"]), entry["unit"])
        for entry in self.ratios.values():
            table.add_row(entry["label"], f"{entry['value']}", "x")
        console.print(table)
        doc = self.to_json()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        return doc
