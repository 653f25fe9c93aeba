"""The CLEVR family's own report tables (`Family.tables`): binding accuracy beside chance per N and
condition, the Minimal vs Contextual paired table, which distractor a wrong answer took, and
accuracy per split of the compositional-generalisation study's label sets.

Definitions quoted from the papers:

- Auto-Comp, Table 4: accuracy on the Swap and Confusion benchmarks beside "Random
  Chance" (1 / candidates: 50.0 / 6.3 for N = 2, 16.7 / 0.1 for N = 3, position Confusion 25.0 / 0.9).
  Here chance is 1 / options as the question presented them (a chat model sees at most 50 by
  default, the paper's count for its blind LLM: chance 2.0% for N = 3 Confusion, Table 9).
- Table 5: "The 'Min' and 'Ctx' columns show 'Swap / Confusion' accuracy (%). The Delta columns show
  the percentage point change", over "the Paired Comparison Set ... concepts for which both the
  minimal and contextual versions" were kept: here, concepts whose two images were both asked.
- Table 6: the Confusion error types "Swapped Colors, Same Color Diff. Obj., Same Color Same Obj.,
  Same Obj. Diff. Colors" (share of errors); the compositional-generalisation study's Tables 5 and 8: "the
  percentage of total predictions made by the models which fall into each error category" (Colour / Shape / Other;
  Left/Right / Shape order / Other). Both come from the distractor tag of the option chosen: a chat
  model's letter, or an image-text model's top caption (k captions tied for the top: each with share
  1 / k, what a uniformly random tie-break takes, as recall@1 credits it: docs/scoring.md's tie policy).

A ranking's accuracy here is its recall@1 credit (1 / k for the truth among k tied top captions).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from byo.families.api import Column, ReportTable, option_index, wilson

AUTOCOMP_KEYS = ("autocomp_swap", "autocomp_confusion", "autocomp_vary_color", "autocomp_vary_object",
                 "binding_swap", "binding_confusion")
COMPGEN_KEYS = ("label_choice", "label_zsl", "relation_choice", "relation_zsl", "relation_zsl_split")


def _chance(row: dict) -> float | None:
    """The guess rate as asked: the row's own (candidate captions), else 1 / the options shown."""
    if row.get("chance") is not None:
        return row["chance"]
    return 1 / len(row["choices"]) if row.get("choices") else None


def credit(row: dict) -> float:
    """A question's credit: a ranking's recall@1 (1 / k for the truth among k tied top captions, the
    expected score of a uniformly random tie-break: docs/scoring.md), else 1 or 0 for the answer."""
    if row.get("ranked") and row.get("recall_at_1") is not None:
        return float(row["recall_at_1"])
    return 1.0 if row["correct"] else 0.0


def _accuracy(rows: list[dict]) -> dict:
    """The mean credit with its Wilson interval (on the summed credit: a tie's fractional credit
    varies less than a hit, so the interval is at least as wide as it needs to be) and the chance."""
    hits = sum(credit(r) for r in rows)
    lo, hi = wilson(hits, len(rows))
    chances = [c for r in rows if (c := _chance(r)) is not None]
    return {"n": len(rows), "accuracy": hits / len(rows) if rows else None, "accuracy_lo": lo, "accuracy_hi": hi,
            "chance": sum(chances) / len(chances) if chances else None}


def _group(rows: list[dict], *names: str) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        out[tuple(r["params"].get(n) for n in names)].append(r)
    return dict(sorted(out.items(), key=lambda kv: tuple(str(v) for v in kv[0])))


def measure_binding(rows: list[dict], train: list) -> list[dict]:
    """Accuracy with its Wilson interval and chance, per task, N and condition."""
    return [{"task": task or "color", "n_objects": n, "condition": cond or "left to right", **_accuracy(group)}
            for (task, n, cond), group in _group(rows, "task", "n", "condition").items()]


def measure_paired(rows: list[dict], train: list) -> list[dict]:
    """Minimal and Contextual accuracy over the concepts asked in both, and the difference."""
    out = []
    for (task, n), group in _group(rows, "task", "n").items():
        by = defaultdict(dict)
        for r in group:
            if r["params"].get("concept") is not None:
                by[r["params"]["concept"]].setdefault(r["params"]["condition"], []).append(credit(r))
        paired = {c: v for c, v in by.items() if {"minimal", "contextual"} <= set(v)}
        if not paired:
            continue
        acc = {cond: [h for v in paired.values() for h in v[cond]] for cond in ("minimal", "contextual")}
        minimal, contextual = (sum(acc[c]) / len(acc[c]) for c in ("minimal", "contextual"))
        out.append({"task": task, "n_objects": n, "concepts": len(paired), "minimal": minimal,
                    "contextual": contextual, "delta_pp": 100 * (contextual - minimal)})
    return out


