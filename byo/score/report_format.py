"""What the report's sections share: the runs of a report and their lookups (`Runs`), values
and intervals written for people, figures as data URIs, thumbnails."""

from __future__ import annotations

import base64
import io
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

from byo.core.inputs import read_json
from byo.core.report_tables import ALL, num, pct
from byo.questions.load import SUMMARY_FILE

if TYPE_CHECKING:
    from byo.score.run import Scores

MIN_SPOKES = 3  # a radar chart needs three skills
# The precision / recall / F1 a key may have (byo.score.tables), each named for what it is.
PRF_KINDS = (("byoeval", "BYO-Eval"), ("macro", "macro"), ("micro", "set (micro)"), ("yes", "yes"))
CLUSTERED = "95% intervals clustered by image (design-effect Wilson: all questions of an image and its prompt variants " \
            "count as one cluster)"
MISTAKES = 12
# A level where more than this share of a key's questions were not asked (skipped by `byo questions`:
# the image as rendered does not decide them) is marked next to the key's accuracy curve: the curve
# over such a level is not a finding.
SKIPPED_SHARE = 0.5


def estimable(v, digits: int = 2) -> str:
    """A statistic the data may not carry (a ratio over no answers): "not estimable" then."""
    return "not estimable" if v is None else f"{v:.{digits}f}"


def interval(lo, hi, percent: bool = True) -> str:
    if lo is None or hi is None:
        return ""
    return f"[{pct(lo)}–{pct(hi)}]" if percent else f"[{num(lo)}–{num(hi)}]"


def show(value) -> str:
    """An answer for people: lists joined, everything else as text."""
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def data_uri(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def figure(data: bytes, caption: str) -> dict:
    return {"src": data_uri(data), "caption": caption}


# --- lookups ---------------------------------------------------------------------------------
class Runs:
    def __init__(self, runs: list[Scores]):
        self.runs = runs
        self.human: list = []  # the annotator panels of byo human (byo.score.humans.panels), set by the report
        # a structured run (byo eval --structured) is told from the free-form run of its model
        models = [(s.facts.get("model") or s.facts["run"]) + (" (structured)" if s.facts.get("structured") else "")
                  for s in runs]
        # A model that appears twice is told apart by its dataset (the same model on the demo's
        # two datasets), or else by its run.
        datasets = [Path(s.facts.get("dataset") or "").name for s in runs]
        self.labels = []
        for m, s, d in zip(models, runs, datasets, strict=True):
            same_model = [x for x, y in zip(datasets, models, strict=True) if y == m]
            self.labels.append(m if len(same_model) == 1 else f"{m} ({d})" if same_model.count(d) == 1
                               else f"{m} ({s.facts['run']})")


    def question_summaries(self) -> list[tuple[str, dict]]:
        """(dataset, its questions summary) for each dataset of the runs whose summary `byo
        questions` wrote beside the questions, once per dataset."""
        out, seen = [], set()
        for s in self.runs:
            dataset = s.facts.get("dataset")
            path = Path(dataset) / SUMMARY_FILE if dataset else None
            if path is None or dataset in seen or not path.is_file():
                continue
            seen.add(dataset)
            out.append((dataset, read_json(path)))
        return out
    def items(self):
        return zip(self.labels, self.runs, strict=True)

    def metric(self, scores: Scores, key: str, variant: str = ALL, variable: str = "", level: str = "",
               variable2: str = "", level2: str = "") -> dict | None:
        for r in scores.tables["metrics"]:
            if (r["key"], r["variant"], r["variable"], r["level"], r["variable2"], r["level2"]) == (
                    key, variant, variable, level, variable2, level2):
                return r
        return None

    def keys(self) -> list[tuple[str, str, str]]:
        """(key, task, answer type) of every key in any run, in first-seen order."""
        seen = {}
        for s in self.runs:
            for r in s.tables["metrics"]:
                if r["key"] != "*":
                    seen.setdefault(r["key"], (r["key"], r["task"], r["answer_type"]))
        return list(seen.values())

    def variants(self) -> list[str]:
        return sorted({r["variant"] for s in self.runs for r in s.tables["metrics"] if r["variant"] != ALL})

    def levels(self, key: str) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for s in self.runs:
            for r in s.tables["metrics"]:
                if r["key"] == key and r["variant"] == ALL and r["variable"] and not r["variable2"]:
                    values = out.setdefault(r["variable"], [])
                    if r["level"] not in values:
                        values.append(r["level"])
        return out


def point(row: dict | None, metric: str = "accuracy") -> dict | None:
    if not row or row.get(metric) is None:
        return None
    return {"value": row[metric], "lo": row.get(f"{metric}_lo"), "hi": row.get(f"{metric}_hi"),
            "parse_rate": row.get("parse_rate"), "n": row.get("n"), "level": row.get("level")}


def parse_caption(runs: Runs, key: str = "*", variant: str = ALL) -> str:
    parts = []
    for label, s in runs.items():
        row = runs.metric(s, key, variant)
        if row:
            parts.append(f"{label} {pct(row['parse_rate'])} of {row['n']}")
    return "Parse rate: " + ", ".join(parts) + "."


def _level_label(text: str) -> str:
    """A level as the summary writes it (JSON) in the metrics tables' form (tables.Levels)."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return f"{value:g}" if isinstance(value, float) else value if isinstance(value, str) else json.dumps(value)


def skipped_levels(runs: Runs, key: str) -> list[dict]:
    """The levels where more than SKIPPED_SHARE of `key`'s questions (every key's, for "*") were
    skipped, over the datasets of the runs (their questions summaries): variable, level, skipped,
    questions."""
    counts: dict[tuple[str, str], Counter] = {}
    for _, summary in runs.question_summaries():
        by_key = summary.get("key_levels", {})
        for k, variables in by_key.items():
            if key not in ("*", k):
                continue
            for variable, levels in variables.items():
                for level, c in levels.items():
                    counts.setdefault((variable, _level_label(level)), Counter()).update(c)
    out = []
    for (variable, level), c in counts.items():
        total = sum(c.values())
        if total and c.get("skipped", 0) > SKIPPED_SHARE * total:
            out.append({"variable": variable, "level": level, "skipped": c["skipped"], "questions": total})
    return out


def _short(text, n: int) -> str:
    text = text or ""
    return text if len(text) <= n else text[: n - 1] + "…"


class Thumbnails:
    def __init__(self, side: int = 260):
        self.side = side
        self.cache: dict[Path, str | None] = {}

    def __call__(self, path: Path) -> str | None:
        if path not in self.cache:
            try:
                with Image.open(path) as im:
                    im = im.convert("RGB")
                    im.thumbnail((self.side, self.side))
                    buffer = io.BytesIO()
                    im.save(buffer, format="JPEG", quality=85)
                self.cache[path] = data_uri(buffer.getvalue(), "image/jpeg")
            except (OSError, ValueError, Image.DecompressionBombError):  # an unreadable image: no thumbnail
                self.cache[path] = None
        return self.cache[path]
