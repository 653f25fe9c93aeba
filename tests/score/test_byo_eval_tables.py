"""BYO-Eval's Tables 2, 3, 4, 5 and 6 as the report prints them: each test builds a dataset and runs
whose answers are set by hand (nothing rendered), writes the report, and checks every printed cell
against the paper's formula computed here, as its code computes it (byoeval/BYO-EVAL,
evaluate_diagnose_dataset.py): a right answer is a true positive, a wrong one a false negative
when the truth is "1"/"yes"/"true" and a false positive otherwise; Rel is the mean of the images'
accuracies; Cons the share of the most common answer per question text; the parentheses of Table 2
the standard deviation over images (dividing by their number); NMAE as the paper's text defines
it (|error| / truth, |error| at truth 0)."""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict

import numpy as np
from byo_eval_data import question, section, tables_after, tables_in, write_questions
from count_data import make_count_dataset, slipping, write_run

from byo.cli import main
from byo.score.run import load_scores

POSITIVE = ("1", "yes", "true")
ALL_COLUMNS = ("Acc", "F1", "Prec", "Rec", "MAE", "MSE", "NMAE", "Rel", "Cons", "Cons (reply)")
SD_COLUMNS = ("Acc", "F1", "MAE", "MSE", "NMAE")


def number(text: str) -> float | None:
    """The reply's value as a count or row (every reply here is digits, or a refusal)."""
    return float(text) if text.strip().isdigit() else None


def paper_row(items: list[tuple[str, str, object, str]], answer_type: str) -> list[str]:
    """The printed cells of one row of BYO-Eval's tables: `items` are (image, prompt, truth, reply);
    a column that does not apply (errors of labels) is a dash."""
    numeric = answer_type in ("integer", "row")
    answers = [number(reply) if numeric else reply.strip().lower() for _, _, _, reply in items]
    correct = [a is not None and (a == float(t) if numeric else a == t)
               for a, (_, _, t, _) in zip(answers, items, strict=True)]

    def prf(right, truths):
        tp = sum(right)
        fn = sum(1 for c, t in zip(right, truths, strict=True) if not c and str(t).lower() in POSITIVE)
        fp = len(right) - tp - fn
        p = tp / (tp + fp) if tp + fp else None
        r = tp / (tp + fn) if tp + fn else None
        f1 = 2 * p * r / (p + r) if p is not None and r is not None and p + r > 0 else 0.0
        return p, r, f1

    truths = [t for _, _, t, _ in items]
    precision, recall, f1 = prf(correct, truths)
    by_image = defaultdict(list)
    for (image, _, truth, _), a, c in zip(items, answers, correct, strict=True):
        by_image[image].append((truth, a, c))
    acc_i = [np.mean([c for _, _, c in v]) for v in by_image.values()]
    f1_i = [prf([c for _, _, c in v], [t for t, _, _ in v])[2] for v in by_image.values()]
    values = {"Acc": (np.mean(correct), np.std(acc_i)), "F1": (f1, np.std(f1_i)), "Prec": (precision, None),
              "Rec": (recall, None), "Rel": (np.mean(acc_i), None)}
    if numeric:
        def per_image(term):
            means = [np.mean([term(a, float(t)) for t, a, _ in v if a is not None])
                     for v in by_image.values() if any(a is not None for _, a, _ in v)]
            pairs = [(a, float(t)) for (_, _, t, _), a in zip(items, answers, strict=True) if a is not None]
            return np.mean([term(a, t) for a, t in pairs]), np.std(means)
        values["MAE"] = per_image(lambda a, t: abs(a - t))
        values["MSE"] = per_image(lambda a, t: (a - t) ** 2)
        values["NMAE"] = per_image(lambda a, t: abs(a - t) / t if t else abs(a - t))  # rows too (Table 2)
    texts = defaultdict(Counter)
    for (_, prompt, _, _), a in zip(items, answers, strict=True):
        texts[prompt]["<no answer>" if a is None else a] += 1
    shares = [max(c.values()) / sum(c.values()) for c in texts.values() if sum(c.values()) > 1]
    values["Cons"] = (np.mean(shares) if shares else None, None)
    replies = defaultdict(Counter)  # the authors' code: the reply text as it came
    for _, prompt, _, reply in items:
        replies[prompt][reply] += 1
    shares = [max(c.values()) / sum(c.values()) for c in replies.values() if sum(c.values()) > 1]
    values["Cons (reply)"] = (np.mean(shares) if shares else None, None)

    cells = []
    for c in ALL_COLUMNS:
        value, sd = values.get(c, (None, None))
        text = "–" if value is None else f"{value:.2f}"
        if c in SD_COLUMNS and value is not None:
            text += " (SD not estimable)" if sd is None else f" ({sd:.2f})"
        elif c in ("Prec", "Rec", "Cons", "Cons (reply)") and value is None:
            text += " not estimable"
        cells.append(text)
    return cells


