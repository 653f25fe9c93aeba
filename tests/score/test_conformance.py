"""Conformance: every metric the report prints, against the adversaries the project's standards
name - a constant predictor, an all-ties ranker (where the metric ranks), the blind baseline - and
one perfect predictor. Each expected score is worked out by hand below, from the metric's
definition, on one small data set; the scores come from the real path (byo.score.rows' parsing
and scoring, byo.score.run.all_tables, the report's own tables).

To add a metric: append Case(metric, predictor, expected, value-getter) rows to CASES (the test
ids read `metric[predictor]`); to add a question key, give it a truth per image in TRUTH and an
answer per predictor in CONSTANT (the blind baseline's is the real Blind provider's prior).

The data set: six images, one question per key and image.

    image               0        1            2       3            4       5
    count_pieces        1        2            2       3            5       2      (content.count = the count)
    localize_row        0        1            2       0            1       2
    localize_column     0        0            1       2            2       1
    identify_type       pawn     rook         pawn    king         pawn    rook
    identify_types      pawn     pawn,rook    rook    king,pawn    pawn    king,rook
    exist_white_king    yes      no           no      yes          no      no
    autocomp_swap       A        B            A       A            B       A      (truth's letter of 2 captions)
    label_choice        A        B            C       A            B       C      (of 3; split train, test_id,
                                                                                     test_ood, train, test_id, test_ood)
    crest_program       C:01 X:0 M:0010, C:02 X:1 M:0011, C:01 X:0 M:0010, C:01 X:2 M:0012, C:02 X:0 M:0010,
                        C:01 X:0 M:0010
    COMPASS OA, N = 2 on images 0-3: composed truth A B C A (of 3); primitive 1 A B A B, primitive 2
    B A A B (of 2); skill A on images 0-5: truth A B C D E A (of 5), counts O = 1 + i % 2, A = 1 + i % 3.

Predictors. perfect: the truth. constant: one answer per key whatever the image (3, row 1,
column 1, king, {king}, yes, B, C:02 X:1 M:0011). blind: the blind baseline (`--provider blind`),
each key's most frequent true answer, ties to the first in file order: 2, row 0, column 0, pawn,
{pawn}, no, A (swap), A (label_choice), C:01 X:0 M:0010, A (composed), A (primitive 1), B
(primitive 2), A (skill). Rankers, for questions with candidate captions: perfect (the truth's
similarity 1, the others 0), all-ties (every similarity 0: `rank-blind`; a truth among k tied
captions scores 1 / k, a uniformly random tie-break's expectation: docs/scoring.md), constant (the
first caption always most similar).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest

from byo.providers.base import GenerationParams
from byo.providers.reference import Blind
from byo.questions.load import Question
from byo.score import compare as cmp
from byo.score.rows import score_rows
from byo.score.run import Scores, all_tables
from byo.score.stability import stability_table

N = 6
LETTERS = "ABCDE"
TRUTH = {
    "count_pieces": [1, 2, 2, 3, 5, 2],
    "localize_row": [0, 1, 2, 0, 1, 2],
    "localize_column": [0, 0, 1, 2, 2, 1],
    "identify_type": ["pawn", "rook", "pawn", "king", "pawn", "rook"],
    "identify_types": [["pawn"], ["pawn", "rook"], ["rook"], ["king", "pawn"], ["pawn"], ["king", "rook"]],
    "exist_white_king": ["yes", "no", "no", "yes", "no", "no"],
    "crest_program": ["C:01 X:0 M:0010", "C:02 X:1 M:0011", "C:01 X:0 M:0010", "C:01 X:2 M:0012",
                      "C:02 X:0 M:0010", "C:01 X:0 M:0010"],
}
TYPES = {"count_pieces": "integer", "localize_row": "row", "localize_column": "column", "identify_type": "label",
         "identify_types": "label_set", "exist_white_king": "yes_no", "crest_program": "crest_program"}
PROMPTS = {"count_pieces": "How many pieces are there on the chessboard?",
           "localize_row": "On which row is the first piece? Rows are numbered from 0 at the top of the board.",
           "localize_column": "On which column is the first piece? Columns are numbered from 0 at the left of the "
                              "board.",
           "identify_type": "What type of chess piece is the first piece (pawn, rook, knight, bishop, queen or king)?",
           "identify_types": "Which types of chess pieces are on the board? List each type once.",
           "exist_white_king": "Is there a white king? Answer yes or no.",
           "crest_program": "Write the program code of the crest."}
# Candidate-caption questions: key -> per image (truth index, number of captions, params)
SWAP = [0, 1, 0, 0, 1, 0]
SPLITS = ["train", "test_id", "test_ood", "train", "test_id", "test_ood"]
COMPOSED, PRIMITIVE_1, PRIMITIVE_2 = [0, 1, 2, 0], [0, 1, 0, 1], [1, 0, 0, 1]
SKILL = [0, 1, 2, 3, 4, 0]
CONSTANT = {"count_pieces": "3", "localize_row": "Row 1.", "localize_column": "Column 1.", "identify_type": "king",
            "identify_types": "king", "exist_white_king": "Yes.", "crest_program": "C:02 X:1 M:0011", "letter": "B"}


def choice(image: int, key: str, truth: int, n: int, params: dict) -> Question:
    captions = [f"caption {k} of {key} on image {image}" for k in range(n)]
    options = " ".join(f"({LETTERS[k]}) {c}" for k, c in enumerate(captions))
    return Question(id=f"img{image}/{key}", image=f"images/img{image}.png", family="clevr", task="combined", key=key,
                    levels={"content.count": TRUTH["count_pieces"][image]}, preprompt="neutral", instruction="direct",
                    prompt=f"Which caption describes the image? {options} Answer with the letter.",
                    answer=LETTERS[truth], answer_type="multiple_choice", choices=captions, chance=1 / n, params=params,
                    retrieval={"captions": captions, "truth": truth, "tags": ["truth"] + ["negative"] * (n - 1)})


@cache
def questions() -> tuple[Question, ...]:
    out = []
    for i in range(N):
        for key, truths in TRUTH.items():
            out.append(Question(id=f"img{i}/{key}", image=f"images/img{i}.png", family="chess", task="diagnostic",
                                key=key, levels={"content.count": TRUTH["count_pieces"][i]}, preprompt="neutral",
                                instruction="direct", prompt=PROMPTS[key], answer=truths[i], answer_type=TYPES[key],
                                params={"split": "test"} if key == "crest_program" else {}))
        out.append(choice(i, "autocomp_swap", SWAP[i], 2, {"task": "color", "n": 2, "condition": "minimal"}))
        out.append(choice(i, "label_choice", i % 3, 3, {"split": SPLITS[i]}))
        facts = {"caption": f"img{i}/OA", "level": "OA", "n": 2, "counts": {"O": 1 + i % 2, "A": 1 + i % 3, "R": 0}}
        if i < 4:
            out.append(choice(i, "compass_oa_composed", COMPOSED[i], 3, {"compass": {**facts, "role": "composed"}}))
            for p, truths in ((1, PRIMITIVE_1), (2, PRIMITIVE_2)):
                out.append(choice(i, f"compass_oa_decomposed_{p}", truths[i], 2,
                                  {"compass": {**facts, "role": "decomposed", "primitive": p, "type": "O"}}))
        out.append(choice(i, "compass_oa_skill_a", SKILL[i], 5, {"compass": {**facts, "role": "skill", "skill": "A"}}))
    return tuple(out)


def chat_answer(q: Question, predictor: str, prior: dict) -> str:
    if predictor == "perfect":
        return ", ".join(q.answer) if isinstance(q.answer, list) else str(q.answer)
    if predictor == "blind":
        value = prior[q.key]
        return ", ".join(value) if isinstance(value, list) else str(value)
    return CONSTANT.get(q.key, CONSTANT["letter"])


def ranking(q: Question, predictor: str) -> list[float]:
    n = len(q.retrieval.captions)
    if predictor == "perfect ranker":
        return [1.0 if k == q.retrieval.truth else 0.0 for k in range(n)]
    if predictor == "all-ties ranker":
        return [0.0] * n
    return [1.0 - k / n for k in range(n)]  # constant ranker: the first caption first


@cache
def scored(predictor: str) -> tuple[list[dict], dict]:
    """The rows and tables of `predictor`'s run over the data set (rankers answer only the questions
    with candidate captions)."""
    qs = list(questions())
    prior = Blind("blind", GenerationParams(), questions=qs).prior
    if predictor.endswith("ranker"):
        qs = [q for q in qs if q.retrieval is not None]
        predictions = [{"id": q.id, "provider": predictor, "model": predictor, "status": "ok", "ranked": True,
                        "similarities": ranking(q, predictor)} for q in qs]
    else:
        predictions = [{"id": q.id, "provider": predictor, "model": predictor, "status": "ok",
                        "reference": predictor == "blind", "response": chat_answer(q, predictor, prior)} for q in qs]
    rows = score_rows(qs, predictions, predictor)
    return rows, all_tables(rows, n_boot=50, seed=0)


# --- reading a value out of the tables ---------------------------------------------------------
def metric(key: str, field: str) -> Callable[[dict], object]:
    """A key's value over every question (all prompt variants, all levels) in the metrics table."""
    return lambda t: next(r for r in t["metrics"] if r["key"] == key and r["variant"] == "all"
                          and not r["variable"])[field]


