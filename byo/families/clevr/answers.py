"""Answers to the CLEVR-style questions, from legends (the choices as Auto-Comp and the
compositional-generalisation study draw them)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable

import numpy as np

from byo.families.api import (
    Answer,
    AnswerTable,
    Problem,
    Retrieval,
    Skip,
    attribute_unreadable,
    blur_px,
    box_size,
    color_unreadable,
    measured_attribute,
    multiple_choice,
    not_shown,
    option_index,
    option_label,
    options_shown,
    outline_unreadable,
    plural,
    retrieval_choice,
    unless,
    unseen,
    visible,
)
from byo.families.clevr.autocomp import RELATION_WORDS, candidates, color_arrangements, color_tag
from byo.families.clevr.model import (
    ATTRIBUTE_READABLE_MAX_BLUR,
    ATTRIBUTE_READABLE_MIN_PX,
    COLORS,
    MIN_X_SEPARATION,
    SHAPES,
    object_label_split,
    phrasings,
    relation_label,
    relation_label_split,
)

ANSWERS = AnswerTable()


def _attr(o: dict, name: str) -> str:
    return o["kind"] if name == "shape" else o["attributes"][name]


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


def _colors_unreadable(legend: dict) -> Problem | None:
    """The colour rule: every visible object's rendered colour reads as its own (docs/readability.md)."""
    return color_unreadable(visible(legend), palette(legend))


# (object, the other values that would change the answer; None: every other value), per attribute
Decisive = dict[str, list[tuple[dict, list[str] | None]]]


def attributes_unreadable(legend: dict, attributes: tuple[str, ...], decisive: Decisive | None = None) -> Problem | None:
    """The question's `attributes` read: each object the answer rests on, told apart in the image as
    rendered from each other value that would change the answer (`decisive`; default: every
    visible object against every other value), by the counterfactual check where the render
    measured it for every visible object, else by the size and blur rule (model.ATTRIBUTE_READABLE_*),
    and in both cases named from the image alone: its outline aligned on the object is not another
    value's (outline_unreadable, docs/readability.md)."""
    objects = visible(legend)
    measured = all(measured_attribute(objects, a) for a in attributes)
    if not measured and (problem := _shapes_unreadable(legend)):
        return problem
    for attribute in attributes:
        pairs = (decisive or {}).get(attribute, [(o, None) for o in objects])
        for o, values in pairs:
            # the rendered alternatives and the outline aligned on the object (attribute_unreadable),
            # or the outline alone where the render measured none
            problem = (attribute_unreadable if measured else outline_unreadable)([o], attribute, values)
            if problem:
                return problem
    return None


def membership(objects: list[dict], attribute: str, value: str) -> list[tuple[dict, list[str] | None]]:
    """What decides which of `objects` have `value`: one that has it against every other value,
    any other against `value` alone ("how many cones?" needs no cylinder told from a sphere)."""
    return [(o, None if _attr(o, attribute) == value else [value]) for o in objects]


def reads(*attributes: str, decisive: Callable[[dict, Answer], Decisive] | None = None):
    """Decorate an answer function whose question names or asks these attributes of the objects
    (shape, material, size): the answer is unreadable unless each reads (attributes_unreadable);
    `decisive` gives, from the legend and the answer, the objects and values that decide it."""
    def decorate(fn):
        def checked(legend, rng):
            result = fn(legend, rng)
            if not isinstance(result, Answer):
                return result
            return unless(attributes_unreadable(legend, attributes, decisive(legend, result) if decisive else None),
                          result)

        checked.__doc__ = fn.__doc__
        return checked

    return decorate


# A question naming shapes, materials and sizes (COMPASS's captions).
readable = reads("shape", "material", "size")


def colored(fn):
    """Decorate an answer function whose question names or asks colours: the colour rule over every
    visible object (conservative: the keys whose answer a misread colour of any object may change)."""
    def checked(legend, rng):
        return unless(_colors_unreadable(legend), fn(legend, rng))

    checked.__doc__ = fn.__doc__
    return checked


