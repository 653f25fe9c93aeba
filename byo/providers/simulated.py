"""The simulated observer: a reference provider with a planted psychometric function of a legend
quantity, for tests and benchmarks of the diagnostics (byo adapt, byo explain, breaking points).
It reads the image's legend, never the image.

    --provider simulated --model "QUANTITY,threshold=T,slope=S[,lapse=L]"

answers a question right with probability

    chance + (1 - chance - lapse) * logistic(slope * (q - threshold))

where q is the QUANTITY of the question's image and `chance` the question's guess rate as asked (1 /
options for multiple choice, 1/2 for yes / no, 0 for open answers such as counts); the slope's
sign says whether accuracy rises with q (+) or falls (-). This is byo score's psychometric model
(byo.score.psychometric) with its criterion 0.5, so a breaking point fitted to its answers
estimates `threshold`. Otherwise it answers wrong: another option, the other of yes / no, a count
off by one or two, or a reply that names nothing.

QUANTITY is read off the legend: `blur_px`, the mean diameter (pixels) of the depth-of-field blur
disc at the visible objects (0 without blur: byo.families.base.blur_px), or a dotted path into the
legend (`levels.content.count`, `setup.camera.elevation`; a key that holds dots, as a level's
name, is matched whole).

Whether an answer is right is drawn from the question's id and the generation seed (`--seed`,
default 0) alone: the same question about the same image gets the same answer, and a twin of an
image (byo explain: the same name, one factor changed) keeps the draw, so it is answered right
exactly when its quantity makes that likelier than the draw.
"""

from __future__ import annotations

import math
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from byo.core.dataset import Layout
from byo.core.errors import ARGUMENTS, ConfigError
from byo.core.inputs import DATA_ERRORS, read_json
from byo.families.base import blur_px, option_label, visible
from byo.providers.base import GenerationParams, ProviderFailure, Request, Response
from byo.providers.reference import Reference

DERIVED = {"blur_px": lambda legend: float(np.mean([blur_px(legend, o) for o in visible(legend)] or [0.0]))}
REPLY_NOTHING = "I cannot tell."


def parse_spec(text: str) -> tuple[str, dict[str, float]]:
    """(quantity, {threshold, slope, lapse}) of `QUANTITY,threshold=T,slope=S[,lapse=L]`."""
    expected = ("expected QUANTITY,threshold=T,slope=S[,lapse=L], e.g. blur_px,threshold=6,slope=-0.8 (the "
                "slope's sign: accuracy rises (+) or falls (-) with the quantity)")
    quantity, *pairs = [part.strip() for part in text.split(",")]
    values: dict[str, float] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or name not in ("threshold", "slope", "lapse") or name in values:
            raise ValueError(f"{pair!r}: {expected}")
        try:
            values[name] = float(value)
        except ValueError:
            raise ValueError(f"{name}={value.strip()!r} is not a number; {expected}") from None
        if not math.isfinite(values[name]):
            raise ValueError(f"{name}={value.strip()} is not a finite number; {expected}")
    if not quantity or "threshold" not in values or "slope" not in values:
        raise ValueError(f"{text!r}: {expected}")
    values.setdefault("lapse", 0.0)
    if not 0 <= values["lapse"] < 1:
        raise ValueError(f"lapse={values['lapse']:g}: expected a rate in [0, 1)")
    return quantity, values


def legend_value(legend: dict, path: str) -> Any:
    """A dotted path into the legend; a key that holds dots (a level's name) is matched whole."""
    node: Any = legend
    parts = path.split(".")
    while parts:
        if not isinstance(node, dict):
            raise KeyError(path)
        for n in range(len(parts), 0, -1):  # the longest key first: levels["blur.fstop"]
            key = ".".join(parts[:n])
            if key in node:
                node, parts = node[key], parts[n:]
                break
        else:
            raise KeyError(path)
    return node


def quantity_of(legend: dict, quantity: str) -> float:
    if quantity in DERIVED:
        return DERIVED[quantity](legend)
    value = legend_value(legend, quantity)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{quantity} is {value!r} in this legend, not a number")
    return float(value)


class Simulated(Reference):
    type = "simulated"
    reads_legends = True

    def __init__(self, model: str, params: GenerationParams, *, questions: list, dataset: Path | None = None):
        super().__init__(model, params, questions=questions)
        try:
            self.quantity, planted = parse_spec(model)
        except ValueError as err:
            raise ConfigError(ARGUMENTS, [("model", f"the simulated observer: {err}")]) from None
        self.threshold, self.slope, self.lapse = planted["threshold"], planted["slope"], planted["lapse"]
        self.layout = Layout(dataset) if dataset is not None else None
        self.legends: dict[str, dict] = {}

    def legend(self, image: str) -> dict:
        if self.layout is None:
            raise ProviderFailure("rejected", "the simulated observer reads legends: it needs the dataset")
        name = Path(image).stem
        if name not in self.legends:
            path = self.layout.legend(name)
            try:
                self.legends[name] = read_json(path)
            except DATA_ERRORS as err:
                raise ProviderFailure("rejected", f"no legend to read for {image}: {err}") from None
        return self.legends[name]

    def p_right(self, q: float, chance: float) -> float:
        """The planted psychometric function at quantity q."""
        return chance + (1 - chance - self.lapse) / (1 + math.exp(-self.slope * (q - self.threshold)))

    async def answer(self, request: Request) -> Response:
        question = request.question
        try:
            q = quantity_of(self.legend(question.image), self.quantity)
        except (KeyError, ValueError) as err:
            raise ProviderFailure("rejected", f"the simulated observer reads {self.quantity} in the legend of "
                                  f"{question.image}: {err}") from None
        chance = question.chance or 0.0
        draws = np.random.default_rng([zlib.crc32(question.id.encode()), self.params.seed or 0])
        if draws.random() < self.p_right(q, chance):
            return Response(text=self.reply(request, question.answer), finish_reason="reference")
        wrong = wrong_answer(question, draws)
        text = REPLY_NOTHING if wrong is None else self.reply(request, wrong)
        return Response(text=text, finish_reason="reference")


def wrong_answer(question, draws: np.random.Generator) -> Any:
    """A wrong answer of the question's kind, or None for a reply that names nothing."""
    truth = question.answer
    if question.choices:
        labels = ([option_label(i) for i in range(len(question.choices))] if question.answer_type == "multiple_choice"
                  else list(question.choices))
        others = [c for c in labels if str(c).lower() != str(truth).lower()]
        return others[int(draws.integers(len(others)))] if others else None
    if question.answer_type == "yes_no":
        return "no" if str(truth).lower() == "yes" else "yes"
    if question.answer_type == "integer" and isinstance(truth, int | float):
        offsets = [d for d in (-2, -1, 1, 2) if truth + d >= 0]
        return int(truth + offsets[int(draws.integers(len(offsets)))])
    return None

