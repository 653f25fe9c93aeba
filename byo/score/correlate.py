"""`byo correlate SYNTHETIC_RUN REAL_RUN`: how well a model's accuracy on renders predicts its
accuracy on real photographs (BYO-Eval, appendix E), per question key both runs asked (a key is
never pooled with others: the photos are asked fewer keys than the renders).

- Figure 51, per key and variable: "For each number of pieces (1 to 8), we average the accuracy
  across all 10 samples and 6 preprompt-instruction pairs, then compute both Pearson and Spearman
  correlation coefficients over the 8 aggregated results." Each level's accuracy pools its images
  and prompt variants in each run; when the photos name the renders they reproduce (labels.yaml
  `render:`), the synthetic side is those renders (the paper's 10 samples per level), otherwise
  every synthetic image.
- Figure 52, per key: "computed at the individual prediction level. For each number of pieces (1
  to 8), each preprompt-instruction pair, and each image scene (10 per level), we calculate both
  Pearson and Spearman correlation coefficients for accuracy. The average across all these scores
  is presented." Read here as: per scene pair (a photo and its render), the coefficients between
  the render's and the photo's right/wrong answers over the prompt variants both were asked; then
  their mean over the scene pairs.
- Figure 53, per key, variable and prompt (each preprompt/instruction variant, each preprompt and
  each instruction, pooling the other): "For each number of pieces (1 to 8), we compute Pearson
  and Spearman correlation coefficients for accuracy across 10 images, then report the mean
  correlation for each prompt type." Per level, the coefficients over the level's scene pairs of
  the render's and the photo's accuracy in that prompt; then their mean over the levels.

Pearson's r and Spearman's rho are scipy's. A coefficient needs at least 3 points and answers that
are not all alike in either run; otherwise it is not estimable, the row says why, and a mean is over
the coefficients there are (`estimable` of `of` counts them).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np
import scipy  # scipy.stats loads on first use (commands that import this module seldom correlate)

from byo.score.tables import Levels

MIN_POINTS = 3


def coefficients(xs: Sequence[float], ys: Sequence[float]) -> tuple[dict, str | None]:
    """Pearson's r and Spearman's rho of paired values, or (Nones, why not)."""
    none = {"pearson": None, "pearson_p": None, "spearman": None, "spearman_p": None}
    if len(xs) < MIN_POINTS:
        return none, f"{len(xs)} point(s): at least {MIN_POINTS} needed"
    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return none, "the same accuracy at every point in one run"
    p, s = scipy.stats.pearsonr(xs, ys), scipy.stats.spearmanr(xs, ys)
    return {"pearson": float(p.statistic), "pearson_p": float(p.pvalue), "spearman": float(s.statistic),
            "spearman_p": None if math.isnan(s.pvalue) else float(s.pvalue)}, None


def _mean_of(found: list[dict]) -> dict:
    estimable = [f for f in found if f["pearson"] is not None]
    return {"of": len(found), "estimable": len(estimable),
            "pearson": float(np.mean([f["pearson"] for f in estimable])) if estimable else None,
            "spearman": float(np.mean([f["spearman"] for f in estimable])) if estimable else None}


def scene_pairs(real: list[dict]) -> dict[str, str]:
    """photo -> the render it reproduces (its questions' `params.render`)."""
    return {r["image"]: r["params"]["render"] for r in real if (r.get("params") or {}).get("render")}


def _per_level(rows: list[dict], levels: Levels) -> dict[tuple[str, str, str], float]:
    """(key, variable, level) -> accuracy."""
    hits: dict[tuple[str, str, str], list[bool]] = defaultdict(list)
    for r in rows:
        for var in levels.variables:
            level = levels.of(r, var)
            if level is not None:
                hits[(r["key"], var, level)].append(r["correct"])
    return {k: sum(v) / len(v) for k, v in hits.items()}


def correlation_table(synthetic: list[dict], real: list[dict]) -> list[dict]:
    """Figure 51: per key both runs asked and per variable, over the levels both runs have."""
    pairs = scene_pairs(real)
    if pairs:
        renders = set(pairs.values())
        synthetic = [r for r in synthetic if r["image"] in renders]
    levels = Levels(synthetic + real)
    a, b = _per_level(synthetic, levels), _per_level(real, levels)
    out = []
    for key, var in sorted({(k, v) for k, v, _ in a} & {(k, v) for k, v, _ in b}):
        common = [lv for lv in levels.order[var] if (key, var, lv) in a and (key, var, lv) in b]
        xs, ys = [a[(key, var, lv)] for lv in common], [b[(key, var, lv)] for lv in common]
        found, note = coefficients(xs, ys)
        out.append({"key": key, "variable": var, "levels": len(common), "level_values": common, "synthetic": xs,
                    "real": ys, "synthetic_images": "the renders the photos reproduce" if pairs else "every image",
                    **found, "note": note})
    return out


def _paired_rows(synthetic: list[dict], real: list[dict]) -> dict[tuple[str, str], list[tuple[dict, dict]]]:
    """(key, photo) -> (render's row, photo's row) of each prompt variant both were asked."""
    pairs = scene_pairs(real)
    rendered = {(r["image"], r["key"], r["variant"]): r for r in synthetic}
    out: dict[tuple[str, str], list[tuple[dict, dict]]] = defaultdict(list)
    for r in real:
        match = rendered.get((pairs.get(r["image"]), r["key"], r["variant"]))
        if match is not None:
            out[(r["key"], r["image"])].append((match, r))
    return out


def scene_pair_table(synthetic: list[dict], real: list[dict]) -> list[dict]:
    """Figure 52: per key, each scene pair's coefficients over the prompt variants (right = 1,
    wrong = 0 on the render and on the photo), and their mean over the scene pairs."""
    by_key: dict[str, list[dict]] = defaultdict(list)
    for (key, photo), matched in sorted(_paired_rows(synthetic, real).items()):
        found, note = coefficients([float(s["correct"]) for s, _ in matched], [float(r["correct"]) for _, r in matched])
        by_key[key].append({"photo": photo, "render": matched[0][0]["image"], "variants": len(matched), **found,
                            "note": note})
    return [{"key": key, "scene_pairs": pairs, **_mean_of(pairs)} for key, pairs in by_key.items()]


PROMPTS: dict[str, Callable[[str], str]] = {  # how Figure 53 groups the prompt variants
    "variant": lambda v: v, "preprompt": lambda v: v.split("/")[0], "instruction": lambda v: v.split("/")[1]}


def prompt_table(synthetic: list[dict], real: list[dict]) -> list[dict]:
    """Figure 53: per key, variable and prompt (a variant, a preprompt or an instruction), per level
    the coefficients over the level's scene pairs of the render's and the photo's accuracy in that
    prompt, and their mean over the levels."""
    matched = _paired_rows(synthetic, real)
    levels = Levels([r for pairs in matched.values() for _, r in pairs])
    out = []
    for key in sorted({k for k, _ in matched}):
        photos = [(photo, pairs) for (k, photo), pairs in matched.items() if k == key]
        for var in levels.variables:
            for grouping, group_of in PROMPTS.items():
                names = sorted({group_of(r["variant"]) for _, pairs in photos for _, r in pairs})
                if grouping != "variant" and len(names) < 2:
                    continue  # one preprompt (instruction): its row is the variant's
                for name in names:
                    per_level = []
                    for level in levels.order[var]:
                        points = []
                        for _, pairs in photos:
                            inside = [(s, r) for s, r in pairs if group_of(r["variant"]) == name]
                            if inside and levels.of(inside[0][1], var) == level:
                                points.append((np.mean([s["correct"] for s, _ in inside]),
                                               np.mean([r["correct"] for _, r in inside])))
                        if points:
                            found, note = coefficients([float(x) for x, _ in points], [float(y) for _, y in points])
                            per_level.append({"level": level, "scene_pairs": len(points), **found, "note": note})
                    out.append({"key": key, "variable": var, "grouping": grouping, "prompt": name,
                                "per_level": per_level, **_mean_of(per_level)})
    return out
