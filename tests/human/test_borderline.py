"""The borderline sheet (byo/human/borderline.py) and the rules' agreement with people
(byo/human/agreement.py): hand-built legends and questions with known margins, answer sets whose
agreement and kappa are worked out by hand, and a golden CLEVR dataset end to end (no render)."""

from __future__ import annotations

import json
import math
import secrets
import sys
from pathlib import Path

import pytest

from byo.cli import main
from byo.human import agreement as ag
from byo.human import borderline as bl
from byo.human.answers import response_text
from byo.human.serve import HumanSettings, prepare
from byo.questions.load import Question
from byo.scene import counterfactual, evidence

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from human_server import golden_dataset  # noqa: E402


# --- the sheet: both sides of each threshold -------------------------------------------------------
def _seen(margin: float) -> dict:
    """An object's evidence whose presence margin is `margin` (the counterfactual presence alone)."""
    return {"counterfactual": {"area": 200, "presence": counterfactual.MIN_DIFFERENCE * (1 + margin)}}


def _legend(name: str, objects: list[dict]) -> dict:
    return {"name": name, "family": "not-installed", "objects": [{"id": k + 1, "attributes": {}, "kind": "thing",
                                                                   **o} for k, o in enumerate(objects)]}


def _question(name: str, key: str, rule: str | None = None) -> Question:
    return Question(id=f"{name}/{key}/neutral/direct", image=f"images/{name}.png", family="clevr", task="count",
                    key=key, levels={}, preprompt="neutral", instruction="direct", prompt="How many?",
                    answer_type="integer", answer=3,
                    unreadable={"rule": rule, "reason": "hand-built"} if rule else None)


ASKED_MARGINS = {"a1": 0.05, "a2": 0.5, "a3": 2.0, "a4": -0.02}  # the least seen object of each image
HIDDEN_MARGINS = {"h1": -0.1, "h2": -0.45, "h3": -0.9}  # the hidden object each flag names


@pytest.fixture
def sheet_input():
    legends, questions, cases = {}, [], []
    for name, m in ASKED_MARGINS.items():
        legends[name] = _legend(name, [_seen(m), _seen(m + 3.0)])  # the nearer object decides
        questions += [_question(name, "count_objects"), _question(name, "never_flagged")]
    for name, m in HIDDEN_MARGINS.items():
        legends[name] = _legend(name, [_seen(3.0), {**_seen(m), "visible": False}])
        questions.append(_question(name, "count_objects", "hidden"))
        cases.append({"name": name, "key": "count_objects", "rule": "hidden", "objects": [2], "policy": "flag"})
    # a separation flag: two objects merged at 0.5 (margin 1 - 0.5 / 0.4 = -0.25)
    merged = {"counterfactual": {"area": 200, "presence": 40.0, "merged": {"2": 0.5}}}
    legends["s1"] = _legend("s1", [merged, {"counterfactual": {"area": 200, "presence": 40.0, "merged": {"1": 0.5}}}])
    questions.append(_question("s1", "count_objects", "separation"))
    cases.append({"name": "s1", "key": "count_objects", "rule": "separation", "objects": [1, 2], "policy": "flag"})
    return questions, legends, cases


def test_the_sheet_takes_the_nearest_questions_on_both_sides_of_each_threshold(sheet_input):
    questions, legends, cases = sheet_input
    picks = bl.pick(questions, legends, cases, 2)
    by: dict[tuple[str, str], list] = {}
    for p in picks:
        by.setdefault((p.rule, p.side), []).append((p.id.split("/")[0], round(p.margin, 4)))
    assert by[("hidden", bl.ASKED)] == [("a4", -0.02), ("a1", 0.05)]  # |margin| 0.02 and 0.05; 0.5 and 2.0 left out
    assert by[("hidden", bl.UNREADABLE)] == [("h1", -0.1), ("h2", -0.45)]  # -0.9 left out
    assert by[("separation", bl.UNREADABLE)] == [("s1", -0.25)]
    # the separation rule's asked side: the asked count_objects questions with a merge measured (none here)
    assert ("separation", bl.ASKED) not in by
    # a key no rule ever found unreadable has no threshold to be near
    assert not any("never_flagged" in p.id for p in picks)


def test_a_question_margin_is_its_least_readable_object():
    legend = _legend("x", [_seen(0.8), _seen(0.3), {**_seen(-0.6), "visible": False}])
    assert bl.question_margin("hidden", legend) == pytest.approx(0.3)  # the visible ones
    assert bl.question_margin("hidden", legend, (3,)) == pytest.approx(-0.6)  # the object the rule named


def test_presence_margin_takes_the_better_of_contrast_and_removal():
    weber = {"rendered": {"weber": -0.3, "standout": 3.0, "step": 9.0, "contrast": 2.0, "edge": 1.0}}
    assert bl.presence_margin(weber) == pytest.approx(0.3 / evidence.PRESENT_WEBER - 1)  # the least of the three
    both = {**weber, **_seen(1.0)}
    assert bl.presence_margin(both) == pytest.approx(1.0)
    assert bl.overlap_margin({"rendered": {"ink": 14, "seam": 4.5}}, {}) == pytest.approx(1.0)
    assert bl.overlap_margin({"rendered": {"ink": 14, "seam": None}}, {}) is None  # borders no object


def test_a_shape_margin_needs_both_the_rendered_alternatives_and_the_outline():
    o = {"counterfactual": {"area": 200, "presence": 40.0, "shape": {"cube": 28.0, "sphere": 21.0}},
         "outline": {"shape": {"cube": 0.006, "sphere": 0.05}}}
    assert bl.attribute_margin("shape")(o, {}) == pytest.approx(0.006 / 0.012 - 1)  # the outline fails
    assert bl.unmeasured_rules([{"rule": "type"}, {"rule": "shape"}]) == ["type"]


