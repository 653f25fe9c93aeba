"""CLEVR-style legends without a render, and an image-text model's scored rows on their questions:
for tests of candidate sets and their metrics that need no pixels. Each object counts as fully
visible, its box a 24-pixel square around its projected centre."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import write_config

from byo.families import get_family, load_config
from byo.families.base import Answer, ask
from byo.questions.load import Question
from byo.render.legend import build_legend
from byo.scene.plan import jobs
from byo.scene.spec import sample_spec
from byo.score.rows import score_rows


def unrendered_legends(tmp_path: Path, data: dict) -> list[dict]:
    """The legends of every image of the config `data`, as a render that saw every object would write them."""
    cfg = load_config(write_config(tmp_path, data))
    out = []
    for job in jobs(cfg):
        spec = sample_spec(cfg, job)
        pixels = spec.setup.projector().project([o.location for o in spec.objects])
        measured = {o.id: {"visible_pixels": 1000, "bbox": [int(x) - 12, int(y) - 12, int(x) + 12, int(y) + 12]}
                    for o, (x, y, _) in zip(spec.objects, pixels, strict=True)}
        out.append(build_legend(spec, image=f"images/{spec.name}.png", mask=f"masks/{spec.name}.png",
                                blender_version="none", pixel_coords=pixels.tolist(), measured=measured,
                                render_applied={}))
    return out


def asked(legends: list[dict], key: str) -> list[tuple[dict, Question]]:
    """Each legend with its question of `key` (legends that skip it left out), as byo questions writes it."""
    family = get_family("clevr")
    out = []
    for legend in legends:
        answer = ask(family.answers[key], legend, key)
        if not isinstance(answer, Answer):
            continue
        r = answer.retrieval
        out.append((legend, Question(
            id=f"{legend['name']}/{key}", image=legend["image"], family="clevr", task="combined", key=key, levels={},
            preprompt="neutral", instruction="direct", prompt=key, answer_type="multiple_choice", answer=answer.value,
            params=answer.params, choices=answer.choices, chance=answer.chance,
            retrieval=None if r is None else {"captions": list(r.captions), "truth": r.truth, "tags": list(r.tags),
                                              "order_seed": r.order_seed})))
    return out


def ranked(pairs: list[tuple[dict, Question]], similarity: Callable[[dict, str], float]) -> list[dict]:
    """The scored rows of an image-text model whose similarity of an image (its legend) and a caption
    is `similarity(legend, caption)`, over every candidate caption of each question."""
    predictions = [{"id": q.id, "status": "ok", "ranked": True, "model": "adversary",
                    "similarities": [float(similarity(legend, c)) for c in q.retrieval.captions]}
                   for legend, q in pairs]
    return score_rows([q for _, q in pairs], predictions, "adversary")
