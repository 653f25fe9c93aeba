"""Where `byo explain` writes, and how its record is read (the sample viewer shows the twins beside
each failure). Pure: no rendering, no model.

    DATASET/explain/RUN/explain.json          the record: factors, each failure's twins, the table
    DATASET/explain/RUN/explain.csv           key x factor: failures, changed, asked, flipped, share
    DATASET/explain/RUN/twins/FACTOR/         a dataset per factor: the failed images re-rendered with
                                              that one change, under their own names, and the run RUN
                                              asking them the same questions
"""

from __future__ import annotations

import re
from pathlib import Path

from byo.core.inputs import DATA_ERRORS, read_json

EXPLAIN = "explain"
RECORD = "explain.json"
TABLE = "explain.csv"
TWINS = "twins"


def explain_dir(run_dir: str | Path) -> Path:
    """DATASET/explain/RUN of the run DATASET/runs/RUN."""
    run_dir = Path(run_dir)
    return run_dir.parent.parent / EXPLAIN / run_dir.name


def factor_slug(name: str) -> str:
    """A factor's folder name: `camera overhead` -> camera_overhead, `blur.fstop = 9` -> blur.fstop_9."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_.")
    return slug or "factor"  # never "." or "..": the folder stays inside twins/


def load_twins(run_dir: str | Path) -> dict[str, list[dict]]:
    """Question id -> its twins as byo explain recorded them ({factor, image (relative to the
    dataset), outcome: flipped / still wrong / not asked / unchanged / invalid, response}); {}
    without a record, or with one that cannot be read (the viewer then shows no twins)."""
    path = explain_dir(run_dir) / RECORD
    if not path.is_file():
        return {}
    try:
        record = read_json(path)
        return {f["id"]: list(f["twins"]) for f in record["failures"]}
    except (*DATA_ERRORS, KeyError, TypeError):
        return {}

