"""What a family is: the base class every family fills in, the parts it declares on it, and the
small pieces its answer functions and vocabulary are made of. Pure Python; no bpy. A family
uses these through byo.families.api (docs/write_a_family.md).

A family is one package, `byo/families/<name>/` or a package of its own:

- `__init__.py` makes `FAMILY`, the one instance of its `Family` subclass, which the
  `byo.families` entry point names;
- the content model, the spec sampler, the answer functions and the vocabulary in modules of
  their own (pure Python);
- the builder module (`Family.builder`, default `builder.py`), the only module that imports
  bpy: `build(spec, scene) -> {mask id: [objects]}`;
- optionally an audit module (`Family.audit`), the sheets it draws (`Family.sheets`) and its own
  answer types with the metrics tables they carry (`Family.answer_types`, `ReportTable`).
"""

from __future__ import annotations

import fnmatch
import itertools
import math
import sys
import zlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import numpy as np
from PIL import Image
from pydantic import BaseModel

from byo.core.report_tables import ReportTable
from byo.scene import counterfactual, evidence, outline
from byo.scene.camera import defocus_diameter_px
from byo.scene.measure import AMBIGUOUS, HIDDEN, VISIBLE
from byo.scene.setup import QualityPresets, ResolvedSetup
from byo.scene.spec import SceneObject, SceneSpec

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# byo's own question catalogue: the top-level questions/ folder, shipped in the wheel as byo.catalog.
CATALOG = "byo.catalog"
# The 3 x 3 grid's position words, row by row from the top of the image.
POSITION_WORDS = ("upper left", "upper middle", "upper right", "middle left", "center", "middle right",
                  "lower left", "lower middle", "lower right")


def option_label(index: int) -> str:
    """The label of the option at `index`: A to Z, then AA, AB, ... (a question may show more than
    26 options, as Auto-Comp's 50)."""
    label, k = "", index + 1
    while k:
        k, r = divmod(k - 1, len(LETTERS))
        label = LETTERS[r] + label
    return label


def option_labels(n: int) -> list[str]:
    return [option_label(i) for i in range(n)]


def option_index(label: str) -> int | None:
    """The index of an option label (A -> 0, AA -> 26), None for anything else."""
    label = str(label).strip().upper()
    if not label or any(ch not in LETTERS for ch in label):
        return None
    k = 0
    for ch in label:
        k = k * len(LETTERS) + LETTERS.index(ch) + 1
    return k - 1


# How many options a chat model is shown at most: `byo questions --options N`, or the config's
# questions.options, puts N in each legend it asks (ASKING); else the family's own default.
ASKING = "asking"


def options_shown(legend: dict, default: int) -> int:
    """The most options a chat model is shown for a question with a candidate set."""
    return int((legend.get(ASKING) or {}).get("options") or default)


# --- answers ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Answer:
    value: Any  # JSON value: int, str, list of str...
    params: dict[str, Any] = field(default_factory=dict)  # template parameters
    choices: list[str] | None = None  # multiple-choice options; `value` is then the letter
    retrieval: Retrieval | None = None  # the full candidate set, for models that rank captions
    chance: float | None = None  # a guess's chance as asked; None: 1 / choices (1/2 for yes / no)


@dataclass(frozen=True)
class Retrieval:
    """Candidate captions of one question, the truth among them, recorded once in the question
    file: an image-text model ranks every caption (recall@1 against `truth`); a chat model is
    asked the question's lettered `choices`, drawn from these (`retrieval_choice`)."""

    captions: tuple[str, ...]
    truth: int  # the index of the true caption
    tags: tuple[str, ...]  # one per caption: "truth", or what a distractor changed ("swap:color")
    order_seed: int | None = None  # the seed that drew the captions' order (candidate_order); None: as built

    def __post_init__(self):
        if not 0 <= self.truth < len(self.captions) or len(self.tags) != len(self.captions):
            raise ValueError("a retrieval set needs its truth among its captions and one tag per caption")
        if len(set(self.captions)) != len(self.captions):
            raise ValueError("a retrieval set's captions must differ from one another")


@dataclass(frozen=True)
class Skip:
    reason: str  # why the question is ill-defined for this image


@dataclass(frozen=True)
class Unreadable:
    """An answer the image does not show: a readability rule (`rule`: "contrast", "overlap",
    "color", "type", "identity"...) finds an object the question depends on unreadable in the
    rendered image. The question policy (`questions.unreadable` in the config) skips it (the
    default), asks it flagged as unreadable, or asks it."""

    rule: str
    reason: str
    answer: Answer
    objects: tuple[int, ...] = ()  # ids of the objects the rule finds unreadable, when it names them