def byoeval_rows(html: str, key: str) -> tuple[list[str], dict[tuple[str, str], list[str]]]:
    """(header, (model, prompt variant) -> the row's cells) of the key in the report's section of
    Tables 2, 4, 6 (every prompt variant pooled first, then each in the folded table)."""
    header, *rows = tables_in(section(html, "byo_eval"))[0]
    for table in tables_in(section(html, "byo_eval"))[1:]:
        assert table[0] == header
        rows += table[1:]
    return header, {(r[0], r[2]): r[3:] for r in rows if r[1] == key}


def report(tmp_path, runs, *extra) -> str:
    out = tmp_path / "report.html"
    assert main(["report", *map(str, runs), "-o", str(out), "--bootstrap", "0", "--no-viewer", *extra]) == 0
    return out.read_text()


def hand_set_run(root, questions, model: str, replies: dict[str, str]):
    """A run answering each question id with the reply given for it."""
    return write_run(root, questions, model, model, lambda q: replies[q["id"]])


def check_rows(html, key, questions, replies_by_model, answer_type, prompts):
    header, rows = byoeval_rows(html, key)
    assert header == ["model", "key", "variant", "images", "n", *ALL_COLUMNS]
    assert len(rows) == len(replies_by_model) * len(prompts)
    for model, replies in replies_by_model.items():
        for variant in prompts:
            asked = [q for q in questions if variant == "all" or f"{q['preprompt']}/{q['instruction']}" == variant]
            items = [(q["image"], q["prompt"], q["answer"], replies[q["id"]]) for q in asked]
            cells = rows[(model, variant)]
            assert cells[:2] == [str(len({q["image"] for q in asked})), str(len(asked))]
            assert cells[2:] == paper_row(items, answer_type), (model, variant)


# --- Table 4: counting, Acc F1 Prec Rec MAE MSE NMAE Rel Cons --------------------------------------
# Counts 1 to 5, two images each; the first image of each count is asked in two preprompts, the
# second in one (so Rel, the mean of the images' accuracies, is not the accuracy). Replies in
# question order: count 1 image 0 helpful, count 1 image 0 neutral, count 1 image 1 helpful, ...
COUNT_REPLIES = {
    "steady-vlm": "1 1 2  2 3 2  3 3 3  5 4 4  5 no 6",
    "drifting-vlm": "1 0 1  2 0 2  4 0 4  5 0 5  6 0 6",
}


def count_questions() -> list[dict]:
    out = []
    for count in range(1, 6):
        for k in range(2):
            for pre in ("helpful", "neutral") if k == 0 else ("helpful",):
                out.append(question(f"images/count_{count}_{k}.png", "count_pieces", "counting", "integer", count,
                                    {"content.count": count}, "How many pieces are there in the image?", pre))
    return out


def replies_of(questions, spaced: str) -> dict[str, str]:
    words = ["I cannot tell from this image." if w == "no" else w for w in spaced.split()]
    assert len(words) == len(questions)
    return {q["id"]: w for q, w in zip(questions, words, strict=True)}


