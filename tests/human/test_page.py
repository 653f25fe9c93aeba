"""`byo human`: the page that asks people the questions, driven in headless Chromium (Playwright)
like a person would (typing, clicking, keyboard shortcuts), the HTTP rules it keeps, and the
runs it writes, which `byo score` and `byo report` read like a model's."""

from __future__ import annotations

import http.client
import json
import re
import signal
import socket
import urllib.parse
from pathlib import Path

import httpx
import numpy as np
import pytest
from human_server import (
    CHROMIUM,
    CHROMIUM_ARGS,
    Server,
    golden_dataset,
    questions,
    run_command,
    snapshot,
)

from byo.cli import main
from byo.families import get_family
from byo.families.base import POSITION_WORDS
from byo.families.poker.faces import RANKS, SUITS
from byo.human.answers import BadAnswer, response_text
from byo.human.selection import select
from byo.questions.load import Question, load_questions
from byo.score import humans
from byo.score.parse import context_for, parse_answer
from byo.score.rows import is_correct
from byo.score.run import load_scores

playwright = pytest.importorskip("playwright.sync_api")
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).is_file(), reason="Debian's chromium is not installed "
                                    "(make install)")


# --- the page, as a person uses it ----------------------------------------------------------------
@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def open_page(browser, url: str, annotator: str | None, responses: list | None = None):
    """A new tab in a new browser profile; every response it gets goes into `responses`."""
    page = browser.new_context(viewport={"width": 1280, "height": 760}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    if responses is not None:
        record(page, responses)
    page.goto(url + (f"?annotator={annotator}" if annotator else ""))
    page.errors = errors
    return page


def shown(page, qs: dict[str, dict]) -> dict:
    """The question on the page: found by its prompt and image, as a person sees it."""
    expect = playwright.expect
    expect(page.locator("#prompt")).not_to_be_empty()
    prompt = page.text_content("#prompt")
    image = urllib.parse.unquote(page.get_attribute("#image", "src").removeprefix("/images/"))
    (q,) = [q for q in qs.values() if q["prompt"] == prompt and q["image"] == image]
    return q


def progress(page) -> int:
    return int(re.match(r"(\d+) of", page.text_content("#progress-text")).group(1))


def wait_answered(page, n: int) -> None:
    playwright.expect(page.locator("#progress-text")).to_contain_text(f"{n} of")


def answer(page, q: dict, value=None, *, keys: bool = False) -> None:
    """Type or click the answer (the truth unless `value`), then submit: Enter or the button."""
    a = q["answer"] if value is None else value
    t = q["answer_type"]
    if t in ("integer", "row", "column"):
        page.click("#answer-number")
        page.keyboard.type(str(a))
    elif t == "cell":
        page.click("#answer-row")
        page.keyboard.type(str(a[0]))
        page.click("#answer-column")
        page.keyboard.type(str(a[1]))
    elif t == "position_word":
        if keys:
            page.keyboard.press(str(POSITION_WORDS.index(a) + 1))
        else:
            page.click(f'.grid3 .option[data-value="{a}"]')
    elif t in ("label", "yes_no") and page.locator(".option").count():
        if keys and t == "yes_no":
            page.keyboard.press(a[0])
        else:
            page.click(f'.option[data-value="{a}"]')
    elif t == "multiple_choice":
        page.keyboard.press(a.lower()) if keys else page.click(f'.option[data-value="{a}"]')
    elif t == "card":
        if keys:  # rank then suit, as the shortcut legend says
            page.keyboard.press({"10": "t"}.get(a[:-1], a[:-1].lower()))
            page.keyboard.press(a[-1].lower())
        else:
            page.click(f'.cards .option[data-value="{a}"]')
    elif t in ("label_set", "card_set"):
        for v in a:
            page.click(f'.option[data-value="{v}"]')
    else:
        page.click("#answer-text")
        page.keyboard.type(str(a))
    if keys:
        page.keyboard.press("Enter")
    else:
        page.click("#submit")


# --- what the browser received -----------------------------------------------------------------------
FORBIDDEN_KEYS = {"answer", "answers", "truth", "correct", "expected", "solution", "levels", "params", "legend",
                  "is_correct"}
QUESTION_KEYS = {"id", "image", "prompt", "answer_type", "input"}
INPUT_KEYS = {"kind", "min", "options", "texts", "ranks", "suits", "max_length"}


def record(page, into: list) -> None:
    def keep(response):
        body = response.body() if response.status != 204 else b""
        into.append((response.url, response.status, response.headers.get("content-type", ""), body))

    page.on("response", keep)


def walk(value):
    if isinstance(value, dict):
        for k, v in value.items():
            yield k, v
            yield from walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from walk(v)


def public_text(qs: dict[str, dict]) -> str:
    """What anyone may see: every prompt as a model gets it, and the options the page offers every
    question of a type (all labels of the families' vocabularies, position words, cards, yes/no)."""
    labels = [lab for q in qs.values() for d in get_family(q["family"]).vocabulary for lab in d.labels]
    cards = [r + s for r in RANKS for s in SUITS]
    return "\n".join([*(q["prompt"] for q in qs.values()), *labels, *POSITION_WORDS, *cards, "yes", "no",
                      "cannot tell"]).lower()


def truth_leaks(responses: list, qs: dict[str, dict]) -> list[str]:
    """Every way a truth could reach the browser in these bodies: a key that names it, a question
    object with more than the page needs, question data in a static file, or a truth that is not
    public text (an option every question of its type offers, or the prompt) written anywhere."""
    public = public_text(qs)
    distinctive = {}
    for q in qs.values():
        a = q["answer"]
        for form in (a,) if isinstance(a, str) else (json.dumps(a), json.dumps(a, separators=(",", ":"))):
            if len(form) >= 3 and form.lower() not in public:
                distinctive[form] = q["id"]
    found = []
    for url, _status, kind, body in responses:
        text = body.decode("utf-8", "replace")
        if '"answer"' in text or "'answer'" in text:
            found.append(f"{url}: names an answer")
        for form, qid in distinctive.items():
            if form in text:
                found.append(f"{url}: holds the truth of {qid}: {form!r}")
        if kind.startswith("application/json"):
            data = json.loads(body)
            for key, value in walk(data):
                if key in FORBIDDEN_KEYS:
                    found.append(f"{url}: key {key!r}")
                if isinstance(value, dict) and "prompt" in value:
                    if set(value) != QUESTION_KEYS or not set(value["input"]) <= INPUT_KEYS:
                        found.append(f"{url}: question with keys {sorted(value)} / {sorted(value['input'])}")
        elif not kind.startswith("image/"):  # the page, its script and style: no question data at all
            for q in qs.values():
                if q["id"] in text or q["prompt"] in text:
                    found.append(f"{url}: static file holds question {q['id']}")
    return found


# --- must show: 20 questions, a restart after 10, scored at 100% ---------------------------------------
@pytest.mark.browser
@needs_chromium
def test_twenty_answers_through_the_page_with_a_restart_score_100_percent(browser, tmp_path):
    dataset = golden_dataset(tmp_path)
    qs = questions(dataset)
    assert len(qs) == 20 and {q["answer_type"] for q in qs.values()} == {
        "integer", "label", "row", "column", "position_word"}
    responses: list = []
    seen: list[str] = []
    server = Server(dataset)
    try:
        page = open_page(browser, server.url, "ada", responses)
        for n in range(20):
            if n == 10:  # the server dies (SIGKILL: no goodbye), and a new one starts
                server.stop(signal.SIGKILL)
                run = dataset / "runs" / "human-ada"
                assert len((run / "predictions.jsonl").read_text().splitlines()) == 10  # all on disk
                server = Server(dataset)
                assert "resuming: ada 10 of 20" in server.output
                page.goto(server.url + "?annotator=ada")
            q = shown(page, qs)
            assert q["id"] not in seen  # never asked twice, also after the restart
            seen.append(q["id"])
            answer(page, q, keys=n % 2 == 1)  # clicks and the button, or keys and Enter
            wait_answered(page, n + 1)
        playwright.expect(page.locator("#done")).to_be_visible()
        assert page.errors == []
    finally:
        server.stop()
    run = dataset / "runs" / "human-ada"
    rows = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == seen and len(set(seen)) == 20
    assert {(r["provider"], r["model"], r["status"]) for r in rows} == {("human", "ada", "ok")}
    assert all(r["latency_s"] > 0 for r in rows)
    info = json.loads((run / "run.json").read_text())
    assert info["finished"] and info["answered"] == 20 and info["reference"] is False

    assert main(["score", str(run), "--bootstrap", "50"]) == 0
    scores = json.loads((run / "scores.json").read_text())
    assert scores["run"]["partial"] is False and scores["run"]["n_questions"] == 20
    assert scores["overall"]["accuracy"] == 1.0 and scores["overall"]["parse_rate"] == 1.0
    assert scores["run"]["provider"] == "human" and scores["run"]["model"] == "ada"

    # Every response of the test, from both servers: the page, its files, 20+ states and answers, images.
    paths = [urllib.parse.urlparse(u).path for u, *_ in responses]
    assert paths.count("/api/answer") == 20 and paths.count("/api/state") == 2 and paths.count("/") == 2
    assert {p for p in paths if p.startswith(("/static/", "/images/"))} == {
        "/static/app.js", "/static/app.css", *(f"/images/{q['image']}" for q in qs.values())}
    assert all(status == 200 or (status == 204 and "favicon" in url) for url, status, *_ in responses)
    assert truth_leaks(responses, qs) == []


def test_the_scan_finds_a_truth_that_leaks(tmp_path):
    """The scan above is no formality: each way of leaking a truth is caught."""
    dataset = golden_dataset(tmp_path)
    qs = questions(dataset)
    q = next(q for q in qs.values() if q["answer_type"] == "integer")
    question = {"id": q["id"], "image": q["image"], "prompt": q["prompt"], "answer_type": "integer",
                "input": {"kind": "number", "min": 0}}
    assert truth_leaks([("u", 200, "application/json", json.dumps({"question": question}).encode())], qs) == []
    for leak in ({**question, "answer": q["answer"]}, {**question, "levels": q["levels"]},
                 {**question, "hint": 3}, {**question, "input": {"kind": "number", "truth": 2}}):
        assert truth_leaks([("u", 200, "application/json", json.dumps({"question": leak}).encode())], qs)
    assert truth_leaks([("u", 200, "text/html", f"<p>{q['prompt']}</p>".encode())], qs)
    secret = {**qs, "x": {**q, "id": "x", "answer": "a hidden crest"}}
    assert truth_leaks([("u", 200, "text/plain", b"... a hidden crest ...")], secret)


# --- skip, reload, pause, two tabs ---------------------------------------------------------------------
@pytest.mark.browser
@needs_chromium
def test_cannot_tell_reload_pause_and_two_tabs(browser, tmp_path):
    dataset = golden_dataset(tmp_path)
    qs = questions(dataset)
    run = dataset / "runs" / "human-bob"
    with Server(dataset) as server:
        page = open_page(browser, server.url, "bob")
        first = shown(page, qs)
        page.keyboard.press("?")  # cannot tell, from the keyboard
        wait_answered(page, 1)
        playwright.expect(page.locator("#progress-text")).to_contain_text("1 cannot tell")
        row = json.loads((run / "predictions.jsonl").read_text().splitlines()[0])
        assert (row["id"], row["response"], row["refusal"], row["finish_reason"]) == (
            first["id"], "cannot tell", True, "cannot_tell")

        second = shown(page, qs)
        page.reload()  # the same question comes back, not a new one
        assert shown(page, qs)["id"] == second["id"] and progress(page) == 1

        page.click("#pause")
        playwright.expect(page.locator("#paused")).to_be_visible()
        assert page.locator("#work").is_hidden()  # the question is hidden while paused
        page.context.close()  # the tab is closed; the pause stays
        assert json.loads((run / "run.json").read_text())["human"]["paused"] is True
        page = open_page(browser, server.url, "bob")
        playwright.expect(page.locator("#paused")).to_be_visible()
        page.keyboard.press("p")
        playwright.expect(page.locator("#paused")).to_be_hidden()
        assert shown(page, qs)["id"] == second["id"]

        # Two tabs of one annotator show the same question; the second answer is refused.
        other = page.context.new_page()
        other.goto(server.url + "?annotator=bob")
        assert shown(other, qs)["id"] == second["id"]
        answer(page, second)
        wait_answered(page, 2)
        answer(other, second, value=second["answer"] + 1 if isinstance(second["answer"], int) else None)
        playwright.expect(other.locator("#notice")).to_contain_text("already answered")
        assert shown(other, qs)["id"] == shown(page, qs)["id"] != second["id"]  # it moved on with the server
        assert progress(other) == 2
    rows = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == [first["id"], second["id"]]
    assert rows[1]["response"] == str(second["answer"]).lower() or rows[1]["response"] == str(second["answer"])
    assert page.errors == []


@pytest.mark.browser
@needs_chromium
def test_two_annotators_at_once_each_in_their_order_and_their_agreement_in_the_report(browser, tmp_path):
    dataset = golden_dataset(tmp_path)
    qs = questions(dataset)
    with Server(dataset, "--per-level", "1") as server:  # one question per key and level: 10
        pages = {name: open_page(browser, server.url, name) for name in ("alice", "carol")}
        order = {name: [] for name in pages}
        for n in range(10):
            for name, page in pages.items():  # turn by turn, both sessions open at once
                q = shown(page, qs)
                order[name].append(q["id"])
                if name == "carol" and n == 3:
                    page.click("#cannot")
                else:
                    answer(page, q)
                wait_answered(page, n + 1)
        # the third annotator answers through the API, as the page does
        dave = httpx.Client(base_url=server.url)
        for n in range(10):
            q = dave.get("/api/state", params={"annotator": "dave"}).json()["question"]
            truth = qs[q["id"]]["answer"]
            r = dave.post("/api/answer", json={"annotator": "dave", "id": q["id"], "answer": truth,
                                               "seconds": 1.5, "nonce": f"dave-{n:04d}"})
            assert r.status_code == 200, r.text
    assert set(order["alice"]) == set(order["carol"]) and len(set(order["alice"])) == 10
    assert order["alice"] != order["carol"]  # each their own order...
    selection = select(load_questions(dataset / "questions.jsonl", dataset), variant=None, per_level=1,
                       dataset_name=dataset.name, run="human", where="q")
    assert selection.order(dataset.name, "alice") == order["alice"]  # ...the same one every time
    assert selection.order(dataset.name, "carol") == order["carol"]
    keys = [qs[i]["key"] for i in order["alice"]]
    assert len(set(keys)) == 10  # one question per key (every key has a single level here)

    runs = [dataset / "runs" / f"human-{name}" for name in ("alice", "carol", "dave")]
    out = tmp_path / "report.html"
    assert main(["report", *map(str, runs), "-o", str(out), "--bootstrap", "50"]) == 0
    html = out.read_text()
    assert '<section id="humans">' in html and "human (majority of 3)" in html
    panel, = humans.panels([load_scores(r) for r in runs])
    assert panel.annotators == ["alice", "carol", "dave"] and panel.ties == 0
    assert panel.majority.overall["accuracy"] == 1.0  # carol's "cannot tell" is outvoted
    overall = panel.agreement[0]
    # Fleiss' kappa by hand: nine questions all three agree on, one 2-1 (carol's cannot tell).
    categories = [json.dumps(qs[i]["answer"]) for i in order["alice"]]
    rows = []
    for j, i in enumerate(order["alice"]):
        carol_says = "<cannot tell>" if i == order["carol"][3] else json.dumps(qs[i]["answer"])
        rows.append([categories[j], carol_says, categories[j]])
    labels = sorted({c for r in rows for c in r})
    counts = np.array([[r.count(c) for c in labels] for r in rows])
    p_i = ((counts * (counts - 1)).sum(1) / 6)
    p_j = counts.sum(0) / counts.sum()
    expected_kappa = (p_i.mean() - (p_j ** 2).sum()) / (1 - (p_j ** 2).sum())
    assert overall.items == 10 and overall.kappa == pytest.approx(expected_kappa)
    assert f"{expected_kappa:.2f}" in html
    for page in pages.values():
        assert page.errors == []


# --- every input: cards, letters, sets, yes/no, cells, free text ---------------------------------------
WIDGET_QUESTIONS = [
    ("identify_card", "card", "QH", None, "poker"),
    ("identify_card", "card", "10S", None, "poker"),
    ("identify_cards", "card_set", ["AS", "7D", "10C"], None, "poker"),
    ("identify_card_multiple_choice", "multiple_choice", "C", ["3 of clubs", "2 of hearts", "ace of spades"], "poker"),
    ("identify_type_several_pieces", "label_set", ["knight", "pawn"], None, "chess"),
    ("exist_color_shape", "yes_no", "no", None, "clevr"),
    # free text: no vocabulary holds the crest arrangements (containers now have one: a picker)
    ("identify_modifier", "label", "three stacked", None, "crest"),
    ("locate_cell", "cell", [2, 3], None, "chess"),
]


def widget_dataset(tmp_path: Path) -> Path:
    """Questions of every other input on a real image (for the inputs, not for the truth: the
    image is a golden poker table, its question asked even where its 64x48 cards do not read)."""
    dataset = golden_dataset(tmp_path, "poker__count", keys=("count_total_cards",), unreadable="flag")
    image = questions(dataset)[next(iter(questions(dataset)))]["image"]
    lines = []
    for i, (key, answer_type, truth, choices, family) in enumerate(WIDGET_QUESTIONS):
        prompt = f"Widget question {i}: {key.replace('_', ' ')}?"
        if choices:
            prompt += " " + " ".join(f"({chr(65 + j)}) {c}" for j, c in enumerate(choices))
        lines.append(json.dumps({"id": f"w{i}", "image": image, "family": family, "task": "t", "key": key,
                                 "levels": {}, "preprompt": "neutral", "instruction": "direct", "prompt": prompt,
                                 "answer": truth, "answer_type": answer_type, "choices": choices}))
    (dataset / "widgets.jsonl").write_text("\n".join(lines) + "\n")
    return dataset


@pytest.mark.browser
@needs_chromium
def test_every_input_gives_an_answer_byo_score_reads(browser, tmp_path):
    dataset = widget_dataset(tmp_path)
    qs = questions(dataset, "widgets.jsonl")
    with Server(dataset, "--questions", str(dataset / "widgets.jsonl"), "--run", "widgets") as server:
        page = open_page(browser, server.url, None)  # no name in the address: the sign-in form
        playwright.expect(page.locator("#signin")).to_be_visible()
        page.fill("#signin-name", "../eve")
        page.click("#signin button[type=submit]")
        playwright.expect(page.locator("#signin-error")).to_contain_text("letters, digits")
        page.fill("#signin-name", "eve")
        page.keyboard.press("Enter")
        kinds = set()
        for n in range(len(qs)):
            q = shown(page, qs)
            kinds.add(page.locator("#input > *").first.evaluate("e => e.className || e.tagName"))
            if q["answer_type"] == "label_set":  # submitting nothing is refused on the page
                page.click("#submit")
                playwright.expect(page.locator("#notice")).to_contain_text("Pick an answer")
            answer(page, q, keys=q["id"] in ("w0", "w3", "w5"))
            wait_answered(page, n + 1)
        assert page.url.endswith("?annotator=eve")
        page.reload()  # the name is remembered
        playwright.expect(page.locator("#done")).to_be_visible()
    assert kinds >= {"cards", "options column", "options", "TEXTAREA", "LABEL"}
    run = dataset / "runs" / "widgets-eve"
    responses = {json.loads(line)["id"]: json.loads(line)["response"]
                 for line in (run / "predictions.jsonl").read_text().splitlines()}
    assert responses == {"w0": "QH", "w1": "10S", "w2": "AS, 7D, 10C", "w3": "C", "w4": "pawn, knight", "w5": "no",
                         "w6": "three stacked", "w7": "row 2, column 3"}
    assert main(["score", str(run), "--bootstrap", "0"]) == 0
    assert json.loads((run / "scores.json").read_text())["overall"]["accuracy"] == 1.0


# --- answers as text, read back by the scorer --------------------------------------------------------
def _question(answer_type: str, answer, **extra) -> Question:
    return Question(id="q", image="i.png", family=extra.pop("family", "chess"), task="t", key=extra.pop("key", "k"),
                    levels={}, preprompt="neutral", instruction="direct", prompt=extra.pop("prompt", "How many?"),
                    answer=answer, answer_type=answer_type, **extra)


def _round_trip(q: Question, spec: dict, value) -> bool:
    parsed = parse_answer(response_text(spec, value), context_for(q))
    return parsed.status == "ok" and is_correct(q.answer_type, parsed.value, q.answer)


def test_each_answer_written_by_the_page_parses_back_to_itself():
    cards = {"kind": "card", "ranks": list(RANKS), "suits": list(SUITS)}
    for code in (r + s for r in RANKS for s in SUITS):
        assert _round_trip(_question("card", code, family="poker"), cards, code), code
    rng = np.random.default_rng(0)
    every = [r + s for r in RANKS for s in SUITS]
    for _ in range(50):
        picked = sorted(rng.choice(every, size=int(rng.integers(1, 6)), replace=False).tolist())
        assert _round_trip(_question("card_set", picked, family="poker"), {**cards, "kind": "cards"}, picked)
    for word in POSITION_WORDS:
        assert _round_trip(_question("position_word", word), {"kind": "grid3", "options": list(POSITION_WORDS)}, word)
    for n in range(0, 30):
        for prompt in ("How many pieces are on row 3 of the chessboard?", "How many pieces are on column 0?",
                       "On which row is the piece? Rows are numbered from 0 at the top of the board."):
            for t in ("integer", "row", "column"):
                assert _round_trip(_question(t, n, prompt=prompt), {"kind": "number", "min": 0}, n), (t, n, prompt)
    choices = ["a red cube", "a blue cube", "a red sphere", "a blue sphere"]
    for j in range(4):
        letter = chr(65 + j)
        assert _round_trip(_question("multiple_choice", letter, choices=choices),
                           {"kind": "letter", "options": list("ABCD"), "texts": choices}, letter)
    yes_no = {"kind": "choice", "options": ["yes", "no"]}
    assert _round_trip(_question("yes_no", "yes"), yes_no, "yes") and _round_trip(_question("yes_no", "no"), yes_no, "no")
    assert _round_trip(_question("cell", [4, 1]), {"kind": "cell"}, [4, 1])


def test_a_wrong_answer_is_refused_with_what_was_expected():
    number = {"kind": "number", "min": 0}
    for value, expected in ((-1, "from 0 to"), ("3", "whole number"), (True, "whole number"), (2.5, "whole number"),
                            (None, "whole number")):
        with pytest.raises(BadAnswer, match=expected):
            response_text(number, value)
    with pytest.raises(BadAnswer, match="one of yes, no"):
        response_text({"kind": "choice", "options": ["yes", "no"]}, "maybe")
    with pytest.raises(BadAnswer, match="at most once"):
        response_text({"kind": "multi", "options": ["pawn", "king"]}, ["pawn", "pawn"])
    with pytest.raises(BadAnswer, match="non-empty list"):
        response_text({"kind": "multi", "options": ["pawn", "king"]}, [])
    with pytest.raises(BadAnswer, match="one of"):
        response_text({"kind": "card", "ranks": list(RANKS), "suits": list(SUITS)}, "1H")
    with pytest.raises(BadAnswer, match="some text"):
        response_text({"kind": "text"}, "   ")
    with pytest.raises(BadAnswer, match="control characters"):
        response_text({"kind": "text"}, "a\x00b")


def test_orders_and_samples_are_seeded(tmp_path):
    dataset = golden_dataset(tmp_path, keys=None)
    qs = load_questions(dataset / "questions.jsonl", dataset)
    s = select(qs, variant=None, per_level=None, dataset_name="d", run="human", where="q")
    assert s.order("d", "alice") == s.order("d", "alice") != s.order("d", "bob")
    assert s.order("d", "alice") != s.order("e", "alice") and sorted(s.order("d", "alice")) == sorted(s.ids)
    one = select(qs, variant=None, per_level=1, dataset_name="d", run="human", where="q")
    assert one.ids == select(qs, variant=None, per_level=1, dataset_name="d", run="human", where="q").ids
    assert len(one.ids) == len({q.key for q in qs})  # every key has one level in this dataset
    # the label options are the family's whole domain, not the answers seen
    color = next(i for i in s.items.values() if i.answer_type == "label")
    assert color.input == {"kind": "choice", "options": ["white", "black"]}
    assert all("answer" not in i.public() for i in s.items.values())


# --- HTTP: the security rules -------------------------------------------------------------------------
def raw_get(port: int, path: str, headers: dict | None = None) -> tuple[int, str]:
    """A GET whose path goes out exactly as written (no client normalises the ../)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
    conn.putheader("Host", (headers or {}).get("Host", f"127.0.0.1:{port}"))
    conn.endheaders()
    r = conn.getresponse()
    body = r.read().decode("utf-8", "replace")
    conn.close()
    return r.status, body


def test_bad_requests_get_a_4xx_with_a_message_and_change_nothing_on_disk(tmp_path):
    dataset = golden_dataset(tmp_path)
    qs = questions(dataset)
    qid = next(iter(qs))
    with Server(dataset) as server:
        port = server.port
        http_ = httpx.Client(base_url=server.url)
        # one real answer first, so that the annotator's run exists and must stay as it is
        good = {"annotator": "ann", "id": http_.get("/api/state", params={"annotator": "ann"}).json()["question"]["id"],
                "answer": None, "cannot_tell": True, "seconds": 2.0, "nonce": "first-answer-0001"}
        assert http_.post("/api/answer", json=good).status_code == 200
        before = snapshot(dataset)
        mask = next((dataset / "masks").iterdir()).name
        paths = ["/images/../questions.jsonl", "/images/../../../../etc/passwd", "/images/%2e%2e/questions.jsonl",
                 "/images/%2e%2e%2fquestions.jsonl", "/images/..%2F..%2Fetc%2Fpasswd", "/../../etc/passwd",
                 "/images//etc/passwd", f"/images/masks/{mask}", "/images/images/../masks/" + mask,
                 "/static/../pyproject.toml", "/static/..%2f..%2fpyproject.toml", "/images/legends/x.json",
                 "/api/state", "/api/state?annotator=../../etc", "/api/state?annotator=" + "x" * 41,
                 "/api/answer", "/nothing/here"]
        for path in paths:
            status, body = raw_get(port, path)
            assert 400 <= status < 500, (path, status)
            assert json.loads(body)["error"] and "Traceback" not in body, (path, body)
        assert raw_get(port, "/", {"Host": "attacker.example:80"})[0] == 400  # DNS rebinding
        posts = [
            ({**good, "id": "no/such/question", "nonce": "n-000000001"}, 404, "no question"),
            ({**good, "id": qid, "cannot_tell": False, "answer": "lots", "nonce": "n-000000002"}, 400, "answer"),
            ({**good, "id": qid, "cannot_tell": False, "answer": -3, "nonce": "n-000000003"}, 400, "answer"),
            ({**good, "id": qid, "cannot_tell": True, "answer": 3, "nonce": "n-000000004"}, 400, "cannot_tell"),
            ({**good, "seconds": -1, "nonce": "n-000000005"}, 400, "seconds"),
            ({**good, "seconds": 1e9, "nonce": "n-000000006"}, 400, "seconds"),
            ({**good, "nonce": "short"}, 400, "nonce"),
            ({**good, "annotator": "a/../b", "nonce": "n-000000007"}, 400, "annotator"),
            ({**good, "extra": 1, "nonce": "n-000000008"}, 400, "extra"),
            ({k: v for k, v in good.items() if k != "id"}, 400, "id"),
            ([1, 2, 3], 400, ""),
            ({**good, "id": qid, "cannot_tell": False, "answer": {"n": 3}, "nonce": "n-000000009"}, 400, "answer"),
        ]
        for body, status, words in posts:
            r = http_.post("/api/answer", json=body)
            assert r.status_code == status, (body, r.text)
            assert words in r.json()["error"] and "Traceback" not in r.text
        for content, headers, status in ((b"{not json", {"content-type": "application/json"}, 400),
                                         (json.dumps(good).encode(), {"content-type": "text/plain"}, 415),
                                         (b"x" * 70_000, {"content-type": "application/json"}, 413),
                                         (b"\xff\xfe", {"content-type": "application/json"}, 400)):
            r = http_.post("/api/answer", content=content, headers=headers)
            assert r.status_code == status and r.json()["error"], r.text
        assert http_.post("/api/pause", json={"annotator": "ann", "paused": "yes"}).status_code == 400
        assert http_.get("/api/answer").status_code == 405
        assert snapshot(dataset) == before
        # the same answer sent again is recognised; another answer to the question is refused
        assert http_.post("/api/answer", json=good).json()["recorded"] is False
        r = http_.post("/api/answer", json={**good, "nonce": "another-tab-0001"})
        assert r.status_code == 409 and "already answered" in r.json()["error"] and r.json()["state"]["answered"] == 1
        assert snapshot(dataset) == before
        assert "Traceback" not in server.output


def test_beyond_loopback_every_request_needs_the_printed_token(tmp_path):
    dataset = golden_dataset(tmp_path)
    with Server(dataset, host="0.0.0.0") as server:
        assert server.token and len(server.token) >= 20 and f"?token={server.token}" in server.output
        image = next(iter(questions(dataset).values()))["image"]
        before = snapshot(dataset)
        plain = httpx.Client(base_url=server.url)
        answer = {"annotator": "ann", "id": next(iter(questions(dataset))), "cannot_tell": True, "seconds": 1,
                  "nonce": "no-token-000001"}
        for method, path, kwargs in (("GET", "/", {}), ("GET", "/static/app.js", {}), ("GET", f"/images/{image}", {}),
                                     ("GET", "/api/state?annotator=ann", {}), ("POST", "/api/answer", {"json": answer}),
                                     ("POST", "/api/pause", {"json": {"annotator": "ann", "paused": True}})):
            r = plain.request(method, path, **kwargs)
            assert r.status_code == 401 and "token" in r.json()["error"], (path, r.text)
            wrong = plain.request(method, path, headers={"x-byo-token": "not-the-token"}, **kwargs)
            assert wrong.status_code == 403, (path, wrong.text)
        assert snapshot(dataset) == before
        signed = httpx.Client(base_url=server.url)
        r = signed.get("/", params={"token": server.token})
        assert r.status_code == 200 and "byo_human_token" in r.headers["set-cookie"]
        assert "HttpOnly" in r.headers["set-cookie"] and "SameSite=Strict" in r.headers["set-cookie"]
        assert signed.get(f"/images/{image}").status_code == 200  # the cookie carries it
        assert signed.post("/api/answer", json=answer).status_code == 200
        header = httpx.Client(base_url=server.url, headers={"x-byo-token": server.token})
        assert header.get("/api/state", params={"annotator": "ann"}).json()["answered"] == 1


def test_one_server_per_run_and_a_run_keeps_its_settings(tmp_path):
    dataset = golden_dataset(tmp_path)
    with Server(dataset, "--per-level", "1") as server:
        second = run_command(dataset, "--per-level", "1")
        assert second.returncode == 2 and "the human run is being written by pid" in second.stderr
        assert f"pid {server.proc.pid}" in second.stderr
        with Server(dataset, "--run", "pilot") as other:  # another run of the same dataset is fine
            assert other.port != server.port
        qid = httpx.get(server.url + "api/state", params={"annotator": "ann"}).json()["question"]["id"]
        assert httpx.post(server.url + "api/answer", json={"annotator": "ann", "id": qid, "cannot_tell": True,
                                                           "seconds": 1, "nonce": "x-00000001"}).status_code == 200
    changed = run_command(dataset)  # the same run without --per-level: another set of questions
    assert changed.returncode == 2 and "other settings" in changed.stderr and "per_level" in changed.stderr
    assert "Traceback" not in changed.stderr


def test_bad_settings_exit_2_before_anything_is_written(tmp_path):
    dataset = golden_dataset(tmp_path)
    before = snapshot(tmp_path)
    for args, words in ((["--variant", "cot/direct"], "no question has the variant"), (["--run", "../x"], "--run"),
                        (["--questions", str(tmp_path / "none.jsonl")], "file not found")):
        r = run_command(dataset, *args)
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr
    r = run_command(tmp_path / "missing")
    assert r.returncode == 2 and "not a directory" in r.stderr
    assert snapshot(tmp_path) == before
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        r = run_command(dataset, "--port", str(taken.getsockname()[1]))  # the last --port counts
        assert r.returncode == 2 and "cannot listen" in r.stderr, r.stderr


# --- the truth never shapes a response ---------------------------------------------------------------
def other_truths(dataset: Path) -> None:
    """Every answer replaced by another of the same kind (the label options stay the same domain)."""
    lines = []
    for line in (dataset / "questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        a = q["answer"]
        if q["answer_type"] == "position_word":
            q["answer"] = POSITION_WORDS[(POSITION_WORDS.index(a) + 4) % 9]
        elif isinstance(a, int):
            q["answer"] = a + 3
        elif a in ("white", "black"):
            q["answer"] = {"white": "black", "black": "white"}[a]
        q["levels"] = {k: "changed" for k in q["levels"]}
        q["params"] = {k: "changed" for k in q["params"]}
        lines.append(json.dumps(q))
    (dataset / "questions.jsonl").write_text("\n".join(lines) + "\n")


def test_every_response_is_the_same_whatever_the_truth(tmp_path):
    """Two copies of a dataset that differ only in their truths (and levels and parameters) get the
    same bytes in every response to the same requests: nothing the browser gets depends on them."""
    one = golden_dataset(tmp_path / "a")
    two = golden_dataset(tmp_path / "b")
    other_truths(two)
    assert questions(one).keys() == questions(two).keys()
    assert [q["answer"] for q in questions(one).values()] != [q["answer"] for q in questions(two).values()]
    bodies = []
    for dataset in (one, two):
        got = []
        with Server(dataset) as server:
            c = httpx.Client(base_url=server.url)
            for path in ("/", "/static/app.js", "/static/app.css"):
                got.append(c.get(path).content)
            for n in range(20):
                state = c.get("/api/state", params={"annotator": "same"})
                got.append(state.content)
                q = state.json()["question"]
                got.append(c.get("/images/" + q["image"]).content)
                kind = q["input"]["kind"]
                value = {"number": 1, "choice": q["input"].get("options", [None])[0],
                         "grid3": "center"}.get(kind)
                r = c.post("/api/answer", json={"annotator": "same", "id": q["id"], "answer": value,
                                                "seconds": 1.25, "nonce": f"same-{n:05d}"})
                got.append(r.content)
        bodies.append(got)
    assert len(bodies[0]) == 3 + 20 * 3 and bodies[0] == bodies[1]


# --- in-process: a failing disk, an image outside the dataset ---------------------------------------
def test_a_failing_write_is_a_507_with_a_message_and_the_answer_is_not_taken(tmp_path, monkeypatch):
    from starlette.testclient import TestClient

    from byo.human import store
    from byo.human.app import create_app
    from byo.human.serve import HumanSettings, prepare

    dataset = golden_dataset(tmp_path)
    study = prepare(HumanSettings(dataset))
    client = TestClient(create_app(study), base_url="http://127.0.0.1", raise_server_exceptions=False)
    q = client.get("/api/state", params={"annotator": "ann"}).json()["question"]
    body = {"annotator": "ann", "id": q["id"], "cannot_tell": True, "seconds": 1, "nonce": "disk-full-0001"}

    def full(path, line):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store, "append_line", full)
    r = client.post("/api/answer", json=body)
    assert r.status_code == 507 and "not recorded" in r.json()["error"] and "Traceback" not in r.text
    assert client.get("/api/state", params={"annotator": "ann"}).json()["answered"] == 0
    monkeypatch.undo()
    assert client.post("/api/answer", json=body).json()["state"]["answered"] == 1  # the same answer, again


def test_an_image_that_leads_outside_the_dataset_stops_the_server_at_start(tmp_path):
    dataset = golden_dataset(tmp_path / "d")
    outside = tmp_path / "secret.png"
    image = dataset / next(iter(questions(dataset).values()))["image"]
    outside.write_bytes(image.read_bytes())
    image.unlink()
    image.symlink_to(outside)
    before = snapshot(dataset)
    r = run_command(dataset)
    assert r.returncode == 2 and "outside the dataset" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert snapshot(dataset) == before