# (rule, reason) or (rule, reason, object ids) of a readability rule that fails
Problem = tuple[str, str] | tuple[str, str, tuple[int, ...]]


def unless(problem: Problem | None, result: Answer | Skip | Unreadable) -> Answer | Skip | Unreadable:
    """`result`, marked Unreadable when `problem` (a failing readability rule) is given."""
    if problem is None or not isinstance(result, Answer):
        return result
    rule, reason, *ids = problem
    return Unreadable(rule, reason, result, tuple(ids[0]) if ids else ())


AnswerFn = Callable[[dict, np.random.Generator], Answer | Skip | Unreadable]


class AnswerTable(dict[str, AnswerFn]):
    """Question key -> answer function; `@table.key("count_pieces")` adds one."""

    def key(self, name: str) -> Callable[[AnswerFn], AnswerFn]:
        def register(fn: AnswerFn) -> AnswerFn:
            self[name] = fn
            return fn

        return register


def rng_for(legend: dict, key: str) -> np.random.Generator:
    """Parameter draws depend on the image and the key only (not on which other keys are asked)."""
    return np.random.default_rng([legend["seed"], zlib.crc32(key.encode())])


def visible(legend: dict) -> list[dict]:
    """Objects that count: those the render showed with at least the visibility threshold."""
    return [o for o in legend["objects"] if o.get("visible", True)]


def unseen(legend: dict) -> list[dict]:
    """Objects below the visibility threshold (hidden or ambiguous): no question may name them."""
    return [o for o in legend["objects"] if not o.get("visible", True)]


def blur_px(legend: dict, o: dict) -> float:
    """Diameter (pixels) of the depth-of-field blur at the object's centre; 0 without blur."""
    setup = legend["setup"]
    blur, cam = setup["blur"], setup["camera"]
    if not blur["enabled"]:
        return 0.0
    return float(defocus_diameter_px(o["pixel_coords"][2], focal_length=cam["focal_length"],
                                     sensor_width=cam["sensor_width"], fstop=blur["fstop"],
                                     focus_distance=blur["focus_distance"], resolution=setup["resolution"]))


def view_elevation(legend: dict, point) -> float:
    """Degrees above the horizon at which the camera sees `point` (world metres)."""
    cam = legend["setup"]["camera"]
    if cam["projection"] == "orthographic":
        return float(cam["elevation"])
    dx, dy, dz = (c - p for c, p in zip(cam["location"], point, strict=True))
    return math.degrees(math.atan2(dz, math.hypot(dx, dy)))


# --- readability in the rendered image (byo/scene/evidence.py measures `rendered`) ------------------
def _where(o: dict) -> str:
    a = o["attributes"]
    name = a.get("name") or " ".join(str(a[k]) for k in ("color", "type") if isinstance(a.get(k), str)) or o["kind"]
    return f"{name} (object {o['id']})"


def not_shown(objects: list[dict]) -> Problem | None:
    """The first object that does not stand out from its surroundings in the rendered image (its
    `rendered` evidence fails evidence.shows): blur or a background like it hides it. An object
    whose presence the render measured (counterfactual) is judged by that instead (seen_as_rendered)."""
    for o in objects:
        e = o.get("rendered")
        if e and counterfactual.measured(o) is None and not (e["contrast"] >= evidence.SHOW_CONTRAST or e["edge"] >= evidence.SHOW_EDGE
                                                             or contrast_band(e) == VISIBLE):
            return ("contrast", f"{_where(o)} does not stand out: contrast {e['contrast']:.2f} < "
                                f"{evidence.SHOW_CONTRAST:g} and edge {e['edge']:.2f} < {evidence.SHOW_EDGE:g} grey levels, "
                                f"Weber contrast {abs(e.get('weber', 0.0)):.2f} < {evidence.PRESENT_WEBER:g}",
                    (o["id"],))
    return None


