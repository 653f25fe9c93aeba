"""COMPASS's analyses (the COMPASS paper), measured over a whole run's scored rows: the CLEVR
family's tables (`Family.tables`, scope "run").

Every scored row of a COMPASS question carries its facts in `params.compass` and its
`recall_at_1` (byo.score.rows): for an image-text model's ranking, 1 when the true caption is
strictly the most similar, else 0 (a tie at the top is a miss: the paper's ">", docs/scoring.md's
tie policy); for a chat model's answer, 1 or 0.

- `compass_integration`: COMPASS's compositional integration gap (section 5.2). "For a
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
  errors clustered at the image level to account for within-image correlation. Statistical
  significance is assessed using two-sided t-tests at p < 0.005 (denoted *) and p < 0.001
  (denoted **)": statsmodels' cluster-robust (CR1) covariance, t on images - 1 degrees of freedom
  (the paper names no number; G - 1 is the usual one for G clusters, `df`), and the paper's stars
  (`significance`). Only the primitive types a level has enter its regression (OA: n_O, n_A).
  Coefficients are in R@1 units (x 100: the paper's percentage points). A regression the data
  cannot carry (R@1 the same on every question: a perfect or a constant predictor; too few
  questions or images; a zero standard error) is "not estimable: REASON", with no number.
- `compass_skill_cells`: what Figures 5-7 plot, R@1 on skill-targeted negatives per cell of
  primitive counts; the figures draw it against one count with the other held fixed, with
  Eq. 4's slope in each panel.
- `compass_perplexity`: the perplexity audit of the negatives (appendix B), per level and
  negative type (composed, skill O / A / R): the rank-biserial effect size r and its reading;
  it needs a language model, and without one the table says it was skipped.

Deviation: Delta and the R@1s are stored as proportions; tables print R@1 in percent and Delta in
percentage points, as the paper does.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from byo.families.api import (
    ALL,
    ARGUMENTS,
    Column,
    ConfigError,
    ReportTable,
    ScoringOptions,
    cluster_index,
    clustered_mean,
    group_by,
    png,
    pyplot,
    subplots,
    variants,
)

TYPES = ("O", "A", "R")


def compass_of(row: dict) -> dict | None:
    """The COMPASS facts a question carries in its parameters (params.compass), if any."""
    facts = (row.get("params") or {}).get("compass")
    return facts if isinstance(facts, dict) and row.get("recall_at_1") is not None else None


def integration_table(rows: Sequence[dict], options: ScoringOptions | None = None) -> list[dict]:
    """Eq. 1-3 per structural level and complexity N, and per level over every N (Table 2)."""
    out = []
    compass = [r for r in rows if (c := compass_of(r)) and c.get("role") in ("composed", "decomposed")]
    if not compass:
        return out
    run, model = compass[0]["run"], compass[0]["model"]
    for variant, vrows in variants(compass):
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
                            else None, "delta_mean_over_n": None, "delta_sd_over_n": None,
                            "delta_points": _points(mean_delta), "delta_over_n": ""})
            units = [u for n in by_level[level] for u in by_level[level][n]]
            comp = [u["composed"] for u in units]
            decomp = [float(np.prod(list(u["parts"].values()))) for u in units]
            overall = {"run": run, "model": model, "variant": variant, "level": level, "n": ALL,
                        "captions": len(units), "images": len({u["image"] for u in units}),
                        "r1_composed": float(np.mean(comp)), "r1_composed_lo": None, "r1_composed_hi": None,
                        "r1_decomposed": float(np.mean(decomp)), "r1_decomposed_lo": None, "r1_decomposed_hi": None,
                        "delta": float(np.mean(np.subtract(decomp, comp))), "delta_sd_captions": None,
                        "delta_mean_over_n": float(np.mean(deltas_by_n)),
                        "delta_sd_over_n": float(np.std(deltas_by_n, ddof=1)) if len(deltas_by_n) > 1 else None}
            out.append({**overall, "delta_points": _points(overall["delta"]), "delta_over_n": _spread(overall)})
    return out


def skill_load_table(rows: Sequence[dict], options: ScoringOptions | None = None) -> list[dict]:
    """Eq. 4 per level and skill: OLS of recall@1 on the caption's per-type primitive counts, with
    standard errors clustered by image and t tests on images - 1 degrees of freedom."""
    import statsmodels.api as sm  # imported when a run has COMPASS questions: a second of start-up otherwise

    out = []
    skill = [r for r in rows if (c := compass_of(r)) and c.get("role") == "skill"]
    if not skill:
        return out
    run, model = skill[0]["run"], skill[0]["model"]
    blank = {"beta": None, "se": None, "t": None, "df": None, "p": None, "significance": None, "ci_lo": None,
             "ci_hi": None}
    for variant, vrows in variants(skill):
        groups = group_by([{**r, "_level": compass_of(r)["level"], "_skill": compass_of(r)["skill"]}
                                   for r in vrows], "_level", "_skill")
        for (level, target), group in sorted(groups.items()):
            terms = [t for t in TYPES if t in level]  # the types the level has
            y = np.array([r["recall_at_1"] for r in group], float)
            X = np.array([[compass_of(r)["counts"][t] for t in terms] for r in group], float)
            images = [r["image"] for r in group]
            codes, g = cluster_index(images)
            base = {"run": run, "model": model, "variant": variant, "level": level, "skill": target,
                    "n": len(group), "images": g, "r1": float(y.mean())}
            spread = [t for k, t in enumerate(terms) if np.ptp(X[:, k]) > 0]
            reason = None
            if len(group) < len(terms) + 2 or g < 2 or not spread:
                reason = "too few questions, images or differing counts to fit"
            elif np.ptp(y) == 0:
                reason = (f"R@1 is {y[0]:g} on every question (a {'perfect' if y[0] == 1 else 'constant'} "
                          "predictor): nothing varies to regress")
            if reason:
                out.append({**base, "term": "-", **blank, "ci": "", "self_load": None, "note": f"not estimable: {reason}"})
                continue
            design = sm.add_constant(X[:, [terms.index(t) for t in spread]], has_constant="add")
            with np.errstate(all="ignore"):
                fit = sm.OLS(y, design).fit(cov_type="cluster", cov_kwds={"groups": codes}, use_t=True)
            ci = fit.conf_int()
            dropped = [t for t in terms if t not in spread]
            exact = float(np.max(np.abs(fit.resid))) < 1e-9  # residuals of rounding: no spread to test against
            for k, term in enumerate(["intercept", *spread]):
                se = _num(fit.bse[k])
                row = {**base, "term": term, "self_load": term == target,
                       "note": (f"constant count of {', '.join(dropped)} left out" if dropped else None)}
                if exact or se is None or se <= 0:
                    out.append({**row, **blank, "ci": "", "note": "not estimable: a zero standard error (the counts "
                                                                  "predict every image's R@1 exactly)"})
                    continue
                p = _num(fit.pvalues[k])
                coefficient = {**row, "beta": _num(fit.params[k]), "se": se, "t": _num(fit.tvalues[k]),
                               "df": int(fit.df_resid_inference), "p": p, "significance": stars(p),
                               "ci_lo": _num(ci[k][0]), "ci_hi": _num(ci[k][1])}
                out.append({**coefficient, "ci": _ci(coefficient)})
    return out


def skill_cells_table(rows: Sequence[dict], options: ScoringOptions | None = None) -> list[dict]:
    """What the paper's Figures 5-7 plot: R@1 on skill-targeted negatives per level, skill and cell of
    primitive counts (n_O, n_A, n_R), with its questions and images (the cells of Eq. 4's data)."""
    out = []
    skill = [r for r in rows if (c := compass_of(r)) and c.get("role") == "skill"]
    if not skill:
        return out
    run, model = skill[0]["run"], skill[0]["model"]
    for variant, vrows in variants(skill):
        cells = group_by([{**r, "_cell": (compass_of(r)["level"], compass_of(r)["skill"],
                                           *(int(compass_of(r)["counts"][t]) for t in TYPES))} for r in vrows], "_cell")
        for ((level, target, n_o, n_a, n_r),), group in sorted(cells.items()):
            out.append({"run": run, "model": model, "variant": variant, "level": level, "skill": target,
                        "n_o": n_o, "n_a": n_a, "n_r": n_r, "questions": len(group),
                        "images": len({r["image"] for r in group}),
                        "r1": float(np.mean([r["recall_at_1"] for r in group]))})
    return out


def cell_slopes(cells: Sequence[dict], terms: Sequence[str]) -> dict[str, float] | None:
    """Eq. 4's coefficients from the cells of one level and skill: least squares on the cell means
    weighted by their questions, which is the OLS on the questions themselves (the counts are the
    same within a cell). None when a count does not vary or the cells cannot fit the terms."""
    X = np.array([[1.0, *(c[f"n_{t.lower()}"] for t in terms)] for c in cells])
    w = np.array([c["questions"] for c in cells], float)
    y = np.array([c["r1"] for c in cells])
    if len(cells) <= len(terms) or np.linalg.matrix_rank(X) < X.shape[1]:
        return None
    beta = np.linalg.lstsq(X * np.sqrt(w)[:, None], y * np.sqrt(w), rcond=None)[0]
    return dict(zip(terms, (float(b) for b in beta[1:]), strict=True))


NOUNS = {"O": "object", "A": "attribute", "R": "relation"}


def skill_load_figure(series: list[tuple[str, str, list[dict]]]) -> list[tuple[bytes, str]]:
    """COMPASS's Figures 5-7, per run and per level of two primitive types (the paper plots L2 OA;
    OR is drawn the same way; OAR has a third count and is left to the table): "For each model, we
    plot R@1 accuracy as a function of one primitive count while holding the other fixed, with
    separate lines for each value of the controlled count ... object negatives (top) and attribute
    negatives (bottom), each varying attribute count (left) and object count (right). The global
    slope reported in each panel corresponds to the regression coefficient in Table 3"."""
    out = []
    plt = pyplot()
    for label, _, rows in series:
        for level in ("OA", "OR"):
            other = level[1]
            cells = [r for r in rows if r["variant"] == ALL and r["level"] == level]
            skills = [t for t in ("O", other) if any(r["skill"] == t for r in cells)]
            if not skills:
                continue
            fig, axes = subplots(len(skills), 2, figsize=(10.0, 3.4 * len(skills)), squeeze=False, sharey=True,
                                     layout="constrained")
            for row_axes, target in zip(axes, skills, strict=True):
                mine = [r for r in cells if r["skill"] == target]
                slopes = cell_slopes(mine, ("O", other))
                for ax, (varied, held) in zip(row_axes, ((other, "O"), ("O", other)), strict=True):
                    held_values = sorted({r[f"n_{held.lower()}"] for r in mine})
                    cmap = plt.get_cmap("viridis", max(len(held_values), 2))
                    for k, h in enumerate(held_values):
                        pts = sorted((r for r in mine if r[f"n_{held.lower()}"] == h), key=lambda r: r[f"n_{varied.lower()}"])
                        ax.plot([r[f"n_{varied.lower()}"] for r in pts], [r["r1"] for r in pts], "-o", ms=3,
                                color=cmap(k), label=str(h))
                    slope = (f"global slope β = {round(slopes[varied], 3) + 0.0:+.3f}" if slopes
                             else "global slope: not estimable")
                    ax.set_title(f"{NOUNS[target]} negatives: varying {NOUNS[varied]} count ({slope})", fontsize=9)
                    ax.set_xlabel(f"{NOUNS[varied]} count")
                    ax.xaxis.set_major_locator(plt.MaxNLocator(integer=True))  # a count has no 2.5
                    ax.set_ylim(-0.02, 1.02)
                    ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.0, 0.5), title=f"{NOUNS[held]}s held",
                              title_fontsize=6)
                row_axes[0].set_ylabel("R@1")
            fig.suptitle(f"{label}: skill load on {level} captions", fontsize=10)
            out.append((png(fig), f"{label}: skill load on {level} captions, as COMPASS's Figures 5-7 draw it: R@1 on "
                                  f"{' and '.join(NOUNS[t] for t in skills)} negatives (rows) against the "
                                  f"{NOUNS[other]} count with the object count held fixed (left) and against the object "
                                  f"count with the {NOUNS[other]} count held fixed (right), one line per held value; β: "
                                  "Eq. 4's coefficient of the varied count (OLS on both counts)"))
    return out


