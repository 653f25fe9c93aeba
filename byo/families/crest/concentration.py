"""KamonBench Table 13, motif prediction concentration, from any run's program answers.

The paper (appendix A.5): "Table 13 reports the motif prediction concentration behind the initial
VGG failure. The contained target motifs are highly dispersed, but the initial n-gram-2 VGG program
model maps the entire contained slice to one motif token. This collapsed token, M:0808, appears only
13 times in the training split and never appears as a target motif in the development or test
splits." Its caption: "Motif prediction concentration in the initial n-gram-2 VGG collapsed
program-label outputs. 'Top target' and 'Top pred.' give the most common target and predicted
motif tokens in each slice, with counts in parentheses."

Here, for every question key answered with program codes (answer type `crest_program`), over the
test split's rows when the run has them (the paper's evaluation split), else all rows, in the
slices contained (the target has a container), containerless, and all: the rows, the distinct
target and predicted motif tokens, the top target and top prediction with their counts (ties: the
token that sorts first), the top prediction's share of the slice, and whether it is ever a target
motif of the slice. The distinct counts, the share and that last check are this project's columns
beside the paper's two; a prediction that does not parse as a program has no motif and is counted
apart (`unparsed`). Motifs are read with the paper's normalisation (byo.families.crest.metrics).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from byo.families.api import Column, ReportTable
from byo.families.crest.metrics import TEST, program_factors

ANSWER_TYPE = "crest_program"


def _top(counts: Counter) -> tuple[str | None, int]:
    if not counts:
        return None, 0
    token, count = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return f"M:{token}", count


def concentration(pairs: Sequence[tuple[str | None, str]]) -> dict:
    """Table 13's columns over (prediction, target) program codes."""
    targets = Counter(f.motif for _, g in pairs if (f := program_factors(g)) is not None)
    parsed = [program_factors(p) for p, _ in pairs]
    predicted = Counter(f.motif for f in parsed if f is not None)
    top_pred, top_pred_n = _top(predicted)
    top_target, top_target_n = _top(targets)
    return {"n": len(pairs), "target_motifs": len(targets), "predicted_motifs": len(predicted),
            "top_target": top_target, "top_target_n": top_target_n, "top_pred": top_pred, "top_pred_n": top_pred_n,
            "top_pred_share": top_pred_n / len(pairs) if pairs else None,
            "top_pred_is_target": None if top_pred is None else top_pred[2:] in targets,
            "unparsed": sum(f is None for f in parsed)}


def measure(rows: Sequence[dict], options=None) -> list[dict]:
    """Per program key, over its test rows (else all of them; every prompt variant pooled), Table 13
    per slice: contained, containerless, all."""
    out = []
    by_key: dict[str, list[dict]] = {}
    for r in rows:
        if r.get("answer_type") == ANSWER_TYPE:
            by_key.setdefault(r["key"], []).append(r)
    for key, group in sorted(by_key.items()):
        tested = [r for r in group if r.get("split") == TEST]
        scope = "test" if tested else "all rows"
        chosen = tested or group
        gold = {id(r): program_factors(r["answer"]) for r in chosen}
        slices = {"contained": [r for r in chosen if gold[id(r)] is not None and gold[id(r)].containers],
                  "containerless": [r for r in chosen if gold[id(r)] is not None and not gold[id(r)].containers],
                  "all": chosen}
        for name, srows in slices.items():
            if srows:
                out.append({"key": key, "rows": scope, "slice": name,
                            **concentration([(r.get("value"), r["answer"]) for r in srows])})
    return out


def _with_count(token: str, count: str):
    return lambda r: f"({r[count]})" if r.get(token) else ""


TABLE = ReportTable(
    name="crest_motif_concentration", title="Motif prediction concentration (KamonBench Table 13)",
    definition="KamonBench Table 13: per program key and slice (contained, containerless, all) of its test rows (all "
               "rows without a test split), the most common target and predicted motif tokens with their counts; "
               "beside them the distinct target and predicted motifs, the top prediction's share of the slice, "
               "whether it is ever a target of the slice, and the predictions that do not parse as a program",
    note="KamonBench, appendix A.5: \"the initial n-gram-2 VGG program model maps the entire contained slice to one "
         "motif token\", a collapse that aggregate string metrics compress into one low score. 'Top target' and "
         "'Top pred.' are the most common target and predicted motif tokens, with counts in parentheses (the "
         "paper's columns); distinct motifs, the top prediction's share and whether it is ever a target are this "
         "project's. A share near 1 with one predicted motif is the paper's collapse.",
    columns=(Column("key", "key", "text"), Column("rows", "rows", "text"), Column("slice", "slice", "text"),
             Column("n", "n", "int"), Column("target motifs", "target_motifs", "int"),
             Column("predicted motifs", "predicted_motifs", "int"),
             Column("top target", "top_target", "text", note=_with_count("top_target", "top_target_n")),
             Column("top pred.", "top_pred", "text", note=_with_count("top_pred", "top_pred_n")),
             Column("top pred. share", "top_pred_share"), Column("top pred. a target", "top_pred_is_target", "text"),
             Column("unparsed", "unparsed", "int")),
    measure=measure, scope="run")
