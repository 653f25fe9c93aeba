"""Retrieval metrics: recall@1 over candidate captions, and COMPASS's analyses (seed 003).

Every scored row of a question with a candidate set carries `recall_at_1` (byo.score.rows): for
an image-text model's ranking, 1 when the true caption is strictly the most similar, else 0 (a tie
at the top is a miss: docs/scoring.md's tie policy); for a chat model's answer, 1 or 0. `chance` is the guess rate as
asked: 1 / captions for a ranking, 1 / options shown for a chat question.

- `retrieval`: recall@1 per key and prompt variant, with its interval clustered by image, beside
  the mean chance.
- `compass_integration`: COMPASS's compositional integration gap (seed 003, section 5.2). "For a
  composed caption c, Recall@1 is defined as R@1_comp(c) = 1[s(I, c) > s(I, c~_i), for all i in
  {1, ..., N}]" (Eq. 1); "for the decomposed setting, we aggregate performance using a joint
  success criterion, requiring the model to correctly retrieve every single primitive in the
  set: R@1_decomp(c) = prod_i 1[s(I, d_i) > s(I, d~_i)]" (Eq. 2); "Delta(c) = R@1_decomp(c) -
  R@1_comp(c)" (Eq. 3). One row per structural level and complexity N (captions with their
  composed question and all N decomposed questions answered), and one per level (`n` = "all")
  with the mean and standard deviation of Delta over the N levels, as the paper's Table 2
  ("mean +- standard deviation ... aggregated across all complexities").
- `compass_skill_load`: "R@1_t = beta_O n_O(c) + beta_A n_A(c) + beta_R n_R(c) + alpha" (Eq. 4),
  one OLS per structural level and skill t over the skill-targeted questions, "with standard
  errors clustered at the image level to account for within-image correlation", two-sided t-tests
  (statsmodels). Only the primitive types a level has enter its regression (OA: n_O, n_A).
  Coefficients are in R@1 units (x 100: the paper's percentage points).
- `compass_perplexity`: the perplexity audit of the negatives (seed 003, appendix B) needs a
  language model; without one the table says it was skipped.

Deviation: Delta and the R@1s are proportions (the paper prints percentages).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from byo.score import metrics

ALL = "all"
TYPES = ("O", "A", "R")


def clustered_mean(values: Sequence[float], clusters: Sequence) -> dict:
    """A mean in [0, 1] with its cluster-robust (CR1) standard error and a normal 95% interval,
    clipped to [0, 1]."""
    n = len(values)
    if n == 0:
        return {"value": None, "lo": None, "hi": None, "se": None, "clusters": 0}
    v = np.asarray(values, float)
    index, g = metrics.cluster_index(clusters)
    mean = float(v.mean())
    resid = np.bincount(index, weights=v - mean, minlength=g)
    se = math.sqrt(float((resid ** 2).sum()) / n**2 * (g / (g - 1) if g > 1 else 1.0))
    return {"value": mean, "lo": max(0.0, mean - 1.96 * se), "hi": min(1.0, mean + 1.96 * se), "se": se,
            "clusters": g}


def _variants(rows: Sequence[dict]):
    yield ALL, list(rows)
    for (variant,), group in sorted(metrics.group_by(rows, "variant").items()):
        yield variant, group


def retrieval_table(rows: Sequence[dict]) -> list[dict]:
    """recall@1 per key and prompt variant over the questions with candidate captions."""
    out = []
    scored = [r for r in rows if r.get("recall_at_1") is not None]
    for (key,), group in sorted(metrics.group_by(scored, "key").items()):
        for variant, vrows in _variants(group):
            r1 = clustered_mean([r["recall_at_1"] for r in vrows], [r["image"] for r in vrows])
            chances = [r["chance"] for r in vrows if r.get("chance") is not None]
            out.append({"run": vrows[0]["run"], "model": vrows[0]["model"], "key": key, "variant": variant,
                        "ranked": all(r.get("ranked") for r in vrows), "n": len(vrows), "clusters": r1["clusters"],
                        "recall_at_1": r1["value"], "recall_at_1_lo": r1["lo"], "recall_at_1_hi": r1["hi"],
                        "recall_at_1_se": r1["se"], "chance": float(np.mean(chances)) if chances else None,
                        "candidates": float(np.mean([r["n_candidates"] for r in vrows]))})
    return out


# --- COMPASS ---------------------------------------------------------------------------------
def compass_of(row: dict) -> dict | None:
    """The COMPASS facts a question carries in its parameters (params.compass), if any."""
    facts = (row.get("params") or {}).get("compass")
    return facts if isinstance(facts, dict) and row.get("recall_at_1") is not None else None


def integration_table(rows: Sequence[dict]) -> list[dict]:
    out = []
    compass = [r for r in rows if (c := compass_of(r)) and c.get("role") in ("composed", "decomposed")]
    if not compass:
        return out
    run, model = compass[0]["run"], compass[0]["model"]
    for variant, vrows in _variants(compass):
        captions: dict[tuple, dict] = defaultdict(lambda: {"composed": None, "parts": {}, "facts": None, "image": None})
        for r in vrows:
            facts = compass_of(r)
            unit = captions[(facts["caption"], r["variant"])]
            unit["facts"], unit["image"] = facts, r["image"]
            if facts["role"] == "composed":
                unit["composed"] = r["recall_at_1"]
            else:
                unit["parts"][facts["primitive"]] = r["recall_at_1"]
        complete = [u for u in captions.values()
                    if u["composed"] is not None and len(u["parts"]) == u["facts"]["n"]]
        by_level: dict[str, dict[int, list]] = defaultdict(lambda: defaultdict(list))
        for u in complete:
            by_level[u["facts"]["level"]][int(u["facts"]["n"])].append(u)
        for level in sorted(by_level):
            deltas_by_n = []
            for n in sorted(by_level[level]):
                units = by_level[level][n]
                comp = [u["composed"] for u in units]
                decomp = [float(np.prod(list(u["parts"].values()))) for u in units]
                delta = [d - c for c, d in zip(comp, decomp, strict=True)]
                images = [u["image"] for u in units]
                c, d = clustered_mean(comp, images), clustered_mean(decomp, images)
                mean_delta = float(np.mean(delta))
                deltas_by_n.append(mean_delta)
                out.append({"run": run, "model": model, "variant": variant, "level": level, "n": n,
                            "captions": len(units), "images": c["clusters"],
                            "r1_composed": c["value"], "r1_composed_lo": c["lo"], "r1_composed_hi": c["hi"],
                            "r1_decomposed": d["value"], "r1_decomposed_lo": d["lo"], "r1_decomposed_hi": d["hi"],
                            "delta": mean_delta, "delta_sd_captions": float(np.std(delta, ddof=1)) if len(delta) > 1
                            else None, "delta_mean_over_n": None, "delta_sd_over_n": None})
            units = [u for n in by_level[level] for u in by_level[level][n]]
            comp = [u["composed"] for u in units]
            decomp = [float(np.prod(list(u["parts"].values()))) for u in units]
            out.append({"run": run, "model": model, "variant": variant, "level": level, "n": ALL,
                        "captions": len(units), "images": len({u["image"] for u in units}),
                        "r1_composed": float(np.mean(comp)), "r1_composed_lo": None, "r1_composed_hi": None,
                        "r1_decomposed": float(np.mean(decomp)), "r1_decomposed_lo": None, "r1_decomposed_hi": None,
                        "delta": float(np.mean(np.subtract(decomp, comp))), "delta_sd_captions": None,
                        "delta_mean_over_n": float(np.mean(deltas_by_n)),
                        "delta_sd_over_n": float(np.std(deltas_by_n, ddof=1)) if len(deltas_by_n) > 1 else None})
    return out


def skill_load_table(rows: Sequence[dict]) -> list[dict]:
    """Eq. 4 per level and skill: OLS of recall@1 on the caption's per-type primitive counts, with
    standard errors clustered by image."""
    import statsmodels.api as sm

    out = []
    skill = [r for r in rows if (c := compass_of(r)) and c.get("role") == "skill"]
    if not skill:
        return out
    run, model = skill[0]["run"], skill[0]["model"]
    for variant, vrows in _variants(skill):
        groups = metrics.group_by([{**r, "_level": compass_of(r)["level"], "_skill": compass_of(r)["skill"]}
                                   for r in vrows], "_level", "_skill")
        for (level, target), group in sorted(groups.items()):
            terms = [t for t in TYPES if t in level]  # the types the level has
            y = np.array([r["recall_at_1"] for r in group], float)
            X = np.array([[compass_of(r)["counts"][t] for t in terms] for r in group], float)
            images = [r["image"] for r in group]
            codes, g = metrics.cluster_index(images)
            base = {"run": run, "model": model, "variant": variant, "level": level, "skill": target,
                    "n": len(group), "images": g, "r1": float(y.mean())}
            spread = [t for k, t in enumerate(terms) if np.ptp(X[:, k]) > 0]
            if len(group) < len(terms) + 2 or g < 2 or not spread:
                out.append({**base, "term": "-", "beta": None, "se": None, "t": None, "p": None, "ci_lo": None,
                            "ci_hi": None, "self_load": None,
                            "note": "too few questions, images or differing counts to fit"})
                continue
            design = sm.add_constant(X[:, [terms.index(t) for t in spread]], has_constant="add")
            with np.errstate(all="ignore"):
                fit = sm.OLS(y, design).fit(cov_type="cluster", cov_kwds={"groups": codes})
            ci = fit.conf_int()
            dropped = [t for t in terms if t not in spread]
            for k, term in enumerate(["intercept", *spread]):
                out.append({**base, "term": term, "beta": _num(fit.params[k]), "se": _num(fit.bse[k]),
                            "t": _num(fit.tvalues[k]), "p": _num(fit.pvalues[k]), "ci_lo": _num(ci[k][0]),
                            "ci_hi": _num(ci[k][1]), "self_load": term == target,
                            "note": (f"constant count of {', '.join(dropped)} left out" if dropped else None)})
    return out


def _num(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


PERPLEXITY_SKIPPED = ("skipped: the perplexity check of the negatives needs a language model (byo score "
                      "--perplexity-model NAME, a transformers causal LM such as gpt2)")


def perplexity_table(rows: Sequence[dict], model: str | None = None, device: str = "auto") -> list[dict]:
    """The perplexity audit of seed 003 (appendix B): per level and negative type, each true
    caption's perplexity against its hardest negative's, "the candidate whose perplexity is closest
    to the ground-truth caption: n^ = argmin_n |PPL(n) - PPL(c)|" (Eq. 5), compared by the
    rank-biserial correlation "r = 1 - 2U / (n1 n2) where U is the Mann-Whitney statistic" (Eq. 6),
    read as the paper does: |r| < 0.1 negligible, < 0.3 small, else medium or large. Decomposed
    captions are left out, as the paper does ("not informative for benchmark validity"). Without
    `model` the table says it was skipped."""
    sets: dict[tuple, dict] = {}
    for r in rows:
        facts = compass_of(r)
        if not facts or facts["role"] == "decomposed" or not r.get("retrieval"):
            continue
        kind = "composed" if facts["role"] == "composed" else f"skill {facts['skill']}"
        sets[(facts["level"], kind, facts["caption"])] = r["retrieval"]
    if not sets:
        return []
    base = {"run": rows[0]["run"], "model": rows[0]["model"]}
    if model is None:
        return [{**base, "level": "-", "negatives": "-", "pairs": 0, "effect_size_r": None, "interpretation": None,
                 "language_model": None, "note": PERPLEXITY_SKIPPED}]
    from scipy.stats import mannwhitneyu

    texts = sorted({c for ret in sets.values() for c in ret["captions"]})
    ppl = dict(zip(texts, perplexities(texts, model, device), strict=True))
    groups: dict[tuple, tuple[list, list]] = defaultdict(lambda: ([], []))
    for (level, kind, _), ret in sorted(sets.items()):
        truth = ret["captions"][ret["truth"]]
        negatives = [c for k, c in enumerate(ret["captions"]) if k != ret["truth"]]
        hardest = min(negatives, key=lambda c: abs(ppl[c] - ppl[truth]))
        groups[(level, kind)][0].append(ppl[truth])
        groups[(level, kind)][1].append(ppl[hardest])
    out = []
    for (level, kind), (truths, hardest) in sorted(groups.items()):
        u = float(mannwhitneyu(truths, hardest, alternative="two-sided").statistic)
        r = 1 - 2 * u / (len(truths) * len(hardest))
        size = abs(r)
        out.append({**base, "level": level, "negatives": kind, "pairs": len(truths), "effect_size_r": r,
                    "interpretation": "negligible" if size < 0.1 else "small" if size < 0.3 else "medium or large",
                    "language_model": model, "ppl_truth_median": float(np.median(truths)),
                    "ppl_hardest_median": float(np.median(hardest)), "note": None})
    return out


def perplexities(texts: list[str], model: str, device: str = "auto") -> list[float]:
    """Token-level perplexity of each text under a transformers causal language model: exp of the
    mean negative log-likelihood of its tokens after the first."""
    try:
        import torch
        import transformers
    except ModuleNotFoundError as err:
        from byo.core.errors import ConfigError

        raise ConfigError("<command line>", [("--perplexity-model", f"needs {err.name}, which is not installed: "
                                              "pip install 'byo-render[hf]'")]) from None
    from byo.core.errors import ConfigError

    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(model)
        lm = transformers.AutoModelForCausalLM.from_pretrained(model).eval()
    except (OSError, ValueError, KeyError) as err:
        raise ConfigError("<command line>", [("--perplexity-model", f"could not load {model!r} as a causal "
                                              f"language model: {str(err).splitlines()[0]}")]) from None
    where = "cuda" if device == "auto" and torch.cuda.is_available() else ("cpu" if device == "auto" else device)
    lm = lm.to(where)
    out = []
    with torch.inference_mode():
        for text in texts:
            ids = tokenizer(text, return_tensors="pt")["input_ids"].to(where)
            if ids.shape[1] < 2:
                out.append(float("nan"))
                continue
            loss = lm(input_ids=ids, labels=ids).loss
            out.append(float(torch.exp(loss)))
    return out