def stars(p: float | None) -> str:
    """The paper's marks: ** for p < 0.001, * for p < 0.005, nothing otherwise."""
    return "" if p is None else "**" if p < 0.001 else "*" if p < 0.005 else ""


def _num(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


PERPLEXITY_SKIPPED = ("skipped: the perplexity check of the negatives needs a language model "
                      "(`perplexity_model` NAME, a transformers causal LM such as gpt2)")


def perplexity_table(rows: Sequence[dict], options: ScoringOptions | None = None, device: str = "auto") -> list[dict]:
    """The perplexity audit of COMPASS (appendix B): per level and negative type, each true
    caption's perplexity against its hardest negative's, "the candidate whose perplexity is closest
    to the ground-truth caption: n^ = argmin_n |PPL(n) - PPL(c)|" (Eq. 5), compared by the
    rank-biserial correlation "r = 1 - 2U / (n1 n2) where U is the Mann-Whitney statistic" (Eq. 6),
    read as the paper does: |r| < 0.1 negligible, < 0.3 small, else medium or large. Decomposed
    captions are left out, as the paper does ("not informative for benchmark validity"). Without
    `model` the table says it was skipped."""
    model = options.perplexity_model if options else None
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
    from scipy.stats import mannwhitneyu  # with a language model only

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
        raise ConfigError(ARGUMENTS, [("perplexity_model", f"needs {err.name}, which is not installed: "
                                     "pip install 'byo-render[hf]'")]) from None
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(model)
        lm = transformers.AutoModelForCausalLM.from_pretrained(model).eval()
    except (OSError, ValueError, KeyError) as err:
        raise ConfigError(ARGUMENTS, [("perplexity_model", f"could not load {model!r} as a causal "
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


def integration_figure(series: list[tuple[str, str, list[dict]]]) -> list[tuple[bytes, str]]:
    """R@1 composed and decomposed against complexity N, one panel per structural level;
    `series`: (run label, its colour, its rows of compass_integration)."""
    levels = sorted({r["level"] for _, _, rows in series for r in rows if r["n"] != ALL},
                    key=lambda lv: (len(lv), lv))
    if not levels:
        return []
    fig, axes = subplots(1, len(levels), figsize=(4.2 * len(levels), 3.2), squeeze=False, sharey=True)
    for ax, level in zip(axes[0], levels, strict=True):
        for label, color, rows in series:
            pts = sorted((r for r in rows if r["level"] == level and r["n"] != ALL and r["variant"] == ALL),
                         key=lambda r: r["n"])
            if not pts:
                continue
            n = [r["n"] for r in pts]
            ax.plot(n, [r["r1_composed"] for r in pts], "-o", color=color, label=f"{label} composed")
            ax.plot(n, [r["r1_decomposed"] for r in pts], ls="--", marker="s", color=color, label=f"{label} decomposed")
        ax.set_title(f"{level}")
        ax.set_xlabel("complexity N (primitives)")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("R@1")
    axes[0][-1].legend(fontsize=7, loc="upper right")
    return [(png(fig, tight=True), "R@1 of composed captions (solid) and of their decomposed primitives, all retrieved "
                       "(dashed), against complexity N")]


def _points(delta: float) -> str:
    """Δ in percentage points, signed, as the paper prints it (beside R@1 in percent)."""
    return f"{round(100 * delta, 1) + 0.0:+.1f}"


def _spread(r: dict) -> str:
    """Table 2's cell: Δ's mean ± standard deviation over the N levels, in percentage points."""
    if r.get("delta_mean_over_n") is None:
        return ""
    sd = r.get("delta_sd_over_n")
    return _points(r["delta_mean_over_n"]) + (f" ± {100 * sd:.1f}" if sd is not None else "")


def _ci(r: dict) -> str:
    return f"[{r['ci_lo']:.3f}, {r['ci_hi']:.3f}]" if r.get("ci_lo") is not None else ""


INTEGRATION = ReportTable(
    name="compass_integration", title="COMPASS: compositional integration gap",
    definition="COMPASS (Eq. 1-3): R@1 composed = the composed caption beats its N one-primitive negatives; R@1 "
               "decomposed = every primitive caption beats its matched negative (joint success, the product); delta = "
               "decomposed - composed, per structural level and complexity N; n = all: delta's mean and standard "
               "deviation over the N levels (Table 2)",
    note="COMPASS. R@1 composed: the caption beats its N one-primitive negatives; R@1 decomposed: every primitive "
         "caption beats the same perturbation alone; Δ = decomposed − composed (positive: joint reasoning costs). "
         "Per level, Δ's mean ± standard deviation over the complexities N, as the paper's Table 2; the rows per N "
         "are folded below.",
    columns=(Column("level", "level", "text"), Column("N", "n", "text"), Column("captions", "captions", "int"),
             Column("R@1 composed", "r1_composed"), Column("R@1 decomposed", "r1_decomposed"),
             Column("Δ (points)", "delta_points", "text"), Column("Δ over N (mean ± sd, points)", "delta_over_n", "text")),
    measure=integration_table, scope="run", folded=lambda r: r["n"] != ALL, figures=integration_figure,
    terminal=True)

SKILL_LOAD = ReportTable(
    name="compass_skill_load", title="COMPASS: skill load",
    definition="COMPASS (Eq. 4): OLS of R@1 on skill-targeted negatives on the caption's counts of objects, "
               "attributes and relations, per structural level and skill, standard errors clustered by image "
               "(statsmodels' CR1), two-sided t-tests on images - 1 degrees of freedom (df); significance: ** p < "
               "0.001, * p < 0.005 (the paper's); beta in R@1 per primitive (x 100: percentage points); self_load: "
               "the coefficient of the skill's own type; not estimable (no number) when R@1 does not vary, with too "
               "few questions or images, or a zero standard error",
    note="Eq. 4: OLS of R@1 on skill-targeted negatives (K = 4) on the caption's counts of objects (O), attributes (A) "
         "and relations (R), per level and skill; standard errors clustered by image. β: change in R@1 per primitive "
         "(× 100: percentage points); the self-load is the skill's own type. p: two-sided t test on images − 1 "
         "degrees of freedom; ** p < 0.001, * p < 0.005, as the paper marks them.",
    columns=(Column("level", "level", "text"), Column("skill", "skill", "text"), Column("term", "term", "text"),
             Column("n", "n", "int"), Column("images", "images", "int"), Column("β", "beta", "num"),
             Column("95% CI", "ci", "text"), Column("p", "p", "num", note=lambda r: r.get("significance") or ""),
             Column("df", "df", "int"), Column("note", "note", "text")),
    measure=skill_load_table, scope="run")

SKILL_CELLS = ReportTable(
    name="compass_skill_cells", title="COMPASS: skill load by primitive count (Figures 5-7)",
    definition="COMPASS Figures 5-7: R@1 on skill-targeted negatives per structural level, skill and cell of the "
               "caption's primitive counts (n_O, n_A, n_R); the figures plot it against one count with the other held "
               "fixed, with Eq. 4's slope",
    note="Figures 5-7: R@1 on skill-targeted negatives against one primitive count while the other is held fixed, "
         "one line per held value; each panel's global slope is Eq. 4's coefficient (the table above). The cells "
         "are folded below.",
    columns=(Column("level", "level", "text"), Column("skill", "skill", "text"), Column("objects", "n_o", "int"),
             Column("attributes", "n_a", "int"), Column("relations", "n_r", "int"),
             Column("questions", "questions", "int"), Column("R@1", "r1")),
    measure=skill_cells_table, scope="run", folded=lambda r: True, figures=skill_load_figure)

PERPLEXITY = ReportTable(
    name="compass_perplexity", title="COMPASS: perplexity check of the negatives",
    definition="COMPASS's perplexity audit (appendix B, Tables 4 and 5): per structural level and negative type "
               "(composed, skill O / A / R), the rank-biserial effect size r between the true captions' and their "
               "hardest negatives' perplexities under a language model, read as |r| < 0.1 negligible, < 0.3 small; "
               "skipped without one",
    note="Appendix B: are the hard negatives as fluent as the true captions? |r| < 0.1 negligible, < 0.3 small.",
    columns=(Column("level", "level", "text"), Column("negatives", "negatives", "text"), Column("pairs", "pairs", "int"),
             Column("effect size r", "effect_size_r", "num"), Column("reading", "interpretation", "text"),
             Column("note", "note", "text")),
    measure=perplexity_table, scope="run", terminal=True)

TABLES = (INTEGRATION, SKILL_LOAD, SKILL_CELLS, PERPLEXITY)
