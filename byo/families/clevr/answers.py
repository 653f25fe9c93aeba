"""Answers to the CLEVR-style questions, from legends (seeds 001 and 004 for the choices)."""

from __future__ import annotations

import itertools
from collections import Counter

from byo.families.api import (
    Answer,
    AnswerTable,
    Problem,
    Skip,
    blur_px,
    box_size,
    colour_unreadable,
    multiple_choice,
    not_shown,
    plural,
    unless,
    unseen,
    visible,
)
from byo.families.clevr.model import (
    ATTRIBUTE_READABLE_MAX_BLUR,
    ATTRIBUTE_READABLE_MIN_PX,
    COLORS,
    MIN_X_SEPARATION,
    SHAPES,
)

ANSWERS = AnswerTable()


def _attr(o: dict, name: str) -> str:
    return o["attributes"][name]


def _colors(legend: dict) -> list[str]:
    return [c if isinstance(c, str) else c["name"] for c in legend["content"]["colors"]]


def _unique(objects: list[dict], name: str) -> list[dict]:
    counts = Counter(_attr(o, name) for o in objects)
    return [o for o in objects if counts[_attr(o, name)] == 1]


def _pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def _shapes_unreadable(legend: dict) -> Problem | None:
    """A question naming a shape, material or size needs every visible object big and sharp
    enough to read them (model.ATTRIBUTE_READABLE_*)."""
    for o in visible(legend):
        side = min(box_size(o))
        if side < ATTRIBUTE_READABLE_MIN_PX:
            return "shape", f"an object is under {ATTRIBUTE_READABLE_MIN_PX} px across: too small to read its shape"
        if blur_px(legend, o) > ATTRIBUTE_READABLE_MAX_BLUR * side:
            return "shape", "an object is too blurred to read its shape"
    return None


def palette(legend: dict) -> dict[str, tuple[float, ...]]:
    """Every colour a person could name an object by: CLEVR's and the config's own (sRGB 0-1)."""
    own = {c["name"]: tuple(c["rgb"]) for c in legend["content"]["colors"] if isinstance(c, dict)}
    return {name: tuple(v / 255 for v in rgb) for name, rgb in COLORS.items()} | own


def _colours_unreadable(legend: dict) -> Problem | None:
    """The colour rule: every visible object's rendered colour reads as its own (docs/readability.md)."""
    return colour_unreadable(visible(legend), palette(legend))


def readable(fn):
    """Decorate an answer function whose question names shapes, materials or sizes."""
    def checked(legend, rng):
        return unless(_shapes_unreadable(legend), fn(legend, rng))

    checked.__doc__ = fn.__doc__
    return checked


def coloured(fn):
    """Decorate an answer function whose question names or asks colours: the colour rule."""
    def checked(legend, rng):
        return unless(_colours_unreadable(legend), fn(legend, rng))

    checked.__doc__ = fn.__doc__
    return checked


def shown(fn):
    """Decorate every answer function: each visible object stands out in the rendered image."""
    def checked(legend, rng):
        return unless(not_shown(visible(legend)), fn(legend, rng))

    checked.__doc__ = fn.__doc__
    return checked


@ANSWERS.key("count_objects")
@shown
def count_objects(legend, rng):
    return Answer(len(visible(legend)))


@ANSWERS.key("count_color")
@shown
@coloured
def count_color(legend, rng):
    color = _pick(rng, _colors(legend))
    return Answer(sum(_attr(o, "color") == color for o in visible(legend)), {"color": color})


@ANSWERS.key("count_shape")
@shown
@readable
def count_shape(legend, rng):
    shape = _pick(rng, SHAPES)
    return Answer(sum(o["kind"] == shape for o in visible(legend)), {"shape": shape, "shape_plural": plural(shape)})


def _label(o: dict) -> tuple[str, str]:
    return _attr(o, "color"), o["kind"]


@ANSWERS.key("exist_color_shape")
@shown
@coloured
@readable
def exist_color_shape(legend, rng):
    objects = visible(legend)
    if objects and rng.random() < 0.5:  # half the time ask about something that is there
        color, shape = _label(_pick(rng, objects))
    else:  # anything, except what an unseen object is: no question names a hidden object
        shown = {_label(o) for o in objects}
        hidden = {_label(o) for o in unseen(legend)} - shown
        color, shape = _pick(rng, [(c, s) for c in _colors(legend) for s in SHAPES if (c, s) not in hidden])
    present = any(_label(o) == (color, shape) for o in objects)
    return Answer("yes" if present else "no", {"color": color, "shape": shape})


def _query(legend, rng, by: str, asked: str) -> Answer | Skip:
    candidates = _unique(visible(legend), by)
    if not candidates:
        return Skip(f"no {by} appears exactly once")
    o = _pick(rng, candidates)
    return Answer(_attr(o, asked), {by: _attr(o, by)})


@ANSWERS.key("query_color_unique_shape")
@shown
@coloured
@readable
def query_color(legend, rng):
    return _query(legend, rng, "shape", "color")


@ANSWERS.key("query_shape_unique_color")
@shown
@coloured
@readable
def query_shape(legend, rng):
    return _query(legend, rng, "color", "shape")


@ANSWERS.key("query_material_unique_shape")
@shown
@readable
def query_material(legend, rng):
    return _query(legend, rng, "shape", "material")


@ANSWERS.key("query_size_unique_shape")
@shown
@readable
def query_size(legend, rng):
    return _query(legend, rng, "shape", "size")


def _described(objects: list[dict]) -> dict[int, str]:
    """Objects told apart by colour and shape alone, with that description."""
    names = Counter((_attr(o, "color"), o["kind"]) for o in objects)
    return {o["id"]: f"{_attr(o, 'color')} {o['kind']}" for o in objects if names[(_attr(o, "color"), o["kind"])] == 1}


