"""`byo report RUN... -o report.html`: one self-contained HTML page comparing runs (models) and
prompt variants; plots and images are inlined as base64."""

from __future__ import annotations

import base64
import datetime as dt
import io
import json
import multiprocessing
import os
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import jinja2
import numpy as np
from PIL import Image

from byo import __version__
from byo.core.dataset import atomic_write_text
from byo.core.figures import preload as preload_drawing
from byo.core.inputs import read_json
from byo.core.paths import inside, relative_url
from byo.core.report_tables import FORMATS, num, pct  # noqa: F401  (FORMATS: byo score's printed tables)
from byo.questions.load import SUMMARY_FILE
from byo.scene.setup import preset_unit
from byo.score import humans, plots
from byo.score import psychometric as psy
from byo.score.compare import TEST_SIGN, compare, question_difference, testing_summary
from byo.score.cost import cost_section
from byo.score.heat import MIN_CELL_QUESTIONS, confusion_table, heat_table
from byo.score.metrics import clustered_proportion, group_by, nmae_term
from byo.score.parse import STATUSES
from byo.score.registry import TABLES as DECLARED
from byo.score.rows import NUMERIC, SETS
from byo.score.run import DEFINITIONS, Scores
from byo.score.tables import ALL
from byo.score.vocab import POSITION_WORDS

TEMPLATE = Path(__file__).with_name("templates") / "report.html.j2"
# The built-in sections, in order; the declared tables (byo.score.registry: shared metrics and the
# families') come between localization and parsing. Only sections with something to show are written.
SECTIONS = [("overview", "Overview"), ("models", "Model comparison"), ("skills", "Skill profile"),
            ("humans", "Human agreement"), ("paired", "Paired comparisons"), ("variants", "Prompt variants"),
            ("prompts", "Models x prompts"), ("levels", "Per level"), ("ranges", "Level ranges"),
            ("truths", "Per true value"),
            ("breaking", "Breaking points"), ("stability", "Repeat stability"), ("errors", "Signed errors"),
            ("confusion", "Confusion matrices"), ("localization", "Localization"), ("parsing", "Parsing"),
            ("mistakes", "Worst mistakes"), ("cost", "Cost"), ("definitions", "Definitions")]
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


# --- formatting ---------------------------------------------------------------------------
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


# --- sections --------------------------------------------------------------------------------
def overview(runs: Runs) -> list[dict]:
    out = []
    for label, s in runs.items():
        o = runs.metric(s, "*") or {}  # none where every key was set apart (a fixed answer)
        counts = Counter(r["status"] for r in s.rows)
        out.append({"label": label, "run": s.facts["run"], "provider": s.facts.get("provider"),
                    "reference": s.facts.get("reference"), "dataset": s.facts.get("dataset"),
                    "n": len(s.rows), "asked": s.facts.get("asked", len(s.rows)), "partial": s.partial,
                    "undecidable": s.facts.get("undecidable", 0),
                    "stopped": s.facts.get("stopped"),
                    "statuses": ", ".join(f"{k} {counts[k]}" for k in STATUSES if counts[k]),
                    "parse_rate": pct(o.get("parse_rate")), "accuracy": pct(o.get("accuracy")),
                    "interval": interval(o.get("accuracy_lo"), o.get("accuracy_hi"))})
    return out


def models_section(runs: Runs) -> dict:
    keys = runs.keys()
    groups = ["all questions"] + [k for k, _, _ in keys]
    series = {label: [point(runs.metric(s, "*"))] + [point(runs.metric(s, k)) for k, _, _ in keys]
              for label, s in runs.items()}
    fig = figure(plots.grouped_bars(groups, series, ylabel="accuracy (95%, clustered)"),
                 "Accuracy per question key and model, all prompt variants pooled; whiskers are " + CLUSTERED +
                 "; 'p' marks a parse rate under 100%. " + parse_caption(runs))
    table = []
    for key, task, answer_type in keys:
        cells = []
        for _, s in runs.items():
            r = runs.metric(s, key)
            if not r:  # a run of another dataset, without this key
                cells.append({"text": "–", "extra": [], "parse": "", "n": 0})
                continue
            extra = []
            if answer_type in NUMERIC and r.get("mae") is not None:
                errors = [f"MAE {num(r['mae'])} {interval(r['mae_lo'], r['mae_hi'], False)}",
                          f"MSE {num(r['mse'])} {interval(r['mse_lo'], r['mse_hi'], False)}"]
                if r.get("nmae") is not None:
                    errors.append(f"NMAE {num(r['nmae'])}")
                extra.append(" · ".join([*errors, f"±1 {pct(r['within_one'])}"]))
            extra += [f"{name} F1 {estimable(r[f'f1_{kind}'])} · P {estimable(r[f'precision_{kind}'])} · "
                      f"R {estimable(r[f'recall_{kind}'])}" for kind, name in PRF_KINDS if f"f1_{kind}" in r]
            cells.append({"text": f"{pct(r['accuracy'])} {interval(r['accuracy_lo'], r['accuracy_hi'])}",
                          "extra": extra, "parse": pct(r["parse_rate"]), "n": r["n"]})
        table.append({"key": key, "task": task, "answer_type": answer_type, "cells": cells})
    return {"figure": fig, "table": table}


