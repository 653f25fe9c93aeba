"""The audit of the COMPASS questions (`byo audit`), from the objects the mask shows and their
projections, never from compass.py: every candidate caption is read back into its primitives
with a grammar of its own, the true caption must hold of the image, every other caption must be
false of it however an undecided pair is read, and must differ from the true caption in exactly
one primitive, of the same type, everything else (the structure included) the same.

Relations as the pixels decide them: left / right from the projected centres' image x, at least
MIN_X_SEPARATION of the width apart; front / behind from the image y of the objects' ground
contact points (farther is higher in the image), at least FRONT_MARGIN_PX apart. Closer pairs are
undecided: a true caption may not rest on one, a false caption may not be made true by one.
"""

from __future__ import annotations

import re

from byo.families.api import UNSEEN, AuditTable, IllPosed, MeasuredImage, Seen, letter_of
from byo.families.clevr.model import (
    ATTRIBUTE_READABLE_MAX_BLUR,
    ATTRIBUTE_READABLE_MIN_PX,
    MIN_X_SEPARATION,
)

FRONT_MARGIN_PX = 1.0
WORDS = {"size": ("small", "large"), "material": ("rubber", "metal")}
SHAPE_WORDS = ("cube", "sphere", "cylinder", "cone")
RELATIONS = {"to the left of": "left", "to the right of": "right", "in front of": "front", "behind": "behind"}
_REL = "|".join(re.escape(w) for w in RELATIONS)
_NOUN = r"an? ((?:[a-z]+ )*?)(cube|sphere|cylinder|cone)"


def parse(caption: str, colors: set[str]) -> tuple[list[dict], list[tuple[int, str, int]]] | None:
    """A composed caption, "There is a large red cube to the left of a sphere that is behind a cone.
    There is a cone.", or a decomposed one, "There is a cube in the image." (an object), "There is
    a red cube." (an attribute), "The cube is to the left of the sphere." (a relation) -> entities
    [{shape, attrs}], relations [(a, rel, b)]; None when it does not read."""
    text = caption.strip()
    if m := re.fullmatch(r"There is an? (cube|sphere|cylinder|cone) in the image\.", text):
        return [{"shape": m.group(1), "attrs": {}}], []
    if m := re.fullmatch(rf"The (cube|sphere|cylinder|cone) is ({_REL}) the (cube|sphere|cylinder|cone)\.", text):
        return [{"shape": m.group(1), "attrs": {}}, {"shape": m.group(3), "attrs": {}}], [(0, RELATIONS[m.group(2)], 1)]
    entities, relations = [], []
    for sentence in re.split(r"(?<=\.) ", text):
        m = re.fullmatch(rf"There is {_NOUN}((?: (?:that is )?(?:{_REL}) {_NOUN})*)\.", sentence)
        if not m:
            return None
        parts = [(None, m.group(1), m.group(2))]
        rest = m.group(3)
        for link in re.finditer(rf" (?:that is )?({_REL}) {_NOUN}", rest):
            parts.append((link.group(1), link.group(2), link.group(3)))
        for k, (rel, words, shape) in enumerate(parts):
            attrs = {}
            for w in words.split():
                kind = next((a for a, ws in WORDS.items() if w in ws), "color" if w in colors else None)
                if kind is None or kind in attrs:
                    return None
                attrs[kind] = w
            entities.append({"shape": shape, "attrs": attrs})
            if k:
                relations.append((len(entities) - 2, RELATIONS[rel], len(entities) - 1))
    return entities, relations


def primitives(parsed) -> list[tuple]:
    """(type, position, value): an object's shape, an attribute, a relation; in reading order."""
    entities, relations = parsed
    out = []
    for k, e in enumerate(entities):
        out.append(("O", k, e["shape"]))
        out += [("A", (k, a), v) for a, v in sorted(e["attrs"].items())]
    out += [("R", (a, b), rel) for a, rel, b in relations]
    return out


def one_primitive_apart(truth, other) -> str | None:
    """None when `other` replaces exactly one primitive of `truth` by another of its type."""
    p, q = primitives(truth), primitives(other)
    if [(t, pos) for t, pos, _ in p] != [(t, pos) for t, pos, _ in q]:
        return "a different structure (objects, attributes named or relations)"
    changed = [a for a, b in zip(p, q, strict=True) if a != b]
    if len(changed) != 1:
        return f"{len(changed)} primitives changed"
    return None


