"""COMPASS on CLEVR-style scenes: structured captions at the paper's levels and complexities,
composed vs decomposed captions under matched perturbations, skill-targeted negatives.

From the paper, and how it is realized here:

- Primitives. "We define captions in terms of primitives corresponding to objects (O),
  attributes (A), and relations (R)." An object is a shape noun (cube, sphere, cylinder, cone),
  an attribute one of its size, colour or material words, a relation left of / right of / in
  front of / behind between two objects, as the image shows them (the legend's relationships:
  left / right from image x with the x margin, front / behind along the ground direction away
  from the camera with the direction margin; pairs inside a margin are undecided and never used).
- Scene graph and subgraph. "For each image, we sample a subgraph S using a random walk of up to
  ten steps, starting from a random object and traversing relation edges." The scene graph is
  the image's visible objects with their attributes and decided relations; the walk visits
  objects without repeating one.
- Levels and complexity. "L2 includes objects with either attributes (OA) or relations (OR), and
  L3 includes objects, attributes, and relations jointly (OAR) ... for L2 (OA), N in [2, 12];
  for L2 (OR), N in [3, 12]; and for L3, N in [4, 12]." "We traverse S starting from a random
  node and incrementally add primitives until the caption c contains N elements." Each image gets
  a caption at every level and every N of its range (the paper's 1.38M captions of 5K images are
  many per image: "the same set of primitives is reused across evaluations for a given image"),
  each drawn from a stream of its own; N is capped only by what the image's objects can give (a
  chain of k objects gives OR at most 2k - 1 primitives, so N = 12 needs 7 objects; OA takes at
  most 4 primitives per object). `mode: compass` scenes (compass_scene.py) are built so that
  every N is reached on the same images.
- Testable primitives. A primitive is added only when some replacement of its type makes its
  decomposed caption false of the image (the paper keeps an instance only when its negatives are
  false; in Visual Genome a replacement absent from the scene graph is): an object whose shape
  has an absent shape to turn into, an attribute that another value would make false ("There is a
  blue cube." with no blue cube), a relation between two objects that another relation word
  would make false for every pair of their shapes. The walk traverses those relation edges.
- Captions. Template sentences instead of GPT-4o-mini's rewriting: a chain of related objects
  is one sentence, "There is a large red cube to the left of a sphere that is behind a metal
  cylinder.", an object without relation "There is a cone." Attribute order: size, colour,
  material (CLEVR's). A caption is true of the image when its objects can be given distinct
  visible objects that have the named shapes and attributes and stand in the named relations.
- Decomposed captions, in the paper's words: "objects use a simple existential caption ... (e.g.,
  'There is a sofa in the image.'); attributes use an object-attribute pair for grounding (e.g.,
  'There is a dark brown sofa.'); and relations use a triplet consisting of the relation and its
  two bridging objects (e.g., 'The sofa is in the living room.')": "There is a cube in the
  image.", "There is a red cube.", "The cube is to the left of the sphere." A decomposed caption
  is true when some objects of the image fit it, false when none does however an undecided pair
  is read (a relation's bridging objects are named by their shapes, as the paper names them).
- Hard negatives. "We construct hard negatives by replacing a single primitive p_i in P(c) with
  another primitive of the same type t, while keeping all other primitives fixed." "For a
  composed caption c with complexity N, we generate N hard negatives, where each negative is
  formed by perturbing exactly one primitive. Each decomposed caption d_i is then paired with a
  negative created using the exact same perturbation." A replacement is kept only when the
  negative is false of the image however the undecided pairs are read, in composed and
  decomposed form alike; a caption with a primitive that no replacement makes false is drawn
  again (20 tries), as the paper discards such instances.
- Skill-targeted negatives. "We generate K = 4 hard negatives per caption ... no two negatives for
  the same caption are identical; where a caption contains fewer than K distinct primitives of
  type t, the same primitive may be targeted across multiple negatives", primitives drawn "using
  a weighted sampling scheme ... once a primitive is selected, its weight is halved". Where the
  CLEVR vocabularies give fewer than 4 distinct false negatives (one relation has 3 other words,
  one object 3 other shapes), the caption is asked against all it has (a deviation: the paper's
  Visual Genome vocabularies always give 4), so every caption has a question per skill of its
  level and each beta is fit over the paper's range of counts; the question records how many
  (`negatives`) and its chance is 1 / (negatives + 1).

Deviations: replacements come from the CLEVR vocabularies (4 shapes, the dataset's colours, 2
materials, 2 sizes, 4 relations) rather than an LLM's proposals, and a replacement may name a
word the scene graph holds elsewhere (the paper samples one that "does not already appear in the
image's entire scene graph") as long as the negative is false of the image; no Sentence
Transformers filter (a template change of one word is never a paraphrase); L1 (objects only) is
not built ("we focus on L2 and L3 in this work").
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field

import numpy as np

from byo.families.api import Answer, Retrieval, Skip, retrieval_choice, unseen, visible
from byo.families.clevr.model import MATERIALS, SHAPES, SIZES

LEVELS = {"oa": ("O", "A"), "or": ("O", "R"), "oar": ("O", "A", "R")}
N_RANGE = {"oa": (2, 12), "or": (3, 12), "oar": (4, 12)}  # COMPASS, section 3.1
K = 4  # skill-targeted negatives per caption
ATTRIBUTES = ("size", "color", "material")  # in the order a caption names them
RELATION_WORDS = {"left": "to the left of", "right": "to the right of", "front": "in front of", "behind": "behind"}
WALK_STEPS = 10
CAPTION_TRIES = 20


# --- captions as structures -------------------------------------------------------------------
@dataclass
class Entity:
    obj: int  # index into the legend's objects
    shape: str
    attrs: dict[str, str] = field(default_factory=dict)  # the attributes the caption names


@dataclass
class Caption:
    """Chains of entities; consecutive entities of a chain are related: (a, rel, b) = a is rel b."""

    entities: list[Entity]
    chains: list[list[int]]  # entity indices
    relations: dict[tuple[int, int], str]  # (a, b) -> rel, for consecutive a, b of a chain
    form: str = "composed"  # or a decomposed primitive's: "object", "attribute", "relation"

    def primitives(self) -> list[tuple]:
        """The caption's primitives in reading order: ("O", e), ("A", e, attribute), ("R", a, b)."""
        out = []
        for chain in self.chains:
            for k, e in enumerate(chain):
                if k:
                    out.append(("R", chain[k - 1], e))
                out.append(("O", e))
                out += [("A", e, a) for a in ATTRIBUTES if a in self.entities[e].attrs]
        return out

    def counts(self) -> dict[str, int]:
        kinds = [p[0] for p in self.primitives()]
        return {t: kinds.count(t) for t in ("O", "A", "R")}

    def text(self) -> str:
        if self.form == "object":  # "There is a sofa in the image."
            return f"There is {phrase(self.entities[0])} in the image."
        if self.form == "relation":  # "The sofa is in the living room."
            a, b = self.entities
            return f"The {a.shape} is {RELATION_WORDS[self.relations[(0, 1)]]} the {b.shape}."
        sentences = []
        for chain in self.chains:
            words = ["There is", phrase(self.entities[chain[0]])]
            for k in range(1, len(chain)):
                a, b = chain[k - 1], chain[k]
                words += ([] if k == 1 else ["that is"]) + [RELATION_WORDS[self.relations[(a, b)]],
                                                            phrase(self.entities[b])]
            sentences.append(" ".join(words) + ".")
        return " ".join(sentences)

    def replaced(self, primitive: tuple, value: str) -> Caption:
        """The caption with one primitive replaced by another of its type."""
        entities = [Entity(e.obj, e.shape, dict(e.attrs)) for e in self.entities]
        relations = dict(self.relations)
        if primitive[0] == "O":
            entities[primitive[1]].shape = value
        elif primitive[0] == "A":
            entities[primitive[1]].attrs[primitive[2]] = value
        else:
            relations[(primitive[1], primitive[2])] = value
        return Caption(entities, [list(c) for c in self.chains], relations, self.form)

    def decomposed(self, primitive: tuple) -> Caption:
        """The primitive alone, in the paper's forms: "There is a cube in the image.", "There is a
        red cube.", "The cube is to the left of the sphere." (the bridging objects by their shapes)."""
        if primitive[0] == "O":
            e = self.entities[primitive[1]]
            return Caption([Entity(e.obj, e.shape)], [[0]], {}, "object")
        if primitive[0] == "A":
            e = self.entities[primitive[1]]
            return Caption([Entity(e.obj, e.shape, {primitive[2]: e.attrs[primitive[2]]})], [[0]], {}, "attribute")
        a, b = self.entities[primitive[1]], self.entities[primitive[2]]
        return Caption([Entity(a.obj, a.shape), Entity(b.obj, b.shape)], [[0, 1]],
                       {(0, 1): self.relations[(primitive[1], primitive[2])]}, "relation")