def colored_by(fn):
    """Decorate an answer function whose answer, as far as colours go, rests only on which objects
    are the colour its params name (`color`): the colour rule over the objects that decide it, those of that colour
    (which might not read as it) and those that could be read as it (docs/readability.md). An
    object read as another colour the question does not name changes nothing."""
    def checked(legend, rng):
        result = fn(legend, rng)
        if not isinstance(result, Answer):
            return result
        return unless(color_unreadable(visible(legend), palette(legend), {result.params["color"]}), result)

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
@colored_by
def count_color(legend, rng):
    color = _pick(rng, _colors(legend))
    return Answer(sum(_attr(o, "color") == color for o in visible(legend)), {"color": color})


def _of(legend: dict, **attributes) -> list[dict]:
    return [o for o in visible(legend) if all(_attr(o, k) == v for k, v in attributes.items())]


@ANSWERS.key("count_shape")
@shown
@reads("shape", decisive=lambda legend, a: {"shape": membership(visible(legend), "shape", a.params["shape"])})
def count_shape(legend, rng):
    shape = _pick(rng, SHAPES)
    return Answer(sum(o["kind"] == shape for o in visible(legend)), {"shape": shape, "shape_plural": plural(shape)})


def _label(o: dict) -> tuple[str, str]:
    return _attr(o, "color"), o["kind"]


@ANSWERS.key("exist_color_shape")
@shown
@colored_by
@reads("shape", decisive=lambda legend, a: {"shape": membership(_of(legend, color=a.params["color"]), "shape",
                                                                 a.params["shape"])})
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


def _unique_by_shape(*asked: str):
    """What decides "what <asked> is the <shape>?": which object is the shape, and its `asked`."""
    def decisive(legend: dict, a: Answer) -> Decisive:
        the = _of(legend, shape=a.params["shape"])
        return {"shape": membership(visible(legend), "shape", a.params["shape"]),
                **{attribute: [(o, None) for o in the] for attribute in asked}}

    return decisive


@ANSWERS.key("query_color_unique_shape")
@shown
@colored
@reads("shape", decisive=_unique_by_shape())
def query_color(legend, rng):
    return _query(legend, rng, "shape", "color")


@ANSWERS.key("query_shape_unique_color")
@shown
@colored_by
@reads("shape", decisive=lambda legend, a: {"shape": [(o, None) for o in _of(legend, color=a.params["color"])]})
def query_shape(legend, rng):
    return _query(legend, rng, "color", "shape")


@ANSWERS.key("query_material_unique_shape")
@shown
@reads("shape", "material", decisive=_unique_by_shape("material"))
def query_material(legend, rng):
    return _query(legend, rng, "shape", "material")


@ANSWERS.key("query_size_unique_shape")
@shown
@reads("shape", "size", decisive=_unique_by_shape("size"))
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


def _described_pair(legend: dict, a: Answer) -> Decisive:
    """What decides which objects "the <colour> <shape>" of a relation question are."""
    pairs = []
    for description in (a.params["a"], a.params["b"]):
        color, shape = description.rsplit(" ", 1)
        pairs += membership(_of(legend, color=color), "shape", shape)
    return {"shape": pairs}


@ANSWERS.key("relate_left")
@shown
@reads("shape", decisive=_described_pair)
def relate_left(legend, rng):
    objects = visible(legend)
    named = _described(objects)
    pairs = [(a, b) for a, b in itertools.permutations(objects, 2) if a["id"] in named and b["id"] in named
             and abs(_x(a) - _x(b)) >= _margin(legend)]
    if not pairs:
        return Skip("no two objects told apart by colour and shape are far enough apart in image x")
    a, b = _pick(rng, pairs)
    return Answer("yes" if _x(a) < _x(b) else "no", {"a": named[a["id"]], "b": named[b["id"]]})


# A chat model is shown at most this many of a question's candidates unless the run says otherwise
# (byo questions --options, or the config's questions.options). Auto-Comp's own count: its blind
# LLM saw 50 ("For N = 3, we subsample a set of 49 negatives to limit the prompt length", Table 9:
# chance 2.0%) and its human study's Confusion task was "limited to 50 options"; every other set of
# either paper (the study's 32 single-object labels included) is smaller and shown whole.
PAPER_OPTIONS = 50


