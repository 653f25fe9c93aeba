"""`byo score RUN --judge PROVIDER:MODEL`: a judge on loopback (the fake server as a language
model, through the real openai client) reads only the answers the rules leave unparsed or
ambiguous; its replies are cached; parsed.jsonl names the path of every row; a judge answering
garbage leaves the row unparsed."""

from __future__ import annotations

import json

import pytest
from eval_data import FAKE_KEYS, evaluate_fake, make_dataset, truth_by_image
from fake_vlm import FakeVLM

from byo.cli import main
from byo.core.errors import ConfigError
from byo.score.judge import TEMPLATE, Judge, JudgeSettings, template_sha256
from byo.score.run import score_run

# What the model under test answers, by image (cycled): what the rules make of it.
ANSWERS = [
    ("{t}", "ok"),  # the rules read it: never sent to the judge
    ("The count equals the letters in '{w}'.", "unparsed"),  # a count the rules cannot read, a judge can
    ("Perhaps {t} or {q}.", "ambiguous"),
    ("The table looks busy today.", "unparsed"),
    ("I'm sorry, but I can't determine that.", "refusal"),  # a refusal: never sent
    ("I see {t} objects.", "ok"),
]


@pytest.fixture
def keys(monkeypatch):
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)


def model_answers(ds):
    truths = truth_by_image(ds)
    order = sorted(truths)

    def answer(seen) -> str:
        t = truths[seen.image_sha256]
        text, _ = ANSWERS[order.index(seen.image_sha256) % len(ANSWERS)]
        return text.format(t=t, q=t + 1, w="x" * t)

    return answer


def judge_replies(seen) -> str:
    """A judge that reads the answers: the right count where the answer names one in a way the
    rules do not use, NONE for a hedge, and garbage for the answer that says nothing."""
    said = seen.prompt.split("----------")[1]
    if "letters in" in said:
        return str(said.split("'")[1].count("x"))
    if "busy" in said:
        return "The image shows a table, probably with some objects on it."
    return "NONE"


def test_the_judge_reads_only_what_the_rules_cannot_and_is_cached(tmp_path, keys, capsys):
    ds = make_dataset(tmp_path / "ds", 12)
    with FakeVLM(model_answers(ds)) as vlm:
        run = evaluate_fake(ds, "openai", vlm.url + "/v1", run="under-test").run_dir
    plain, _ = score_run(run, n_boot=10)
    left = [r for r in plain.rows if r["status"] in ("unparsed", "ambiguous")]
    assert {r["status"] for r in left} == {"unparsed", "ambiguous"} and all(r["path"] == "rule" for r in plain.rows)

    with FakeVLM(judge_replies, text_only=True) as judge:
        args = ["score", str(run), "--bootstrap", "10", "--judge", "openai:judge-model", "--judge-base-url",
                judge.url + "/v1"]
        assert main(args) == 0
        first = len(judge.log)
        printed = capsys.readouterr().err
        assert main(args) == 0  # scored again: every reply from the cache
        again = len(judge.log)
    assert first == len(left) and again == first  # only unparsed + ambiguous; the second score sends none
    assert all(s.image_sha256 is None for s in judge.log)  # the judge reads text, never the image
    sent = {s.prompt.split("----------")[1].strip() for s in judge.log}
    assert sent == {r["response"] for r in left}
    assert "judge openai:judge-model" in printed and f"{len(left)} answers" in printed

    rows = {r["id"]: r for r in map(json.loads, (run / "parsed.jsonl").read_text().splitlines())}
    for before in plain.rows:
        row = rows[before["id"]]
        if before["status"] not in ("unparsed", "ambiguous"):  # a rule's parse is never overridden
            assert (row["path"], row["status"], row["value"]) == ("rule", before["status"], before["value"])
            assert "judge" not in row
        elif "letters in" in before["response"]:
            assert (row["path"], row["status"], row["method"], row["correct"]) == ("judge", "ok", "judge", True)
            assert row["judge"] == "openai:judge-model" and row["note"].startswith("the rules left it unparsed")
            # the rules' reading and verdict beside the judge's
            assert (row["rule_status"], row["rule_correct"]) == ("unparsed", False)
        else:  # NONE for the hedge, garbage for the other: left as the rules left them
            assert (row["path"], row["status"]) == ("rule", before["status"])
            assert row["judge"] == "openai:judge-model" and row["judge_reply"] and "named no answer" in row["note"]
    scores = json.loads((run / "scores.json").read_text())
    assert scores["settings"]["judge"] == {"judge": "openai:judge-model", "template": TEMPLATE.name,
                                           "template_sha256": template_sha256()}
    judged = sum(r["path"] == "judge" for r in rows.values())
    assert scores["run"]["judge"]["read"] == judged == sum("letters in" in r["response"] for r in left) == 2
    assert scores["run"]["judge"]["cached"] == len(left) and scores["run"]["judge"]["requests"] == 0
    assert scores["overall"]["parse_rate"] == plain.overall["parse_rate"] + judged / len(rows)
    # both verdicts: right by the rules alone, and with the judge's two right readings
    report = scores["run"]["judge"]
    by_rules = sum(bool(r["correct"]) for r in plain.rows)
    assert (report["scored"], report["right_by_rules"], report["right_with_judge"]) == (len(rows), by_rules,
                                                                                         by_rules + 2)
    assert report["accuracy_with_judge"] == pytest.approx((by_rules + 2) / len(rows))
    assert f"{by_rules} of {len(rows)} right by the rules alone" in printed


def test_the_prompt_is_the_template_filled_in(tmp_path, keys):
    judge = Judge(JudgeSettings("openai-compatible:any", base_url="http://127.0.0.1:9/v1"))
    from byo.score.parse import ParseContext
    ctx = ParseContext("multiple_choice", "How many apples?", choices=["4", "3"])
    prompt = judge.prompt({"prompt": "How many apples?", "response": "Quite a few."}, ctx)
    assert "Question: How many apples?" in prompt and "(A) 4\n(B) 3" in prompt
    assert "Answer format: the letter of one option" in prompt and "Quite a few." in prompt
    assert judge.key(prompt) != judge.key(prompt.replace("Quite", "Rather"))


@pytest.mark.parametrize("spec, problem", [("gpt-4o", "PROVIDER:MODEL"), ("nowhere:m", "unknown provider"),
                                           ("blind:blind", "answers no prompt")])
def test_a_judge_that_cannot_be_one_is_refused_before_scoring(spec, problem):
    with pytest.raises(ConfigError, match=problem):
        Judge(JudgeSettings(spec))
