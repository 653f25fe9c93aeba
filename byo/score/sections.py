"""The report sections of the scorer's own tables (byo.score.builtin carries them): the model
comparison, skill profile, prompt variants and models x prompts, per level and signed errors (the
metrics table), level ranges, per true value, confusion matrices, localization, parsing, breaking
points and repeat stability, and the section of a declared table (its columns). Each `Section`
builds its data from the report's `Runs`; its template is templates/sections/NAME.html.j2."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from byo.core.report_tables import ALL, ReportTable, Section, num, pct
from byo.scene.setup import preset_unit
from byo.score import plots
from byo.score import psychometric as psy
from byo.score.heat import MIN_CELL_QUESTIONS, confusion_table, heat_table
from byo.score.metrics import clustered_proportion, group_by
from byo.score.report_format import (
    CLUSTERED,
    MIN_SPOKES,
    PRF_KINDS,
    SKIPPED_SHARE,
    Runs,
    _short,
    estimable,
    figure,
    interval,
    parse_caption,
    point,
    skipped_levels,
)
from byo.score.rows import NUMERIC, SETS
from byo.score.vocab import POSITION_WORDS


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


def variants_section(runs: Runs) -> dict | None:
    """Accuracy per prompt variant; None with fewer than two variants."""
    variants = runs.variants()
    if len(variants) < 2:
        return None
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


def stability_section(runs: Runs) -> list[dict]:
    out = []
    for label, s in runs.items():
        for r in s.tables.get("stability", []):
            out.append({"label": label, "key": "all questions" if r["key"] == "*" else r["key"], "n": r["n"],
                        "repeats": r["repeats"], "agreement": pct(r["agreement"]), "kappa": num(r["fleiss_kappa"]),
                        "accuracy": f"{pct(r['accuracy_mean'])} ± {100 * r['accuracy_sd']:.1f} pts",
                        "range": f"{pct(r['accuracy_min'])}–{pct(r['accuracy_max'])}", "runs": r["runs"]})
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


def declared_section(table: ReportTable, runs: Runs) -> dict | None:
    """The section of a table without sections of its own, when some run has rows of it: its rows
    from every run, formatted as its columns say, the folded ones apart, and its figures. A table of
    scope "slice" shows the metrics table's rows: per key (folded: per prompt variant and level)."""
    sliced = table.scope == "slice"
    if sliced:
        fields = {c.field for c in table.columns}
        per_run = [(label, [r for r in s.tables.get("metrics", []) if r["key"] != "*" and not r["variable2"]
                            and fields & {k for k, v in r.items() if v is not None}]) for label, s in runs.items()]
    else:
        per_run = [(label, s.tables.get(table.name) or []) for label, s in runs.items()]
    if not any(rows for _, rows in per_run):
        return None
    shown, folded = [], []
    for label, rows in per_run:
        for r in rows:
            cells = [{"text": c.text(r), "note": c.small(r), "numeric": c.numeric} for c in table.columns]
            level = f"{r['variable']} = {r['level']}" if sliced and r.get("variable") else None
            main = r.get("variant", ALL) == ALL and level is None and not (table.folded and table.folded(r))
            (shown if main else folded).append({"label": label, "key": r.get("key"), "variant": r.get("variant"),
                                                "level": level, "cells": cells})
    series = [(label, plots.color(i), rows) for i, (label, rows) in enumerate(per_run) if rows]
    figures = [figure(data, caption) for data, caption in table.figures(series)] if table.figures else []
    every = shown + folded
    return {"name": table.name, "title": table.title, "note": table.note, "rows": shown, "folded": folded,
            "figures": figures, "has_key": any(r["key"] is not None for r in every),
            "has_variant": any(r["variant"] is not None for r in every),
            "has_level": any(r["level"] is not None for r in every),
            "columns": [{"header": c.header, "numeric": c.numeric} for c in table.columns]}


def declared(table: ReportTable) -> Section:
    """The report section of a table without sections of its own."""
    return Section(table.name, table.title, functools.partial(declared_section, table), "sections/declared.html.j2")


def _always(data) -> bool:
    return True


def _template(name: str) -> str:
    return f"sections/{name}.html.j2"


# The sections each built-in table carries (byo.score.builtin), in the report's order.
METRICS = (
    Section("models", "Model comparison", models_section, _template("models"), shown=_always),
    Section("skills", "Skill profile", skills_section, _template("skills"), shown=lambda d: bool(d.get("figure"))),
    Section("variants", "Prompt variants", variants_section, _template("variants")),
    Section("prompts", "Models x prompts", prompts_section, _template("prompts"),
            shown=lambda d: bool(d["heatmaps"] or d["marginals"])),
    Section("levels", "Per level", levels_block, _template("levels"), per_key=True, everything=True),
    Section("errors", "Signed errors", errors_block, _template("errors"), per_key=True),
)
RANGES = (Section("ranges", "Level ranges", ranges_section, _template("ranges")),)
BY_TRUTH = (Section("truths", "Per true value", truths_block, _template("truths"), per_key=True),)
CONFUSION = (Section("confusion", "Confusion matrices", confusion_section, _template("confusion")),)
LOCALIZATION = (Section("localization", "Localization", localization_section, _template("localization"),
                        shown=lambda d: bool(d["table"])),)
PARSING = (Section("parsing", "Parsing", parsing_section, _template("parsing"), shown=_always),)
BREAKING = (Section("breaking", "Breaking points", breaking_section, _template("breaking")),)
STABILITY = (Section("stability", "Repeat stability", stability_section, _template("stability")),)