def tagged(legend: dict, retrieval: Retrieval, rng, params: dict) -> Answer:
    """retrieval_choice with the truth's letter counterbalanced over images: in each block of k
    consecutive images (k options shown) each letter is the truth once, in an order drawn per
    block, so a letter prior scores chance and no letter follows a variable's level. And each
    shown option's distractor tag in `option_tags` (which kind of distractor a wrong
    answer took, for the error breakdowns). At most `options_shown` options (PAPER_OPTIONS by
    default): past 26 the letters go on AA, AB, ..."""
    answer = retrieval_choice(retrieval, rng, params, max_options=options_shown(legend, PAPER_OPTIONS))
    choices = list(answer.choices)
    block, slot = divmod(int(legend["index"]), len(choices))
    truth = option_index(answer.value)
    target = int(np.random.default_rng([block, len(choices)]).permutation(len(choices))[slot])
    choices[truth], choices[target] = choices[target], choices[truth]
    tag_of = dict(zip(retrieval.captions, retrieval.tags, strict=True))
    options = " ".join(f"({option_label(i)}) {o}" for i, o in enumerate(choices))
    return Answer(option_label(target), {**answer.params, "options": options,
                                         "option_tags": [tag_of[c] for c in choices]},
                  choices, answer.retrieval, answer.chance)


# --- the compositional-generalisation study ---------------------------------------
def photo(label: str) -> str:
    """A class label as the study's code prompts every model with it: "a photo of a red cube";
    a relational label "cube left sphere" as "a photo of a cube to the left of a sphere"."""
    words = label.split()
    if len(words) == 3 and words[1] in ("left", "right"):
        return f"a photo of a {words[0]} to the {words[1]} of a {words[2]}"
    return f"a photo of a {label}"


def _labelled(legend, rng, labels: list[str], tags: list[str], split: str) -> Answer:
    """The question of a candidate set of class labels (the truth first as built; `ask` stores them in
    the question's seeded order), each as its photo prompt."""
    return tagged(legend, Retrieval(tuple(photo(lab) for lab in labels), 0, tuple(tags)), rng, {"split": split})


def _image_split(legend) -> str:
    """The split the image was drawn for (id_val and id_test use the training labels)."""
    return str(legend["content"].get("split") or legend["extras"].get("label_split") or "all")


def _object_labels(legend) -> list[tuple[str, str, str | None]]:
    """Every (colour, shape) label of the content with its split (the compositional-generalisation
    study's label set Y)."""
    return [(c, s, object_label_split(c, s)) for s in legend["content"]["shapes"] for c in _colors(legend)]


def _label_tag(label: str, truth: str) -> str:
    """What a distractor label changed of the true one (Table 5's error kinds)."""
    if label == truth:
        return "truth"
    (c, s), (tc, ts) = label.split(" ", 1), truth.split(" ", 1)
    return "swap:color" if s == ts else "swap:shape" if c == tc else "other"


def _label_answer(legend, rng) -> tuple[dict, list[dict], set] | Skip:
    """(the object asked about, the visible objects, labels of every object) of a single- or
    two-object scene. Both objects of a two-object image come from the image's split (the
    held-out objects of an OOD split), so either may be asked."""
    extras = legend["extras"]
    if "label" not in extras and not ("labels" in extras and "left_to_right" not in extras):
        return Skip("not a single-object or two-object scene")
    objects = visible(legend)
    if not objects:
        return Skip("no visible object")
    return _pick(rng, objects), objects, {_label(o) for o in legend["objects"]}