# --- agreement worked out by hand ----------------------------------------------------------------
def _items(readable_right: int, readable_wrong: int, unreadable_right: int, unreadable_wrong: int,
           rule: str = "shape") -> list[ag.Item]:
    asked = [ag.Item((rule,), None, True)] * readable_right + [ag.Item((rule,), None, False)] * readable_wrong
    flagged = [ag.Item((rule,), rule, True)] * unreadable_right + [ag.Item((rule,), rule, False)] * unreadable_wrong
    return asked + flagged


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = k / n
    centre, half = (p + z * z / (2 * n)) / (1 + z * z / n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_a_perfect_judge_agrees_fully():
    r = ag.rule_agreement("shape", _items(6, 0, 0, 4))
    assert (r.items, r.agreement, r.kappa) == (10, 1.0, 1.0)
    assert (r.low, r.high) == pytest.approx(_wilson(10, 10))


def test_an_always_wrong_judge_disagrees_fully():
    r = ag.rule_agreement("shape", _items(0, 6, 4, 0))
    # p_o = 0; the rule says readable 0.6, the judge 0.4: p_e = 0.6 * 0.4 + 0.4 * 0.6 = 0.48
    assert r.agreement == 0.0 and r.kappa == pytest.approx(-0.48 / 0.52)
    assert ag.rule_agreement("shape", _items(0, 5, 5, 0)).kappa == pytest.approx(-1.0)  # balanced: -1


def test_a_judge_who_answers_every_question_right_finds_the_rule_too_strict():
    r = ag.rule_agreement("shape", _items(6, 0, 4, 0))
    assert r.unreadable_right == 4 and r.readable_wrong == 0  # strict, never lenient
    assert r.agreement == pytest.approx(0.6)
    # p_o = 0.6, p_e = 0.6 * 1 + 0.4 * 0 = 0.6: no agreement beyond chance
    assert r.kappa == pytest.approx(0.0)


def test_kappa_by_hand():
    r = ag.rule_agreement("shape", _items(5, 1, 2, 2))
    # p_o = 7/10; the rule says readable 6/10, the judge 7/10: p_e = 0.6 * 0.7 + 0.4 * 0.3 = 0.54
    assert r.agreement == pytest.approx(0.7)
    assert r.kappa == pytest.approx((0.7 - 0.54) / (1 - 0.54))
    assert (r.low, r.high) == pytest.approx(_wilson(7, 10))


def test_too_few_items_are_not_estimable_and_one_sided_kappa_is_undefined():
    r = ag.rule_agreement("shape", _items(2, 0, 1, 1))
    assert r.items == 4 and r.agreement is None and r.kappa is None and "not estimable" in r.note
    assert r.to_json()["interval"] is None
    # the rule asks everything: kappa 0 (no agreement beyond chance); both say one thing: undefined
    assert ag.rule_agreement("shape", _items(4, 2, 0, 0)).kappa == pytest.approx(0.0)
    same = ag.rule_agreement("shape", _items(6, 0, 0, 0))
    assert same.agreement == 1.0 and same.kappa is None and "undefined" in same.note


def test_items_of_scored_rows_decide_by_the_flag_and_the_rules_keys():
    rows = [{"key": "count_shape", "correct": True, "status": "ok"},
            {"key": "count_shape [unreadable]", "unreadable": {"rule": "color"}, "correct": True, "status": "ok"},
            {"key": "count_objects", "correct": False, "status": "refusal"}]
    items = ag.items_of(rows, {"shape": {"count_shape"}, "color": {"count_shape"}})
    assert items == [ag.Item(("color", "shape"), None, True), ag.Item(("color",), "color", True),
                     ag.Item((), None, False)]
    table = {r.rule: r for r in ag.agreement_table(items)}
    assert table["color"].items == 2 and table["shape"].items == 1 and table[ag.ALL].items == 3


# --- end to end on a golden CLEVR dataset: the sheet served, answered, its agreement printed --------
def test_the_sheet_answered_through_the_store_gives_its_agreement(tmp_path, capsys):
    dataset = golden_dataset(tmp_path, "clevr__count", keys=None, unreadable="flag")
    study = prepare(HumanSettings(dataset=dataset, run="sheet", borderline=2))
    try:
        picked = {q.id: q for q in study.selection.questions}
        assert {q.unreadable is None for q in picked.values()} == {True, False}  # both sides
        assert "borderline sheet:" in study.notes[-1]
        who = study.annotator("judge")
        for qid in who.order:  # the truth typed in: right everywhere, the flagged ones included
            spec = study.selection.items[qid].input
            study.record(who, qid, response_text(spec, picked[qid].answer), cannot_tell=False, seconds=1.0,
                         nonce=secrets.token_hex(8), kind=spec["kind"])
        assert json.loads((who.run_dir / "run.json").read_text())["request"]["borderline"] == 2
    finally:
        study.close()
    capsys.readouterr()
    assert main(["human", str(dataset), "--run", "sheet", "--agreement", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    rows = {r["rule"]: r for r in found["rules"]}
    flagged = sum(q.unreadable is not None for q in picked.values())
    assert found["annotators"] == ["judge"] and found["answers"] == len(picked)
    assert rows[ag.ALL]["unreadable_right"] == flagged and rows[ag.ALL]["readable_right"] == len(picked) - flagged
    assert rows[ag.ALL]["readable_wrong"] == rows[ag.ALL]["unreadable_wrong"] == 0
    assert rows[ag.ALL]["agreement"] is None and "not estimable" in rows[ag.ALL]["note"]  # under 5 answers