def phrase(e: Entity) -> str:
    words = [e.attrs[a] for a in ATTRIBUTES if a in e.attrs] + [e.shape]
    return ("an " if words[0][0] in "aeiou" else "a ") + " ".join(words)


# --- truth of a caption ---------------------------------------------------------------------
class Scene:
    """The visible objects and the relations the legend decides between them."""

    def __init__(self, legend: dict):
        self.objects = legend["objects"]
        self.rel = legend["extras"]["relationships"]  # rel[name][i]: the j that are `name` of i
        self.colors = _colors(legend)
        self._absent: bool | None = None
        self._attributes: dict[tuple[int, str], bool] = {}
        self._relations: dict[tuple[int, int], list[str]] = {}

    def decided(self, a: int, rel: str, b: int) -> bool:
        """Object a is `rel` object b, as the image decides it."""
        return a in self.rel[rel][b]

    def possible(self, a: int, rel: str, b: int) -> bool:
        """Not decided otherwise: a pair inside a margin may be read either way."""
        opposite = {"left": "right", "right": "left", "front": "behind", "behind": "front"}[rel]
        return not self.decided(a, opposite, b)

    def matches(self, e: Entity, i: int) -> bool:
        o = self.objects[i]
        return o["kind"] == e.shape and all(o["attributes"][a] == v for a, v in e.attrs.items())

    def holds(self, c: Caption, *, robust_false: bool = False) -> bool:
        """Whether the caption is true of the image: with `robust_false`, whether it could be true
        when every undecided pair is read in its favour (False then means false however read)."""
        test = self.possible if robust_false else self.decided
        candidates = [[i for i in range(len(self.objects)) if self.matches(e, i)] for e in c.entities]
        order = sorted(range(len(c.entities)), key=lambda e: len(candidates[e]))
        given: dict[int, int] = {}

        def fits(e: int, i: int) -> bool:
            for (a, b), rel in c.relations.items():
                if a == e and b in given and not test(i, rel, given[b]):
                    return False
                if b == e and a in given and not test(given[a], rel, i):
                    return False
            return True

        def search(k: int) -> bool:
            if k == len(order):
                return True
            e = order[k]
            for i in candidates[e]:
                if i not in given.values() and fits(e, i):
                    given[e] = i
                    if search(k + 1):
                        return True
                    del given[e]
            return False

        return search(0)

    def false(self, c: Caption) -> bool:
        return not self.holds(c, robust_false=True)

    # -- which primitives a negative can test (some replacement makes the decomposed caption false)
    def shape_testable(self) -> bool:
        """An object can be replaced by a shape the image lacks ("There is a cone in the image.")."""
        if self._absent is None:
            shown = {o["kind"] for o in self.objects}
            self._absent = any(s not in shown for s in SHAPES)
        return self._absent

    def attribute_testable(self, i: int, attr: str) -> bool:
        """Object i's attribute: another value makes "There is a <value> <shape>." false."""
        key = (i, attr)
        if key not in self._attributes:
            o = self.objects[i]
            vocab = {"size": list(SIZES), "color": self.colors, "material": list(MATERIALS)}[attr]
            self._attributes[key] = any(
                self.false(Caption([Entity(i, o["kind"], {attr: v})], [[0]], {}, "attribute"))
                for v in vocab if v != o["attributes"][attr])
        return self._attributes[key]

    def relations(self, a: int, b: int) -> list[str]:
        """The relations the image decides for object a to object b that another relation word makes
        false for every pair of their shapes ("The cube is to the right of the sphere." with every
        cube left of every sphere)."""
        if (a, b) not in self._relations:
            sa, sb = self.objects[a]["kind"], self.objects[b]["kind"]
            self._relations[(a, b)] = [r for r in RELATION_WORDS if self.decided(a, r, b) and any(
                self.false(Caption([Entity(a, sa), Entity(b, sb)], [[0, 1]], {(0, 1): other}, "relation"))
                for other in RELATION_WORDS if other != r)]
        return self._relations[(a, b)]