def skills_section(runs: Runs) -> dict:
    """A radar chart of skills per model (BYO-Eval's Figure 5): one spoke per question key (per
    dataset and key when the runs span datasets), accuracy over all prompt variants; a model is
    one line across its runs of several datasets."""
    datasets = {Path(s.facts.get("dataset") or "").name for _, s in runs.items()}
    spokes: dict[str, dict[str, float]] = {}  # spoke -> model -> accuracy
    models: list[str] = []
    for _, s in runs.items():
        model = (s.facts.get("model") or s.facts["run"]) + (" (structured)" if s.facts.get("structured") else "")
        if model not in models:
            models.append(model)
        for key, _, _ in runs.keys():
            r = runs.metric(s, key)
            if r:
                spoke = key if len(datasets) == 1 else f"{Path(s.facts.get('dataset') or '').name}: {key}"
                spokes.setdefault(spoke, {})[model] = r["accuracy"]
    if len(spokes) < MIN_SPOKES:
        return {"figure": None, "note": f"{len(spokes)} skill(s) (question keys): a radar chart needs {MIN_SPOKES}; "
                                        "the model comparison above shows them."}
    names = list(spokes)
    fig = figure(plots.radar(names, {m: [spokes[n].get(m) for n in names] for m in models},
                             title="Accuracy per skill"),
                 "Skill profile: accuracy per question key" + (" and dataset" if len(datasets) > 1 else "")
                 + ", all prompt variants pooled; 100% at the rim. A gap: the model was not asked that key.")
    return {"figure": fig, "note": ""}


def _marginal(rows: list[dict], part: int) -> dict[str, dict]:
    """Accuracy per preprompt (`part` 0) or instruction (1) over every other prompt choice, with its
    interval clustered by image."""
    out = {}
    for (name,), group in sorted(group_by([{**r, "_m": r["variant"].split("/")[part]} for r in rows], "_m").items()):
        c = clustered_proportion([r["correct"] for r in group], [r["image"] for r in group])
        out[name] = {"value": c["value"], "lo": c["lo"], "hi": c["hi"], "n": len(group),
                     "parse_rate": sum(r["status"] == "ok" for r in group) / len(group)}
    return out


def prompts_section(runs: Runs) -> dict:
    """Models x prompt variants (BYO-Eval's Figures 37-38, 43-44) and the marginals of each
    preprompt and each instruction (Figures 6, 39-41)."""
    variants = runs.variants()
    if not variants:
        return {"heatmaps": [], "marginals": []}
    heatmaps = []
    for key in ["*", *(k for k, _, _ in runs.keys())] if len(runs.keys()) > 1 else ["*"]:
        m = np.full((len(runs.labels), len(variants)), np.nan)
        notes = np.full(m.shape, "", dtype=object)
        for i, (_, s) in enumerate(runs.items()):
            for j, v in enumerate(variants):
                r = runs.metric(s, key, v)
                if r:
                    m[i, j], notes[i, j] = r["accuracy"], f"n={r['n']}"
        if np.isfinite(m).any():
            name = "all questions" if key == "*" else key
            asked = np.isfinite(m).any(axis=1)  # the models of datasets that ask this key
            heatmaps.append(heat_table(
                m[asked], variants, [lb for lb, a in zip(runs.labels, asked, strict=True) if a], kind="model x prompt", title=f"Accuracy: {name}",
                column_label="preprompt / instruction", row_label="model", notes=notes[asked],
                caption=f"{name}: accuracy of each model (rows) in each prompt variant (columns)."))
    marginals = []
    for part, what in ((0, "preprompt"), (1, "instruction")):
        by_model = {label: _marginal(s.rows, part) for label, s in runs.items()}
        names = sorted({n for m in by_model.values() for n in m})
        if len(names) < 2:
            continue
        series = {label: [m.get(n) for n in names] for label, m in by_model.items()}
        marginals.append(figure(plots.grouped_bars(names, series, ylabel="accuracy (95%, clustered)",
                                                   horizontal_labels=True),
                                f"Accuracy per {what}, every question key and every other prompt choice pooled; "
                                f"whiskers are {CLUSTERED}."))
    return {"heatmaps": heatmaps, "marginals": marginals}


def ranges_section(runs: Runs) -> list[dict]:
    """BYO-Eval's Table 3 layout: per key, a row per model and a column per variable and range of
    its levels (every level, and the ranges of byo score --bins), each cell the mean (standard
    deviation) across the range's levels of each level's accuracy."""
    out = []
    for key, _, _ in runs.keys():
        columns: list[tuple[str, str]] = []
        cells: dict[tuple[str, str, str], dict] = {}
        for label, s in runs.items():
            for r in s.tables.get("ranges", []):
                if r["key"] != key or r["variant"] != ALL or r["levels"] < 2:
                    continue
                if (r["variable"], r["range"]) not in columns:
                    columns.append((r["variable"], r["range"]))
                extra = f"{r['levels']} levels, n={r['n']}"
                if r.get("mae_level_mean") is not None:
                    extra += f" · MAE {num(r['mae_level_mean'])} ({num(r['mae_level_sd'])})"
                cells[(label, r["variable"], r["range"])] = {
                    "text": f"{num(r['accuracy_level_mean'])} ({num(r['accuracy_level_sd'])})", "extra": extra}
        if columns:
            rows = [{"label": label, "cells": [cells.get((label, *c), {"text": "–", "extra": ""}) for c in columns]}
                    for label, _ in runs.items()]
            out.append({"key": key, "columns": [f"{v}: {r}" for v, r in columns], "rows": rows})
    return out