def not_separable(objects: list[dict]) -> Problem | None:
    """The first object that borders another and shows neither ink nor a seam in its visible
    part (evidence.separable): it merges with its neighbour."""
    for o in objects:
        e = o.get("rendered")
        if e and e["seam"] is not None and not (e["ink"] >= evidence.SEPARATE_INK
                                                or e["seam"] >= evidence.SEPARATE_SEAM):
            return ("overlap", f"{_where(o)} merges with the object it overlaps: ink {e['ink']} px < "
                               f"{evidence.SEPARATE_INK}, seam {e['seam']:.1f} < {evidence.SEPARATE_SEAM:g} grey levels",
                    (o["id"],))
    return None


def color_unreadable(objects: list[dict], palette: Mapping[str, Sequence[float]],
                     named: Collection[str] | None = None) -> Problem | None:
    """The first object whose rendered colour (median CIELAB) is not nearer its own palette colour
    than any other by evidence.COLOUR_MARGIN (CIEDE2000); `palette`: name -> sRGB 0-1. Objects of a
    colour outside the palette are not judged. With `named` (the colours a question names), only an
    object that is one of them, or could be read as one (evidence.read_as), is judged."""
    for o in objects:
        e, own = o.get("rendered"), o["attributes"].get("color")
        if not e or not isinstance(own, str) or own not in palette:
            continue
        margin, _ = evidence.color_margin(e["lab"], own, palette)
        if margin >= evidence.COLOR_MARGIN:
            continue
        rivals = evidence.read_as(e["lab"], own, palette)  # the colours it could be read as, nearest first
        if named is None or own in named or any(c in named for c in rivals):
            return ("color", f"{_where(o)} renders as {rivals[0]}: ΔE00 margin {margin:.1f} < {evidence.COLOR_MARGIN:g}",
                    (o["id"],))
    return None


# --- counterfactual readability (byo/scene/counterfactual.py measures, at render time) -----------
def seen_as_rendered(legend: dict) -> dict:
    """The legend with each object's presence folded into its visibility band: an object the
    render measured counts as visible if the image without it differs visibly where it stood
    (counterfactual.presence) or if it stands out from its local background in the image as
    rendered (`contrast_band`: Weber contrast of linear luminance, which holds across exposure
    where a colour difference shrinks with the light); hidden if neither even nearly, ambiguous
    between. Its band is the lower of that and the mask's; `presence` records the presence band."""
    objects = []
    for o in legend["objects"]:
        m = counterfactual.measured(o)
        if m is None:
            objects.append(o)
            continue
        band = counterfactual.higher(counterfactual.presence(m), contrast_band(o.get("rendered")))
        seen = counterfactual.lower(o.get("visibility", "visible"), band)
        objects.append({**o, "presence": band, "visibility": seen, "visible": seen == "visible"})
    return {**legend, "objects": objects}


def contrast_band(e: Mapping | None) -> str:
    """The visibility band of an object's Weber contrast against its local background
    (evidence.stands_out; `nearly` for ambiguous); hidden without evidence."""
    if not e or "weber" not in e:
        return HIDDEN
    found = (e["weber"], e.get("step", 0.0), e.get("standout", 0.0))
    if evidence.stands_out(*found):
        return VISIBLE
    return AMBIGUOUS if evidence.stands_out(*found, nearly=True) else HIDDEN


def measured_attribute(objects: list[dict], attribute: str) -> bool:
    """Whether the render measured `attribute`'s alternatives for every one of `objects`."""
    return all((m := counterfactual.measured(o)) is not None and attribute in m.alternatives for o in objects)


def attribute_unreadable(objects: list[dict], attribute: str, values: Sequence[str] | None = None) -> Problem | None:
    """The first object whose `attribute` the image does not tell from another value (of `values`,
    or any the render measured): the render with that value differs too little. Objects
    whose `attribute` was not measured are not judged here (the family's own rule is)."""
    for o in objects:
        m = counterfactual.measured(o)
        bad = counterfactual.unreadable_values(m, attribute, values) if m is not None else None
        if bad:
            d = m.alternatives[attribute][bad[0]]
            own = o["attributes"].get(attribute, o["kind"])
            return (attribute, f"{_where(o)}, {attribute} {own}, would look the same as {bad[0]}: difference "
                               f"{d:g} < {counterfactual.MIN_DIFFERENCE:g} ΔE00", (o["id"],))
    return outline_unreadable(objects, attribute, values)