def test_table_4_counting_every_cell_is_the_papers_formula(tmp_path):
    questions = write_questions(tmp_path, count_questions())
    replies = {m: replies_of(questions, r) for m, r in COUNT_REPLIES.items()}
    runs = [hand_set_run(tmp_path, questions, m, r) for m, r in replies.items()]
    html = report(tmp_path, runs)
    check_rows(html, "count_pieces", questions, replies, "integer", ["all", "helpful/declarative", "neutral/declarative"])
    _, rows = byoeval_rows(html, "count_pieces")
    # By hand, the steady model: 10 of 15 right; of its 5 wrong answers the one at truth 1 is a false
    # negative, 4 are false positives: P 10/14, R 10/11, F1 2 * 10 / (2 * 10 + 5).
    steady = rows[("steady-vlm", "all")]
    assert [c.split()[0] for c in steady[2:6]] == ["0.67", "0.80", "0.71", "0.91"]
    # Rel weighs the images alike: (1 + 0 + 1/2 + 1 + 1 + 1 + 1/2 + 1 + 1/2 + 0) / 10 = 0.65, not 10/15.
    assert steady[9] == "0.65"
    # The drifting model answers "0" to every neutral question: their text's Cons is 1.
    assert rows[("drifting-vlm", "neutral/declarative")][10] == "1.00"
    # The model comparison names both F1s with their precision and recall, and gives the MSE.
    (models,) = tables_in(section(html, "models"))
    cells = dict(zip(models[0], next(r for r in models if r[0] == "count_pieces"), strict=True))
    assert "BYO-Eval F1 0.80 · P 0.71 · R 0.91" in cells["steady-vlm"]
    errors = [1, 1, 1, 1]  # the steady model's parsed errors: 1 at counts 1, 2, 4 and 5 (one refusal left out)
    assert f"MSE {np.mean(errors + [0] * 10):.2f}" in cells["steady-vlm"]
    assert "macro F1" in cells["steady-vlm"]


# --- Table 6: relative localization on a 4 x 4 board, truths 0 to 3 ----------------------------------
REL_TRUTHS = [0, 1, 2, 3, 0, 1, 2, 3]
REL_REPLIES = {
    "literal-vlm": "0 0 1 2 0 0 1 2",  # reads "rows between" literally: one short except on one row
    "noisy-vlm": "1 1 2 3 3 2 2 4",  # at truth 0 an error of 3: NMAE 3 (the text), not 1 (the code)
}


def test_table_6_relative_localization_every_cell_is_the_papers_formula(tmp_path):
    questions = write_questions(tmp_path, [
        question(f"images/rel_{i}.png", "localize_rows_between_two_pieces", "localization", "integer", t,
                 {"board.rows": 4}, "What is the distance in rows between the two pieces (0 for the same row)?")
        for i, t in enumerate(REL_TRUTHS)])
    replies = {m: replies_of(questions, r) for m, r in REL_REPLIES.items()}
    runs = [hand_set_run(tmp_path, questions, m, r) for m, r in replies.items()]
    html = report(tmp_path, runs)
    check_rows(html, "localize_rows_between_two_pieces", questions, replies, "integer", ["all", "helpful/declarative"])
    _, rows = byoeval_rows(html, "localize_rows_between_two_pieces")
    # literal: right on the two truths 0; its 2 misses at truth 1 are false negatives, 4 others false positives.
    # One question per image: each image's F1 is 1 or 0, as its accuracy, so both deviate by sqrt(.25 * .75).
    assert rows[("literal-vlm", "all")][2:6] == ["0.25 (0.43)", "0.40 (0.43)", "0.33", "0.50"]
    # noisy: NMAE = (1 + 0 + 0 + 0 + 3 + 1 + 0 + 1/3) / 8 at truth 0 the absolute error
    assert rows[("noisy-vlm", "all")][8].startswith(f"{(1 + 3 + 1 + 1 / 3) / 8:.2f} (")