def truths_block(runs: Runs, key_info: tuple) -> dict | None:
    """A numeric key against its true value (the true row distance of relative localization,
    BYO-Eval's Figures 28-29), where no variable of the dataset already is that value."""
    key, _, answer_type = key_info
    if answer_type not in NUMERIC:
        return None
    rows = [r for _, s in runs.items() for r in s.rows if r["key"] == key]
    variables = {v for r in rows for v in r["levels"]}
    if any(all(r["levels"].get(v) == r["answer"] for r in rows) for v in variables):
        return None  # the per-level curve of that variable is this curve
    tables = {label: [r for r in s.tables.get("by_truth", []) if r["key"] == key] for label, s in runs.items()}
    truths = sorted({str(r["truth"]) for t in tables.values() for r in t}, key=float)
    if len(truths) < 2:
        return None

    def panel(metric: str):
        return [("true value", truths, {label: [{"level": str(r["truth"]), "value": r.get(metric),
                                                 "lo": r.get(f"{metric}_lo"), "hi": r.get(f"{metric}_hi"),
                                                 "parse_rate": r.get("parse_rate")} for r in t]
                                        for label, t in tables.items()})]

    grid = [("accuracy", panel("accuracy"), True, (-0.03, 1.05)), ("MAE", panel("mae"), False, None),
            ("signed error", panel("signed"), False, None)]
    return figure(plots.metric_vs_levels(grid),
                  f"{key}: accuracy ({CLUSTERED}), MAE and mean signed error (bootstrap 95% resampling images) "
                  "against the true answer, all prompt variants pooled. " + parse_caption(runs, key))


def variants_section(runs: Runs) -> dict:
    variants = runs.variants()
    series = {label: [point(runs.metric(s, "*", v)) for v in variants] for label, s in runs.items()}
    fig = figure(plots.grouped_bars([v.replace("/", "\n") for v in variants], series, ylabel="accuracy (95%, clustered)",
                                    horizontal_labels=True),
                 "Accuracy per prompt variant (preprompt/instruction), all question keys pooled; whiskers are " + CLUSTERED + ". "
                 + "; ".join(f"{v}: " + parse_caption(runs, "*", v).removeprefix("Parse rate: ").rstrip(".")
                             for v in variants) + " (parse rates).")
    table = [{"variant": v, "cells": [_cell(runs.metric(s, "*", v)) for _, s in runs.items()]} for v in variants]
    per_key = []
    for key, _, _ in runs.keys():
        per_key.append({"key": key, "rows": [{"variant": v, "cells": [_cell(runs.metric(s, key, v))
                                                                      for _, s in runs.items()]}
                                             for v in variants]})
    return {"figure": fig, "table": table, "per_key": per_key}


def _cell(r: dict | None) -> dict:
    if not r:
        return {"text": "–", "parse": "", "n": 0}
    return {"text": f"{pct(r['accuracy'])} {interval(r['accuracy_lo'], r['accuracy_hi'])}",
            "parse": pct(r["parse_rate"]), "n": r["n"]}


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
    seen = set()
    for s in runs.runs:
        dataset = s.facts.get("dataset")
        path = Path(dataset) / SUMMARY_FILE if dataset else None
        if path is None or dataset in seen or not path.is_file():
            continue
        seen.add(dataset)
        by_key = read_json(path).get("key_levels", {})
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


