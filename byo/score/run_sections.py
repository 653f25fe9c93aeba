"""The report's sections about the runs rather than a score table: the overview, paired
comparisons, human agreement, worst mistakes, cost and the definitions, each a `Section` (its
template: templates/sections/NAME.html.j2). byo.score.report puts the first three before the
tables' sections and the others after them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from byo.core.paths import inside
from byo.core.report_tables import Section
from byo.score import plots, registry
from byo.score import psychometric as psy
from byo.score.compare import TEST_SIGN, compare, question_difference, testing_summary
from byo.score.cost import cost_section
from byo.score.metrics import nmae_term
from byo.score.parse import STATUSES
from byo.score.report_format import (
    MISTAKES,
    Runs,
    Thumbnails,
    _short,
    figure,
    interval,
    num,
    pct,
    show,
)
from byo.score.rows import NUMERIC


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


def asked_section(runs: Runs) -> list[dict]:
    """Per dataset of the runs, per variable and level: the questions asked, skipped and flagged as
    unreadable, and why (the summary `byo questions` wrote beside the questions)."""
    out = []
    for dataset, summary in runs.question_summaries():
        rows = [{"variable": variable, "level": level, "asked": c.get("asked", 0), "skipped": c.get("skipped", 0),
                 "flagged": c.get("flagged", 0),
                 "why": "; ".join(f"{r} ({n})" for r, n in sorted(summary.get("why", {}).get(variable, {})
                                                                   .get(level, {}).items(), key=lambda x: -x[1]))}
                for variable, levels in summary.get("levels", {}).items() for level, c in levels.items()]
        if rows:
            out.append({"dataset": Path(dataset).name, "policy": summary.get("policy", "skip"), "rows": rows})
    return out


def severity(row: dict) -> float:
    if row["status"] != "ok":
        return 1.0
    if row["answer_type"] in NUMERIC and row["error"] is not None:
        return 1.0 + nmae_term(row["value"], row["answer"])
    return 1.5


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


def humans_section(runs: Runs) -> list[dict]:
    """The agreement of the annotators of each dataset with two or more (byo.score.humans.panels)."""
    return [{"dataset": Path(h.dataset).name, "annotators": h.annotators, "rows": h.agreement, "ties": h.ties}
            for h in runs.human]


def definitions_section(runs: Runs) -> dict[str, str]:
    return registry.DEFINITIONS


def _always(data) -> bool:
    return True


def _template(name: str) -> str:
    return f"sections/{name}.html.j2"


BEFORE = (Section("overview", "Overview", overview, _template("overview"), shown=_always),
          Section("paired", "Paired comparisons", paired_section, _template("paired")),
          Section("humans", "Human agreement", humans_section, _template("humans")))
AFTER = (Section("mistakes", "Worst mistakes", mistakes_section, _template("mistakes")),
         Section("cost", "Cost", lambda runs: cost_section(runs.items()), _template("cost"),
                 shown=lambda d: bool(d["runs"])),  # a run with prices
         Section("definitions", "Definitions", definitions_section, _template("definitions"), shown=_always))