class Pixels:
    """What the mask and the projection say of the seen objects."""

    def __init__(self, image: MeasuredImage, seen: list[Seen]):
        self.seen = seen
        self.margin = MIN_X_SEPARATION * image.size[0]
        ground = image.project([(o.location[0], o.location[1], 0.0) for o in seen]) if seen else []
        self.ground_y = [float(g[1]) for g in ground]

    def relation(self, a: int, rel: str, b: int) -> bool | None:
        """Seen object a is `rel` of seen object b: True, False, or None (undecided)."""
        if rel in ("left", "right"):
            dx = self.seen[a].centre[0] - self.seen[b].centre[0]
            if abs(dx) < self.margin:
                return None
            return (dx < 0) == (rel == "left")
        dy = self.ground_y[a] - self.ground_y[b]
        if abs(dy) < FRONT_MARGIN_PX:
            return None
        return (dy < 0) == (rel == "behind")  # farther on the ground is higher in the image

    def satisfiable(self, parsed, *, lenient: bool) -> bool:
        """Some assignment of distinct seen objects makes every part true (`lenient`: an undecided
        relation counts as true)."""
        entities, relations = parsed
        fits = [[i for i, o in enumerate(self.seen) if o.kind == e["shape"]
                 and all(o.attributes.get(a) == v for a, v in e["attrs"].items())] for e in entities]
        given: list[int] = []

        def search(k: int) -> bool:
            if k == len(entities):
                return all((r := self.relation(given[a], rel, given[b])) is True or (lenient and r is None)
                           for a, rel, b in relations)
            for i in fits[k]:
                if i not in given:
                    given.append(i)
                    if search(k + 1):
                        return True
                    given.pop()
            return False

        return search(0)


def audit_compass(q: dict, image: MeasuredImage, seen: list[Seen]):
    for o in seen:
        side = min(o.width_px, o.height_px)
        if side < ATTRIBUTE_READABLE_MIN_PX or image.blur_px(o) > ATTRIBUTE_READABLE_MAX_BLUR * side:
            return IllPosed(f"object {o.id} is too small or blurred to read its shape")
    if image.with_status(UNSEEN):
        return IllPosed("an object the image does not show could make a caption true")
    retrieval = q.get("retrieval")
    if not retrieval:
        return IllPosed("a COMPASS question without its candidate captions")
    colors = {c if isinstance(c, str) else c["name"] for c in image.legend["content"]["colors"]}
    parsed = [parse(c, colors) for c in retrieval["captions"]]
    for caption, p in zip(retrieval["captions"], parsed, strict=True):
        if p is None:
            return IllPosed(f"{caption!r} does not read as a COMPASS caption")
    pixels = Pixels(image, seen)
    truth = parsed[retrieval["truth"]]
    if not pixels.satisfiable(truth, lenient=False):
        return IllPosed(f"the true caption {retrieval['captions'][retrieval['truth']]!r} is not true of the image")
    for k, (caption, p) in enumerate(zip(retrieval["captions"], parsed, strict=True)):
        if k == retrieval["truth"]:
            continue
        apart = one_primitive_apart(truth, p)
        if apart is not None:
            return IllPosed(f"negative {caption!r}: {apart}")
        if pixels.satisfiable(p, lenient=True):
            return IllPosed(f"negative {caption!r} could be true of the image")
    by_text = dict(zip(retrieval["captions"], parsed, strict=True))
    return letter_of(q, [pixels.satisfiable(by_text[c], lenient=False) for c in q["choices"]])


# The COMPASS question keys (compass.py asks them; named here again, so that the audit shares no
# code with the answers it checks): per level, one caption per complexity N of the paper's range.
LEVEL_RANGES = {"oa": (2, 12), "or": (3, 12), "oar": (4, 12)}
COMPASS_AUDITS = AuditTable()
for _level, (_lo, _hi) in LEVEL_RANGES.items():
    for _n in range(_lo, _hi + 1):
        for _role in ["composed", *(f"decomposed_{i}" for i in range(1, _n + 1)), *(f"skill_{t}" for t in _level)]:
            COMPASS_AUDITS[f"compass_{_level}_n{_n:02d}_{_role}"] = audit_compass