def levels_block(runs: Runs, key_info: tuple) -> dict | None:
    """A key's (or, for ("*", "all", "*"), all questions') metrics against each variable's levels, and a
    heatmap over the first two variables per model."""
    key, task, answer_type = key_info
    levels = runs.levels(key)
    if not levels:
        return None
    name = "all questions" if key == "*" else key
    figures = []
    skipped = skipped_levels(runs, key)
    marks: dict[str, set[str]] = {}
    for m in skipped:
        marks.setdefault(m["variable"], set()).add(m["level"])

    def panels(metric: str):
        return [(var, lv, {label: [p for lvl in lv if (p := point(runs.metric(s, key, ALL, var, lvl), metric))]
                           for label, s in runs.items()}) for var, lv in levels.items()]

    grid = [("accuracy", panels("accuracy"), True, (-0.03, 1.05))]
    caption = f"{name}: accuracy per level with {CLUSTERED}; dotted: parse rate per level."
    if answer_type in NUMERIC:
        grid += [("MAE", panels("mae"), False, None), ("signed error", panels("signed"), False, None)]
        caption += (" Below: MAE, then the mean signed error (prediction - truth: above 0 overcounts), over parsed "
                    "answers, bootstrap 95% intervals resampling images.")
    if answer_type in SETS:
        grid.append(("set F1", panels("f1_micro"), False, (-0.03, 1.05)))
        caption += " Below: set F1 (micro-averaged over the items of the true and the predicted sets)."
    if marks:
        caption += (f" Grey: levels where more than {SKIPPED_SHARE:.0%} of the questions were not asked (the image "
                    "as rendered does not decide them).")
    figures.append(figure(plots.metric_vs_levels(grid, marks), f"{caption} {parse_caption(runs, key)}"))
    heatmaps = []
    variables = list(levels)
    if len(variables) >= 2:
        a, b = variables[0], variables[1]
        metric = {"integer": "nmae", "row": "mae", "column": "mae"}.get(answer_type, "accuracy")
        good_high = metric == "accuracy"
        crosses = [r.get(metric) for _, s in runs.items() for r in s.tables["metrics"]
                   if r["key"] == key and r["variant"] == ALL and r["variable2"] and r.get(metric) is not None]
        vmax = 1.0 if good_high else max([*crosses, 1e-9])  # one colour scale for every model
        for label, s in runs.items():
            m = np.full((len(levels[a]), len(levels[b])), np.nan)
            notes = np.full(m.shape, "", dtype=object)
            for i, la in enumerate(levels[a]):
                for j, lb in enumerate(levels[b]):
                    r = runs.metric(s, key, ALL, a, la, b, lb)
                    if r and r["n"] < MIN_CELL_QUESTIONS:  # greyed: too few questions to colour, its value said
                        value = r.get(metric)
                        shown_value = "" if value is None else (pct(value) if good_high else f"{value:.2f}") + " "
                        notes[i, j] = f"{shown_value}n={r['n']}"
                    elif r:
                        m[i, j] = r[metric] if r.get(metric) is not None else np.nan
                        notes[i, j] = f"n={r['n']} p={pct(r['parse_rate'])}"
            if np.isfinite(m).any() or (notes != "").any():
                heatmaps.append(heat_table(
                    m, levels[b], levels[a], kind="two variables", title=f"{label}: {metric.upper()} ({name})",
                    column_label=b, row_label=a, cmap="viridis" if good_high else "viridis_r", vmax=vmax,
                    notes=notes, caption=f"{label}: {metric.upper()} over {a} x {b}; each cell shows n and the "
                    f"parse rate p; a cell of fewer than {MIN_CELL_QUESTIONS} questions is grey, with its value "
                    "and n (too few to colour: byo plan says how many each cell gets)."))
    return {"key": name, "task": task, "answer_type": answer_type, "figures": figures, "heatmaps": heatmaps,
            "skipped": skipped}


def errors_block(runs: Runs, key_info: tuple) -> dict | None:
    key, _, answer_type = key_info
    if answer_type not in NUMERIC:
        return None
    series = {label: [r["error"] for r in s.rows if r["key"] == key and r["error"] is not None]
              for label, s in runs.items()}
    if not any(series.values()):
        return None
    return figure(plots.signed_errors(series, key), f"{key}: distribution of prediction - truth over parsed answers "
                  "(all variants). " + parse_caption(runs, key))


def confusion_section(runs: Runs) -> list[dict]:
    """One matrix per key and model, with the same rows and columns for every model."""
    out = []
    for key, _, _ in runs.keys():
        tables = {label: [r for r in s.tables["confusion"] if r["key"] == key and r["variant"] == ALL]
                  for label, s in runs.items()}
        rows = [r for t in tables.values() for r in t]
        if not rows:
            continue
        truths = sorted({r["truth"] for r in rows}, key=_sort)  # every true value, however many
        predicted = {r["predicted"] for r in rows}
        statuses = sorted(p for p in predicted if isinstance(p, str) and p.startswith("<"))
        columns = sorted(set(truths) | (predicted - set(statuses)), key=_sort) + statuses
        caption = parse_caption(runs, key)
        matrices = [confusion_table({(r["truth"], r["predicted"]): r["count"] for r in table}, truths, columns,
                                    title=label) for label, table in tables.items() if table]
        out.append({"key": key, "matrices": matrices, "caption": caption})
    return out


def _sort(x):
    if isinstance(x, int | float):
        return (0, x, "")
    if x in POSITION_WORDS:
        return (1, POSITION_WORDS.index(x), "")
    return (2, 0, str(x))


def localization_section(runs: Runs) -> dict:
    table, grids = {}, []
    for i, s in enumerate(runs.runs):
        for r in s.tables["localization"]:
            cells = table.setdefault((r["source"], r["variant"]), [None] * len(runs.labels))
            cells[i] = {"exact": f"{pct(r['exact'])} {interval(r['exact_lo'], r['exact_hi'])}",
                        "error": f"{num(r['error'])} {interval(r['error_lo'], r['error_hi'], False)}",
                        "located": f"{r['located']} of {r['n']}", "note": r["interval_note"]}
    for label, s in runs.items():
        for (source,), cells in group_by([c for c in s.tables["localization_cells"] if c["variant"] == ALL],
                                         "source").items():
            rows = max(c["row"] for c in cells) + 1
            cols = max(c["column"] for c in cells) + 1
            if source == "row+column" or rows < 3:
                rows, cols = max(rows, 2), max(cols, 2)
            m = np.full((rows, cols), np.nan)
            notes = np.full(m.shape, "", dtype=object)
            for c in cells:
                m[c["row"], c["column"]] = c["exact"]
                notes[c["row"], c["column"]] = f"n={c['n']} err={num(c['error'], 1)}"
            grids.append(heat_table(
                m, range(cols), range(rows), kind="localization", title=f"{label}: {source}",
                column_label="true column", row_label="true row", fmt="{:.0%}", notes=notes,
                caption=f"{label}, {source}: share of exact cells at each true cell, with the mean |dr|+|dc| over "
                "located answers (err). Located: " + ", ".join(
                    f"{r['located']} of {r['n']}" for r in s.tables["localization"]
                    if r["source"] == source and r["variant"] == ALL) + "."))
    rows = [{"source": source, "variant": variant, "cells": cells} for (source, variant), cells in table.items()]
    return {"table": rows, "grids": grids}


