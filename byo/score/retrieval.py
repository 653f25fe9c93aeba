"""Retrieval: recall@1 over candidate captions, a shared metric (byo.score.registry).

Every scored row of a question with a candidate set carries `recall_at_1` (byo.score.rows): for
an image-text model's ranking, 1 / k when the true caption is among the k captions tied for the
highest similarity, else 0 (the expected score of a uniformly random tie-break: docs/scoring.md's
tie policy; 1 or 0 without a tie); for a chat model's answer, 1 or 0. Beside it, as sensitivity
columns, the strict rule (a tie at the top is a miss: `recall_at_1_strict`) and the first-maximum
rule (the first of the tied captions in the stored order, as numpy's argmax takes it:
`recall_at_1_first`); the stored order is a seeded random one (byo.families.base.candidate_order),
so the first maximum is a random tie-break too, one draw of it. `chance` is
the guess rate as asked: 1 / captions for a ranking, 1 / options shown for a chat question. The
table: recall@1 per key and prompt variant, with its interval clustered by image, beside the mean
chance.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from byo.core.report_tables import Column, ReportTable, variants
from byo.core.stats import clustered_mean
from byo.score import metrics


def retrieval_table(rows: Sequence[dict], options=None) -> list[dict]:
    """recall@1 per key and prompt variant over the questions with candidate captions."""
    out = []
    scored = [r for r in rows if r.get("recall_at_1") is not None]
    for (key,), group in sorted(metrics.group_by(scored, "key").items()):
        for variant, vrows in variants(group):
            r1 = clustered_mean([r["recall_at_1"] for r in vrows], [r["image"] for r in vrows])
            rules = {name: float(np.mean([r.get(name, r["recall_at_1"]) for r in vrows]))
                     for name in ("recall_at_1_strict", "recall_at_1_first")}
            chances = [r["chance"] for r in vrows if r.get("chance") is not None]
            ranked = all(r.get("ranked") for r in vrows)
            out.append({"run": vrows[0]["run"], "model": vrows[0]["model"], "key": key, "variant": variant,
                        "ranked": ranked, "how": "ranked" if ranked else "answered", "n": len(vrows), "clusters": r1["clusters"],
                        "recall_at_1": r1["value"], "recall_at_1_lo": r1["lo"], "recall_at_1_hi": r1["hi"],
                        "recall_at_1_se": r1["se"], **rules, "chance": float(np.mean(chances)) if chances else None,
                        "candidates": float(np.mean([r["n_candidates"] for r in vrows]))})
    return out


RETRIEVAL = ReportTable(
    name="retrieval", title="Retrieval",
    definition="recall@1 over a question's candidate captions: for an image-text model's ranking 1 / k when the "
               "true caption is among the k captions tied for the highest similarity (the expected score of a "
               "uniformly random tie-break; 1 without a tie), else 0; for a chat answer 1 when right; beside the "
               "chance as asked (1 / captions ranked, 1 / options shown); 95% interval from the cluster-robust "
               "(by image) standard error. Sensitivity columns: strict (a tie at the top is a miss) and first "
               "maximum (the first tied caption in the question's seeded candidate order)",
    note="Questions with candidate captions: an image-text model ranks every caption by similarity (recall@1: 1 when "
         "the true caption is alone at the top, 1 / k when it is one of k tied there, as a uniformly random "
         "tie-break scores on average), a chat model picks a lettered option. Chance: 1 / captions ranked, or 1 / "
         "options shown: a ranker that ties every caption scores it. strict: a tie is a miss; first max: the first "
         "tied caption in the question's seeded candidate order. 95% interval from the cluster-robust standard "
         "error (by image).",
    columns=(Column("how", "how", "text"), Column("n", "n", "int"), Column("candidates", "candidates", "num"),
             Column("recall@1", "recall_at_1", interval="pct"), Column("chance", "chance"),
             Column("strict", "recall_at_1_strict"), Column("first max", "recall_at_1_first")),
    measure=retrieval_table, scope="run", terminal=True)