def _x(o: dict) -> float:
    return o["pixel_coords"][0]


def _margin(legend: dict) -> float:
    """Centres closer than this in image x (pixels) are neither left nor right of each other."""
    return max(legend["content"]["x_margin"], MIN_X_SEPARATION) * legend["width"]


def _left_to_right(legend: dict, objects: list[dict]) -> list[dict] | Skip:
    """`objects` in image order, or a Skip when two of them are too close in x to be ordered."""
    ordered = sorted(objects, key=_x)
    if any(_x(b) - _x(a) < _margin(legend) for a, b in itertools.pairwise(ordered)):
        return Skip("two objects are too close in image x to tell left from right")
    return ordered


@ANSWERS.key("relate_left")
@shown
@readable
def relate_left(legend, rng):
    objects = visible(legend)
    named = _described(objects)
    pairs = [(a, b) for a, b in itertools.permutations(objects, 2) if a["id"] in named and b["id"] in named
             and abs(_x(a) - _x(b)) >= _margin(legend)]
    if not pairs:
        return Skip("no two objects told apart by colour and shape are far enough apart in image x")
    a, b = _pick(rng, pairs)
    return Answer("yes" if _x(a) < _x(b) else "no", {"a": named[a["id"]], "b": named[b["id"]]})


@ANSWERS.key("label_choice")
@shown
@coloured
@readable
def label_choice(legend, rng):
    """Seed 004, GZSL: the true label, two random labels and (two objects) two attribute swaps."""
    extras = legend["extras"]
    if "label" not in extras and not ("labels" in extras and "left_to_right" not in extras):
        return Skip("not a single-object or two-object scene")
    objects = visible(legend)
    if not objects:
        return Skip("no visible object")
    named = {_label(o) for o in legend["objects"]}  # unseen objects are never offered either
    everything = [(c, s) for c in _colors(legend) for s in legend["content"]["shapes"]]
    absent = [f"{c} {s}" for c, s in everything if (c, s) not in named]
    correct = _pick(rng, [f"{_attr(o, 'color')} {o['kind']}" for o in objects])
    hard = []
    if len(legend["objects"]) == 2 and len(objects) == 2:
        a, b = objects
        hard = [f"{_attr(a, 'color')} {b['kind']}", f"{_attr(b, 'color')} {a['kind']}"]
    easy = [absent[k] for k in rng.permutation(len(absent)) if absent[k] not in hard][: 4 - len(hard)]
    return multiple_choice(correct, hard + easy, rng)


@ANSWERS.key("relation_choice")
@shown
@readable
def relation_choice(legend, rng):
    """Seed 004, GZSL: the true relation, its relation swap and order swap, two random relations."""
    if legend["extras"].get("left_to_right") is None:
        return Skip("not a relational scene")
    if unseen(legend):
        return Skip("an object of the relation is not visible")
    ordered = _left_to_right(legend, visible(legend))
    if isinstance(ordered, Skip):
        return ordered
    left, right = (o["kind"] for o in ordered)
    true = {f"{left} left {right}", f"{right} right {left}"}
    correct = _pick(rng, sorted(true))
    a, rel, b = correct.split()
    other = "right" if rel == "left" else "left"
    hard = [f"{a} {other} {b}", f"{b} {rel} {a}"]
    pool = [f"{x} {r} {y}" for x, y in itertools.permutations(legend["content"]["shapes"], 2) for r in ("left", "right")]
    easy = [p for p in (pool[k] for k in rng.permutation(len(pool))) if p not in true and p not in hard][:2]
    return multiple_choice(correct, hard + easy, rng)


def _caption(pairs: list[tuple[str, str]]) -> str:
    parts = [f"a {color} {shape}" for color, shape in pairs]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _binding(legend) -> list[tuple[str, str]] | Skip:
    """The visible objects' (colour, shape), left to right as the image shows them."""
    if "binding_left_to_right" not in legend["extras"]:
        return Skip("not a colour-binding scene")
    ordered = _left_to_right(legend, visible(legend))
    if isinstance(ordered, Skip):
        return ordered
    if len(ordered) < 2:
        return Skip("fewer than 2 visible objects to bind")
    return [_label(o) for o in ordered]


@ANSWERS.key("binding_swap")
@shown
@coloured
@readable
def binding_swap(legend, rng):
    """Seed 001, Swap: the N colours permuted among the N objects (N! - 1 negatives)."""
    truth = _binding(legend)
    if isinstance(truth, Skip):
        return truth
    colors, shapes = zip(*truth, strict=True)
    negatives = [_caption(list(zip(p, shapes, strict=True))) for p in itertools.permutations(colors)]
    return multiple_choice(_caption(truth), negatives, rng)


@ANSWERS.key("binding_confusion")
@shown
@coloured
@readable
def binding_confusion(legend, rng):
    """Seed 001, Confusion: colours and objects drawn with replacement (N^N x N^N - 1); four shown."""
    truth = _binding(legend)
    if isinstance(truth, Skip):
        return truth
    colors, shapes = zip(*truth, strict=True)
    n = len(truth)
    everything = [_caption(list(zip(c, s, strict=True)))
                  for c in itertools.product(colors, repeat=n) for s in itertools.product(shapes, repeat=n)]
    correct = _caption(truth)
    wrong = [c for c in dict.fromkeys(everything) if c != correct]
    picks = [wrong[k] for k in rng.choice(len(wrong), size=min(4, len(wrong)), replace=False)]
    return multiple_choice(correct, picks, rng)