def declared_sections(runs: Runs) -> list[dict]:
    """A section per declared table (byo.score.registry) that some run has rows of: its rows from
    every run, formatted as its columns say, the folded ones apart, and its figures."""
    out = []
    for name, table in DECLARED.items():
        per_run = [(label, s.tables.get(name) or []) for label, s in runs.items()]
        if not any(rows for _, rows in per_run):
            continue
        shown, folded = [], []
        for label, rows in per_run:
            for r in rows:
                cells = [{"text": c.text(r), "note": c.small(r), "numeric": c.numeric} for c in table.columns]
                main = r.get("variant", ALL) == ALL and not (table.folded and table.folded(r))
                (shown if main else folded).append({"label": label, "key": r.get("key"), "variant": r.get("variant"),
                                                    "cells": cells})
        series = [(label, plots.color(i), rows) for i, (label, rows) in enumerate(per_run) if rows]
        figures = [figure(data, caption) for data, caption in table.figures(series)] if table.figures else []
        out.append({"name": name, "title": table.title, "note": table.note, "rows": shown, "folded": folded,
                    "figures": figures, "has_key": any(r["key"] is not None for r in shown + folded),
                    "has_variant": any(r["variant"] is not None for r in shown + folded),
                    "columns": [{"header": c.header, "numeric": c.format != "text"} for c in table.columns]})
    return out


def parsing_section(runs: Runs) -> dict:
    table = []
    for label, s in runs.items():
        for r in s.tables["parsing"]:
            if r["variant"] == ALL:
                table.append({"label": label, **r, "parse_text": pct(r["parse_rate"])})
    examples = []
    for label, s in runs.items():
        by_status = group_by([r for r in s.rows if r["status"] not in ("ok", "error")], "status")
        for (status,), rows in sorted(by_status.items()):
            for r in rows[:3]:
                examples.append({"label": label, "status": status, "key": r["key"], "note": r["note"],
                                 "response": _short(r["response"], 300), "candidates": r["candidates"]})
    judged = [{"label": label, **s.facts["judge"]} for label, s in runs.items() if s.facts.get("judge")]
    return {"table": table, "examples": examples, "judged": judged}


def _short(text, n: int) -> str:
    text = text or ""
    return text if len(text) <= n else text[: n - 1] + "…"


def severity(row: dict) -> float:
    if row["status"] != "ok":
        return 1.0
    if row["answer_type"] in NUMERIC and row["error"] is not None:
        return 1.0 + nmae_term(row["value"], row["answer"])
    return 1.5


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


def mistakes_section(runs: Runs) -> list[dict]:
    thumbs = Thumbnails()
    out = []
    for label, s in runs.items():
        wrong = sorted((r for r in s.rows if not r["correct"]), key=severity, reverse=True)
        picked, per_key = [], Counter()
        for r in wrong:  # the worst first, at most two per key so that every key shows
            if per_key[r["key"]] < 2:
                picked.append(r)
                per_key[r["key"]] += 1
            if len(picked) == MISTAKES:
                break
        cards = []
        for r in picked:
            value = r["value"]
            image = inside(Path(s.facts["dataset"]), r["image"]) if isinstance(r["image"], str) else None
            cards.append({"image": thumbs(image) if image else None, "image_name": r["image"],
                          "key": r["key"], "variant": r["variant"], "prompt": _short(r["prompt"], 260),
                          "truth": show(r["answer"]), "response": _short(r["response"], 420), "status": r["status"],
                          "value": show(value), "error": r["error"], "levels": r["levels"], "note": r["note"]})
        out.append({"label": label, "n_wrong": len(wrong), "cards": cards})
    return out


def _breaking_text(f: dict, variable: str) -> str:
    """"breaks at VARIABLE 7.3 [6.8–7.9]", the separated fit's sentence, or "not estimable: REASON"."""
    if f["verdict"] == psy.VERDICT_BREAKS:
        return f"breaks at {variable} {f['breaking_point']}"
    return f["breaking_point"]


def object_px_text(f: dict) -> str:
    """"24 px → 17 px": the object's height at the breaking point rendered and as its model
    receives it, or "–" where the run's rows record no received size."""
    if f.get("object_px_received") is None:
        return "–"
    return f"{f['object_px_rendered']:.0f} px → {f['object_px_received']:.0f} px"