@ANSWERS.key("label_choice")
@shown
@colored
@reads("shape")
def label_choice(legend, rng):
    """The compositional-generalisation study, GZSL: "models must pick the correct label for an image from a
    set of both seen and unseen labels". Single object: every label of Y (32); two objects: "the true
    label, two standard distractors, and two hard negatives created by swapping attributes and shapes".
    The other object's label is never offered. Each label as the study prompts it ("a photo of a red
    cube")."""
    found = _label_answer(legend, rng)
    if isinstance(found, Skip):
        return found
    o, objects, named = found
    truth = f"{_attr(o, 'color')} {o['kind']}"
    absent = [f"{c} {s}" for c, s, _ in _object_labels(legend) if (c, s) not in named]
    if len(legend["objects"]) > 1:
        other = next((p for p in legend["objects"] if p["id"] != o["id"]), o)
        hard = [f"{_attr(o, 'color')} {other['kind']}", f"{_attr(other, 'color')} {o['kind']}"]
        easy = [absent[k] for k in rng.permutation(len(absent)) if absent[k] not in hard][:2]
        # Table 5's kinds by construction: the other object's shape or colour, or a random label
        return _labelled(legend, rng, [truth, *hard, *easy], ["truth", "swap:shape", "swap:color", "other", "other"],
                         _image_split(legend))
    labels = [truth, *absent]
    return _labelled(legend, rng, labels, [_label_tag(c, truth) for c in labels], _image_split(legend))


@ANSWERS.key("label_zsl")
@shown
@colored
@reads("shape")
def label_zsl(legend, rng):
    """The compositional-generalisation study, ZSL (two objects): "one correct label and two distractors from
    the same (unseen) split"; in-distribution images draw them from the training labels. Neither
    object's label is a distractor (in OOD val, whose 4 labels are two per image, the other two are the
    distractors)."""
    if "labels" not in legend["extras"] or "left_to_right" in legend["extras"]:
        return Skip("not a two-object scene")
    found = _label_answer(legend, rng)
    if isinstance(found, Skip):
        return found
    o, _, named = found
    split = legend["extras"].get("label_split")
    if split is None:
        return Skip("the objects' labels belong to none of the study's splits")
    truth = f"{_attr(o, 'color')} {o['kind']}"
    pool = [f"{c} {s}" for c, s, part in _object_labels(legend) if part == split and (c, s) not in named]
    if len(pool) < 2:
        return Skip(f"the {split} split has fewer than two other labels")
    labels = [truth, *(pool[k] for k in rng.choice(len(pool), size=2, replace=False))]
    return _labelled(legend, rng, labels, [_label_tag(c, truth) for c in labels], _image_split(legend))


def _relation_truth(legend) -> tuple[list[str], set[str]] | Skip:
    """(the labels the image's split holds of its arrangement, both labels true of the image)."""
    if legend["extras"].get("left_to_right") is None:
        return Skip("not a relational scene")
    if unseen(legend):
        return Skip("an object of the relation is not visible")
    ordered = _left_to_right(legend, visible(legend))
    if isinstance(ordered, Skip):
        return ordered
    left, right = (o["kind"] for o in ordered)
    true = set(phrasings(left, right))
    held = [lab for lab in legend["extras"].get("split_labels") or sorted(true) if lab in true]
    if not held:
        return Skip("the image's split holds no label of the arrangement it shows")
    return held, true


def _relation_tag(label: str, truths: set[str]) -> str:
    """Table 8's error kinds: the relation swapped (left/right), the shapes' order swapped, other."""
    if label in truths:
        return "truth"
    a, rel, b = label.split()
    for t in truths:
        ta, trel, tb = t.split()
        if (a, b) == (ta, tb) and rel != trel:
            return "swap:relation"
        if (a, b) == (tb, ta) and rel == trel:
            return "swap:order"
    return "other"


def _hard_negatives(label: str) -> list[str]:
    """The two false labels naming the true label's shapes: its relation swapped ("cube right
    sphere" for "cube left sphere") and its shapes' order swapped ("sphere left cube")."""
    a, rel, b = label.split()
    return [relation_label(a, "right" if rel == "left" else "left", b), relation_label(b, rel, a)]


@ANSWERS.key("relation_choice")
@shown
@colored
@reads("shape")
def relation_choice(legend, rng):
    """The compositional-generalisation study, relational GZSL: "the true label, two randomly selected labels,
    and two hard negatives. One hard negative alters the spatial relation ..., while the other swaps
    object order"."""
    found = _relation_truth(legend)
    if isinstance(found, Skip):
        return found
    held, true = found
    correct = _pick(rng, held)
    hard = _hard_negatives(correct)
    pool = [relation_label(x, r, y) for x, y in itertools.permutations(legend["content"]["shapes"], 2)
            for r in ("left", "right")]
    easy = [p for p in (pool[k] for k in rng.permutation(len(pool))) if p not in true and p not in hard][:2]
    return _labelled(legend, rng, [correct, *hard, *easy], ["truth", "swap:relation", "swap:order", "other", "other"],
                     _image_split(legend))