# --- building a caption ------------------------------------------------------------------------
def _walk(scene: Scene, rng: np.random.Generator) -> list[int]:
    """Objects in the order of a random walk over the relation edges a negative can test, none
    twice, up to WALK_STEPS steps; then the others in random order (objects the caption may add
    without a relation)."""
    n = len(scene.objects)
    start = int(rng.integers(n))
    path = [start]
    for _ in range(WALK_STEPS):
        here = path[-1]
        nexts = [j for j in range(n) if j not in path and scene.relations(here, j)]
        if not nexts:
            break
        path.append(nexts[int(rng.integers(len(nexts)))])
    rest = [j for j in rng.permutation(n).tolist() if j not in path]
    return path + rest


def build_caption(scene: Scene, level: str, n: int, rng: np.random.Generator) -> Caption | None:
    """Primitives added one step at a time along the walk until the caption holds `n`: a new
    object (O), an attribute of an object already named (A), or a relation from the end of the
    last chain to a new object (R, with that object: two primitives); each one a negative can test."""
    types = LEVELS[level]
    if not scene.shape_testable():
        return None  # every object negative would name a shape the image shows
    walk = _walk(scene, rng)
    objects = scene.objects
    first = walk.pop(0)
    c = Caption([Entity(first, objects[first]["kind"])], [[0]], {})
    size = 1

    def open_attributes(e: Entity) -> list[str]:
        return [a for a in ATTRIBUTES if a not in e.attrs and scene.attribute_testable(e.obj, a)]

    while size < n:
        moves = []
        if walk:
            moves.append("O")
        if "A" in types and any(open_attributes(e) for e in c.entities):
            moves.append("A")
        if "R" in types and walk and size + 2 <= n and scene.relations(c.entities[c.chains[-1][-1]].obj, walk[0]):
            moves.append("R")
        if not moves:
            return None
        move = moves[int(rng.integers(len(moves)))]
        if move == "O":
            obj = walk.pop(0)
            c.entities.append(Entity(obj, objects[obj]["kind"]))
            c.chains.append([len(c.entities) - 1])
            size += 1
        elif move == "A":
            open_ = [k for k, e in enumerate(c.entities) if open_attributes(e)]
            e = c.entities[open_[int(rng.integers(len(open_)))]]
            free = open_attributes(e)
            a = free[int(rng.integers(len(free)))]
            e.attrs[a] = objects[e.obj]["attributes"][a]
            size += 1
        else:
            end = c.chains[-1][-1]
            obj = walk.pop(0)
            found = scene.relations(c.entities[end].obj, obj)
            c.entities.append(Entity(obj, objects[obj]["kind"]))
            c.chains[-1].append(len(c.entities) - 1)
            c.relations[(end, len(c.entities) - 1)] = found[int(rng.integers(len(found)))]
            size += 2
    counts = c.counts()
    if any(counts[t] == 0 for t in types) or not scene.holds(c):
        return None
    sentences = [s.rstrip(".") for s in c.text().split(". ")]
    if len(set(sentences)) != len(sentences):  # "There is a cube. There is a cube." reads as one
        return None
    return c