def variable_name(f: dict) -> str:
    if f["variable"] == psy.TRUTH:
        return "true count" if f["answer_type"] == "integer" else "true answer"
    unit = preset_unit(f["variable"])
    return f"{f['variable']} ({unit})" if unit else f["variable"]


def _overlaps(f: dict, g: dict) -> bool:
    """Two estimated breaking points whose intervals overlap: the data cannot tell them apart."""
    return (f["verdict"] in psy.ESTIMATED and g["verdict"] in psy.ESTIMATED
            and f["threshold_lo"] <= g["threshold_hi"] and g["threshold_lo"] <= f["threshold_hi"])


def breaking_section(runs: Runs) -> list[dict]:
    """Per key and variable: the per-level points of every model, their fitted curves (only where a
    breaking point is estimated) and thresholds, and one table row per model. A run whose answers do
    not depend on the image (the blind baseline, one answer to everything) draws its answer prior's
    curve, labelled so; a model whose breaking point cannot be told from such a prior's says so."""
    blocks: dict[tuple, dict] = {}
    for label_i, (label, s) in enumerate(runs.items()):
        fits = s.tables.get("breaking_points", [])
        probit = {(f["key"], f["variable"]): f for f in fits if f["link"] == "probit"}
        for f in (f for f in fits if f["link"] == "logistic"):
            block = blocks.setdefault((f["key"], f["variable"]), {"key": f["key"], "variable": variable_name(f),
                                                                  "series": [], "rows": [], "fits": [], "ticks": {}})
            points = [p for p in s.tables.get("breaking_point_levels", [])
                      if p["key"] == f["key"] and p["variable"] == f["variable"]]
            block["ticks"].update({p["level"]: f"{p['level_name']}\n{p['level']:g}" for p in points
                                   if p.get("level_name")})
            curve = psy.curve_from_row(f)
            xs = np.linspace(f["x_min"], f["x_max"], 200)
            prior = f.get("answer_prior")
            block["series"].append({
                "label": f"{label} (answer prior)" if prior else label, "color": label_i, "prior": bool(prior),
                "x": [p["level"] for p in points], "y": [p["accuracy"] for p in points],
                "lo": [p["accuracy_lo"] for p in points], "hi": [p["accuracy_hi"] for p in points],
                "curve": (xs, curve(xs)) if curve is not None else None, "chance": f["chance"],
                "threshold": f.get("threshold"), "threshold_lo": f.get("threshold_lo"),
                "threshold_hi": f.get("threshold_hi")})
            other = probit.get((f["key"], f["variable"]))
            text = _breaking_text(f, variable_name(f))
            block["fits"].append((label, f))
            block["rows"].append({
                "label": label, "sentence": f"{label}: the answer prior's curve ({prior}): {text}" if prior
                else f"{label} {text}" if f["verdict"] == psy.VERDICT_BREAKS else f"{label}: {text}",
                "verdict": f["verdict"], "outcome": f["outcome"], "prior": bool(prior), "matches": None,
                "probit": other["breaking_point"] if other else "–", "slope": num(f.get("slope"), 3),
                "lapse": num(f.get("lapse")), "gof": num(f.get("gof_p"), 3), "dispersion": num(f.get("dispersion")),
                "flat": num(f.get("flat_p"), 3), "subitizing": "–" if f.get("subitizing") is None else f"{f['subitizing']:g}",
                "n": f["n"], "images": f["images"], "chance": pct(f["chance"]), "object_px": object_px_text(f)})
    out = []
    for block in blocks.values():
        priors = [(label, f) for label, f in block["fits"] if f.get("answer_prior")]
        for row, (_, f) in zip(block["rows"], block["fits"], strict=True):
            same = [label for label, g in priors if not f.get("answer_prior") and _overlaps(f, g)]
            if same:
                row["matches"] = (f"matches the breaking point of {', '.join(same)}, whose answers do not depend on "
                                  "the image: it may be where the answer prior stops being right, not eyesight")
        series = [s for s in block["series"] if s["x"]]
        if not series:
            continue
        ticks = sorted(block["ticks"].items()) or None
        block["figure"] = figure(plots.psychometric(series, xlabel=block["variable"],
                                                    ylabel=f"P({block['rows'][0]['outcome']})", title=block["key"],
                                                    ticks=ticks),
                                 f"{block['key']}: share of {block['rows'][0]['outcome']} answers at each level of "
                                 f"{block['variable']} (points, {CLUSTERED}); lines: the fitted logistic curves where "
                                 "a breaking point is estimated; dashed: thresholds, shaded: their 95% profile-"
                                 "likelihood intervals; dotted: chance. Hollow points and dotted curves: a run whose "
                                 "answers do not depend on the image, whose curve is its answer prior's.")
        out.append(block)
    return out