def outline_unreadable(objects: list[dict], attribute: str, values: Sequence[str] | None = None) -> Problem | None:
    """The first object whose `attribute` cannot be named from the image alone: its outline,
    aligned on the object with another value's, blurred as the image blurs it, is that value's
    (byo/scene/outline.py, the legend's `outline` added at question time). Different is not
    identifiable: a cone seen from above is a disc, as a sphere is."""
    for o in objects:
        found = (o.get(outline.OUTLINE_FIELD) or {}).get(attribute)
        bad = outline.unidentifiable(found, values) if found else []
        if bad:
            own = o["attributes"].get(attribute, o["kind"])
            return (attribute, f"{_where(o)}, {attribute} {own}, has the outline of a {bad[0]} in the image: "
                               f"outline difference {found[bad[0]]:g} < {outline.MIN_OUTLINE:g}, aligned on the object",
                    (o["id"],))
    return None


def box_size(o: dict) -> tuple[int, int]:
    """Width and height (pixels) of the object's visible box; (0, 0) when nothing shows."""
    if not o.get("bbox"):
        return 0, 0
    x0, y0, x1, y1 = o["bbox"]
    return x1 - x0, y1 - y0


# An answer must not change whichever way the objects at the edge of visibility are seen; past
# this many such objects the question is not asked at all.
MAX_AMBIGUOUS = 3


def counted(fn: AnswerFn, legend: dict, key: str) -> list[dict]:
    """The visible objects a question's answer rests on: those whose absence from the image would
    change it (its value or what it names)."""
    result = fn(legend, rng_for(legend, key))
    out = []
    for k, o in enumerate(legend["objects"]):
        if not o.get("visible", True):
            continue
        objects = [{**x, "visible": False, "visibility": "hidden"} if j == k else x
                   for j, x in enumerate(legend["objects"])]
        if fn({**legend, "objects": objects}, rng_for(legend, key)) != result:
            out.append(o)
    return out


def not_told_apart(objects: list[dict]) -> Problem | None:
    """The first two of `objects` that blur into one blob in the image (counterfactual.merged_pair:
    the dip between their removals' differences is too shallow); a person counting them counts
    one. Objects whose separation the render did not measure are not judged here."""
    pair = counterfactual.merged_pair({o["id"]: counterfactual.measured(o) for o in objects})
    if pair is None:
        return None
    a, b, ratio = pair
    by_id = {o["id"]: o for o in objects}
    return ("separation", f"{_where(by_id[a])} and {_where(by_id[b])} blur into one blob: the saddle between "
                          f"them is {ratio:.0%} of the lower peak (>= {counterfactual.MAX_MERGE:.0%})", (a, b))


# The stream of the candidates' order, apart from the answer function's own draws (rng_for).
CANDIDATE_ORDER_STREAM = 0x6F72646572


def candidate_seed(legend: dict, key: str) -> int:
    """The seed of a question's candidate order: from the image's seed and the key only."""
    return int(np.random.SeedSequence([int(legend["seed"]), zlib.crc32(key.encode()),
                                       CANDIDATE_ORDER_STREAM]).generate_state(1)[0])


def candidate_order(retrieval: Retrieval, seed: int) -> Retrieval:
    """`retrieval` with its captions (and their tags) in an order drawn from `seed`: a uniform
    permutation, so the truth's stored index is uniform over the positions and no ranker that
    prefers a position (the first maximum, the first caption) scores above chance by it."""
    order = np.random.default_rng(seed).permutation(len(retrieval.captions))
    return Retrieval(tuple(retrieval.captions[k] for k in order), int(np.flatnonzero(order == retrieval.truth)[0]),
                     tuple(retrieval.tags[k] for k in order), seed)


def _in_candidate_order(result: Answer | Skip | Unreadable, legend: dict, key: str) -> Answer | Skip | Unreadable:
    if isinstance(result, Unreadable):
        return Unreadable(result.rule, result.reason, _in_candidate_order(result.answer, legend, key), result.objects)
    if not isinstance(result, Answer) or result.retrieval is None or result.retrieval.order_seed is not None:
        return result
    r = candidate_order(result.retrieval, candidate_seed(legend, key))
    return Answer(result.value, result.params, result.choices, r, result.chance)


def ask(fn: AnswerFn, legend: dict, key: str) -> Answer | Skip | Unreadable:
    """The answer of `fn` for this image, its candidate captions (if any) in the question's own
    seeded order (candidate_order, candidate_seed), or a Skip (`ask_as_built`)."""
    return _in_candidate_order(ask_as_built(fn, legend, key), legend, key)


