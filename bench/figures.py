"""How every benchmark reports: a table of its figures, and optionally the same as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.table import Table


def show(title: str, figures: dict, json_path: Path | None = None) -> None:
    table = Table("figure", "value", title=title)
    for key, value in figures.items():
        table.add_row(key, str(value))
    Console().print(table)
    if json_path:
        json_path.write_text(json.dumps(figures, indent=1) + "\n")
