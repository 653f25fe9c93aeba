"""`byo correlate SYNTHETIC_RUN REAL_RUN`: how well a model's accuracy on renders predicts its
accuracy on real photographs (BYO-Eval, appendix E and Figure 51: "For each number of
pieces (1 to 8), we average the accuracy across all 10 samples and 6 preprompt-instruction pairs,
then compute both Pearson and Spearman correlation coefficients over the 8 aggregated results").

Per question key (and all keys pooled) and per variable, each level's accuracy pools its images
and prompt variants in each run; Pearson's r and Spearman's rho (scipy.stats) are computed over
the levels both runs have. Fewer than 3 common levels, or a run whose accuracy is the same at
every level, gives no coefficient, and says why.
"""

from __future__ import annotations

import math
from collections import defaultdict

from scipy import stats

from byo.score.tables import Levels

MIN_LEVELS = 3


def _per_level(rows: list[dict], levels: Levels) -> dict[tuple[str, str, str], float]:
    """(key, variable, level) -> accuracy, each key and all keys pooled ("*")."""
    hits: dict[tuple[str, str, str], list[bool]] = defaultdict(list)
    for r in rows:
        for var in levels.variables:
            level = levels.of(r, var)
            if level is not None:
                hits[(r["key"], var, level)].append(r["correct"])
                hits[("*", var, level)].append(r["correct"])
    return {k: sum(v) / len(v) for k, v in hits.items()}


def correlation_table(synthetic: list[dict], real: list[dict]) -> list[dict]:
    levels = Levels(synthetic + real)
    a, b = _per_level(synthetic, levels), _per_level(real, levels)
    out = []
    for key, var in sorted({(k, v) for k, v, _ in a} & {(k, v) for k, v, _ in b}, key=lambda x: (x[0] != "*", x)):
        common = [lv for lv in levels.order[var] if (key, var, lv) in a and (key, var, lv) in b]
        xs, ys = [a[(key, var, lv)] for lv in common], [b[(key, var, lv)] for lv in common]
        row = {"key": key, "variable": var, "levels": len(common), "level_values": common,
               "synthetic": xs, "real": ys, "pearson": None, "pearson_p": None, "spearman": None,
               "spearman_p": None, "note": None}
        if len(common) < MIN_LEVELS:
            row["note"] = f"{len(common)} common level(s): at least {MIN_LEVELS} needed"
        elif len(set(xs)) < 2 or len(set(ys)) < 2:
            row["note"] = "accuracy is the same at every level in one run: no correlation"
        else:
            p, s = stats.pearsonr(xs, ys), stats.spearmanr(xs, ys)
            row.update(pearson=float(p.statistic), pearson_p=float(p.pvalue), spearman=float(s.statistic),
                       spearman_p=None if math.isnan(s.pvalue) else float(s.pvalue))
        out.append(row)
    return out
