"""Answer parsing: a corpus of realistic answers per answer type (tests/data/parse), plus edge cases."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from conftest import ROOT

from byo.families.base import option_index, option_label
from byo.families.crest import metrics as crest
from byo.score.numbers import numbers
from byo.score.parse import ANSWER_TYPES, ParseContext, exact_labels, parse_answer
from byo.score.vocab import domain_for

CORPUS = ROOT / "tests" / "data" / "parse"


def load(answer_type: str) -> list[dict]:
    return [json.loads(line) for line in (CORPUS / f"{answer_type}.jsonl").read_text().splitlines() if line]


def context(row: dict) -> ParseContext:
    domain = None
    if row["labels"]:
        domain = exact_labels(row["labels"]) if row["type"].startswith("crest") else domain_for(row["labels"])
    return ParseContext(row["type"], row["prompt"], row["preprompt"], row["choices"], domain)


@pytest.mark.parametrize("answer_type", ANSWER_TYPES)
def test_corpus(answer_type):
    rows = load(answer_type)
    assert len(rows) >= 200, f"{answer_type}: only {len(rows)} answers"
    tags = Counter(t for r in rows for t in r["tags"])
    statuses = Counter(r["status"] for r in rows)
    assert statuses["refusal"] >= 3 and statuses["unparsed"] >= 3 and statuses["ok"] >= 150
    assert tags["cot"] >= 5 and tags["several"] >= 5 and tags["handwritten"] >= 4
    if answer_type not in crest.ANSWER_TYPES:
        assert tags["echo"] >= 5
    wrong = []
    for r in rows:
        got = parse_answer(r["text"], context(r))
        if got.status != r["status"] or (r["status"] == "ok" and got.value != r["value"]):
            wrong.append(f"{r['text']!r}: expected {r['status']} {r['value']!r}, got {got.status} {got.value!r}")
    assert not wrong, f"{len(wrong)} of {len(rows)} wrong:\n" + "\n".join(wrong[:20])


def test_numbers_are_whole_tokens():
    assert [n.value for n in numbers("1 piece on the 8x8 board, 10 in all, the 1st row, 3.")] == [1, 10, 3]
    assert [n.value for n in numbers("twenty-one, twenty one, a dozen, half a dozen, one hundred and five")] == \
        [21, 21, 12, 6, 105]
    assert [n.value for n in numbers("No, one of them. There are no rooks and none of the kings.")] == [0, 0]


def test_request_failures_and_refusal_flags():
    ctx = ParseContext("integer", "How many pieces are there on the chessboard?")
    assert parse_answer(None, ctx, status="timeout").status == "error"
    assert parse_answer("5", ctx, status="rate_limited").note == "request status rate_limited"
    assert parse_answer("I can't help with that.", ctx, refusal=True).status == "refusal"
    assert parse_answer("   ", ctx).status == "unparsed"


def test_never_substring_numbers():
    ctx = ParseContext("integer", "How many pieces are there on the chessboard?")
    assert parse_answer("10", ctx).value == 10
    assert parse_answer("There are 10 pieces.", ctx).value == 10
    assert parse_answer("The 1st and only piece.", ctx).status == "unparsed"


def test_chain_of_thought_takes_the_final_number_not_the_first():
    prompt = ("First, think carefully, step by step. How many pieces are there on the chessboard? "
              "End your message with {answer: <answer>}.")
    cot = ParseContext("integer", prompt, "cot")
    assert parse_answer("Row 0 has 2, row 1 has 3, row 2 has 4, so 9.", cot).value == 9
    assert parse_answer("I see 2 white and 3 black pieces, 5 in all", cot).value == 5
    direct = ParseContext("integer", "How many pieces are there on the chessboard?")
    assert parse_answer("I see 2 white and 3 black pieces, 5 in all", direct).value == 5
    assert parse_answer("I see 2 white and 3 black.", direct).status == "ambiguous"


def test_multiple_choice_by_letter_or_text():
    choices = ["a red cube and a blue sphere", "a blue cube and a red sphere"]
    prompt = "Which caption describes the image? (A) a red cube and a blue sphere (B) a blue cube and a red sphere"
    ctx = ParseContext("multiple_choice", prompt, choices=choices)
    assert parse_answer("A blue cube and a red sphere.", ctx).value == "B"
    assert parse_answer(prompt + "\nAnswer: A", ctx).value == "A"
    assert parse_answer("(B)", ctx).value == "B"
    assert parse_answer("G", ctx).status == "unparsed"


def test_past_26_options_the_labels_run_on_to_aa():
    """Auto-Comp shows 50 options (its blind LLM, Table 9): option 27 is AA, option 50 AX."""
    assert [option_label(k) for k in (0, 25, 26, 27, 49, 701)] == ["A", "Z", "AA", "AB", "AX", "ZZ"]
    assert [option_index(x) for x in ("A", "z", "AA", "ax", "ZZ", "A1", "")] == [0, 25, 26, 49, 701, None, None]
    choices = [f"caption {k}" for k in range(50)]
    prompt = "Which caption describes the image? " + " ".join(f"({option_label(k)}) {c}" for k, c in enumerate(choices))
    ctx = ParseContext("multiple_choice", prompt, choices=choices)
    assert parse_answer("AB", ctx).value == "AB"
    assert parse_answer("The answer is (ax).", ctx).value == "AX"
    assert parse_answer("Option AC", ctx).value == "AC"
    assert parse_answer("B", ctx).value == "B"
    assert parse_answer("caption 48", ctx).value == "AW"
    assert parse_answer("The answer is at the top.", ctx).status != "ok"  # a word, not the label AT
    assert parse_answer("AY", ctx).status == "unparsed"  # past the 50 shown
    few = ParseContext("multiple_choice", "Which? (A) one (B) two", choices=["one", "two"])
    assert parse_answer("AB", few).status == "unparsed"  # 26 options or fewer: single letters only


def test_program_codes_keep_what_was_written():
    """A program is the reply as written, as a KDL or English label is: case, separators and a
    frame count under the paper's rule (whitespace aside), and only the lenient rule forgives them."""
    ctx = ParseContext("crest_program", "Write the program code.")
    assert parse_answer("c:01 x:3 m:0008", ctx).value == "c:01 x:3 m:0008"
    assert parse_answer("C:01, X:3, M:0008.", ctx).value == "C:01, X:3, M:0008."
    assert parse_answer("The code is C : 01 X:3 M:0008.", ctx).value == "The code is C : 01 X:3 M:0008."
    assert parse_answer("Program: C : 01 X:3 M:0008.", ctx).value == "C : 01 X:3 M:0008"  # marked by its form
    assert crest.exact_match(["C : 01 X:3 M:0008", "The code is C : 01 X:3 M:0008."], ["C:01 X:3 M:0008"] * 2,
                             "crest_program") == [True, False]
    assert crest.exact_match(["c:01 x:3 m:0008", "C:01, X:3, M:0008"], ["C:01 X:3 M:0008"] * 2,
                             "crest_program") == [False, False]
    assert crest.exact_match(["c:01 x:3 m:0008", "C:01, X:3, M:0008"], ["C:01 X:3 M:0008"] * 2,
                             "crest_program", "lenient") == [True, True]
    assert parse_answer("M:0008 M:0009", ctx).value == "M:0008 M:0009"  # ok as text, not parseable as factors
    assert crest.program_factors("M:0008 M:0009") is None
    assert crest.program_factors("c:01 x:3 m:0008") is None  # not the paper's codes
    assert crest.program_factors("c:01 x:3 m:0008", "lenient") == crest.Factors(("01",), "3", "0008")