def measure_relations(rows: list[dict], train: list) -> list[dict]:
    """Position binding accuracy per relation of N = 2 concepts, per condition (Auto-Comp Table 13)."""
    position = [r for r in rows if r["params"].get("task") == "position" and r["params"].get("n") == 2]
    return [{"relation": rel, "condition": cond, **_accuracy(group)}
            for (rel, cond), group in _group(position, "relations", "condition").items()]


def chosen_tags(r: dict) -> dict[str, float]:
    """The kinds of caption a prediction took, each with its share of the prediction: a chat
    model's lettered option (`option_tags`); an image-text model's top caption in the full
    candidate set (`retrieval`), or its k tied top captions each with share 1 / k (what a
    uniformly random tie-break takes, as recall@1 credits it: docs/scoring.md); "unparsed" when
    there is no answer to read."""
    if r.get("ranked"):
        tags, top = (r.get("retrieval") or {}).get("tags"), r.get("top")
        if r["status"] not in ("ok", "ambiguous") or not tags or not top:
            return {"unparsed": 1.0}
        shares: Counter = Counter()
        for k in top:
            shares[tags[k]] += 1 / len(top)
        return dict(shares)
    if r["status"] != "ok" or r["value"] is None:
        return {"unparsed": 1.0}
    tags = r["params"].get("option_tags") or []
    k = option_index(str(r["value"]))
    return {tags[k]: 1.0} if k is not None and k < len(tags) else {"unparsed": 1.0}


def _count(x: float) -> int | float:
    return int(round(x)) if abs(x - round(x)) < 1e-9 else round(x, 3)


def measure_distractors(rows: list[dict], train: list) -> list[dict]:
    """Per slice (split, or N and condition), the share of all predictions that took each kind of
    distractor, and its share of the errors."""
    out = []
    if any(r["params"].get("split") for r in rows):
        groups = {f"split={k[0]}": g for k, g in _group(rows, "split").items()}
    else:
        groups = {f"N={n} {cond or ''}".strip(): g for (n, cond), g in _group(rows, "n", "condition").items()}
    for name, group in groups.items():
        taken: Counter = Counter()
        for r in group:
            taken.update(chosen_tags(r))
        taken.pop("truth", None)
        wrong = sum(taken.values())
        for tag, count in sorted(taken.items()):
            out.append({"slice": name, "distractor": tag, "count": _count(count),
                        "of_predictions": count / len(group), "of_errors": count / wrong})
    return out


_RELATION_PROMPT = re.compile(r"a photo of an? (\w+) to the (?:left|right) of an? (\w+)")


def relation_shapes(caption: str) -> tuple[str, ...] | None:
    """The shapes a relational label's photo prompt names, as a bag (sorted); None for another caption."""
    found = _RELATION_PROMPT.fullmatch(caption)
    return tuple(sorted(found.groups())) if found else None


def bag_of_shapes_score(row: dict) -> float | None:
    """What a ranker that reads only which shapes a relational caption names (not where they stand)
    scores on the row's question: the captions naming the true caption's shapes tie at its top, so
    1 / their number (docs/scoring.md's tie rule); None for a question of other captions."""
    ret = row.get("retrieval") or {}
    bags = [relation_shapes(c) for c in ret.get("captions") or ()]
    if not bags or any(b is None for b in bags):
        return None
    return 1 / sum(b == bags[ret["truth"]] for b in bags)


def measure_splits(rows: list[dict], train: list) -> list[dict]:
    """The compositional-generalisation study's accuracy per split (Tables 2, 3, 4, 6 and 7), beside
    the bag-of-shapes shortcut's score on the same questions (relational keys)."""
    out = []
    for (split,), group in _group(rows, "split").items():
        shortcut = [s for r in group if (s := bag_of_shapes_score(r)) is not None]
        out.append({"split": split or "all", **_accuracy(group),
                    "bag_of_shapes": sum(shortcut) / len(shortcut) if len(shortcut) == len(group) else None})
    return out


