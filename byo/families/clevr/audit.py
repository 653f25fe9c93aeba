"""The audit of CLEVR-style questions (`byo audit`): every answer recomputed from the objects the
mask shows and their projected centres, never from answers.py or the legend's relations.

Limits the audit holds the questions to: left/right needs centres at least MIN_X_SEPARATION of
the image width apart; a question naming a shape, material or size needs every seen object at
least ATTRIBUTE_READABLE_MIN_PX across and blurred by at most ATTRIBUTE_READABLE_MAX_BLUR of that.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

from byo.families.api import (
    UNSEEN,
    AuditTable,
    Expected,
    IllPosed,
    MeasuredImage,
    Seen,
    guarded,
    letter_of,
)
from byo.families.clevr.compass_audit import COMPASS_AUDITS
from byo.families.clevr.model import (
    ATTRIBUTE_READABLE_MAX_BLUR,
    ATTRIBUTE_READABLE_MIN_PX,
    COLORS,
    MIN_X_SEPARATION,
)

AUDITS = AuditTable()


def _color(o: Seen) -> str:
    return o.attributes["color"]


def _is(o: Seen, description: str) -> bool:
    """`description` is "<colour> <shape>"."""
    return f"{_color(o)} {o.kind}" == description


def _margin(image: MeasuredImage) -> float:
    return MIN_X_SEPARATION * image.size[0]


def _unreadable(image: MeasuredImage, seen: list[Seen]) -> IllPosed | None:
    for o in seen:
        side = min(o.width_px, o.height_px)
        if side < ATTRIBUTE_READABLE_MIN_PX or image.blur_px(o) > ATTRIBUTE_READABLE_MAX_BLUR * side:
            return IllPosed(f"object {o.id} ({side} px across, blur {image.blur_px(o):.1f} px) is too small or "
                            "blurred to read its shape")
    return None


def _names_unseen(image: MeasuredImage, seen: list[Seen], descriptions: list[str]) -> IllPosed | None:
    """A question or option that describes only objects the image does not show names a hidden object."""
    hidden = image.with_status(UNSEEN)
    for d in descriptions:
        if any(_is(o, d) for o in hidden) and not any(_is(o, d) for o in seen):
            return IllPosed(f"{d!r} describes an object the image does not show")
    return None


Decisive = dict[str, list[tuple[Seen, list[str] | None]]]


def _attributes_off(image: MeasuredImage, seen: list[Seen], attributes: tuple[str, ...],
                    decisive: Decisive | None = None) -> IllPosed | None:
    """The counterfactual renders of every attribute the question names, where each was rendered
    for every seen object: each object that decides the answer (`decisive`; default every seen
    object) against each other value that would change it; else the size and blur rule. Then,
    either way, the same objects' outlines against the same values (identifiable, not just
    different: the audit's own outline measure, MeasuredImage.outline_off)."""
    pairs = [(a, o, values) for a in attributes for o, values in (decisive or {}).get(a, [(o, None) for o in seen])]
    if not all(image.measured(seen, a) for a in attributes):
        found = _unreadable(image, seen)
    else:
        found = next((f for a, o, values in pairs if (f := image.attribute_off([o], a, values))), None)
    return found or next((f for a, o, values in pairs if (f := image.outline_off([o], a, values))), None)


def _member(objects: list[Seen], shape: str) -> list[tuple[Seen, list[str] | None]]:
    """Which objects are `shape`: one that is against every other shape, the others against it."""
    return [(o, None if o.kind == shape else [shape]) for o in objects]


def _reads(*attributes: str, decisive=None):
    def decorate(fn):
        def checked(q, image, seen):
            return _attributes_off(image, seen, attributes, decisive(q, seen) if decisive else None) or fn(q, image, seen)

        return checked

    return decorate


@AUDITS.key("count_objects")
def count_objects(q, image, seen):
    return Expected(len(seen))


@AUDITS.key("count_color")
def count_color(q, image, seen):
    return Expected(sum(_color(o) == q["params"]["color"] for o in seen))