def ask_as_built(fn: AnswerFn, legend: dict, key: str) -> Answer | Skip | Unreadable:
    """The answer of `fn` for this image, or a Skip when it would depend on an object in the
    ambiguous band (a person may or may not see it): every way of seeing those objects must give
    the same question and answer. A count whose counted objects include two that blur into one
    blob is unreadable (the separation rule, `not_told_apart`)."""
    result = fn(legend, rng_for(legend, key))
    edge = [k for k, o in enumerate(legend["objects"]) if o.get("visibility") == "ambiguous"]
    if edge and not isinstance(result, Skip):
        if len(edge) > MAX_AMBIGUOUS:
            return Skip(f"more than {MAX_AMBIGUOUS} objects at the edge of visibility")
        for n in range(1, len(edge) + 1):
            for seen in itertools.combinations(edge, n):
                objects = [{**o, "visible": True, "visibility": "visible"} if k in seen else o
                           for k, o in enumerate(legend["objects"])]
                if fn({**legend, "objects": objects}, rng_for(legend, key)) != result:
                    return Skip("depends on an object at the edge of visibility")
    if isinstance(result, Answer) and counterfactual.counting(key) and not_told_apart(visible(legend)):
        result = unless(not_told_apart(counted(fn, legend, key)), result)
    return unless(hidden_decides(fn, legend, key, result), result) if isinstance(result, Answer) else result


def _changes(result, asked: Answer) -> bool:
    """Whether the same question (its parameters) gets another answer, whatever a readability
    rule says of it; another question drawn, or none, says nothing of this one."""
    result = result.answer if isinstance(result, Unreadable) else result
    return isinstance(result, Answer) and result.params == asked.params and result.value != asked.value


def hidden_decides(fn: AnswerFn, legend: dict, key: str, result: Answer) -> Problem | None:
    """Hidden is not absent: the first object the image does not show (hidden, below the
    ambiguous band) whose being counted would change the answer (each alone, then all together): a count, a "closest", a "which column" that rests on not seeing it. The object
    stays in the legend; the reason says why it is unreadable."""
    hidden = [k for k, o in enumerate(legend["objects"]) if not o.get("visible", True)
              and o.get("visibility") != "ambiguous"]
    for seen in [[k] for k in hidden] + ([hidden] if len(hidden) > 1 else []):
        objects = [{**o, "visible": True, "visibility": "visible"} if k in seen else o
                   for k, o in enumerate(legend["objects"])]
        if _changes(fn({**legend, "objects": objects}, rng_for(legend, key)), result):
            o = legend["objects"][seen[0]]
            return ("hidden", f"the answer changes if {_where(o)}, which the image does not show "
                              f"({unseen_why(o)}), were counted", tuple(legend["objects"][k]["id"] for k in seen))
    return None


def unseen_why(o: dict) -> str:
    """Why an object is not seen, in its measured numbers."""
    m, e = counterfactual.measured(o), o.get("rendered") or {}
    if m is None and not e:
        return f"{o.get('visible_pixels', 0)} px in the mask, under the floor"
    why = [f"{o.get('visible_pixels', 0)} px in the mask"]
    if m is not None:
        why.append(f"its removal changes the image by {m.presence:g} ΔE00 < {counterfactual.MIN_DIFFERENCE:g}")
    if "weber" in e:
        why.append(f"Weber contrast {abs(e['weber']):.2f} against its background, standout {e.get('standout', 0):.2f}")
    return ", ".join(why)


def multiple_choice(correct: str, distractors: list[str], rng: np.random.Generator,
                    params: dict | None = None) -> Answer:
    options = [correct, *dict.fromkeys(d for d in distractors if d != correct)]
    order = rng.permutation(len(options))
    shuffled = [options[k] for k in order]
    letter = option_label(shuffled.index(correct))
    text = " ".join(f"({option_label(i)}) {o}" for i, o in enumerate(shuffled))
    return Answer(letter, {**(params or {}), "options": text}, shuffled)


def retrieval_choice(retrieval: Retrieval, rng: np.random.Generator, params: dict | None = None,
                     max_options: int = len(LETTERS)) -> Answer:
    """The multiple-choice question a chat model is asked about `retrieval`: every caption as a
    lettered option when they fit in `max_options`, else the truth and `max_options - 1`
    distractors drawn by `rng`. `params` gain `options` (the lettered list) and `presented`
    ("all 24 captions" or "26 of 729 captions"); the answer's chance is 1 / options shown."""
    n = len(retrieval.captions)
    others = [k for k in range(n) if k != retrieval.truth]
    if n > max_options:
        others = sorted(rng.choice(others, size=max_options - 1, replace=False).tolist())
    shown = f"all {n} captions" if len(others) == n - 1 else f"{len(others) + 1} of {n} captions"
    answer = multiple_choice(retrieval.captions[retrieval.truth], [retrieval.captions[k] for k in others], rng,
                             {**(params or {}), "presented": shown})
    return Answer(answer.value, answer.params, answer.choices, retrieval, 1 / len(answer.choices))