# --- Table 2: localization on a 4 x 4 board and identification, mean (standard deviation over images)
LOC_TRUTHS = [0, 1, 2, 3, 1, 2]
TYPES = ["pawn", "rook", "knight", "pawn", "bishop", "rook"]
# Replies in question order: image 0 helpful, image 0 neutral, image 1 helpful, ...
LOC_REPLIES = {"sharp-vlm": "0 0  1 1  2 3  3 3  1 2  2 2", "eight-by-eight-vlm": "0 7  4 1  6 5  3 7  1 1  7 2"}
TYPE_REPLIES = {"sharp-vlm": "pawn pawn rook rook knight bishop pawn pawn bishop bishop rook pawn",
                "eight-by-eight-vlm": "pawn rook rook rook pawn pawn pawn knight bishop rook rook rook"}


def test_table_2_localization_and_identification_with_standard_deviations_over_images(tmp_path):
    questions = []
    for i in range(6):
        levels = {"camera.distance": 2.0 if i < 3 else 5.0}
        for pre in ("helpful", "neutral"):
            questions.append(question(f"images/board_{i}.png", "localize_row_one_piece", "localization", "row",
                                      LOC_TRUTHS[i], levels, "On which row is the piece? Rows count from 0 at the "
                                      "top.", pre))
            questions.append(question(f"images/board_{i}.png", "identify_type_one_piece", "identification", "label",
                                      TYPES[i], levels, "What type of chess piece is it (pawn, rook, knight or "
                                      "bishop)?", pre))
    write_questions(tmp_path, questions)
    rows_q = [q for q in questions if q["key"] == "localize_row_one_piece"]
    type_q = [q for q in questions if q["key"] == "identify_type_one_piece"]
    replies = {m: {**replies_of(rows_q, LOC_REPLIES[m]), **replies_of(type_q, TYPE_REPLIES[m])} for m in LOC_REPLIES}
    runs = [hand_set_run(tmp_path, questions, m, r) for m, r in replies.items()]
    html = report(tmp_path, runs)
    prompts = ["all", "helpful/declarative", "neutral/declarative"]
    check_rows(html, "localize_row_one_piece", rows_q, replies, "row", prompts)
    check_rows(html, "identify_type_one_piece", type_q, replies, "label", prompts)
    _, rows = byoeval_rows(html, "localize_row_one_piece")
    # sharp: right on 10 of 12; two images with one of two right: image accuracies 1 1 .5 1 .5 1
    assert rows[("sharp-vlm", "all")][2] == f"0.83 ({np.std([1, 1, .5, 1, .5, 1]):.2f})"
    # Table 2 gives the localization's NMAE: of the row as asked (counted from 0), by the paper's text
    assert rows[("sharp-vlm", "all")][8] != "–"


# --- Table 5: counting against blur, accuracy (%) and MAE per blur level ---------------------------
BLURS = (0.5, 2, 9)
# Replies per blur level, for counts 1, 1, 2, 2, 3, 3 (two images each).
BLUR_REPLIES = {"blur-hurt-vlm": {9: "1 1 2 2 3 3", 2: "1 1 2 3 3 4", 0.5: "2 1 4 3 5 1"},
                "blur-blind-vlm": {9: "1 2 2 2 3 3", 2: "1 2 2 2 3 3", 0.5: "1 2 2 2 3 3"}}


