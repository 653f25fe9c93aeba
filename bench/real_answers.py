"""The answer parser on real models' answers: a corpus of free-form answers that real VLMs gave,
with gold answers and the sources' own verdicts (../shared/real-answers: its README tells the
format and where each file comes from).

    python bench/real_answers.py [CORPUS] [--json bench/results/real_answers.json] [--samples 3]

Each answer is parsed with `byo.score.parse.parse_answer` in the context its question gives
(answer type, prompt, preprompt, choices, labels), and compared with the gold answer. Per source,
per answer type (the class of question: integer, yes_no, label, multiple_choice...), per
deciding rule (the class of reading: byo.score.parse.decide.RULES) and per model it prints:
- one value: answers read as one value (status ok), out of all;
- parse rate: answers the parser read, out of the non-empty ones: one value, a refusal, a hedge
  between values ("10-12 pallets") or a degenerate loop, each a reading the answer supports; the
  rest is ambiguous (several values, no rule picks one) or unparsed (no value found);
- accuracy: answers read as the gold value, out of all (unread answers count as wrong);
- verdict agreement: the parse's right/wrong verdict equal to the gold-based verdict. That
  verdict is the source's own (`source_correct`), except where the source's judge was wrong about
  what the answer says (its first-number regex, a substring match): bench/real_answers_review.json
  gives the reviewed verdict, the kind of error and the reason for those ids. Rows with no
  verdict (the source kept none) are left out. Beside it, the agreement with the source's own
  verdicts, unreviewed;
- the outcomes (refusal, hedge, loop, ambiguous, unparsed, empty answer), and samples of the
  disagreements left.
A folder that is absent is skipped with a message (the corpus is not part of the project).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from figures import ROOT, Section
from rich.console import Console
from rich.table import Table

from byo.score.parse import ParseContext, parse_answer
from byo.score.vocab import domain_for

DEFAULT_CORPUS = ROOT.parent / "shared" / "real-answers"
REVIEW = Path(__file__).resolve().parent / "real_answers_review.json"
UNKNOWN_OPTION = "\u2205 option text unknown \u2205"  # a choice whose text the source does not give: matches nothing


def context(row: dict) -> ParseContext:
    """The question as the parser sees it."""
    choices = row.get("choices")
    if choices is not None:
        choices = [UNKNOWN_OPTION if c is None else str(c) for c in choices]
    labels = row.get("labels")
    domain = domain_for(labels) if labels else None
    return ParseContext(answer_type=row["answer_type"], prompt=row.get("prompt") or "",
                        preprompt=row.get("preprompt") or "neutral", choices=choices, domain=domain)


def same(value, gold) -> bool:
    if isinstance(gold, str) and isinstance(value, str):
        return value.strip().lower() == gold.strip().lower()
    if isinstance(gold, list) and isinstance(value, list):
        return [int(x) for x in value] == [int(x) for x in gold]
    return value == gold


def judge(row: dict) -> dict:
    parse = parse_answer(row["response"], context(row))
    correct = parse.status == "ok" and same(parse.value, row["gold"])
    return {"id": row["id"], "source": row["source"], "model": row["model"], "answer_type": row["answer_type"],
            "status": parse.status,
            "value": parse.value, "method": parse.method, "note": parse.note, "gold": row["gold"],
            "correct": correct, "source_correct": row.get("source_correct"), "response": row["response"]}


def load(corpus: Path) -> list[dict]:
    rows = []
    for path in sorted(corpus.glob("*.jsonl")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as err:
                    sys.exit(f"{path}:{number}: not a JSON line ({err.msg})")
    return rows


def reviewed(path: Path) -> dict[str, dict]:
    return json.loads(path.read_text())["verdicts"] if path.exists() else {}


def outcome(r: dict) -> str:
    """What the parser made of an answer: ok, refusal, hedge, loop, ambiguous, unparsed or empty."""
    if not (r["response"] or "").strip():
        return "empty"
    if r["status"] == "ambiguous" and "hedges" in (r["note"] or ""):
        return "hedge"
    if r["status"] == "unparsed" and r["method"] == "loop":
        return "loop"
    return r["status"]


READ = ("ok", "refusal", "hedge", "loop")  # a decision the answer supports


def summarize(results: list[dict], review: dict[str, dict]) -> dict:
    n = len(results)
    outcomes = Counter(outcome(r) for r in results)
    answered = n - outcomes["empty"]
    right = sum(r["correct"] for r in results)
    judged = [(r, review[r["id"]]["correct"] if r["id"] in review else r["source_correct"]) for r in results]
    judged = [(r, v) for r, v in judged if v is not None]
    agree = sum(r["correct"] == v for r, v in judged)
    own = [r for r in results if r["source_correct"] is not None]
    return {"n": n, "outcomes": outcomes,
            "one_value": outcomes["ok"] / n if n else None,
            "parse_rate": sum(outcomes[k] for k in READ) / answered if answered else None,
            "accuracy": right / n if n else None,
            "with_verdict": len(judged), "agreement": agree / len(judged) if judged else None,
            "source_agreement": sum(r["correct"] == r["source_correct"] for r in own) / len(own) if own else None,
            "disagreements": [r for r, v in judged if r["correct"] != v]}


def pct(x) -> float | None:
    return None if x is None else round(100 * x, 2)


OUTCOME_COLUMNS = ("refusal", "hedge", "loop", "ambiguous", "unparsed", "empty")


def table_row(label: list, s: dict) -> list:
    return [*label, s["n"], pct(s["one_value"]), pct(s["parse_rate"]), pct(s["accuracy"]), s["with_verdict"],
            pct(s["agreement"]), pct(s["source_agreement"]), *(s["outcomes"][k] for k in OUTCOME_COLUMNS)]


COLUMNS = [("n", ""), ("one value", "%"), ("parse rate", "%"), ("accuracy", "%"), ("with verdict", ""),
           ("verdict agreement", "%"), ("source agreement", "%"), *((k, "") for k in OUTCOME_COLUMNS)]


def print_table(console: Console, title: str, columns: list[str], rows: list[list]) -> None:
    table = Table(*columns, title=title)
    for row in rows:
        table.add_row(*("–" if v is None else str(v) for v in row))
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--json", type=Path, help="write the section here (bench/results/real_answers.json)")
    parser.add_argument("--samples", type=int, default=3, help="disagreements shown per source")
    parser.add_argument("--review", type=Path, default=REVIEW, help="reviewed verdicts where a source's judge erred")
    parser.add_argument("--dump", type=Path, help="write every answer's parse here (JSON lines)")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"real answers: no corpus at {args.corpus}; skipped")
        return
    rows = load(args.corpus)
    review = reviewed(args.review)
    results = [judge(r) for r in rows]
    if args.dump:
        args.dump.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in results))
    by_source: dict[str, list[dict]] = defaultdict(list)
    by_model: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in results:
        by_source[r["source"]].append(r)
        by_model[(r["source"], r["model"])].append(r)
    section = Section("real_answers", f"The answer parser on {len(rows):,} real models' answers",
                      about=" ".join(__doc__.split("\n\n")[2].split()))
    source_rows = []
    for source, rs in sorted(by_source.items()):
        s = summarize(rs, review)
        source_rows.append(table_row([source], s))
        section.figure(f"{source}_parse_rate", pct(s["parse_rate"]), "%", f"{source}: parse rate", at_least=98)
        if s["agreement"] is not None:
            section.figure(f"{source}_agreement", pct(s["agreement"]), "%", f"{source}: verdict agreement",
                           at_least=99)
    total = summarize(results, review)
    source_rows.append(table_row(["all"], total))
    section.figure("parse_rate", pct(total["parse_rate"]), "%", "all: parse rate")
    section.figure("agreement", pct(total["agreement"]), "%", "all: verdict agreement")
    model_rows = [table_row([source, model], summarize(rs, review)) for (source, model), rs in sorted(by_model.items())]
    by_type: dict[str, list[dict]] = defaultdict(list)
    by_rule: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        by_type[r["answer_type"]].append(r)
        by_rule[r["method"] or r["status"]].append(r)
    type_rows = [table_row([t], summarize(rs, review)) for t, rs in sorted(by_type.items())]
    rule_rows = [table_row([k], summarize(rs, review)) for k, rs in sorted(by_rule.items(), key=lambda kv: -len(kv[1]))]
    section.table("per source", [("source", ""), *COLUMNS], source_rows)
    section.table("per answer type", [("answer type", ""), *COLUMNS], type_rows)
    section.table("per deciding rule", [("rule", ""), *COLUMNS], rule_rows)
    section.table("per model", [("source", ""), ("model", ""), *COLUMNS], model_rows)
    samples = []
    for source, rs in sorted(by_source.items()):
        for r in summarize(rs, review)["disagreements"][: args.samples]:
            samples.append([source, r["model"], r["id"], r["status"], str(r["value"]), r["method"] or "",
                            str(r["gold"]), r["response"][:300]])
    # the answers themselves are printed, never written: the corpus is not the project's
    section.table("disagreement samples", [("source", ""), ("model", ""), ("id", ""), ("status", ""), ("parsed", ""),
                                           ("rule", ""), ("gold", "")], [s[:-1] for s in samples])
    console = Console(width=max(Console().width, 170))  # the tables are wide; a pipe gets them whole
    names = [c for c, _ in COLUMNS]
    print_table(console, "per source", ["source", *names], source_rows)
    print_table(console, "per answer type", ["answer type", *names], type_rows)
    print_table(console, "per deciding rule (the rule that read each answer: byo.score.parse.decide.RULES)",
                ["rule", *names], rule_rows)
    print_table(console, "per model", ["source", "model", *names], model_rows)
    print_table(console, "disagreement samples", ["source", "model", "id", "status", "parsed", "rule", "gold", "answer"],
                samples)
    section.write(args.json)


if __name__ == "__main__":
    main()
