"""A run's predictions joined with their questions, parsed and marked right or wrong."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from byo.core.dataset import Layout
from byo.core.errors import ConfigError, InputError
from byo.core.inputs import json_kind, read_json, reading
from byo.eval.layout import PREDICTIONS, RUN_FILE, read_predictions
from byo.questions.load import QUESTIONS, Question, load_questions
from byo.score.parse import FAMILY_TYPES, Domains, context_for, parse_answer
from byo.score.parse.structured import parse_structured
from byo.score.vocab import POSITION_WORDS, position_cell

NUMERIC = ("integer", "row", "column")


def variant_name(preprompt: str, instruction: str) -> str:
    return f"{preprompt}/{instruction}"


def run_paths(run_dir: Path) -> tuple[Path, Path]:
    """(dataset directory, question file) of a run directory DATASET/runs/NAME."""
    run_dir = Path(run_dir)
    if not (run_dir / PREDICTIONS).is_file():
        raise ConfigError(str(run_dir), [("<run>", f"no {PREDICTIONS}: expected a run directory DATASET/runs/NAME "
                                          "written by byo eval")])
    dataset = run_dir.parent.parent
    questions = dataset / QUESTIONS
    info = run_info(run_dir)
    named = info.get("questions")
    if named is not None and not isinstance(named, str):
        raise InputError(run_dir / RUN_FILE, f"expected the question file's path, got {json_kind(named)}",
                         key="questions")
    # Relative to the dataset (older runs: to the directory byo eval ran in), or absolute.
    for candidate in (dataset / named, Path(named)) if named else ():
        if candidate.is_file():
            return dataset, candidate
    return dataset, questions


def run_info(run_dir: Path) -> dict:
    """run.json (a JSON object), or {} when the run has none."""
    path = Path(run_dir) / RUN_FILE
    return read_json(path) if path.exists() else {}


def load_predictions(run_dir: Path) -> list[dict]:
    """The last row of each question in the predictions file (a run still going, or killed, has
    them in completion order and may hold several rows of one question)."""
    path = Path(run_dir) / PREDICTIONS
    rows, problems = read_predictions(path)
    if problems:
        raise ConfigError(str(path), problems[:20])
    return list(rows.values())


def truth_cell(answer) -> list[int] | None:
    if isinstance(answer, dict):
        return [int(answer["row"]), int(answer["column"])]
    if isinstance(answer, list | tuple) and len(answer) == 2:
        return [int(answer[0]), int(answer[1])]
    return None


SETS = ("label_set", "card_set")  # answers that are sets: exact set match, and P/R/F1


def is_correct(answer_type: str, value, truth) -> bool:
    if value is None:
        return False
    if answer_type in NUMERIC:
        return float(value) == float(truth)
    if answer_type == "cell":
        return list(value) == truth_cell(truth)
    if answer_type in SETS:
        return {str(v).lower() for v in value} == {str(t).lower() for t in truth}
    own = FAMILY_TYPES.get(answer_type)
    if own is not None and own.correct is not None:
        return own.correct(value, truth)
    return str(value).lower() == str(truth).lower()


def grid_position(answer_type: str, value) -> list[int] | None:
    """(row, column) of a cell or position-word answer, for localization errors."""
    if value is None:
        return None
    if answer_type == "cell":
        return truth_cell(value)
    if answer_type == "position_word" and value in POSITION_WORDS:
        return list(position_cell(value))
    return None


def ranked_credit(similarities: list[float], truth: int) -> float:
    """Recall@1 of one ranking, ties broken uniformly at random and the expectation taken: 1 / k
    when the true caption is among the k captions tied for the highest similarity, else 0. Without
    a tie this is the retrieval papers' "1[s(I, c) > s(I, c~_i), for all i]"; a ranker that cannot
    tell the captions apart scores the chance 1 / captions (docs/scoring.md's tie policy)."""
    top = tied_top(similarities)
    return 1 / len(top) if truth in top else 0.0


def strict_credit(similarities: list[float], truth: int) -> float:
    """The strict rule, a sensitivity column: 1 only when the truth is strictly the most similar
    (a tie at the top is a miss)."""
    return float(all(similarities[truth] > s for k, s in enumerate(similarities) if k != truth))


def first_max_credit(similarities: list[float], truth: int) -> float:
    """The first-maximum rule, a sensitivity column: 1 when the truth is the first of the tied top
    captions in the stored order (numpy's argmax, as the compositional-generalisation study's
    clip_predict.py takes it)."""
    return float(int(np.argmax(similarities)) == truth)


def tied_top(similarities: list[float]) -> list[int]:
    """Indices of the captions with the highest similarity: the ranking's prediction when there is
    one; several are a tie at the top (each the choice with chance 1 / their number)."""
    top = max(similarities)
    return [k for k, s in enumerate(similarities) if s == top]


def _ranked(q: Question, p: dict) -> tuple[dict, float | None]:
    """The scored fields of an image-text model's ranking of `q`'s candidate captions: its top
    caption, or `ambiguous` with the tied captions when several share the top similarity."""
    sims = p.get("similarities")
    if p["status"] != "ok" or q.retrieval is None or not isinstance(sims, list) \
            or len(sims) != len(q.retrieval.captions):
        status = p["status"] if p["status"] != "ok" else "unparsed"
        return {"status": status, "value": None, "method": None, "candidates": None, "top": None,
                "recall_at_1_strict": 0.0, "recall_at_1_first": 0.0,
                "note": "no ranking of the question's candidate captions" if p["status"] == "ok" else None}, None
    sims = [float(s) for s in sims]
    truth = q.retrieval.truth
    credit = ranked_credit(sims, truth)
    top = tied_top(sims)
    rules = {"recall_at_1_strict": strict_credit(sims, truth), "recall_at_1_first": first_max_credit(sims, truth)}
    if len(top) > 1:
        return {"status": "ambiguous", "value": None, "method": "ranking", "top": top,
                "candidates": [q.retrieval.captions[k] for k in top], **rules,
                "note": f"{len(top)} captions tie at the top: each the choice with chance 1/{len(top)}"}, credit
    return {"status": "ok", "value": q.retrieval.captions[top[0]], "method": "ranking", "candidates": None,
            "top": top, "note": None, **rules}, credit


def legend_splits(questions: list[Question], dataset: Path) -> dict[str, str]:
    """image -> split part, from the legend's extras, of images whose questions do not carry it
    (metrics are sliced by split: an image none of whose questions of a family's own type was asked keeps it)."""
    layout, out, read = Layout(dataset), {}, set()
    for q in questions:
        if "split" not in q.params and q.image not in read:
            read.add(q.image)
            path = layout.legend(Path(q.image).stem)
            if not path.exists():
                continue
            legend = read_json(path)  # only its split is read: a legend of any version will do
            with reading(path, "a legend"):
                split = (legend.get("extras") or {}).get("split")
            if split is not None:
                out[q.image] = str(split)
    return out


def _split(q: Question, from_legends: dict[str, str]) -> str | None:
    """The image's split part: the question's `split` parameter or level, or its legend's."""
    value = q.params.get("split") or q.levels.get("split") or from_legends.get(q.image)
    return str(value) if value is not None else None


def score_rows(questions: list[Question], predictions: list[dict], run: str,
               splits: dict[str, str] | None = None) -> list[dict]:
    """One row per prediction: the question, the raw answer, its parse and whether it is right."""
    by_id = {q.id: q for q in questions}
    unknown = [p["id"] for p in predictions if p["id"] not in by_id]
    if unknown:
        raise ConfigError(run, [("predictions", f"{len(unknown)} ids are not in the question file, e.g. {unknown[0]!r}")])
    domains = Domains.from_questions(questions)
    # One parse per distinct answer to the same question text: runs repeat short answers ("3",
    # "Yes.") over many images. The domain is kept with its parse so that its id stays unique.
    parses: dict[tuple, tuple] = {}
    out = []
    for p in predictions:
        q = by_id[p["id"]]
        if p.get("ranked"):  # an image-text model ranked the candidate captions
            out.append(_ranked_row(q, p, run, splits))
            continue
        ctx = context_for(q, domains)
        refusal = bool(p.get("refusal"))
        structured = bool(p.get("structured"))  # byo eval --structured: JSON of the answer's schema
        same = (p.get("response"), p["status"], refusal, ctx.answer_type, ctx.prompt, ctx.preprompt,
                tuple(ctx.choices) if ctx.choices else None, id(ctx.domain), structured)
        if same in parses:
            parsed = parses[same][1]
        else:
            parse = parse_structured if structured else parse_answer
            parsed = parse(p.get("response"), ctx, status=p["status"], refusal=refusal)
            parses[same] = (ctx.domain, parsed)
        value = parsed.value if parsed.status == "ok" else None
        row = {
            "run": run, "model": p.get("model"), "provider": p.get("provider"), "reference": bool(p.get("reference")),
            "id": q.id, "image": q.image, "family": q.family, "task": q.task, "key": scored_key(q),
            "answer_type": q.answer_type, "preprompt": q.preprompt, "instruction": q.instruction,
            "variant": variant_name(q.preprompt, q.instruction), "levels": q.levels, "params": q.params,
            "choices": q.choices, "prompt": q.prompt, "answer": q.answer, "response": p.get("response"),
            "request_status": p["status"], "request_error": p.get("error"),
            "status": parsed.status, "value": value, "method": parsed.method, "path": "rule",
            "candidates": parsed.candidates,
            "note": parsed.note, "correct": is_correct(q.answer_type, value, q.answer),
            "error": None, "split": _split(q, splits or {}), "chance": q.chance,
            "cost_usd": p.get("cost_usd"), "tokens": p.get("tokens"),  # the report's cost (byo.score.cost)
        }
        row["received_scale"] = received_scale(p.get("image"))
        if q.answer_type in NUMERIC and value is not None:
            row["error"] = float(value) - float(q.answer)
        row.update(_retrieval_fields(q, 1.0 if row["correct"] else 0.0, q.chance, ranked=False))
        if q.unreadable is not None:
            row["unreadable"] = q.unreadable.model_dump()
        out.append(row)
    return out


def _retrieval_fields(q: Question, credit: float | None, chance: float | None, *, ranked: bool) -> dict:
    """recall_at_1 (the question's recall@1: 1 or 0 for a chat answer, a ranking's 1 / k for the truth
    among k tied top captions), the chance as asked, the size of the candidate set; None without one.
    A chat answer's strict and first-maximum credits are its own (it names one option)."""
    if q.retrieval is None:
        return {"ranked": ranked, "recall_at_1": None, "chance": chance, "n_candidates": None}
    rules = {} if ranked else {"recall_at_1_strict": credit, "recall_at_1_first": credit}
    return {"ranked": ranked, "recall_at_1": credit, **rules, "chance": chance, "n_candidates": len(q.retrieval.captions),
            "retrieval": q.retrieval.model_dump()}


def _ranked_row(q: Question, p: dict, run: str, splits: dict[str, str] | None) -> dict:
    fields, credit = _ranked(q, p)
    row = {
        "run": run, "model": p.get("model"), "provider": p.get("provider"), "reference": bool(p.get("reference")),
        "id": q.id, "image": q.image, "family": q.family, "task": q.task, "key": scored_key(q),
        "answer_type": q.answer_type, "preprompt": q.preprompt, "instruction": q.instruction,
        "variant": variant_name(q.preprompt, q.instruction), "levels": q.levels, "params": q.params,
        "choices": q.choices, "prompt": q.prompt, "answer": q.answer, "response": p.get("response"),
        "request_status": p["status"], "request_error": p.get("error"), **fields,
        "correct": credit == 1.0, "error": None, "split": _split(q, splits or {}),
    }
    chance = 1 / len(q.retrieval.captions) if q.retrieval is not None else None
    row.update(_retrieval_fields(q, credit if credit is not None else 0.0, chance, ranked=True))
    if q.unreadable is not None:
        row["unreadable"] = q.unreadable.model_dump()
    return row


def received_scale(image) -> float | None:
    """Received pixels per rendered pixel (linear) of a prediction row's image record: what its
    provider's pipeline (byo.providers.image_pipeline) made of the image byo sent; None where the row
    records no received size (an older run, a provider that does not publish its rule)."""
    if not isinstance(image, dict) or not isinstance(received := image.get("received"), dict):
        return None
    try:
        rendered, sent = image["size"], image["sent_size"]
        scale = received.get("scale")
        if scale is None:
            shown = received.get("content") or received.get("size")
            if shown is None:
                return None
            scale = min(shown[0] / sent[0], shown[1] / sent[1])
        return float(scale) * sent[0] / rendered[0]
    except (KeyError, TypeError, IndexError, ZeroDivisionError):  # a row damaged by hand: no received size
        return None


def object_heights(rows: list[dict], dataset: Path) -> None:
    """Sets each row's `object_px`, the median height in rendered pixels of the boxes of its legend's
    visible objects (None without a legend or a box): the object's size beside its received size,
    for rows that record one."""
    layout, heights = Layout(dataset), {}
    for r in rows:
        if r.get("received_scale") is None:
            continue
        if r["image"] not in heights:
            legend, _ = layout.read_legend(Path(r["image"]).stem)
            boxes = [o["bbox"] for o in (legend or {}).get("objects", [])
                     if isinstance(o, dict) and o.get("visible", True) and isinstance(o.get("bbox"), list)
                     and len(o["bbox"]) == 4]
            heights[r["image"]] = float(np.median([b[3] - b[1] for b in boxes])) if boxes else None
        r["object_px"] = heights[r["image"]]


UNREADABLE_TAG = " [unreadable]"


def scored_key(q: Question) -> str:
    """The key a question is scored under: a question asked flagged as unreadable (questions.unreadable:
    flag) under its key tagged " [unreadable]", so that it is never mixed into its key's accuracy."""
    return q.key + UNREADABLE_TAG if q.unreadable is not None else q.key


def asked_questions(questions: list[Question], info: dict) -> list[Question]:
    """The questions the run was asked: the first `limit` of the file when run.json gives one."""
    limit = info.get("limit")
    return questions[:limit] if isinstance(limit, int) and limit > 0 else questions


def undecidable_ids(questions: list[Question], info: dict, provider: str | None, model: str | None) -> set[str]:
    """The questions byo eval left out of the run as undecidable at the size its model receives:
    those whose `unreadable_for` names the model as run.json's `received_as` records it (an older
    run: as PROVIDER:MODEL of its predictions)."""
    names = info.get("received_as")
    names = set(names) if isinstance(names, list) else {f"{provider}:{model}"} if model else set()
    return {q.id for q in questions if names & set(q.unreadable_for or {})}


def completeness(questions: list[Question], predictions: list[dict], info: dict,
                 undecidable: set[str] = frozenset()) -> dict:
    """How much of the run is there: `answered` of `asked` questions have a prediction (a failed
    request counts, as a wrong answer); `partial` when some have none. A question left out as
    undecidable for the model (`undecidable`) was not asked; `undecidable` counts them."""
    answered = {p["id"] for p in predictions}
    asked = {q.id for q in asked_questions(questions, info) if q.id not in undecidable} | answered
    return {"answered": len(answered), "asked": len(asked), "unanswered": len(asked) - len(answered),
            "partial": len(answered) < len(asked), "finished": info.get("finished"), "stopped": info.get("stopped"),
            "undecidable": len(undecidable - answered)}


def partial_note(facts: dict) -> str | None:
    """"partial: 68 of 330 answered" for a run some of whose questions have no prediction."""
    if not facts.get("partial"):
        return None
    return f"partial: {facts['answered']} of {facts['asked']} answered"


def check_one_type_per_key(questions, path: Path) -> None:
    """A key's questions are scored together: they must share one answer type (a question file
    edited or put together by hand can mix them). ConfigError naming the key and the types."""
    types: dict[str, dict[str, str]] = {}
    for q in questions:
        types.setdefault(q.key, {}).setdefault(q.answer_type, q.id)
    problems = [(f"key {key}", "answers of several types (" + "; ".join(f"{t}: {i} ..." for t, i in found.items())
                 + "): expected one answer type per key, as byo questions writes them")
                for key, found in types.items() if len(found) > 1]
    if problems:
        raise ConfigError(str(path), problems)


def load_run(run_dir: Path) -> tuple[list[dict], dict]:
    """Scored rows of a run, in question order, and facts about it (name, model, dataset, how many
    questions were asked and answered). Every figure is over the `n_questions` scored rows."""
    run_dir = Path(run_dir)
    dataset, questions_path = run_paths(run_dir)
    questions = load_questions(questions_path, dataset)
    check_one_type_per_key(questions, questions_path)
    order = {q.id: i for i, q in enumerate(questions)}
    predictions = sorted(load_predictions(run_dir), key=lambda p: order.get(p["id"], len(order)))
    rows = score_rows(questions, predictions, run_dir.name, legend_splits(questions, dataset))
    object_heights(rows, dataset)
    info = run_info(run_dir)
    first = predictions[0] if predictions else {}
    facts = {"run": run_dir.name, "run_dir": str(run_dir), "dataset": str(dataset), "questions": str(questions_path),
             "model": first.get("model"), "provider": first.get("provider"),
             "structured": bool((info.get("request") or {}).get("structured")),
             "reference": bool(info.get("reference", first.get("reference"))),
             "n_questions": len(rows), "n_in_file": len(questions),
             "spent_usd": info.get("spent_usd"), "max_cost_usd": info.get("max_cost_usd"), "batch": info.get("batch"),
             **completeness(questions, predictions, info,
                            undecidable_ids(questions, info, first.get("provider"), first.get("model")))}
    return rows, facts