def row_of(table: str, field: str, **match) -> Callable[[dict], object]:
    def get(t: dict):
        found = [r for r in t[table] if r.get("variant", "all") == "all" and all(r[k] == v for k, v in match.items())]
        assert len(found) == 1, (table, match, found)
        return found[0][field]
    return get


def ols(y: list[float]) -> np.ndarray:
    """Eq. 4's coefficients (intercept, beta_O, beta_A) on the skill questions, by the normal
    equations (X'X) b = X'y with n_O = 1 + i % 2, n_A = 1 + i % 3."""
    X = np.array([[1.0, 1 + i % 2, 1 + i % 3] for i in range(N)])
    return np.linalg.solve(X.T @ X, X.T @ np.asarray(y, float))


@dataclass(frozen=True)
class Case:
    metric: str  # the report's name of the metric
    predictor: str
    expected: object  # a number worked out by hand, None for "not estimable", or a string the row carries
    value: Callable[[dict], object]  # the metric's value in the run's tables

    @property
    def id(self) -> str:
        return f"{self.metric}[{self.predictor}]"


def cases(name: str, value: Callable[[dict], object], **expected) -> list[Case]:
    """One metric's cases: expected={predictor (underscores for spaces): value}."""
    return [Case(name, p.replace("all_ties", "all-ties").replace("_", " "), e, value) for p, e in expected.items()]


