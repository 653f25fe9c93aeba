"""lmms-eval functions of a BYO Render task, written by `byo export --format lmms-eval`.

The answers are parsed and scored by byo's own parser and metrics (`byo.export.scoring`),
with the question file beside this file: install byo into the lmms-eval environment
(`pip install PATH/TO/byo-render`, which brings no bpy).
"""

from pathlib import Path

from byo.export import scoring

QUESTIONS = Path(__file__).with_name("questions.jsonl")
_SCORER = []


def scorer() -> scoring.Scorer:
    if not _SCORER:
        _SCORER.append(scoring.Scorer.from_file(QUESTIONS))
    return _SCORER[0]


def doc_to_visual(doc):
    return [doc["image"].convert("RGB")]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    kwargs = lmms_eval_specific_kwargs or {}
    return f"{kwargs.get('pre_prompt', '')}{doc['prompt']}{kwargs.get('post_prompt', '')}"


def process_results(doc, results):
    """One record per metric: the question id, the parse, and whether the answer is right."""
    response = results[0] if results else None
    if isinstance(response, list):
        response = response[0] if response else None
    record = scorer().score(doc["id"], response if isinstance(response, str) else None)
    return {"byo_accuracy": record, "byo_parse_rate": record, "byo_nmae": record}


def byo_accuracy(items):
    return scoring.accuracy(items)


def byo_parse_rate(items):
    return scoring.parse_rate(items)


def byo_nmae(items):
    return scoring.nmae(items)