IRREGULAR_PLURALS = {"knife": "knives", "leaf": "leaves", "person": "people", "man": "men", "woman": "women",
                     "child": "children", "foot": "feet", "tooth": "teeth", "mouse": "mice"}
_SINGULARS = {v: k for k, v in IRREGULAR_PLURALS.items()}


def plural(word: str) -> str:
    if word in IRREGULAR_PLURALS:
        return IRREGULAR_PLURALS[word]
    if word.endswith(("s", "sh", "ch", "x")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def singular(word: str) -> str:
    """The singular of a plural noun ("boxes" -> "box", "cherries" -> "cherry"); a word that is
    not a plural comes back as it is ("glass", "bus")."""
    if word in _SINGULARS:
        return _SINGULARS[word]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")) and len(word) > 4:
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


# --- vocabulary ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Domain:
    """A label vocabulary for parsing answers: canonical label -> synonyms (itself included)."""

    name: str
    terms: dict[str, tuple[str, ...]]

    @property
    def labels(self) -> list[str]:
        return list(self.terms)


def domain(name: str, **terms: str) -> Domain:
    """domain("shape", cube="cube|block") -> Domain("shape", {"cube": ("cube", "block")})"""
    return Domain(name, {k.replace("_", " "): tuple(v.split("|")) for k, v in terms.items()})


# --- a family's own answer types ----------------------------------------------------------
@dataclass(frozen=True)
class AnswerType:
    """An answer type of a family's own (e.g. crest program codes), with what the scorer needs:
    how to find answers in a reply, whether one is right, and the table of its metrics."""

    # (reply text, the question key's true answers) -> mentions as (value, start, end)
    find: Callable[[str, Sequence[str]], list[tuple[Any, int, int]]]
    # mentions to fall back on when `find` finds none (e.g. free text outside the known labels)
    fallback: Callable[[str], list[tuple[Any, int, int]]] | None = None
    correct: Callable[[Any, Any], bool] | None = None  # None: the same text, case aside
    table: ReportTable | None = None  # the family's own metrics of answers of this type


# --- sheets ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SheetOption:
    """A whole-number option of a sheet's command line (`--columns 6`)."""

    flag: str
    help: str
    default: int | None = None
    minimum: int = 1

    @property
    def name(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class SheetRequest:
    """What `byo sheet KIND` hands a sheet's `draw`."""

    target: Path  # the dataset (a sheet of a dataset) or the file to write (a sheet of its own)
    output: Path | None  # -o, for a sheet of a dataset (None: the sheet's default name in it)
    options: dict[str, int | None]  # each SheetOption's value by its name
    # each image of the sheet's `configs` as rendered, with its legend; None under --preview
    # or for a sheet without configs
    rendered: list[tuple[Image.Image, dict]] | None


@dataclass(frozen=True)
class Sheet:
    """A labelled sheet a family draws: `byo sheet KIND`. A sheet with `configs` renders them
    first (unless --preview) and draws from the images."""

    kind: str
    help: str
    draw: Callable[[SheetRequest], Path]
    target: Literal["dataset", "output"] = "dataset"  # what the command's one argument is
    options: tuple[SheetOption, ...] = ()
    configs: Callable[[dict[str, int | None]], list[dict]] | None = None  # dataset configs to render
    output_help: str = ""  # for a sheet of a dataset: where -o defaults to
    preview_help: str = "draw without Blender"
    alias: str | None = None  # the command's older name (byo ALIAS ...)


# --- configs of other tools ---------------------------------------------------------------------
@dataclass(frozen=True)
class ForeignKey:
    """How a key of another tool's config (e.g. BYO-Eval's `chess.count_config`) maps onto the
    family's: the dotted `path` in the project's scene (None: no counterpart, `note` says why), and
    `convert` for its values (raising ValueError for a value without a counterpart)."""

    path: str | None
    convert: Callable[[Any], Any] | None = None
    note: str = ""
    # A key without a counterpart that still imports (the importer's mapping table says what that
    # changes): set for what changes no answer, e.g. a key the other tool's own code never reads.
    changes: str = ""


class NoCounterpart(ValueError):
    """Raised by a ForeignKey's `convert` for a value without a counterpart that still imports:
    its message, in the importer's mapping table, says what that changes in the scene."""


class MissingAsset(NoCounterpart):
    """Raised by a ForeignKey's `convert` for a value naming an asset of the other tool that is not
    shipped here (a .blend file): the config still imports, with the asset named as missing."""


# --- what byo explain changes -----------------------------------------------------------------
@dataclass(frozen=True)
class Factor:
    """One change `byo explain` makes to a failed image's scene, alone, to see whether the model's
    answer turns right: a short `name`, what it does (`description`), and `changes`: dotted scene
    paths (the shared setup, or the family's `content.*`) and the values they take. A change that
    leaves an image's scene as it was, or makes it invalid, is not made for that image."""

    name: str
    description: str
    changes: Mapping[str, Any]


# Changes of the shared setup; a family lists in `Family.explain_factors` those that make sense for it.
NO_BLUR = Factor("no blur", "depth-of-field blur off", {"blur.fstop": "none"})
BRIGHT_LIGHT = Factor("bright light", "the lights at twice their base power (preset very_high)",
                      {"lighting.intensity": "very_high"})
OVERHEAD = Factor("camera overhead", "the camera straight above the scene (elevation 90 degrees)",
                  {"camera.elevation": 90.0})


# --- the family ---------------------------------------------------------------------------
class Family:
    """One family of scenes. A subclass sets the class attributes and implements `sample`;
    everything byo does with a family it finds here (no name of a family appears elsewhere)."""

    name: str  # the family's name in configs and its entry point; default: its package's last name
    package: str  # the package the subclass is defined in (set for each subclass, not written)
    content_model: type[BaseModel]
    default_scene: dict[str, Any] = {}  # family defaults under the user's `scene`
    # Its own settings of the quality presets (render.quality) by image size, over the shared
    # ones (byo.scene.setup.QUALITY); chosen on its busiest scene by bench/family_presets.py.
    quality_presets: QualityPresets = {}
    template_file: str  # the family's question templates (YAML), a file of...
    template_package: str = CATALOG  # ...this package (a family of its own ships its own)
    answers: Mapping[str, AnswerFn] = {}  # question key -> answer function
    vocabulary: tuple[Domain, ...] = ()  # label domains its answers use, for parsing
    answer_types: Mapping[str, AnswerType] = {}  # answer types of its own, beside the shared ones
    design_keys: tuple[str, ...] = ()  # content keys the Blender add-on's panel shows first (byo.authoring.design)
    # The kinds its objects are (a legend object's `kind`), in order: the categories of the COCO
    # export (`byo export --format coco`). A kind not listed still gets a category, after these.
    object_kinds: tuple[str, ...] = ()
    builder: str = "builder"  # the module of `package` that builds a spec in Blender
    audit: str | None = None  # the module of `package` with AUDITS (and LEGEND_CHECKS), for byo audit
    sheets: tuple[Sheet, ...] = ()  # the sheets `byo sheet KIND` draws
    # Patterns of keys asked only when named (byo questions --keys, or the config's questions.keys):
    # sets meant for one study, which every other dataset of the family would only skip.
    opt_in_keys: tuple[str, ...] = ()
    # When each key applies: key pattern -> the scene designs (content.mode) it is asked of. A key
    # no pattern names applies to every design. `byo questions` leaves out of a dataset the keys
    # that apply to none of its images (`-v` lists them), rather than skipping them image by image.
    key_modes: Mapping[str, tuple[str, ...]] = {}
    tables: tuple[ReportTable, ...] = ()  # its own metrics of the question keys each table names
    # What `byo explain` changes, one at a time, in the scene of a failed image (besides setting
    # each variable of the config to its easiest level): the shared NO_BLUR, BRIGHT_LIGHT,
    # OVERHEAD, and changes of its own content.
    explain_factors: tuple[Factor, ...] = ()
    # Configs of other tools it reads (`byo import-config`): format -> their key -> ForeignKey.
    # A config is the family's when one of its keys starts with a key (or section) listed here.
    foreign_keys: Mapping[str, Mapping[str, ForeignKey]] = {}
    # Per format, what the other tool's own code does beyond its keys: a function given the mapped
    # scene values (project path -> value) and variables (path -> variation), which it completes in
    # place, returning (path, value, why) for each change, for the importer's mapping table.
    foreign_finish: Mapping[str, Callable[[dict[str, Any], dict[str, dict]], list[tuple[str, Any, str]]]] = {}

    def applies(self, key: str, legend: dict) -> bool:
        """Whether `key` is a question of the design of the image `legend` describes (key_modes)."""
        mode = (legend.get("content") or {}).get("mode")
        return next((mode in modes for pattern, modes in self.key_modes.items()
                     if fnmatch.fnmatchcase(key, pattern)), True)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.package = sys.modules[cls.__module__].__package__ or cls.__module__
        if getattr(cls, "name", None) is None:
            cls.name = cls.package.rpartition(".")[2]

    def module(self, name: str) -> ModuleType:
        """One of the family's own modules by its name in `package` (e.g. its `builder`)."""
        return import_module(f"{self.package}.{name}")

    def templates(self) -> Traversable:
        return files(self.template_package) / self.template_file

    def sample(self, content: BaseModel, setup: ResolvedSetup, *, draw: np.random.Generator,
               place: np.random.Generator) -> tuple[list[SceneObject], dict[str, Any]]:
        """Objects and family ground truth. `draw` picks what is in the scene, `place` where."""
        raise NotImplementedError

    # Attributes whose every other value the render draws and compares (byo/scene/counterfactual.py)
    # unless the config names its own (render.counterfactual.attributes): those no cheaper measured
    # rule decides. Presence is checked for every object.
    rendered_attributes: tuple[str, ...] = ()

    def alternatives(self, spec: SceneSpec, obj: SceneObject) -> dict[str, dict[str, SceneObject]]:
        """For the counterfactual check: attribute -> {each other value: `obj` with that value},
        same pose (the builder module's `build_objects(spec, objects, scene)` builds them).
        Only attributes the family can vary; none by default."""
        return {}

    # Visibility before rendering (byo/scene/visibility.py): `byo plan` projects each object's
    # silhouette to tell the images that cannot meet the visibility floor, and what would.
    def silhouette(self, spec: SceneSpec, obj: SceneObject) -> np.ndarray | None:
        """Points (N x 3, world metres, relative to the object's location) whose convex hull is
        the object as built; None (the default) when the family does not say: no projection."""
        return None

    def placement_area(self, spec: SceneSpec) -> tuple[tuple[float, float], tuple[float, float]] | None:
        """The ground rectangle ((x0, x1), (y0, y1), world metres) an object's centre may be
        placed in; None: each object stands where the spec puts it (explicit positions, layouts)."""
        return None

    def landmarks(self, spec: SceneSpec) -> dict[str, list[tuple[float, float, float]]]:
        """Named 3D points whose projection the legend records (e.g. board corners)."""
        return {}

    def mask_parts(self, spec: SceneSpec) -> dict[int, int]:
        """Mask ids the builder gives to parts of objects (e.g. a card's corner index), each
        mapped to its object's id. A part is measured on its own (legend `parts`) and its pixels
        count in its object's visible pixels and box."""
        return {}

    def complete_legend(self, legend: dict[str, Any]) -> None:
        """Add, in place, ground truth that needs the render's measurements (e.g. whether a
        card's identity can be read)."""

    def export(self, layout, legends: list[dict[str, Any]]) -> dict[str, Any]:
        """Dataset-level files in the family's own formats; returns name -> path."""
        return {}

    def training_config(self, config: dict[str, Any]) -> dict[str, Any]:
        """The config (as data) whose images hold the training split of the dataset `config`
        makes, for metrics that need the training labels (byo.score.training): by default the
        config itself, its training images those whose `image_split` is "train"."""
        return config

    def image_split(self, legend: dict[str, Any]) -> str:
        """The split an image belongs to (the COCO and WebDataset exports write one file or set
        of shards per split): the dataset's split unless the family draws one per image."""
        return str(legend["split"])

    def legend_lines(self, legend: dict[str, Any]) -> list[str]:
        """Family-specific lines of the human-readable legend."""
        return []

    def caption(self, legend: dict[str, Any]) -> str:
        """The contact sheet's last caption line: what the image shows, in a few words."""
        return f"{len(visible(legend))} visible"

    def question_context(self, legend: dict[str, Any]) -> dict[str, Any]:
        """Template parameters of the family's preprompts (e.g. the board size)."""
        return {}