@ANSWERS.key("relation_zsl")
@shown
@colored
@reads("shape")
def relation_zsl(legend, rng):
    """The compositional-generalisation study, relational ZSL (Table 6), so that only the relation decides: the
    true label and the two false labels that name its two shapes (the relation swapped, the order
    swapped). A ranker that reads which shapes are named, not where they stand, scores the chance 1/3.
    The paper draws "two distractors from the same (unseen) split" instead (`relation_zsl_split`): with
    its splits, OOD test's five arrangements name five different pairs of shapes, so that reading alone
    answers every OOD-test question."""
    found = _relation_truth(legend)
    if isinstance(found, Skip):
        return found
    held, _ = found
    correct = _pick(rng, held)
    return _labelled(legend, rng, [correct, *_hard_negatives(correct)], ["truth", "swap:relation", "swap:order"],
                     _image_split(legend))


@ANSWERS.key("relation_zsl_split")
@shown
@colored
@reads("shape")
def relation_zsl_split(legend, rng):
    """The compositional-generalisation study, relational ZSL as the paper samples it: the true label and two
    distractors from the same split's labels (the training labels in distribution), never a label true
    of the image. Opt-in: a ranker blind to the relation answers most of it (see `relation_zsl`)."""
    found = _relation_truth(legend)
    if isinstance(found, Skip):
        return found
    held, true = found
    split = legend["extras"].get("label_split")
    correct = _pick(rng, held)
    pool = [lab for x, y in itertools.permutations(legend["content"]["shapes"], 2) for r in ("left", "right")
            if relation_label_split(lab := relation_label(x, r, y)) == split and lab not in true]
    if len(pool) < 2:
        return Skip(f"the {split} split has fewer than two other relation labels")
    labels = [correct, *(pool[k] for k in rng.choice(len(pool), size=2, replace=False))]
    return _labelled(legend, rng, labels, [_relation_tag(c, true) for c in labels], _image_split(legend))


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
@colored
@reads("shape")
def binding_swap(legend, rng):
    """Auto-Comp, Swap: the N colours permuted among the N objects (N! - 1 negatives)."""
    truth = _binding(legend)
    if isinstance(truth, Skip):
        return truth
    colors, shapes = zip(*truth, strict=True)
    negatives = [_caption(list(zip(p, shapes, strict=True))) for p in itertools.permutations(colors)]
    return multiple_choice(_caption(truth), negatives, rng)


@ANSWERS.key("binding_confusion")
@shown
@colored
@reads("shape")
def binding_confusion(legend, rng):
    """Auto-Comp, Confusion with captions read left to right: colours and objects drawn with
    replacement, all N^(2N) captions recorded (N^(2N) - 1 negatives); a chat model sees all of
    them or the truth and PAPER_OPTIONS - 1 (tagged)."""
    truth = _binding(legend)
    if isinstance(truth, Skip):
        return truth
    colors, shapes = zip(*truth, strict=True)
    arrangements = color_arrangements(colors, shapes)
    arrangements.sort(key=lambda a: list(a) != list(truth))
    captions = tuple(_caption(list(a)) for a in arrangements)
    tags = tuple(color_tag(a, truth) for a in arrangements)
    return tagged(legend, Retrieval(captions, 0, tags), rng, {"n": len(truth)})


