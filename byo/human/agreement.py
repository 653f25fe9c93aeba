"""How often each readability rule's decision agrees with the people who answered the questions.

A rule decides, per question, *readable* (asked) or *unreadable* (flagged under it, `byo questions
DATASET --unreadable flag`). A person's answer says the same in their terms: *readable* when they
answered right, *unreadable* when they answered wrong or "cannot tell". Per rule the items are the
answers to the questions flagged under it and to the questions asked of the keys it found
unreadable at least once in the dataset (`questions_summary.json`; a question flagged under another
rule says nothing of this one); the row "*" takes every answer, a question flagged under any rule
unreadable. Each annotator's answer is an item (answers to one question by several people are not
independent: the interval is then narrower than it should be).

- **Agreement**: the share of items where the two say the same, with its Wilson interval (95%,
  `byo.core.stats.wilson`).
- **Cohen's kappa** (Cohen 1960): (p_o - p_e) / (1 - p_e), p_e from the two sides' marginals;
  0 when one side says the same of every item, undefined when both do (p_e = 1).
- **strict**: the rule says unreadable, the person answered right; **lenient**: the rule says
  readable, the person did not. A rule with many strict items and few lenient ones could ask more.
- Under MIN_ITEMS items a row is *not estimable*: its counts are shown, no agreement or kappa.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from byo.core.errors import ConfigError
from byo.core.stats import wilson
from byo.eval.layout import RUNS
from byo.human.borderline import rule_keys
from byo.human.store import study_requests
from byo.questions.load import SUMMARY_FILE
from byo.score.rows import UNREADABLE_TAG, load_run

ALL = "*"
MIN_ITEMS = 5
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Item:
    """One answer to one question: what the rule decided and what the person showed."""

    rules: tuple[str, ...]  # the rules whose decision this item tests
    flagged: str | None  # the rule that found the question unreadable, if any
    right: bool  # the person answered right ("cannot tell" and wrong answers are not)


@dataclass
class RuleAgreement:
    rule: str
    items: int
    readable_right: int  # both say readable
    readable_wrong: int  # lenient: the rule asked, the person did not answer right
    unreadable_right: int  # strict: the rule refused, the person answered right
    unreadable_wrong: int  # both say unreadable
    agreement: float | None  # None: not estimable
    low: float | None
    high: float | None
    kappa: float | None  # None: not estimable or undefined
    note: str = ""

    def to_json(self) -> dict:
        return {"rule": self.rule, "items": self.items, "readable_right": self.readable_right,
                "readable_wrong": self.readable_wrong, "unreadable_right": self.unreadable_right,
                "unreadable_wrong": self.unreadable_wrong, "agreement": self.agreement,
                "interval": [self.low, self.high] if self.agreement is not None else None, "kappa": self.kappa,
                "note": self.note}


def cohen_kappa(rule_readable: Sequence[bool], person_readable: Sequence[bool]) -> float | None:
    """Cohen's kappa of two binary ratings of the same items; None when p_e = 1 (one category only)."""
    n = len(rule_readable)
    if n == 0:
        return None
    observed = sum(a == b for a, b in zip(rule_readable, person_readable, strict=True)) / n
    p_rule, p_person = sum(rule_readable) / n, sum(person_readable) / n
    expected = p_rule * p_person + (1 - p_rule) * (1 - p_person)
    return None if expected >= 1 else (observed - expected) / (1 - expected)


def rule_agreement(rule: str, items: Iterable[Item]) -> RuleAgreement:
    """The agreement of `rule` (ALL: any rule) with the people over the items it decides."""
    pairs = [(it.flagged is None if rule == ALL else it.flagged != rule, it.right) for it in items
             if rule == ALL or rule in it.rules]
    count = {(a, b): sum(1 for p in pairs if p == (a, b)) for a in (True, False) for b in (True, False)}
    n = len(pairs)
    agree = count[True, True] + count[False, False]
    out = RuleAgreement(rule, n, count[True, True], count[True, False], count[False, True], count[False, False],
                        None, None, None, None)
    if n < MIN_ITEMS:
        out.note = f"not estimable: {n} items (at least {MIN_ITEMS})"
        return out
    out.agreement = agree / n
    out.low, out.high = wilson(agree, n, CONFIDENCE)
    out.kappa = cohen_kappa([a for a, _ in pairs], [b for _, b in pairs])
    if out.kappa is None:
        out.note = "kappa undefined: the rule and the people said the same one thing of every item"
    return out


def items_of(rows: Iterable[Mapping], keys_by_rule: Mapping[str, set[str]]) -> list[Item]:
    """The items of scored rows (byo.score.rows): each answer, the rules that decide it."""
    out = []
    for r in rows:
        key = r["key"].removesuffix(UNREADABLE_TAG)
        flagged = (r.get("unreadable") or {}).get("rule")
        rules = (flagged,) if flagged else tuple(sorted(rule for rule, keys in keys_by_rule.items() if key in keys))
        out.append(Item(rules, flagged, bool(r.get("correct")) and r.get("status") == "ok"))
    return out


def agreement_table(items: Sequence[Item]) -> list[RuleAgreement]:
    rules = sorted({rule for it in items for rule in it.rules})
    return [rule_agreement(ALL, items), *(rule_agreement(rule, items) for rule in rules)]


def study_runs(dataset: Path, run: str) -> list[Path]:
    """The annotators' run folders of the study `run` (`byo human --run RUN`) of `dataset`."""
    return [run_file.parent for run_file, _ in study_requests(Path(dataset) / RUNS, run)]


def study_agreement(dataset: Path, run: str) -> dict:
    """The agreement report of a study: per rule, over every annotator's answers."""
    dataset = Path(dataset)
    summary_path = dataset / SUMMARY_FILE
    if not summary_path.is_file():
        raise ConfigError(str(summary_path), [("<file>", "missing: write the questions first, with `unreadable` "
                                               "flag")])
    cases = json.loads(summary_path.read_text()).get("unreadable") or []
    runs = study_runs(dataset, run)
    if not runs:
        raise ConfigError(str(dataset / RUNS), [("run", f"no answers of the study {run!r} (collected with `run` "
                                                 f"{run}): expected {run}-NAME/run.json")])
    rows, annotators = [], []
    for run_dir in runs:
        scored, facts = load_run(run_dir)
        rows += scored
        annotators.append(facts.get("model") or run_dir.name)
    items = items_of(rows, rule_keys(cases))
    return {"dataset": str(dataset), "study": run, "annotators": annotators, "answers": len(items),
            "min_items": MIN_ITEMS, "confidence": CONFIDENCE,
            "rules": [r.to_json() for r in agreement_table(items)]}