@AUDITS.key("count_shape")
@_reads("shape", decisive=lambda q, seen: {"shape": _member(seen, q["params"]["shape"])})
def count_shape(q, image, seen):
    return Expected(sum(o.kind == q["params"]["shape"] for o in seen))


@AUDITS.key("exist_color_shape")
@_reads("shape", decisive=lambda q, seen: {"shape": _member([o for o in seen if _color(o) == q["params"]["color"]],
                                                            q["params"]["shape"])})
def exist_color_shape(q, image, seen):
    d = f"{q['params']['color']} {q['params']['shape']}"
    return _names_unseen(image, seen, [d]) or Expected("yes" if any(_is(o, d) for o in seen) else "no")


def _the(seen: list[Seen], test, what: str) -> Seen | IllPosed:
    found = [o for o in seen if test(o)]
    return found[0] if len(found) == 1 else IllPosed(f"{len(found)} objects are {what}")


@AUDITS.key("query_color_unique_shape", "query_material_unique_shape", "query_size_unique_shape")
def query_by_shape(q, image, seen):
    o = _the(seen, lambda o: o.kind == q["params"]["shape"], f"a {q['params']['shape']}")
    asked = q["key"].split("_")[1]  # query_<attribute>_unique_shape
    the = [x for x in seen if x.kind == q["params"]["shape"]]
    off = _attributes_off(image, seen, ("shape",) if asked == "color" else ("shape", asked),
                          {"shape": _member(seen, q["params"]["shape"]), asked: [(x, None) for x in the]})
    return off or (o if isinstance(o, IllPosed) else Expected(o.attributes[asked]))


@AUDITS.key("query_shape_unique_color")
@_reads("shape", decisive=lambda q, seen: {"shape": [(o, None) for o in seen if _color(o) == q["params"]["color"]]})
def query_by_color(q, image, seen):
    o = _the(seen, lambda o: _color(o) == q["params"]["color"], q["params"]["color"])
    return o if isinstance(o, IllPosed) else Expected(o.kind)


def _left_of(image: MeasuredImage, a: Seen, b: Seen) -> bool | IllPosed:
    dx = b.centre[0] - a.centre[0]
    if abs(dx) < _margin(image):
        return IllPosed(f"objects {a.id} and {b.id} are {abs(dx):.1f} px apart in image x")
    return dx > 0


def _described(q, seen: list[Seen]) -> Decisive:
    pairs = []
    for description in (q["params"]["a"], q["params"]["b"]):
        color, shape = description.rsplit(" ", 1)
        pairs += _member([o for o in seen if _color(o) == color], shape)
    return {"shape": pairs}


@AUDITS.key("relate_left")
@_reads("shape", decisive=_described)
def relate_left(q, image, seen):
    a = _the(seen, lambda o: _is(o, q["params"]["a"]), q["params"]["a"])
    b = _the(seen, lambda o: _is(o, q["params"]["b"]), q["params"]["b"])
    for x in (a, b):
        if isinstance(x, IllPosed):
            return x
    left = _left_of(image, a, b)
    return left if isinstance(left, IllPosed) else Expected("yes" if left else "no")


def _study_label(option: str) -> str:
    """The class label in one of the compositional-generalisation study's prompts: "a photo of a red cube" -> "red
    cube", "a photo of a cube to the left of a sphere" -> "cube left sphere"."""
    text = option.removeprefix("a photo of a ")
    relation = re.fullmatch(r"(\w+) to the (left|right) of a (\w+)", text)
    return " ".join(relation.groups()) if relation else text


@AUDITS.key("label_choice", "label_zsl")
@_reads("shape")
def label_choice(q, image, seen):
    labels = [_study_label(option) for option in q["choices"]]
    return _names_unseen(image, seen, labels) or letter_of(q, [any(_is(o, label) for o in seen) for label in labels])