def _pair_row(r: dict, la: str, lb: str) -> dict:
    """A paired row for people: a row without a test says why in its interval's cell."""
    if r["p_clustered"] is None:
        interval, adjusted, level, clustered = "no test", "–", "", "–"
    else:
        interval = f"[{r['difference_lo']:+.1%}, {r['difference_hi']:+.1%}]"
        adjusted = f"[{r['difference_adjusted_lo']:+.1%}, {r['difference_adjusted_hi']:+.1%}]"
        level = f"at {r['confidence_adjusted']:.2%}"
        clustered = (f"{r['p_clustered']:.2g} ({r['p_clustered_adjusted']:.2g})"
                     + (" sign" if r["test"] == TEST_SIGN else ""))
    mcnemar = f"{r['p_mcnemar']:.2g}" + (f" ({r['p_mcnemar_adjusted']:.2g})" if r["p_mcnemar_adjusted"] is not None
                                         else "")
    return {"key": "all questions" if r["key"] == "*" else r["key"], "variable": r["variable"],
            "level": r["level"], "n": r["n"], "images": r["images"], "a": pct(r["accuracy_a"]),
            "b": pct(r["accuracy_b"]), "difference": f"{r['difference']:+.1%}", "interval": interval,
            "adjusted": adjusted, "adjusted_level": level,
            "discordant": f"{r['a_only']} / {r['b_only']}", "mcnemar": mcnemar, "clustered": clustered,
            "verdict": r["verdict"].replace("A better", f"{la} better").replace("B better", f"{lb} better")}


def forest_rows(rows: list[dict]) -> list[dict]:
    """The forest plot's points: each row's adjusted interval, filled where the verdict shows a
    difference, which is where that interval excludes 0; a row without a test is its point alone."""
    return [{"value": r["difference"], "lo": r["difference_adjusted_lo"], "hi": r["difference_adjusted_hi"],
             "shown": r["verdict"] in ("A better", "B better")} for r in rows]


def paired_section(runs: Runs) -> list[dict]:
    """Every pair of runs over the same questions, compared question by question."""
    out = []
    items = list(runs.items())
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            (la, a), (lb, b) = items[i], items[j]
            if question_difference(a, b) is not None:
                continue
            result = compare(a, b, n_boot=a.settings.get("bootstrap", 1000), seed=a.settings.get("seed", 0))
            keys = [r for r in result["differences"] if not r["variable"]]
            fig = figure(plots.forest(["all questions" if r["key"] == "*" else r["key"] for r in keys],
                                      forest_rows(keys), xlabel=f"accuracy {la} − {lb}", title=f"{la} vs {lb}"),
                         f"Accuracy of {la} minus {lb} on the same {result['paired']} questions, per key, with the "
                         "interval at the level of the row's adjusted test: Newcombe's paired interval with images as "
                         f"clusters ({result['settings']['correction']}; 95% for all questions); filled: the adjusted "
                         "test shows a difference. A point without an interval has no test.")
            thresholds = []
            for t in result["thresholds"]:
                ci = (f" [{t['difference_lo']:+.3g}, {t['difference_hi']:+.3g}]" if t.get("difference_lo") is not None
                      else "")
                thresholds.append({"key": t["key"], "variable": "true count" if t["variable"] == psy.TRUTH else t["variable"],
                                   "a": num(t["threshold_a"]) if t["verdict_a"] == psy.VERDICT_BREAKS else t["verdict_a"],
                                   "b": num(t["threshold_b"]) if t["verdict_b"] == psy.VERDICT_BREAKS else t["verdict_b"],
                                   "difference": f"{t['difference']:+.3g}{ci}" if t["difference"] is not None else "–",
                                   "note": t.get("note") or ""})
            out.append({"a": la, "b": lb, "paired": result["paired"], "figure": fig, "correction": result["settings"]["correction"],
                        "keys": [_pair_row(r, la, lb) for r in keys],
                        "levels": [_pair_row(r, la, lb) for r in result["differences"] if r["variable"]],
                        "tests": testing_summary(result["differences"]),
                        "thresholds": thresholds})
    return out


def stability_section(runs: Runs) -> list[dict]:
    out = []
    for label, s in runs.items():
        for r in s.tables.get("stability", []):
            out.append({"label": label, "key": "all questions" if r["key"] == "*" else r["key"], "n": r["n"],
                        "repeats": r["repeats"], "agreement": pct(r["agreement"]), "kappa": num(r["fleiss_kappa"]),
                        "accuracy": f"{pct(r['accuracy_mean'])} ± {100 * r['accuracy_sd']:.1f} pts",
                        "range": f"{pct(r['accuracy_min'])}–{pct(r['accuracy_max'])}", "runs": r["runs"]})
    return out


def asked_section(runs: Runs) -> list[dict]:
    """Per dataset of the runs, per variable and level: the questions asked, skipped and flagged as
    unreadable, and why (the summary `byo questions` wrote beside the questions)."""
    out, seen = [], set()
    for s in runs.runs:
        dataset = s.facts.get("dataset")
        path = Path(dataset) / SUMMARY_FILE if dataset else None
        if path is None or dataset in seen or not path.is_file():
            continue
        seen.add(dataset)
        summary = read_json(path)
        rows = [{"variable": variable, "level": level, "asked": c.get("asked", 0), "skipped": c.get("skipped", 0),
                 "flagged": c.get("flagged", 0),
                 "why": "; ".join(f"{r} ({n})" for r, n in sorted(summary.get("why", {}).get(variable, {})
                                                                   .get(level, {}).items(), key=lambda x: -x[1]))}
                for variable, levels in summary.get("levels", {}).items() for level, c in levels.items()]
        if rows:
            out.append({"dataset": Path(dataset).name, "policy": summary.get("policy", "skip"), "rows": rows})
    return out