# --- Auto-Comp --------------------------------------------------------------------
def box_relation(a: dict, b: dict, margin: float) -> str | None | Skip:
    """The relation of a to b in the image from their visible boxes: "over" when a lies wholly
    above b and they overlap in x, "left" when wholly left of b and overlapping in y (and "under",
    "right"); None for neither; a Skip when a gap or an overlap is within `margin` pixels."""
    ax0, ay0, ax1, ay1 = a["bbox"]
    bx0, by0, bx1, by1 = b["bbox"]
    overlap_x, overlap_y = min(ax1, bx1) - max(ax0, bx0), min(ay1, by1) - max(ay0, by0)
    gaps = {"over": by0 - ay1, "under": ay0 - by1, "left": bx0 - ax1, "right": ax0 - bx1}
    for name, gap in gaps.items():
        overlap = overlap_x if name in ("over", "under") else overlap_y
        if gap >= margin and overlap >= margin:
            return name
        if abs(gap) < margin or (gap >= margin and abs(overlap) < margin):
            return Skip(f"objects {a['id']} and {b['id']} are within {margin:.1f} px of touching or of "
                        f"overlapping in the image: {RELATION_WORDS[name]} is not decided")
    return None


def _autocomp(legend, task: str | None, ns: tuple[int, ...]) -> dict | Skip:
    concept = legend["extras"].get("autocomp")
    if concept is None:
        return Skip("not an Auto-Comp scene")
    if task and concept["task"] != task:
        return Skip(f"not a {task} binding scene")
    if concept["n"] not in ns:
        return Skip(f"N = {concept['n']}: this set is for N in {list(ns)}")
    if unseen(legend):
        return Skip("an object of the concept is not visible")
    if concept["task"] == "position":
        objs, margin = legend["objects"], _margin(legend)
        for k, r in enumerate(concept["relations"]):
            found = box_relation(objs[k], objs[k + 1], margin)
            if isinstance(found, Skip):
                return found
            if found != r:
                return Skip(f"objects {k + 1} and {k + 2} do not show {RELATION_WORDS[r]!r} in the image")
        for a, b in itertools.combinations(range(len(objs)), 2):
            if b - a > 1:
                found = box_relation(objs[a], objs[b], margin)
                if found is not None:
                    return found if isinstance(found, Skip) else Skip(
                        f"objects {a + 1} and {b + 1} are related in the image; the chain would not be unique")
    return concept


def _autocomp_set(legend, rng, benchmark: str, task: str | None, ns: tuple[int, ...]) -> Answer | Skip:
    concept = _autocomp(legend, task, ns)
    if isinstance(concept, Skip):
        return concept
    vocabulary = {"colors": _colors(legend), "shapes": legend["content"]["shapes"]}
    captions, tags = candidates(concept, benchmark, concept["condition"], vocabulary)
    params = {"task": concept["task"], "n": concept["n"], "condition": concept["condition"],
              "concept": concept["concept"], "benchmark": benchmark,
              "relations": " / ".join(RELATION_WORDS[r] for r in concept["relations"])}
    return tagged(legend, Retrieval(tuple(captions), 0, tuple(tags)), rng, params)


@ANSWERS.key("autocomp_swap")
@shown
@colored
@reads("shape")
def autocomp_swap(legend, rng):
    """Auto-Comp, Swap: colours permuted among the fixed objects (colour), or the objects permuted
    (position): the truth and N! - 1 negatives."""
    return _autocomp_set(legend, rng, "swap", None, (2, 3))


@ANSWERS.key("autocomp_confusion")
@shown
@colored
@reads("shape")
def autocomp_confusion(legend, rng):
    """Auto-Comp, Confusion: every arrangement of the concept's objects and colours (relations),
    with replacement; all candidates are recorded, a chat model sees all or PAPER_OPTIONS of them."""
    return _autocomp_set(legend, rng, "confusion", None, (2, 3))


@ANSWERS.key("autocomp_vary_color")
@shown
@colored
@reads("shape")
def autocomp_vary_color(legend, rng):
    """Auto-Comp, N = 1 sanity set: the object in every colour of the vocabulary."""
    return _autocomp_set(legend, rng, "vary_color", "color", (1,))


@ANSWERS.key("autocomp_vary_object")
@shown
@colored
@reads("shape")
def autocomp_vary_object(legend, rng):
    """Auto-Comp, N = 1 sanity set: every object of the vocabulary in the true colour."""
    return _autocomp_set(legend, rng, "vary_object", "color", (1,))
