"""`byo score RUN`: parse a run's answers and write RUN/parsed.jsonl, RUN/scores.json and CSV tables."""

from __future__ import annotations

import contextlib
import csv
import gc
import io
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from byo import __version__
from byo.core.dataset import atomic_write_text
from byo.core.errors import ConfigError
from byo.core.outputs import check_file_output
from byo.core.report_tables import ScoringOptions
from byo.score import builtin, psychometric, registry, stability, tables
from byo.score.judge import Judge, judge_rows
from byo.score.parse import FAMILY_TYPES, STATUSES
from byo.score.rows import PREDICTIONS, load_run, partial_note, run_paths
from byo.score.training import training_answers

PARSED = "parsed.jsonl"
# What the report reads of each row of parsed.jsonl (a file without them is scored again).
ROW_KEYS = frozenset({"id", "image", "key", "variant", "levels", "answer_type", "answer", "response", "status",
                      "value", "correct", "error", "prompt", "note", "candidates", "recall_at_1", "chance"})
SCORES = "scores.json"


@dataclass
class Scores:
    facts: dict
    rows: list[dict]
    tables: dict[str, list[dict]] = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    written: dict[str, Path] = field(default_factory=dict)  # what score_run wrote, by table

    @property
    def overall(self) -> dict:
        """The row of all questions asked unflagged (byo.score.builtin.overall)."""
        return builtin.overall(self.tables, self.facts)

    @property
    def readable(self) -> bool:
        """Whether any question was asked unflagged (the row of all questions exists)."""
        return "note" not in self.overall

    @property
    def partial(self) -> str | None:
        """"partial: 68 of 330 answered" when some questions of the run have no prediction."""
        return partial_note(self.facts)


def check_complete(scores: Scores, run_dir: Path) -> None:
    """For `require_complete`: a partial run is an error."""
    if scores.partial:
        raise ConfigError(str(Path(run_dir) / PREDICTIONS), [(
            "`require_complete`", f"{scores.partial}; expected every question answered: rerun the same "
                                  "byo eval command to finish the run")])


@contextlib.contextmanager
def cycle_collector_paused():
    """Python's cyclic garbage collector, paused: scored rows are plain dicts and lists without
    cycles, and every full collection would go over all of them again (a second or two for 100k)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def compute(run_dir: Path, *, n_boot: int = 1000, seed: int = 0, require_complete: bool = False,
            tolerance: float = 0, criterion: float = psychometric.CRITERION, bins: tables.Bins | None = None,
            perplexity_model: str | None = None, judge: Judge | None = None) -> Scores:
    with cycle_collector_paused():
        return _compute(run_dir, n_boot=n_boot, seed=seed, require_complete=require_complete, tolerance=tolerance,
                        criterion=criterion, bins=bins, perplexity_model=perplexity_model, judge=judge)


def _compute(run_dir: Path, *, n_boot: int, seed: int, require_complete: bool, tolerance: float,
             criterion: float, bins: tables.Bins | None = None, perplexity_model: str | None = None,
             judge: Judge | None = None) -> Scores:
    rows, facts = load_run(Path(run_dir))
    if require_complete:
        check_complete(Scores(facts=facts, rows=rows), run_dir)
    if not rows:
        raise ConfigError(str(Path(run_dir) / PREDICTIONS), [("<file>", "no predictions to score")])
    if judge is not None:  # the rows the rules could not read, read by a judge (byo.score.judge)
        facts["judge"] = judge_rows(rows, Path(run_dir), judge).to_json()
    repeats = stability.repeat_runs(Path(run_dir))
    others: tuple[list[dict], ...] = ()
    if len(repeats) > 1:
        facts["repeats"] = [p.name for p in repeats]
        others = tuple(load_run(p)[0] for p in repeats[1:])
    options = ScoringOptions(n_boot=n_boot, seed=seed, perplexity_model=perplexity_model, tolerance=tolerance,
                             criterion=criterion, bins=bins, train=family_training(run_dir, rows), repeats=others,
                             repeat_names=tuple(facts.get("repeats", ())))
    return Scores(facts=facts, rows=rows, settings={"bootstrap": n_boot, "seed": seed, "confidence": 0.95,
                                                    "clustering": "image", "tolerance": tolerance,
                                                    "criterion": criterion, "bins": _bins_setting(bins),
                                                    **_judge_setting(facts),
                                                    **({"perplexity_model": perplexity_model} if perplexity_model
                                                       else {})},
                  tables=registry.measure(rows, options=options))


def _judge_setting(facts: dict) -> dict:
    """The judge that read what the rules could not (its model and prompt template), if one did."""
    judge = facts.get("judge")
    return {"judge": {k: judge[k] for k in ("judge", "template", "template_sha256")}} if judge else {}


def _bins_setting(bins: tables.Bins | None) -> dict[str, list[list[float]]]:
    return {var: [[lo, hi] for lo, hi in ranges] for var, ranges in (bins or {}).items()}


def family_training(run_dir: Path, rows: list[dict]) -> dict[str, list]:
    """The training labels of the run's dataset for the keys a family table measures."""
    keys = {r["key"] for r in rows if r["answer_type"] in FAMILY_TYPES
            and FAMILY_TYPES[r["answer_type"]].table is not None}
    return training_answers(run_paths(Path(run_dir))[0], keys) if keys else {}