def test_a_crest_reply_is_its_whole_text_never_a_label_found_inside():
    """KamonBench scores the whole string a model emits: the reply (or the answer it marks) is the
    prediction. A reply that contains the target among other words is not exact."""
    kdl = ParseContext("crest_kdl", "Describe the crest in Japanese.", domain=exact_labels(["丸に桔梗"]))
    english = ParseContext("crest_english", "Describe the crest in English.",
                           domain=exact_labels(["bellflower in a circle"]))
    for text, ctx, value in [("丸に丸に桔梗", kdl, "丸に丸に桔梗"), ("この家紋は丸に桔梗です。", kdl, "この家紋は丸に桔梗です。"),
                             ("Answer: 丸に桔梗", kdl, "丸に桔梗"), ('{"kdl": "丸に桔梗"}', kdl, "丸に桔梗"),
                             ("bellflower in a circle in a square", english, "bellflower in a circle in a square"),
                             ("A bellflower in a circle.", english, "A bellflower in a circle."),
                             ("<answer>bellflower in a circle</answer>", english, "bellflower in a circle")]:
        got = parse_answer(text, ctx)
        assert (got.status, got.value) == ("ok", value), text
    prose = "The crest has a ring around a flower.\nIts five petals are drawn in black ink on white."
    assert parse_answer(prose, english).status == "unparsed"  # no prediction: it costs its whole target
    assert parse_answer(" ".join(["flower"] * (crest.BARE_WORDS + 1)), english).status == "unparsed"


def test_labels_of_other_families_come_from_the_answers():
    domain = domain_for(["circle", "none", "square on its corner", "thin ring"])
    ctx = ParseContext("label", 'What container encloses the crest\'s motif? Answer "none" if there is none.',
                       domain=domain)
    assert parse_answer("There is no container.", ctx).value == "none"
    assert parse_answer("A square on its corner.", ctx).value == "square on its corner"
    assert parse_answer("A thin ring, not a circle.", ctx).value == "thin ring"
    assert parse_answer("A ring.", ctx).status == "unparsed"


def test_labels_of_the_crest_library_parse_back():
    """The crest family's own labels (program, KDL, English), written alone or marked as the answer,
    score as right; written inside a sentence or in another case they are read as written, wrong
    under the paper's rule and right under the lenient one."""
    import random

    from byo.families.crest.motifs import labels
    from byo.families.crest.motifs.sampling import Sampler
    from byo.score.rows import is_correct

    sample = random.Random(0).sample(sorted(Sampler().support(), key=repr), 150)
    for c in sample:
        p, k, e = labels.program(c), labels.kdl(c), labels.english(c)
        for answer_type, text, truth, exact in [
                ("crest_program", f"Program: {p}.", p, True), ("crest_program", p.lower(), p, False),
                ("crest_kdl", k, k, True), ("crest_kdl", f"答えは{k}", k, True), ("crest_kdl", f"{k}です。", k, False),
                ("crest_english", e, e, True), ("crest_english", f"Answer: {e}", e, True),
                ("crest_english", f"The crest shows {e}.", e, False), ("crest_english", e.capitalize(), e, False)]:
            got = parse_answer(text, ParseContext(answer_type, "Describe the crest."))
            assert got.status == "ok" and is_correct(answer_type, got.value, truth) == exact, (text, got)
            assert crest.exact_match([got.value], [truth], answer_type, "lenient") == [True], text
        assert crest.normalize(k, "crest_kdl") == labels.normalize(k)
