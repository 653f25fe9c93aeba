"""What a run's answers cost, per run, question key and level: the report's Cost section.

The cost of an answer is its prediction's `cost_usd`: its tokens at the providers file's prices
(an answer from a batch at the batch price). A run's cost is that sum over its answers, the
answers it took from the cache included; what the run itself paid is `spent_usd` in its
run.json (its requests over all its invocations: an answer from the cache cost nothing again),
beside its `--max-cost` cap. A run without prices has no cost; the section is shown when a run has.
"""

from __future__ import annotations

from collections import defaultdict


def _group(rows: list[dict]) -> dict:
    priced = [r for r in rows if r.get("cost_usd") is not None]
    cost = sum(r["cost_usd"] for r in priced)
    tokens = [r.get("tokens") or {} for r in priced]
    return {"n": len(rows), "priced": len(priced), "cost_usd": cost,
            "per_question_usd": cost / len(priced) if priced else None,
            "input_tokens": sum(t.get("input") or 0 for t in tokens),
            "output_tokens": sum(t.get("output") or 0 for t in tokens)}


def cost_by(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """(one row per question key, one per key, level variable and level), costs summed."""
    keys, levels = defaultdict(list), defaultdict(list)
    for r in rows:
        keys[r["key"]].append(r)
        for variable, level in sorted((r.get("levels") or {}).items()):
            levels[(r["key"], variable, str(level))].append(r)
    return ([{"key": k, **_group(v)} for k, v in keys.items()],
            [{"key": k, "variable": var, "level": lv, **_group(v)} for (k, var, lv), v in levels.items()])


def cost_section(runs) -> dict:
    """For the report: `runs` are (label, Scores) pairs."""
    out: dict = {"runs": [], "keys": [], "levels": []}
    for label, s in runs:
        whole = _group(s.rows)
        if not whole["priced"]:
            continue
        out["runs"].append({"label": label, **whole, "spent_usd": s.facts.get("spent_usd"),
                            "max_cost_usd": s.facts.get("max_cost_usd"), "batch": bool(s.facts.get("batch"))})
        keys, levels = cost_by(s.rows)
        out["keys"] += [{"label": label, **k} for k in keys]
        out["levels"] += [{"label": label, **lv} for lv in levels]
    return out
