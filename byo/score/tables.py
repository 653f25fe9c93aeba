"""Metric tables from scored rows: per key, prompt variant, level and cross of two variables.

Every table is a list of flat dicts (one CSV row each). `variant` is "all" or
"preprompt/instruction"; `key` "*" pools every question key (proportions only).
"""

from __future__ import annotations

import itertools
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from byo.core.report_tables import ALL, variants  # noqa: F401  (ALL: the tables' pooled variant)
from byo.scene.setup import level_label, preset_number
from byo.score import metrics
from byo.score.bins import Bins
from byo.score.parse import STATUSES
from byo.score.rows import NUMERIC, SETS, grid_position, truth_cell

# Single-answer types with a macro precision / recall / F1 (per true value, averaged over the
# values): counts, rows, columns, labels, position words, cards.
CLASSES = (*NUMERIC, "label", "position_word", "card")
# The answer types of BYO-Eval's tasks: they get its F1 / precision / recall, Rel, Cons and the
# standard deviations over images of its Table 2 (byo.score.metrics.byoeval_prf and below).
BYOEVAL_TYPES = (*CLASSES, *SETS, "yes_no")

MAX_LEVELS = 8  # a variable drawn from a continuous range (non-integer values) with more levels is binned
BINS = 5


# --- levels ----------------------------------------------------------------------------------
def _scalar(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _label(value) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return value if isinstance(value, str) else json.dumps(value)


def range_label(lo: float, hi: float) -> str:
    return f"{lo:g}-{hi:g}"


class Levels:
    """The varying variables of a set of rows and each row's level label, in a stable order. Every
    level is kept (a count of 1 to 21 is 21 levels); a variable drawn from a continuous range
    (more than MAX_LEVELS non-integer values) is cut into BINS quantile bins; `bins` groups a
    variable's values into the ranges asked for (a value outside them has no level)."""

    def __init__(self, rows: Sequence[dict], bins: Bins | None = None):
        self.ranges: Bins = {}
        seen: dict[str, list] = {}
        for r in rows:
            for k, v in r["levels"].items():
                values = seen.setdefault(k, [])
                if v not in values:
                    values.append(v)
        self.order: dict[str, list[str]] = {}
        self.edges: dict[str, np.ndarray] = {}
        self.presets: set[str] = set()  # variables whose levels are presets: by value, named with it
        for k, values in seen.items():
            if len(values) < 2:
                continue
            if all(preset_number(k, v) is not None for v in values):
                self.presets.add(k)
                self.order[k] = [level_label(k, v) for v in sorted(values, key=lambda v: preset_number(k, v))]
                continue
            if bins and k in bins and all(_scalar(v) for v in values):
                self.ranges[k] = list(bins[k])
                self.order[k] = [range_label(lo, hi) for lo, hi in bins[k]]
                continue
            if all(_scalar(v) for v in values):
                if len(values) > MAX_LEVELS and not all(float(v).is_integer() for v in values):
                    edges = np.unique(np.quantile(np.array(values, float), np.linspace(0, 1, BINS + 1)))
                    self.edges[k] = edges
                    self.order[k] = [f"{a:.3g}-{b:.3g}" for a, b in itertools.pairwise(edges)]
                    continue
                values = sorted(values)
            self.order[k] = [_label(v) for v in values]

    @property
    def variables(self) -> list[str]:
        return list(self.order)

    def of(self, row: dict, variable: str) -> str | None:
        if variable not in row["levels"]:
            return None
        value = row["levels"][variable]
        if variable in self.presets:
            return level_label(variable, value)
        if variable in self.ranges:
            return next((range_label(lo, hi) for lo, hi in self.ranges[variable] if lo <= value <= hi), None)
        if variable in self.edges:
            edges = self.edges[variable]
            i = int(np.clip(np.searchsorted(edges, value, side="right") - 1, 0, len(edges) - 2))
            return self.order[variable][i]
        return _label(value)


# --- one group -------------------------------------------------------------------------------
def summarize(rows: Sequence[dict], answer_type: str, *, n_boot: int, seed: int, label: str,
              per_image: bool = False) -> dict:
    """The metrics of one group of rows. `per_image`: also BYO-Eval's Rel, Cons and standard
    deviations over images (a key's whole slices: Tables 2 and 4 give them per task)."""
    n = len(rows)
    counts = Counter(r["status"] for r in rows)
    out: dict = {"n": n, **{s: counts[s] for s in STATUSES}, "parse_rate": counts["ok"] / n if n else None}
    images = [r["image"] for r in rows]
    index = metrics.cluster_index(images)
    out.update(clustered("accuracy", [r["correct"] for r in rows], index), clusters=index[1])
    if answer_type in NUMERIC:
        out.update(clustered("within_one", [r["error"] is not None and abs(r["error"]) <= 1 for r in rows], index))
        preds = [r["value"] if r["status"] == "ok" else None for r in rows]
        errs = metrics.errors(preds, [r["answer"] for r in rows], images, n_boot=n_boot, seed=seed, label=label,
                              normalized=answer_type == "integer")
        out.update(n_errors=errs["n_errors"], excluded=errs["excluded"])
        flags = set()
        for name in ("signed", "mae", "mse", "rmse", "nmae"):
            stat = errs.get(name)
            if stat:
                out.update({name: stat["value"], f"{name}_lo": stat["lo"], f"{name}_hi": stat["hi"]})
                if stat.get("flag"):
                    flags.add(stat["flag"])
        out["interval_note"] = ", ".join(sorted(flags)) or None
    if answer_type in CLASSES:
        preds = [_cell_label(r["value"]) if r["status"] == "ok" else None for r in rows]
        out.update(_prf(metrics.macro_prf(preds, [_cell_label(r["answer"]) for r in rows]), "macro"))
    if answer_type in SETS:
        out.update(_prf(metrics.set_prf([r["value"] for r in rows], [r["answer"] for r in rows]), "micro"))
    if answer_type == "yes_no":
        out.update(_prf(metrics.binary_prf([r["value"] for r in rows], [str(r["answer"]).lower() for r in rows]),
                        "yes"))
    if answer_type in BYOEVAL_TYPES:
        out.update(byoeval_columns(rows, answer_type, index, per_image=per_image))
    return out


def byoeval_columns(rows: Sequence[dict], answer_type: str, index: tuple, *, per_image: bool = True) -> dict:
    """BYO-Eval's own columns (Tables 2, 4, 6): its F1 / precision / recall and, with `per_image`,
    Rel, Cons and the standard deviations over images of accuracy, F1, MAE, MSE and NMAE (Table 2)."""
    hits = [r["correct"] for r in rows]
    paper = metrics.byoeval_prf(hits, [r["answer"] for r in rows])
    out = {"f1_byoeval": paper["f1"], "precision_byoeval": paper["precision"], "recall_byoeval": paper["recall"]}
    if not per_image:
        return out
    accuracy = metrics.image_means(hits, index)
    out.update(reliability=metrics.reliability(hits, index),
               consistency=metrics.consistency([r["prompt"] for r in rows], [_answer_token(r) for r in rows]),
               accuracy_image_sd=metrics.image_sd(accuracy),
               f1_byoeval_image_sd=metrics.image_sd(metrics.f1_from_accuracy(accuracy)))
    if answer_type in NUMERIC:
        parsed = np.fromiter((r["error"] is not None for r in rows), dtype=bool, count=len(rows))
        errors = [r["error"] for r in rows if r["error"] is not None]
        sub = (index[0][parsed], index[1])
        out.update(mae_image_sd=metrics.image_sd(metrics.image_means(np.abs(errors), sub)),
                   mse_image_sd=metrics.image_sd(metrics.image_means(np.square(errors), sub)))
        if answer_type == "integer":
            terms = [metrics.nmae_term(r["value"], r["answer"]) for r in rows if r["error"] is not None]
            out["nmae_image_sd"] = metrics.image_sd(metrics.image_means(terms, sub))
    return out


def _answer_token(row: dict) -> tuple:
    """An answer as Cons compares it: its parse status and parsed value (a list as a tuple)."""
    value = row["value"]
    return row["status"], tuple(value) if isinstance(value, list) else value


def clustered(name: str, hits: Sequence[bool], index: tuple) -> dict:
    """A proportion with its interval clustered by image (NAME_lo, NAME_hi: design-effect Wilson;
    NAME_se: cluster-robust standard error) and the plain Wilson interval, which takes the
    questions as independent (NAME_wilson_lo, NAME_wilson_hi). `index`: metrics.cluster_index(images)."""
    c = metrics.clustered_proportion(hits, index=index)
    lo, hi = metrics.wilson(c["k"], c["n"])
    return {name: c["value"], f"{name}_lo": c["lo"], f"{name}_hi": c["hi"], f"{name}_se": c["se"],
            f"{name}_deff": c["deff"], f"{name}_wilson_lo": lo, f"{name}_wilson_hi": hi}


def _prf(p: dict, averaging: str) -> dict:
    """precision_AVERAGING, recall_AVERAGING, f1_AVERAGING: each F1 named for what it is."""
    return {f"precision_{averaging}": p["precision"], f"recall_{averaging}": p["recall"], f"f1_{averaging}": p["f1"]}


def _grouped(rows: Sequence[dict], group_of) -> dict:
    """Rows by `group_of(row)`, in their order."""
    out: dict = defaultdict(list)
    for r in rows:
        out[group_of(r)].append(r)
    return out


def _slices(rows: Sequence[dict], levels: Levels, labels: dict[int, dict[str, str | None]]):
    """(variable, level, variable2, level2, rows): everything, each level, each cross of two variables.
    `labels`: each row's level labels by the row's id."""
    yield "", "", "", "", list(rows)
    for var in levels.variables:
        by = _grouped(rows, lambda r, var=var: labels[id(r)][var])
        for level in levels.order[var]:
            if level in by:
                yield var, level, "", "", by[level]
    for a, b in itertools.combinations(levels.variables, 2):
        by = _grouped(rows, lambda r, a=a, b=b: (labels[id(r)][a], labels[id(r)][b]))
        for la in levels.order[a]:
            for lb in levels.order[b]:
                if (la, lb) in by:
                    yield a, la, b, lb, by[(la, lb)]


# --- tables ----------------------------------------------------------------------------------
def metric_table(rows: Sequence[dict], *, n_boot: int = 1000, seed: int = 0, bins: Bins | None = None,
                 columns: Sequence[Callable[[list[dict], str], dict]] = ()) -> list[dict]:
    """A row per key ("*": every question asked unflagged), prompt variant, level and cross of two
    variables; `columns`: the shared slice metrics (byo.score.registry), each adding its fields."""
    out = []
    levels = Levels(rows, bins)
    labels = {id(r): {var: levels.of(r, var) for var in levels.variables} for r in rows}  # rows outlive it
    readable = [r for r in rows if not r.get("unreadable")]  # "*" pools the questions asked unflagged
    keys = [("*", "*", "*", readable)] * bool(readable) + [(k, g[0]["task"], g[0]["answer_type"], g)
                                            for (k,), g in metrics.group_by(rows, "key").items()]
    for key, task, answer_type, key_rows in keys:
        for variant, vrows in variants(key_rows):
            for var, level, var2, level2, group in _slices(vrows, levels, labels):
                label = f"{key}|{variant}|{var}={level}|{var2}={level2}"
                summary = summarize(group, answer_type, n_boot=n_boot, seed=seed, label=label, per_image=not var)
                for measure in columns:
                    summary.update(measure(group, answer_type))
                out.append({"run": group[0]["run"], "model": group[0]["model"], "key": key, "task": task,
                            "answer_type": answer_type, "variant": variant, "variable": var, "level": level,
                            "variable2": var2, "level2": level2, **summary})
    return out


def _keys(rows: Sequence[dict]):
    return [(k, g[0]["task"], g[0]["answer_type"], g) for (k,), g in metrics.group_by(rows, "key").items()]


def range_table(rows: Sequence[dict], *, bins: Bins | None = None) -> list[dict]:
    """Mean and standard deviation across levels, as BYO-Eval's Table 3 reports them: per key,
    prompt variant and variable, over every level of the variable (`range` "all") and over the
    levels inside each range asked for (`bins`, e.g. Table 3's counts 1-4 / 5-9 / 10-21). Each
    level's accuracy (and MAE) counts once; `accuracy` beside them pools the range's questions,
    with its interval clustered by image."""
    out = []
    raw = Levels(rows)  # the levels of metrics.csv without the ranges asked for
    for key, task, answer_type, key_rows in _keys(rows):
        for variant, vrows in variants(key_rows):
            for var in raw.variables:
                ranges = [(ALL, None)] + [(range_label(lo, hi), (lo, hi)) for lo, hi in (bins or {}).get(var, [])]
                for name, bounds in ranges:
                    inside = [r for r in vrows if var in r["levels"] and (bounds is None or (
                        _scalar(r["levels"][var]) and bounds[0] <= r["levels"][var] <= bounds[1]))]
                    if not inside:
                        continue
                    per_level = _grouped(inside, lambda r, var=var: raw.of(r, var))
                    acc = [float(np.mean([g["correct"] for g in grp])) for grp in per_level.values()]
                    row = {"run": vrows[0]["run"], "model": vrows[0]["model"], "key": key, "task": task,
                           "answer_type": answer_type, "variant": variant, "variable": var, "range": name,
                           "levels": len(per_level), "n": len(inside), "accuracy_level_mean": float(np.mean(acc)),
                           "accuracy_level_sd": float(np.std(acc)),
                           **clustered("accuracy", [r["correct"] for r in inside],
                                       metrics.cluster_index([r["image"] for r in inside]))}
                    if answer_type in NUMERIC:
                        maes = [float(np.mean([abs(g["error"]) for g in grp if g["error"] is not None]))
                                for grp in per_level.values() if any(g["error"] is not None for g in grp)]
                        row.update(mae_level_mean=float(np.mean(maes)) if maes else None,
                                   mae_level_sd=float(np.std(maes)) if maes else None)
                    out.append(row)
    return out


def truth_table(rows: Sequence[dict], *, n_boot: int = 1000, seed: int = 0) -> list[dict]:
    """Numeric keys per true value (all variants pooled): accuracy, MAE and signed error against
    the answer itself, e.g. the true row distance of relative localization (BYO-Eval figures 28-29)."""
    out = []
    for key, task, answer_type, key_rows in _keys(rows):
        if answer_type not in NUMERIC:
            continue
        by = _grouped(key_rows, lambda r: _cell_label(r["answer"]))
        for truth in sorted(by, key=float):
            group = by[truth]
            out.append({"run": group[0]["run"], "model": group[0]["model"], "key": key, "task": task,
                        "answer_type": answer_type, "truth": truth,
                        **summarize(group, answer_type, n_boot=n_boot, seed=seed, label=f"{key}|truth={truth}")})
    return out


def confusion_table(rows: Sequence[dict]) -> list[dict]:
    """Counts of (truth, prediction) per key, over all variants; a failed parse is "<status>"."""
    out = []
    answered = [r for r in rows if not r.get("ranked")]  # a ranking has no letter (byo.score.retrieval)
    for (key,), group in metrics.group_by(answered, "key").items():
        answer_type = group[0]["answer_type"]
        if answer_type not in (*NUMERIC, "label", "yes_no", "position_word", "multiple_choice"):
            continue
        for variant, vrows in variants(group):
            truths = [_cell_label(r["answer"]) for r in vrows]
            preds = [_cell_label(r["value"]) if r["status"] == "ok" else f"<{r['status']}>" for r in vrows]
            for (t, p), n in sorted(Counter(zip(truths, preds, strict=True)).items(), key=lambda x: str(x[0])):
                out.append({"run": vrows[0]["run"], "model": vrows[0]["model"], "key": key,
                            "answer_type": answer_type, "variant": variant, "truth": t, "predicted": p, "count": n})
    return out


def _cell_label(value):
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _located(rows: Sequence[dict]) -> list[dict]:
    """Items with a true (row, column) and the predicted one (None when not parsed)."""
    items = []
    for (image, variant), group in metrics.group_by(rows, "image", "variant").items():
        row_q = next((r for r in group if r["answer_type"] == "row"), None)
        col_q = next((r for r in group if r["answer_type"] == "column"), None)
        if row_q and col_q:
            pred = ([int(row_q["value"]), int(col_q["value"])]
                    if row_q["status"] == "ok" and col_q["status"] == "ok" else None)
            items.append({"source": "row+column", "image": image, "variant": variant, "levels": row_q["levels"],
                          "truth": [int(row_q["answer"]), int(col_q["answer"])], "pred": pred, "grid": None})
    for r in rows:
        if r["answer_type"] == "cell":
            items.append({"source": r["key"], "image": r["image"], "variant": r["variant"], "levels": r["levels"],
                          "truth": truth_cell(r["answer"]), "pred": grid_position("cell", r["value"]), "grid": None})
        elif r["answer_type"] == "position_word":
            items.append({"source": r["key"], "image": r["image"], "variant": r["variant"], "levels": r["levels"],
                          "truth": grid_position("position_word", r["answer"]),
                          "pred": grid_position("position_word", r["value"]), "grid": [3, 3]})
    return items


def localization_tables(rows: Sequence[dict], *, n_boot: int = 1000, seed: int = 0) -> tuple[list[dict], list[dict]]:
    """Localization error |dr| + |dc| where row and column are both known: a summary and a per-cell grid."""
    items = _located(rows)
    summary, cells = [], []
    run, model = (rows[0]["run"], rows[0]["model"]) if rows else (None, None)
    for (source,), group in metrics.group_by(items, "source").items():
        for variant, vitems in variants(group):
            located = [i for i in vitems if i["pred"] is not None]
            errs = [metrics.localization_error(i["pred"], i["truth"]) for i in located]
            exact = metrics.clustered_proportion([i["pred"] == i["truth"] for i in vitems], [i["image"] for i in vitems])
            err = metrics.bootstrap_mean(errs, [i["image"] for i in located], n_boot=n_boot, seed=seed,
                                         label=f"loc|{source}|{variant}")
            summary.append({"run": run, "model": model, "source": source, "variant": variant, "n": len(vitems),
                            "located": len(located), "excluded": len(vitems) - len(located),
                            "exact": exact["value"], "exact_lo": exact["lo"], "exact_hi": exact["hi"],
                            "error": err["value"], "error_lo": err["lo"], "error_hi": err["hi"],
                            "interval_note": err["flag"]})
            for (tr, tc), citems in sorted(metrics.group_by(
                    [{**i, "_r": i["truth"][0], "_c": i["truth"][1]} for i in vitems], "_r", "_c").items()):
                cerrs = [metrics.localization_error(i["pred"], i["truth"]) for i in citems if i["pred"] is not None]
                cells.append({"run": run, "model": model, "source": source, "variant": variant, "row": tr,
                              "column": tc, "n": len(citems), "located": len(cerrs),
                              "exact": sum(i["pred"] == i["truth"] for i in citems) / len(citems),
                              "error": float(np.mean(cerrs)) if cerrs else None})
    return summary, cells


def status_table(rows: Sequence[dict]) -> list[dict]:
    """Parse statuses per answer type and variant, with the parse rate."""
    out = []
    for (answer_type,), group in sorted(metrics.group_by(rows, "answer_type").items()):
        for variant, vrows in variants(group):
            counts = Counter(r["status"] for r in vrows)
            methods = Counter(r["method"] for r in vrows if r["status"] == "ok")
            out.append({"run": vrows[0]["run"], "model": vrows[0]["model"], "answer_type": answer_type,
                        "variant": variant, "n": len(vrows), **{s: counts[s] for s in STATUSES},
                        "parse_rate": counts["ok"] / len(vrows),
                        "methods": "; ".join(f"{m} {n}" for m, n in methods.most_common())})
    return out