def all_tables(rows: list[dict], *, n_boot: int, seed: int, tolerance: float = 0,
               criterion: float = psychometric.CRITERION, train: dict[str, list] | None = None,
               bins: tables.Bins | None = None, perplexity_model: str | None = None) -> dict[str, list[dict]]:
    """Every registered table of scored rows (byo.score.registry; stability is empty: it needs the
    repeats); `perplexity_model`: the language model of perplexity checks (None: skipped)."""
    return registry.measure(rows, options=ScoringOptions(
        n_boot=n_boot, seed=seed, perplexity_model=perplexity_model, tolerance=tolerance, criterion=criterion,
        bins=bins, train=train))


def _clean(value):
    """JSON-safe: NaN and infinities become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


_STRICT_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False)  # one for every row


def json_line(row: dict) -> str:
    """The row as one line of JSON, NaN and infinities as null; most rows have none, and skip the
    copy `_clean` makes."""
    try:
        return _STRICT_JSON.encode(row) + "\n"
    except ValueError:
        return json.dumps(_clean(row), ensure_ascii=False) + "\n"


def to_csv(rows: list[dict]) -> str:
    fields = list(dict.fromkeys(k for r in rows for k in r))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: (round(v, 6) if isinstance(v, float) else v) for k, v in _clean(r).items()})
    return buffer.getvalue()


def write(scores: Scores, run_dir: Path) -> dict[str, Path]:
    run_dir = Path(run_dir)
    paths = {"parsed": run_dir / PARSED, "scores": run_dir / SCORES}
    atomic_write_text(paths["parsed"], "".join(json_line(r) for r in scores.rows))
    counts = Counter(r["status"] for r in scores.rows)
    doc = {"byo_version": __version__, "run": scores.facts, "settings": scores.settings, "definitions": registry.DEFINITIONS,
           "statuses": {s: counts[s] for s in STATUSES}, "overall": scores.overall, "tables": scores.tables}
    atomic_write_text(paths["scores"], json.dumps(_clean(doc), indent=1, ensure_ascii=False) + "\n")
    for name in scores.tables:  # every registered table (byo.score.registry)
        if scores.tables[name]:
            paths[name] = run_dir / f"{name}.csv"
            atomic_write_text(paths[name], to_csv(scores.tables[name]))
    return paths


def score_run(run_dir: Path, *, n_boot: int = 1000, seed: int = 0, require_complete: bool = False,
              tolerance: float = 0, criterion: float = psychometric.CRITERION,
              bins: tables.Bins | None = None, perplexity_model: str | None = None,
              judge: Judge | None = None) -> tuple[Scores, dict[str, Path]]:
    """Nothing is written when `require_complete` and the run is partial, nor over a link. `judge`:
    the answers the rules leave unparsed or ambiguous are read by it (byo.score.judge)."""
    for path in [Path(run_dir) / PARSED, Path(run_dir) / SCORES, *Path(run_dir).glob("*.csv")]:
        check_file_output(path, force=False, flag="RUN", own_place=True)
    scores = compute(run_dir, n_boot=n_boot, seed=seed, require_complete=require_complete, tolerance=tolerance,
                     criterion=criterion, bins=bins, perplexity_model=perplexity_model, judge=judge)
    with cycle_collector_paused():
        scores.written = write(scores, run_dir)
    return scores, scores.written


def load_scores(run_dir: Path, *, n_boot: int = 1000, seed: int = 0, require_complete: bool = False,
                tolerance: float = 0, criterion: float = psychometric.CRITERION,
                bins: tables.Bins | None = None) -> Scores:
    """The run's written scores, or fresh ones when they are missing, older than the predictions,
    written by an older byo (before runs were marked partial, or without breaking points), with
    another tolerance, criterion or bins, or when they do not read (they are made from the predictions
    again, never trusted half)."""
    run_dir = Path(run_dir)
    scores = _written_scores(run_dir, tolerance, criterion, _bins_setting(bins))
    if scores is None:
        return score_run(run_dir, n_boot=n_boot, seed=seed, require_complete=require_complete, tolerance=tolerance,
                         criterion=criterion, bins=bins)[0]
    if require_complete:
        check_complete(scores, run_dir)
    return scores


def _written_scores(run_dir: Path, tolerance: float, criterion: float, bins: dict | None = None) -> Scores | None:
    scores_path, parsed_path, predictions = run_dir / SCORES, run_dir / PARSED, run_dir / PREDICTIONS
    fresh = (scores_path.is_file() and parsed_path.is_file() and predictions.is_file()
             and all(scores_path.stat().st_mtime >= (p / PREDICTIONS).stat().st_mtime
                     for p in stability.repeat_runs(run_dir)))
    if not fresh:
        return None
    try:
        doc = json.loads(scores_path.read_bytes())
        settings = doc.get("settings") or {}
        written = doc.get("tables", {})
        if (not isinstance(doc.get("run"), dict) or "partial" not in doc["run"]
                or not set(registry.TABLES) <= set(written)  # written before a table was registered
                or any(f not in r for name, fields in registry.FIELDS.items() if fields
                       for r in written[name] for f in fields)
                or (settings.get("tolerance"), settings.get("criterion"), settings.get("bins"))
                != (tolerance, criterion, bins or {})):
            return None
        rows = [json.loads(line) for line in parsed_path.read_bytes().splitlines() if line.strip()]
        scores = Scores(facts=doc["run"], rows=rows, tables=doc["tables"], settings=doc["settings"])
        if not all(isinstance(r, dict) and ROW_KEYS <= r.keys() for r in rows) \
                or not isinstance(scores.tables, dict) or not isinstance(scores.settings, dict):
            return None
        scores.overall  # noqa: B018 -- the tables the report needs are there
    except (ValueError, RecursionError, KeyError, TypeError, AttributeError, StopIteration):
        return None
    return scores