@AUDITS.key("relation_choice", "relation_zsl", "relation_zsl_split")
@_reads("shape")
def relation_choice(q, image, seen):
    """Options "a photo of a <shape> to the left|right of a <shape>"; true when such a pair of seen
    objects stands so."""
    truths = []
    labels = [_study_label(option) for option in q["choices"]]
    for label in labels:
        a_shape, rel, b_shape = label.split()
        true = False
        for a, b in itertools.permutations(seen, 2):
            if a.kind == a_shape and b.kind == b_shape:
                left = _left_of(image, a, b)
                if isinstance(left, IllPosed):
                    return left
                true |= left == (rel == "left")
        truths.append(true)
    shapes = {s for label in labels for s in label.split()[::2]}
    hidden_only = {o.kind for o in image.with_status(UNSEEN)} - {o.kind for o in seen}
    if shapes & hidden_only:
        return IllPosed(f"an option names {sorted(shapes & hidden_only)}, which the image does not show")
    return letter_of(q, truths)


def _caption(text: str) -> list[tuple[str, str]]:
    """ "a red cube, a blue sphere and a green cone" -> [(red, cube), (blue, sphere), (green, cone)]"""
    out = []
    for part in re.split(r", | and ", text):
        color, _, shape = part.split(" ", 1)[1].rpartition(" ")
        out.append((color, shape))
    return out



@AUDITS.key("binding_swap", "binding_confusion")
@_reads("shape")
def binding(q, image, seen):
    """Captions "a red cube, a blue sphere and a green cone", left to right."""
    ordered = sorted(seen, key=lambda o: o.centre[0])
    for a, b in itertools.pairwise(ordered):
        left = _left_of(image, a, b)
        if isinstance(left, IllPosed):
            return left
    truth = [(_color(o), o.kind) for o in ordered]
    hidden = {(_color(o), o.kind) for o in image.with_status(UNSEEN)}
    captions = [_caption(option) for option in q["choices"]]
    named = {pair for caption in captions for pair in caption}
    if not (named & hidden) <= set(truth):
        return IllPosed("an option names an object the image does not show")
    return letter_of(q, [caption == truth for caption in captions])


# --- Auto-Comp: captions re-read and checked against the mask's boxes ----------------
PHRASES = {"to the left of": "left", "to the right of": "right", "over": "over", "under": "under"}


def _described_pairs(text: str, colors: list[str], shapes: list[str]) -> list[tuple[str, str]]:
    pattern = rf"\b({'|'.join(map(re.escape, colors))}) ({'|'.join(map(re.escape, shapes))})\b"
    return re.findall(pattern, text.lower())


def _chain(text: str, shapes: list[str]) -> tuple[list[str], list[str]]:
    """ "a cube over a sphere to the left of a cone" -> ([cube, sphere, cone], [over, left])"""
    pattern = rf"\b({'|'.join(map(re.escape, PHRASES))}|{'|'.join(map(re.escape, shapes))})\b"
    tokens = re.findall(pattern, text.lower())
    return [t for t in tokens if t in shapes], [PHRASES[t] for t in tokens if t in PHRASES]


def _box_relation(a: Seen, b: Seen, margin: float) -> str | None | IllPosed:
    """Image-plane relation of a to b from their mask boxes: wholly above and overlapping in x is
    "over"; wholly left and overlapping in y is "left"; within `margin` of either is undecided."""
    ax0, ay0, ax1, ay1 = a.box
    bx0, by0, bx1, by1 = b.box
    span_x, span_y = min(ax1, bx1) - max(ax0, bx0), min(ay1, by1) - max(ay0, by0)
    for name, gap, span in (("over", by0 - ay1, span_x), ("under", ay0 - by1, span_x),
                            ("left", bx0 - ax1, span_y), ("right", ax0 - bx1, span_y)):
        if abs(gap) < margin or (gap >= margin and abs(span) < margin):
            return IllPosed(f"objects {a.id} and {b.id}: {name} is within {margin:.1f} px of undecided")
        if gap >= margin and span >= margin:
            return name
    return None


def _chain_true(image: MeasuredImage, seen: list[Seen], shapes: list[str], relations: list[str]) -> bool | IllPosed:
    """Some assignment of distinct seen objects to the named shapes holds every relation."""
    for chosen in itertools.permutations(seen, len(shapes)):
        if any(o.kind != s for o, s in zip(chosen, shapes, strict=True)):
            continue
        holds = True
        for k, r in enumerate(relations):
            found = _box_relation(chosen[k], chosen[k + 1], _margin(image))
            if isinstance(found, IllPosed):
                return found
            holds &= found == r
        if holds:
            return True
    return False