def test_table_5_accuracy_and_mae_per_blur_level(tmp_path):
    questions = [question(f"images/blur_{b}_{c}_{k}.png", "count_pieces", "counting", "integer", c,
                          {"blur.fstop": b, "content.count": c}, "How many pieces are there in the image?")
                 for b in BLURS for c in (1, 2, 3) for k in range(2)]
    write_questions(tmp_path, questions)
    replies = {m: {q["id"]: reply for b in BLURS for q, reply in zip(
        [q for q in questions if q["levels"]["blur.fstop"] == b], by_blur[b].split(), strict=True)}
        for m, by_blur in BLUR_REPLIES.items()}
    runs = [hand_set_run(tmp_path, questions, m, r) for m, r in replies.items()]
    html = report(tmp_path, runs)
    header, *rows = tables_in(section(html, "byo_eval_levels"))[0]
    assert header == ["model", "key", "variant", "variable", "level", "n", "Accuracy (%)", "MAE"]
    expected = []
    for model, r in replies.items():  # each model's rows, variable by variable, level by level
        for variable, levels in (("blur.fstop", BLURS), ("content.count", (1, 2, 3))):
            for level in levels:
                asked = [q for q in questions if q["levels"][variable] == level]
                errors = [abs(float(r[q["id"]]) - q["answer"]) for q in asked]
                expected.append([model, "count_pieces", "all", variable, f"{level:g}", str(len(asked)),
                                 f"{100 * np.mean([e == 0 for e in errors]):.2f}", f"{np.mean(errors):.2f}"])
    assert rows == expected
    # By hand: at f/0.5 the blurred model is right once in 6, off by 1 + 0 + 2 + 1 + 2 + 2 = 8 in all.
    assert ["blur-hurt-vlm", "count_pieces", "all", "blur.fstop", "0.5", "6", "16.67", "1.33"] in rows


# --- Table 3: accuracy by count range, mean (standard deviation) across the range's levels ---------
def test_table_3_count_ranges_mean_and_sd_across_levels(tmp_path):
    questions = make_count_dataset(tmp_path)
    # By hand: the slipping model adds one on the declarative prompts of 2 of 3 images above 4 pieces;
    # the tired model answers 4 whenever there are more than 4 pieces.
    runs = [write_run(tmp_path, questions, "slipping", "slipping-vlm", slipping),
            write_run(tmp_path, questions, "tired", "tired-vlm", lambda q: str(min(q["answer"], 4)))]
    html = report(tmp_path, runs, "--bins", "content.count=byo-eval")
    header, *rows = tables_after(section(html, "ranges"), "count_pieces")[0]
    ranges = {"all": (1, 21), "1-4": (1, 4), "5-9": (5, 9), "10-21": (10, 21)}
    assert header == ["model"] + [f"content.count: {name}" for name in ranges]
    for (model, answer), row in zip((("slipping-vlm", slipping), ("tired-vlm", lambda q: str(min(q["answer"], 4)))),
                                    rows, strict=True):
        assert row[0] == model
        for (name, (lo, hi)), cell in zip(ranges.items(), row[1:], strict=True):
            levels = range(lo, hi + 1)
            accuracy = [np.mean([int(answer(q).split()[-1]) == q["answer"] for q in questions
                                 if q["answer"] == c]) for c in levels]
            mae = [np.mean([abs(int(answer(q).split()[-1]) - q["answer"]) for q in questions if q["answer"] == c])
                   for c in levels]
            n = sum(q["answer"] in levels for q in questions)
            assert cell == (f"{np.mean(accuracy):.2f} ({np.std(accuracy):.2f}) {len(levels)} levels, n={n} · "
                            f"MAE {np.mean(mae):.2f} ({np.std(mae):.2f})"), (model, name)
    # By hand, the tired model: right on the 4 counts up to 4, wrong on the 17 above.
    tired = rows[1][1:]
    assert [c.split(" levels")[0] for c in tired] == [f"0.19 ({np.sqrt(4 / 21 * 17 / 21):.2f}) 21", "1.00 (0.00) 4",
                                                     "0.00 (0.00) 5", "0.00 (0.00) 12"]


def test_scores_written_before_these_tables_are_scored_again(tmp_path):
    """A scores.json of an older byo (without BYO-Eval's tables) is not reused by the report."""
    questions = write_questions(tmp_path, count_questions())
    run = hand_set_run(tmp_path, questions, "steady-vlm", replies_of(questions, COUNT_REPLIES["steady-vlm"]))
    assert main(["score", str(run), "--bootstrap", "0"]) == 0
    written = json.loads((run / "scores.json").read_text())
    assert written["tables"]["byo_eval"]
    del written["tables"]["byo_eval"]
    (run / "scores.json").write_text(json.dumps(written))
    os.utime(run / "scores.json")  # newer than the predictions: only its tables make it stale
    assert load_scores(run, n_boot=0).tables["byo_eval"]