def replacements(c: Caption, primitive: tuple, colors: list[str]) -> list[str]:
    """Other primitives of the same type (the CLEVR vocabularies)."""
    if primitive[0] == "O":
        current, vocab = c.entities[primitive[1]].shape, list(SHAPES)
    elif primitive[0] == "A":
        attr = primitive[2]
        current = c.entities[primitive[1]].attrs[attr]
        vocab = {"size": list(SIZES), "color": colors, "material": list(MATERIALS)}[attr]
    else:
        current, vocab = c.relations[(primitive[1], primitive[2])], list(RELATION_WORDS)
    return [v for v in vocab if v != current]


def describe(primitive: tuple, c: Caption, value: str) -> str:
    """A negative's tag: what it changed, e.g. "O:cube->cone", "A:color:red->blue", "R:left->behind"."""
    if primitive[0] == "O":
        return f"O:{c.entities[primitive[1]].shape}->{value}"
    if primitive[0] == "A":
        return f"A:{primitive[2]}:{c.entities[primitive[1]].attrs[primitive[2]]}->{value}"
    return f"R:{c.relations[(primitive[1], primitive[2])]}->{value}"


@dataclass
class Instance:
    """One caption of an image at one level, with its matched and skill-targeted negatives."""

    level: str
    caption: Caption
    matched: list[tuple[tuple, str]]  # per primitive, in order: (primitive, replacement)
    skills: dict[str, list[tuple[tuple, str]] | None]  # type -> K (primitive, replacement), None: not found