CASES = [
    # accuracy = right / all questions
    *cases("accuracy (count)", metric("count_pieces", "accuracy"), perfect=1.0, constant=1 / 6, blind=3 / 6),
    *cases("accuracy (label)", metric("identify_type", "accuracy"), perfect=1.0, constant=1 / 6, blind=3 / 6),
    *cases("accuracy (yes/no)", metric("exist_white_king", "accuracy"), perfect=1.0, constant=2 / 6, blind=4 / 6),
    *cases("accuracy (label set)", metric("identify_types", "accuracy"), perfect=1.0, constant=0.0, blind=2 / 6),
    # MAE = mean |prediction - truth|: constant 3 -> 2, 1, 1, 0, 2, 1; blind 2 -> 1, 0, 0, 1, 3, 0
    *cases("MAE", metric("count_pieces", "mae"), perfect=0.0, constant=7 / 6, blind=5 / 6),
    # NMAE = mean |prediction - truth| / max(|truth|, 1)
    *cases("NMAE", metric("count_pieces", "nmae"), perfect=0.0,
           constant=(2 / 1 + 1 / 2 + 1 / 2 + 0 / 3 + 2 / 5 + 1 / 2) / 6, blind=(1 / 1 + 0 + 0 + 1 / 3 + 3 / 5 + 0) / 6),
    # signed error = mean (prediction - truth)
    *cases("signed error", metric("count_pieces", "signed"), perfect=0.0, constant=(2 + 1 + 1 + 0 - 2 + 1) / 6,
           blind=(1 + 0 + 0 - 1 - 3 + 0) / 6),
    *cases("within one", metric("count_pieces", "within_one"), perfect=1.0, constant=4 / 6, blind=5 / 6),
    # macro F1 over the true classes 1, 2, 3, 5: constant 3 -> class 3: P 1/6, R 1, F1 2/7, others 0;
    # blind 2 -> class 2: P 3/6, R 1, F1 2/3
    *cases("F1 (count, macro)", metric("count_pieces", "f1_macro"), perfect=1.0, constant=(2 / 7) / 4, blind=(2 / 3) / 4),
    # over pawn, rook, king: constant king -> P 1/6, R 1: F1 2/7; blind pawn -> P 3/6, R 1: F1 2/3
    *cases("F1 (label, macro)", metric("identify_type", "f1_macro"), perfect=1.0, constant=(2 / 7) / 3, blind=(2 / 3) / 3),
    # rows 0, 1, 2: constant 1 and blind 0 each right on 2 of the 6: P 2/6, R 1, F1 1/2 for one class
    *cases("F1 (row, macro)", metric("localize_row", "f1_macro"), perfect=1.0, constant=(1 / 2) / 3, blind=(1 / 2) / 3),
    # micro F1 = 2 TP / (2 TP + FP + FN) over 9 true labels: {king} TP 2, FP 4, FN 7; {pawn} TP 4, FP 2, FN 5
    *cases("F1 (label set, micro)", metric("identify_types", "f1_micro"), perfect=1.0, constant=4 / 15, blind=8 / 15),
    # yes: constant yes TP 2, FP 4, FN 0 -> 1/2; blind "no" predicts no yes: precision, and F1, undefined
    *cases("F1 (yes/no)", metric("exist_white_king", "f1_yes"), perfect=1.0, constant=1 / 2, blind=None),
    # BYO-Eval's F1 by its code's rule (a wrong answer at truth 1 / yes a false negative, else a false
    # positive): 2 TP / (2 TP + FP + FN) = 2 acc / (1 + acc). count: constant 3 right once (acc 1/6), blind
    # 2 three times (1/2); yes/no: constant yes right twice (1/3), blind no four times (2/3)
    *cases("F1 (count, BYO-Eval)", metric("count_pieces", "f1_byoeval"), perfect=1.0, constant=2 / 7, blind=2 / 3),
    # constant: TP 1, FN 1 (truth 1), FP 4; blind: TP 3, FN 1, FP 2
    *cases("precision (count, BYO-Eval)", metric("count_pieces", "precision_byoeval"), perfect=1.0,
           constant=1 / 5, blind=3 / 5),
    *cases("recall (count, BYO-Eval)", metric("count_pieces", "recall_byoeval"), perfect=1.0, constant=1 / 2,
           blind=3 / 4),
    # yes/no: constant yes TP 2, FP 4, FN 0; blind no TP 4, FP 0, FN 2 (its misses are at truth yes)
    *cases("F1 (yes/no, BYO-Eval)", metric("exist_white_king", "f1_byoeval"), perfect=1.0, constant=1 / 2,
           blind=4 / 5),
    *cases("precision (yes/no, BYO-Eval)", metric("exist_white_king", "precision_byoeval"), perfect=1.0,
           constant=1 / 3, blind=1.0),
    # Rel: the mean of the images' accuracies (one question each: the accuracy)
    *cases("Rel", metric("count_pieces", "reliability"), perfect=1.0, constant=1 / 6, blind=1 / 2),
    # Cons: one question text over six images: the share of its most common answer (the truth 2 thrice)
    *cases("Cons", metric("count_pieces", "consistency"), perfect=1 / 2, constant=1.0, blind=1.0),
    # standard deviation over images of each image's right (1) or wrong (0)
    *cases("accuracy SD over images", metric("count_pieces", "accuracy_image_sd"), perfect=0.0,
           constant=np.sqrt(1 / 6 * 5 / 6), blind=0.5),
    # BYO-Eval's Tables 2, 4, 6 (its own table): the same F1 and MAE
    *cases("F1 (BYO-Eval's table)", row_of("byo_eval", "f1_byoeval", key="count_pieces"), perfect=1.0,
           constant=2 / 7, blind=2 / 3),
    *cases("MAE (BYO-Eval's table)", row_of("byo_eval", "mae", key="count_pieces"), perfect=0.0, constant=7 / 6,
           blind=5 / 6),
    # Table 5: accuracy in percent at content.count 2 (images 1, 2, 5)
    *cases("accuracy % per level (Table 5)", row_of("byo_eval_levels", "accuracy_percent", key="count_pieces",
                                                     variable="content.count", level="2"),
           perfect=100.0, constant=0.0, blind=100.0),
    # |dr| + |dc| per image: constant (1, 1) -> 2, 1, 1, 2, 1, 1; blind (0, 0) -> 0, 1, 3, 2, 3, 3
    *cases("localization error", row_of("localization", "error", source="row+column"), perfect=0.0,
           constant=8 / 6, blind=12 / 6),
    *cases("exact cell", row_of("localization", "exact", source="row+column"), perfect=1.0, constant=0.0,
           blind=1 / 6),
    # per level of content.count (1, 2, 3, 5): accuracies, their mean and population SD
    *cases("accuracy mean across levels", row_of("ranges", "accuracy_level_mean", key="count_pieces",
                                                 variable="content.count", range="all"),
           perfect=1.0, constant=np.mean([0, 0, 1, 0]), blind=np.mean([0, 1, 0, 0])),
    *cases("accuracy SD across levels", row_of("ranges", "accuracy_level_sd", key="count_pieces",
                                               variable="content.count", range="all"),
           perfect=0.0, constant=np.std([0, 0, 1, 0]), blind=np.std([0, 1, 0, 0])),
    # per true value: the count 5, answered 3 (constant) and 2 (blind)
    *cases("MAE per true value", row_of("by_truth", "mae", key="count_pieces", truth=5), perfect=0.0, constant=2.0,
           blind=3.0),
    # breaking points: a run that is always right has no curve to fit; the others answer from their prior
    *cases("breaking point", row_of("breaking_points", "breaking_point", key="count_pieces",
                                    variable="content.count", link="logistic"),
           perfect="not estimable: no better than a constant accuracy (likelihood-ratio test p = 1)"),
    *cases("answer prior", row_of("breaking_points", "answer_prior", key="count_pieces", variable="content.count",
                                  link="logistic"),
           perfect=None, constant="one answer (3) to every question: it does not depend on the image",
           blind="the blind baseline: its answers do not depend on the image"),
    *cases("accuracy per level (breaking points)", lambda t: [p["accuracy"] for p in t["breaking_point_levels"]
                                                               if p["key"] == "count_pieces"
                                                               and p["variable"] == "content.count"],
           perfect=[1.0, 1.0, 1.0, 1.0], constant=[0.0, 0.0, 1.0, 0.0], blind=[0.0, 1.0, 0.0, 0.0]),
    # recall@1: 1 when the truth's caption is strictly first, 1/2 for the tie of both (a chat answer: the
    # truth's letter)
    *cases("recall@1", row_of("retrieval", "recall_at_1", key="autocomp_swap"), perfect=1.0, constant=2 / 6,
           blind=4 / 6, perfect_ranker=1.0, all_ties_ranker=1 / 2, constant_ranker=4 / 6),
    # Auto-Comp's accuracy on the same questions: the same numbers
    *cases("Auto-Comp accuracy", row_of("autocomp", "accuracy", key="autocomp_swap"), perfect=1.0, constant=2 / 6,
           blind=4 / 6, perfect_ranker=1.0, all_ties_ranker=1 / 2, constant_ranker=4 / 6),
    # the compositional-generalisation study's accuracy per split (truths A A on train, B B on test_id, C C on test_ood)
    *cases("accuracy per split", lambda t: {r["split"]: r["accuracy"] for r in t["compgen_splits"]
                                            if r["variant"] == "all"},
           perfect={"train": 1.0, "test_id": 1.0, "test_ood": 1.0},
           constant={"train": 0.0, "test_id": 1.0, "test_ood": 0.0},
           blind={"train": 1.0, "test_id": 0.0, "test_ood": 0.0},
           perfect_ranker={"train": 1.0, "test_id": 1.0, "test_ood": 1.0},
           all_ties_ranker={"train": 1 / 3, "test_id": 1 / 3, "test_ood": 1 / 3},
           constant_ranker={"train": 1.0, "test_id": 0.0, "test_ood": 0.0}),
    # COMPASS (OA, N = 2): R@1 composed, decomposed (both primitives right), Delta = decomposed - composed.
    # constant B: composed right on image 1 (1/4); primitive 1 on 1, 3, primitive 2 on 0, 3: both on 3 (1/4).
    # blind A, A, B: composed on 0, 3 (2/4); primitive 1 on 0, 2, primitive 2 on 0, 3: both on 0 (1/4).
    # constant ranker (first caption, A): composed on 0, 3; primitive 1 on 0, 2; primitive 2 on 1, 2: both on 2.
    # all-ties: composed 1/3 (a tie of 3), each primitive 1/2, both 1/4; Delta = 1/4 - 1/3.
    *cases("COMPASS (R@1 composed, R@1 decomposed, Delta)",
           lambda t: next((r["r1_composed"], r["r1_decomposed"], r["delta"]) for r in t["compass_integration"]
                          if r["variant"] == "all" and r["n"] == 2),
           perfect=(1.0, 1.0, 0.0), constant=(1 / 4, 1 / 4, 0.0), blind=(2 / 4, 1 / 4, -1 / 4),
           perfect_ranker=(1.0, 1.0, 0.0), all_ties_ranker=(1 / 3, 1 / 4, -1 / 12), constant_ranker=(2 / 4, 1 / 4, -1 / 4)),
    # COMPASS skill load: R@1 the same on every question has nothing to regress
    *cases("COMPASS skill load", row_of("compass_skill_load", "note"),
           perfect="not estimable: R@1 is 1 on every question (a perfect predictor): nothing varies to regress",
           perfect_ranker="not estimable: R@1 is 1 on every question (a perfect predictor): nothing varies to regress",
           all_ties_ranker="not estimable: R@1 is 0.2 on every question (a constant predictor): nothing varies to "
                           "regress"),
    # the same regression where R@1 varies: OLS by the normal equations on (1, n_O, n_A)
    *cases("COMPASS skill load (beta)", lambda t: [r["beta"] for r in t["compass_skill_load"] if r["variant"] == "all"],
           constant=list(ols([0, 1, 0, 0, 0, 0])), blind=list(ols([1, 0, 0, 0, 0, 1])),
           constant_ranker=list(ols([1, 0, 0, 0, 0, 1])), perfect=[None], all_ties_ranker=[None]),
    # KamonBench exact match and TER = token edits / target tokens (18): constant C:02 X:1 M:0011 ->
    # 3, 0, 3, 3, 2, 3 edits; blind C:01 X:0 M:0010 -> 0, 3, 0, 2, 1, 0
    *cases("KamonBench Acc (exact match)", row_of("crest", "exact", key="crest_program", slice="all"), perfect=1.0,
           constant=1 / 6, blind=3 / 6),
    *cases("KamonBench TER", row_of("crest", "error_rate", key="crest_program", slice="all"), perfect=0.0,
           constant=14 / 18, blind=6 / 18),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_conformance(case: Case):
    _, tables = scored(case.predictor)
    got = case.value(tables)
    if isinstance(case.expected, float | int) and not isinstance(case.expected, bool):
        assert got == pytest.approx(case.expected, abs=1e-12), case.id
    elif isinstance(case.expected, tuple | list | dict):
        assert got == pytest.approx(case.expected, abs=1e-12), case.id
    else:
        assert got == case.expected, case.id


RANKED = {"recall@1", "Auto-Comp accuracy", "accuracy per split", "COMPASS (R@1 composed, R@1 decomposed, Delta)",
          "COMPASS skill load (beta)"}
# metrics whose constant and blind cases live under another name of the table
COVERED_ELSEWHERE = {"breaking point": "answer prior", "COMPASS skill load": "COMPASS skill load (beta)"}


def test_every_metric_faces_the_standards_predictors():
    """The perfect, constant and blind predictors for every metric, the all-ties ranker too for those
    that rank: a metric added without them fails here."""
    by_metric: dict[str, set[str]] = {}
    for c in CASES:
        by_metric.setdefault(c.metric, set()).add(c.predictor)
    for name, predictors in by_metric.items():
        have = predictors | by_metric.get(COVERED_ELSEWHERE.get(name, ""), set())
        need = {"perfect", "constant", "blind"} | ({"all-ties ranker"} if name in RANKED else set())
        assert need <= have, (name, sorted(need - have))


# --- metrics over two runs: stability (repeats) and the paired comparison -----------------------
def test_repeat_stability_of_perfect_and_constant_runs():
    """Agreement = share of questions answered alike in every repeat: 1 for both. Fleiss' kappa:
    1 for the perfect run (answers differ between questions, agree within each); a constant run
    gives every question the same answer, where kappa is 0 / 0: not estimable (None)."""
    for predictor, kappa in (("perfect", 1.0), ("constant", None)):
        rows = [r for r in scored(predictor)[0] if r["key"] == "count_pieces"]
        (key,) = [r for r in stability_table([rows, rows], ["a", "b"]) if r["key"] == "count_pieces"]
        assert key["agreement"] == 1.0 and key["accuracy_sd"] == 0.0
        assert key["fleiss_kappa"] == (pytest.approx(kappa) if kappa is not None else None), predictor


def test_paired_difference_of_a_perfect_and_a_constant_run():
    """A - B = mean of (perfect right) - (constant right) = 1 - 1/6 on count_pieces; a run against
    itself differs by 0 on every image: no spread, no test."""
    def scores(predictor):
        rows, tables = scored(predictor)
        return Scores(facts={"run": predictor}, rows=rows, tables=tables)

    result = cmp.compare(scores("perfect"), scores("constant"), n_boot=0)
    count = next(r for r in result["differences"] if r["key"] == "count_pieces" and not r["variable"])
    assert count["difference"] == pytest.approx(1 - 1 / 6) and count["difference_lo"] < count["difference"]
    same = cmp.compare(scores("perfect"), scores("perfect"), n_boot=0)
    assert all(r["verdict"] == "not testable" and r["difference"] == 0 for r in same["differences"])