BINDING = ReportTable(
    name="autocomp", title="Binding (Auto-Comp) beside chance",
    definition="Auto-Comp Swap, Confusion and N = 1 caption choices: accuracy with its Wilson interval, "
               "and chance = mean 1 / options as presented, per task, N and condition",
    note="Auto-Comp, Table 4 and Table 8. Chance is 1 / options as each question presented them: a "
         "chat model sees every caption when there are at most 50 (the paper's count; byo questions --options "
         "N sets another), else the truth and 49 drawn from the question's seed (the question says which); an "
         "image-text model ranks all of them.",
    columns=(Column("task", "task", "text"), Column("N", "n_objects", "int"), Column("condition", "condition", "text"),
             Column("n", "n", "int"), Column("accuracy", "accuracy", interval="pct"), Column("chance", "chance")),
    measure=measure_binding, keys=AUTOCOMP_KEYS)

PAIRED = ReportTable(
    name="autocomp_paired", title="Minimal vs Contextual (Auto-Comp paired set)",
    definition="accuracy on the Minimal and the Contextual image of the concepts asked in both, and the "
               "difference in percentage points (Auto-Comp Table 5)",
    note="Auto-Comp, Table 5: the same concepts rendered on a white background with a template "
         "caption (Minimal) and in a lit set with furniture and distractor objects with a natural caption "
         "(Contextual). Delta = Contextual - Minimal, in percentage points.",
    columns=(Column("task", "task", "text"), Column("N", "n_objects", "int"), Column("concepts", "concepts", "int"),
             Column("Minimal", "minimal"), Column("Contextual", "contextual"), Column("Δ (pp)", "delta_pp", "num")),
    measure=measure_paired, keys=AUTOCOMP_KEYS[:2])

DISTRACTORS = ReportTable(
    name="distractors", title="Which distractor a wrong answer took",
    definition="per slice, the share of predictions (and of errors) that chose each kind of distractor, from the "
               "tag recorded with every option (Auto-Comp Table 6; the compositional-generalisation study's "
               "Tables 5 and 8)",
    note="The tags: swap:color / swap:shape (the compositional-generalisation study's Table 5: the other "
         "object's colour or shape), swap:relation "
         "/ swap:order (Table 8: left/right, the shapes' order), other (a random label), and Auto-Comp's Table 6 "
         "kinds swap:color, confusion:same_color_diff_object, confusion:same_color_same_object, "
         "confusion:same_object_diff_color (position: swap:order, swap:relation, confusion:same_object). "
         "'unparsed' counts answers with no option found. An image-text model's prediction is its top caption "
         "among all the candidates; k tied top captions count 1 / k each (a uniformly random tie-break).",
    columns=(Column("slice", "slice", "text"), Column("distractor", "distractor", "text"),
             Column("count", "count", "int"), Column("of predictions", "of_predictions"),
             Column("of errors", "of_errors")),
    measure=measure_distractors, keys=AUTOCOMP_KEYS + COMPGEN_KEYS)

SPLITS = ReportTable(
    name="compgen_splits", title="Accuracy per split (compositional generalisation)",
    definition="The compositional-generalisation study: accuracy with its Wilson interval and chance per split "
               "(train, id_val, id_test, ood_val, ood_test) of the ZSL and GZSL label sets",
    note="The compositional-generalisation study, Tables 2-4, 6 and 7. ZSL keys (label_zsl, relation_zsl_split) "
         "offer the truth and two labels of the "
         "same split; GZSL keys (label_choice, relation_choice) the truth, two hard negatives and two random "
         "labels (single objects: every label). In an OOD split the answer names the held-out object. "
         "bag-of-shapes: the score on the same questions of a ranker that reads only which shapes a relational "
         "caption names (the shortcut a key's sampling leaves open): 1/3, the chance, on relation_zsl; on the "
         "paper's own sampling (relation_zsl_split) 1.00 on OOD test, whose labels each name another pair of "
         "shapes. A model's accuracy near it may be the shortcut's.",
    columns=(Column("split", "split", "text"), Column("n", "n", "int"), Column("accuracy", "accuracy", interval="pct"),
             Column("chance", "chance"), Column("bag-of-shapes", "bag_of_shapes")),
    measure=measure_splits, keys=COMPGEN_KEYS)

RELATIONS = ReportTable(
    name="autocomp_relations", title="Position binding per relation (Auto-Comp, N = 2)",
    definition="accuracy with its Wilson interval and chance per relation of the N = 2 position concepts, per "
               "condition (Auto-Comp Table 13)",
    note="Auto-Comp, Table 13: over, under, to the left of, to the right of, measured in the image plane.",
    columns=(Column("relation", "relation", "text"), Column("condition", "condition", "text"), Column("n", "n", "int"),
             Column("accuracy", "accuracy", interval="pct"), Column("chance", "chance")),
    measure=measure_relations, keys=AUTOCOMP_KEYS[:2])

TABLES = (BINDING, PAIRED, RELATIONS, DISTRACTORS, SPLITS)