def _matched(scene: Scene, c: Caption, colors: list[str], rng: np.random.Generator) -> list | None:
    """One replacement per primitive whose composed and decomposed negatives are both false."""
    out = []
    texts = {c.text()}
    for p in c.primitives():
        options = replacements(c, p, colors)
        for k in rng.permutation(len(options)).tolist():
            v = options[k]
            negative = c.replaced(p, v)
            if scene.false(negative) and scene.false(c.decomposed(p).replaced(_local(p), v)) \
                    and negative.text() not in texts:
                out.append((p, v))
                texts.add(negative.text())
                break
        else:
            return None
    return out


def _local(p: tuple) -> tuple:
    """The primitive's name within its decomposed caption (entities 0 and 1)."""
    return ("O", 0) if p[0] == "O" else ("A", 0, p[2]) if p[0] == "A" else ("R", 0, 1)


def _skill(scene: Scene, c: Caption, t: str, colors: list[str], rng: np.random.Generator) -> list | None:
    """K distinct false negatives that each replace one primitive of type t, primitives drawn by
    weight, halved once drawn; all of them when the caption has fewer (CLEVR's vocabularies give
    a relation 3 other words and a shape 3 others, so a caption with one relation or one object
    has at most 3); None when there is none."""
    candidates = {p: [v for v in replacements(c, p, colors) if scene.false(c.replaced(p, v))]
                  for p in c.primitives() if p[0] == t}
    candidates = {p: vs for p, vs in candidates.items() if vs}
    wanted = min(K, sum(len(vs) for vs in candidates.values()))
    if wanted == 0:
        return None
    weights = {p: 1.0 for p in candidates}
    chosen: list[tuple[tuple, str]] = []
    while len(chosen) < wanted:
        open_ = [p for p in candidates if any((p, v) not in chosen for v in candidates[p])]
        w = np.array([weights[p] for p in open_])
        p = open_[int(rng.choice(len(open_), p=w / w.sum()))]
        left = [v for v in candidates[p] if (p, v) not in chosen]
        chosen.append((p, left[int(rng.integers(len(left)))]))
        weights[p] /= 2
    return chosen


_CACHE: dict[str, Instance | Skip] = {}


def _colors(legend: dict) -> list[str]:
    return [c if isinstance(c, str) else c["name"] for c in legend["content"]["colors"]]


def most_primitives(level: str, n_objects: int) -> int:
    """The most primitives `n_objects` objects give at `level`: one per object, its 3 attributes
    (OA, OAR) and a relation between consecutive objects of one chain (OR, OAR)."""
    types = LEVELS[level]
    return n_objects * (1 + ("A" in types) * len(ATTRIBUTES)) + ("R" in types) * (n_objects - 1)


def instance(legend: dict, level: str, n: int) -> Instance | Skip:
    """The image's caption of `n` primitives at `level`, drawn from its own stream (the same for
    every question key of that caption), with its negatives; or why there is none."""
    token = json.dumps([legend["name"], legend["seed"], level, n, legend["objects"],
                        legend["extras"].get("relationships")], sort_keys=True, default=str)
    if token not in _CACHE:
        if len(_CACHE) > 4096:
            _CACHE.clear()
        _CACHE[token] = _instance(legend, level, n)
    return _CACHE[token]


def _instance(legend: dict, level: str, n: int) -> Instance | Skip:
    if unseen(legend) or any(o.get("visibility") == "ambiguous" for o in legend["objects"]):
        return Skip("an object is hidden or at the edge of visibility: a caption could name what the image "
                    "does not show")
    if "relationships" not in legend["extras"] or len(visible(legend)) < 2:
        return Skip("fewer than 2 objects")
    scene = Scene(legend)
    n_objects = len(scene.objects)
    if n > most_primitives(level, n_objects):
        return Skip(f"{n_objects} objects give fewer than {n} primitives at level {level.upper()}")
    rng = np.random.default_rng([legend["seed"], zlib.crc32(f"compass/{level}/{n}".encode())])
    colors = scene.colors
    for _ in range(CAPTION_TRIES):
        c = build_caption(scene, level, n, rng)
        if c is None:
            continue
        matched = _matched(scene, c, colors, rng)
        if matched is None:
            continue
        skills = {t: _skill(scene, c, t, colors, rng) for t in LEVELS[level]}
        return Instance(level, c, matched, skills)
    return Skip(f"no caption of {n} primitives at level {level.upper()} whose every primitive has a false "
                f"replacement in {CAPTION_TRIES} tries")