@dataclass(frozen=True)
class PerKey:
    """A section built key by key: the blocks of `block(runs, key)` that are not None, in the order
    of the keys (all questions first where `everything`). Built side by side, each key is a task."""

    block: Callable[[Runs, tuple], dict | None]
    everything: bool = False

    def keys(self, runs: Runs) -> list[tuple]:
        return [("*", "all", "*"), *runs.keys()] if self.everything else list(runs.keys())

    def __call__(self, runs: Runs) -> list[dict]:
        return [b for key in self.keys(runs) if (b := self.block(runs, key)) is not None]


# Each section's data from the runs. Built side by side, they are handed out in this order: the
# longest first, the many short per-key tasks after them (they even out the workers' ends).
SECTION_BUILDERS = {
    "levels": PerKey(levels_block, everything=True), "paired": paired_section, "skills": skills_section,
    "models": models_section, "prompts": prompts_section, "breaking": breaking_section, "errors": PerKey(errors_block),
    "truths": PerKey(truths_block), "confusion": confusion_section, "localization": localization_section,
    "variants": variants_section,
    "overview": overview, "ranges": ranges_section, "stability": stability_section, "parsing": parsing_section,
    "mistakes": mistakes_section, "cost": lambda runs: cost_section(runs.items()),
}
_building: tuple[Runs, dict] | None = None  # what forked workers build from (inherited, not pickled)


def _build_one(name: str, key: tuple | None = None):
    runs, builders = _building
    return builders[name](runs) if key is None else builders[name].block(runs, key)


def build_sections(runs: Runs, builders: dict, workers: int | None = None) -> dict:
    """{name: builder(runs)}. Drawing figures is most of a report's time and the sections are
    independent, so with more than one CPU they are built in forked worker processes, a PerKey
    section key by key (the same bytes as one by one: every figure is drawn the same way wherever
    it is drawn). By default, one
    worker per CPU (up to 4), and none while another thread runs here: a forked child would inherit
    any lock that thread holds."""
    global _building
    if workers is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        workers = min(cpus, 4) if threading.active_count() == 1 else 1
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return {name: make(runs) for name, make in builders.items()}
    preload_drawing()  # once here, not in every worker
    _building = (runs, builders)
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = {name: [pool.submit(_build_one, name, key) for key in make.keys(runs)]
                       if isinstance(make, PerKey) else pool.submit(_build_one, name) for name, make in builders.items()}
            return {name: [b for f in future if (b := f.result()) is not None] if isinstance(future, list)
                    else future.result() for name, future in futures.items()}
    finally:
        _building = None


def build(runs_scores: list[Scores], title: str | None = None, viewer: str | None = None) -> str:
    human = humans.panels(runs_scores)  # two or more annotators of a dataset: their majority is a row too
    runs_scores = [*runs_scores, *(h.majority for h in human if h.majority is not None)]
    runs = Runs(runs_scores)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATE.parent), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    env.filters.update(pct=pct, num=num)
    several_variants = len(runs.variants()) > 1
    builders = {**SECTION_BUILDERS, "variants": variants_section if several_variants else lambda runs: None}
    data = {**build_sections(runs, builders),
            "humans": [{"dataset": Path(h.dataset).name, "annotators": h.annotators, "rows": h.agreement,
                        "ties": h.ties} for h in human]}
    declared = declared_sections(runs)
    shown = {"overview", "models", "parsing", "definitions",
             *(name for name in ("humans", "paired", "levels", "ranges", "truths", "breaking", "stability", "errors",
                                 "confusion", "mistakes") if data[name])}
    shown |= {"skills"} if data["skills"].get("figure") else set()
    shown |= {"variants"} if several_variants else set()
    shown |= {"prompts"} if data["prompts"]["heatmaps"] or data["prompts"]["marginals"] else set()
    shown |= {"localization"} if data["localization"]["table"] else set()
    shown |= {"cost"} if data["cost"]["runs"] else set()  # a run with prices
    built_in = [(name, heading) for name, heading in SECTIONS if name in shown]
    at = next(i for i, (name, _) in enumerate(built_in) if name == "parsing")
    sections = [*built_in[:at], *((t["name"], t["title"]) for t in declared), *built_in[at:]]
    return env.get_template(TEMPLATE.name).render(
        title=title or "BYO Render report: " + ", ".join(runs.labels), generated=dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        version=__version__, sections=sections, shown=shown, labels=runs.labels,
        colors=[plots.color(i) for i in range(len(runs.labels))], asked=asked_section(runs), declared=declared,
        definitions=DEFINITIONS, settings=runs_scores[0].settings, viewer=viewer, clustered=CLUSTERED, **data)


def write_report(runs_scores: list[Scores], out: Path, title: str | None = None, viewer: Path | None = None) -> Path:
    """`viewer`: the sample viewer's page, linked from the report's navigation."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    link = relative_url(viewer, out.parent) if viewer is not None else None
    atomic_write_text(out, build(runs_scores, title, link))
    return out