@AUDITS.key("autocomp_swap", "autocomp_confusion", "autocomp_vary_color", "autocomp_vary_object")
@_reads("shape")
def autocomp(q, image, seen):
    """Each caption re-read: colour captions are true when they describe exactly the seen objects
    (colour and shape, with their numbers); position chains when distinct seen objects of the named
    shapes stand in every named relation, measured on the mask's boxes."""
    if image.with_status(UNSEEN):
        return IllPosed("an object is not visible")
    content = image.legend["content"]
    colors = [c if isinstance(c, str) else c["name"] for c in content["colors"]]
    truths = []
    for option in q["choices"]:
        if q["params"]["task"] == "color":
            truths.append(Counter(_described_pairs(option, colors, content["shapes"]))
                          == Counter((_color(o), o.kind) for o in seen))
        else:
            shapes, relations = _chain(option, content["shapes"])
            if len(shapes) != len(relations) + 1:
                return IllPosed(f"caption {option!r} is not a chain of shapes and relations")
            found = _chain_true(image, seen, shapes, relations)
            if isinstance(found, IllPosed):
                return found
            truths.append(found and len(shapes) == len(seen))
    return letter_of(q, truths)


def check_relationships(image: MeasuredImage) -> list[tuple[str, str]]:
    """extras.relationships against the projection: left/right from image x with the margin,
    front/behind from the image y of the ground contact points (farther is higher)."""
    problems = []
    rel = image.legend["extras"]["relationships"]
    objs = image.objects
    ground = image.project([(o.location[0], o.location[1], 0.0) for o in objs])
    for i, j in itertools.permutations(range(len(objs)), 2):
        dx = objs[j].centre[0] - objs[i].centre[0]
        says = [r for r in ("left", "right") if j in rel[r][i]]
        ought = [] if abs(dx) < _margin(image) else ["left" if dx < 0 else "right"]
        if says and says != ought:  # withholding a relation is allowed; claiming a wrong one is not
            problems.append((f"extras.relationships (left/right) of {i} and {j}",
                             f"the legend says {says}, image x says {ought or 'neither'} (dx {dx:.1f} px)"))
        behind = [r for r in ("behind", "front") if j in rel[r][i]]
        if behind and (ground[j, 1] < ground[i, 1]) != (behind == ["behind"]):
            problems.append((f"extras.relationships (front/behind) of {i} and {j}",
                             f"the legend says {behind[0]}, the ground contacts' image y say otherwise"))
    return problems


AUDITS.update(COMPASS_AUDITS)  # COMPASS: compass_audit.py

LEGEND_CHECKS = [check_relationships]


def _palette(image: MeasuredImage) -> dict[str, tuple[float, ...]]:
    own = {c["name"]: tuple(c["rgb"]) for c in image.legend["content"]["colors"] if isinstance(c, dict)}
    return {name: tuple(v / 255 for v in rgb) for name, rgb in COLORS.items()} | own


# The readability rules (docs/readability.md), from the image file: each seen object stands out
# (every key); each seen object's rendered colour reads as its own (keys naming colours), or, for
# the keys whose answer rests only on which objects are the colour the question names (params
# `color`), each seen object of that colour or that could be read as it.
NAMED_COLOR_KEYS = ("count_color", "exist_color_shape", "query_shape_unique_color")
COLOR_KEYS = ("query_color_unique_shape",
               "label_choice", "label_zsl", "relation_choice", "relation_zsl", "relation_zsl_split", "binding_swap",
               "binding_confusion",
               "autocomp_swap", "autocomp_confusion", "autocomp_vary_color", "autocomp_vary_object")
guarded(AUDITS, NAMED_COLOR_KEYS,
        lambda q, image, seen: image.color_off(seen, _palette(image), frozenset([q["params"]["color"]])))
guarded(AUDITS, (*COLOR_KEYS, *COMPASS_AUDITS), lambda q, image, seen: image.color_off(seen, _palette(image)))
guarded(AUDITS, list(AUDITS), lambda q, image, seen: image.unshown(seen))