# --- questions -------------------------------------------------------------------------------
def _facts(legend: dict, inst: Instance, role: str, **more) -> dict:
    counts = inst.caption.counts()
    n = sum(counts.values())
    return {"caption": f"{legend['name']}/{inst.level}/n{n}", "level": inst.level.upper(), "n": n,
            "counts": counts, "role": role, **more}


def _ask(captions: list[str], tags: list[str], rng: np.random.Generator, facts: dict) -> Answer:
    """The truth first as built; `ask` stores the candidates in the question's seeded order
    (byo.families.base.candidate_order) and retrieval_choice shuffles the lettered options."""
    return retrieval_choice(Retrieval(tuple(captions), 0, tuple(tags)), rng, {"compass": facts})


def composed(level: str, n: int):
    def answer(legend, rng):
        inst = instance(legend, level, n)
        if isinstance(inst, Skip):
            return inst
        c = inst.caption
        negatives = [c.replaced(p, v).text() for p, v in inst.matched]
        return _ask([c.text(), *negatives], ["truth", *(describe(p, c, v) for p, v in inst.matched)], rng,
                    _facts(legend, inst, "composed"))

    answer.__doc__ = f"COMPASS {level.upper()}, N = {n}: the composed caption against its N one-primitive negatives."
    return answer


def decomposed(level: str, n: int, i: int):
    def answer(legend, rng):
        inst = instance(legend, level, n)
        if isinstance(inst, Skip):
            return inst
        p, v = inst.matched[i - 1]
        d = inst.caption.decomposed(p)
        return _ask([d.text(), d.replaced(_local(p), v).text()], ["truth", describe(p, inst.caption, v)], rng,
                    _facts(legend, inst, "decomposed", primitive=i, type=p[0]))

    answer.__doc__ = f"COMPASS {level.upper()}, N = {n}: primitive {i} alone against the same perturbation."
    return answer


def skill(level: str, n: int, t: str):
    def answer(legend, rng):
        inst = instance(legend, level, n)
        if isinstance(inst, Skip):
            return inst
        chosen = inst.skills[t]
        if chosen is None:
            return Skip(f"no false negative of type {t}")
        c = inst.caption
        return _ask([c.text(), *(c.replaced(p, v).text() for p, v in chosen)],
                    ["truth", *(describe(p, c, v) for p, v in chosen)], rng,
                    _facts(legend, inst, "skill", skill=t, negatives=len(chosen)))

    answer.__doc__ = (f"COMPASS {level.upper()}, N = {n}: the caption against {K} negatives of type {t} (all there "
                      f"are when the vocabulary gives fewer).")
    return answer


def coverage(legends: list[dict]) -> list[dict]:
    """Questions per level, skill and N over `legends`: captions built, skill questions asked (one
    per caption whose type has a false negative) and their mean number of negatives, the table
    docs/compass.md prints. Readability rules aside (the images' own)."""
    out = []
    for level, types in LEVELS.items():
        lo, hi = N_RANGE[level]
        for t in types:
            for n in range(lo, hi + 1):
                built = [inst for lg in legends if not isinstance(inst := instance(lg, level, n), Skip)]
                asked = [inst.skills[t] for inst in built if inst.skills[t]]
                out.append({"level": level.upper(), "skill": t, "n": n, "captions": len(built), "questions": len(asked),
                            "negatives": float(np.mean([len(c) for c in asked])) if asked else None})
    return out


def key(level: str, n: int, role: str) -> str:
    """compass_<level>_n<NN>_<role>: role composed, decomposed_<i> or skill_<t>."""
    return f"compass_{level}_n{n:02d}_{role}"


def compass_answers(readable) -> dict:
    """Question key -> answer function of every COMPASS key, one caption per level and N;
    `readable` guards questions that name shapes and attributes (objects big and sharp enough to
    read them)."""
    out = {}
    for level, types in LEVELS.items():
        lo, hi = N_RANGE[level]
        for n in range(lo, hi + 1):
            out[key(level, n, "composed")] = readable(composed(level, n))
            for i in range(1, n + 1):
                out[key(level, n, f"decomposed_{i}")] = readable(decomposed(level, n, i))
            for t in types:
                out[key(level, n, f"skill_{t.lower()}")] = readable(skill(level, n, t))
    return out


KEYS = tuple(compass_answers(lambda fn: fn))
