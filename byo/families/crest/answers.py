"""Answers to the crest questions, from legends (labels as the crest library writes them)."""

from __future__ import annotations

from byo.families.api import (
    MIN_RESOLVED_PX,
    Answer,
    AnswerTable,
    Skip,
    box_size,
    multiple_choice,
    unless,
)
from byo.families.crest.motifs import labels, library
from byo.families.crest.motifs.grammar import MODIFIERS, Crest, GrammarError

ANSWERS = AnswerTable()

MODIFIER_WORDS = {"none": "once", "peeking": "peeking", "bean": "bean", "three_stacked": "three stacked",
                  "bottoms_together": "three bottoms-together", "heads_together": "three heads-together"}


def _crest(legend: dict) -> Crest | Skip:
    factors = legend["extras"].get("crest", {})
    if factors.get("kind") != "composite":
        return Skip("not a composite crest (a component image)")
    return Crest.from_factors(factors)


def _shown(legend: dict) -> Skip | None:
    """A crest whose parts did not all reach the pixels cannot be described from the image."""
    if not all(o.get("visible", True) for o in legend["objects"]):
        return Skip("part of the crest is below the visibility threshold")
    return None


def _motif_unresolved(legend: dict):
    """Below the floor a motif has no name: the first copy of the motif under MIN_RESOLVED_PX across
    (its visible box's smaller side) makes a question naming the motif unreadable, as a 4 px dot
    has no shape (docs/readability.md "Below the floor")."""
    for o in legend["objects"]:
        side = min(box_size(o))
        if o["kind"] == "motif" and o.get("bbox") and o.get("visible", True) and side < MIN_RESOLVED_PX:
            return ("motif", f"motif {o['attributes'].get('en', o['name'])} (object {o['id']}) is {side} px across: "
                             f"under {MIN_RESOLVED_PX} px no motif is told from another", (o["id"],))
    return None


def names_motif(fn):
    """Decorate an answer function whose question names or asks the motif: the motif floor."""
    def checked(legend, rng):
        result = fn(legend, rng)
        return unless(_motif_unresolved(legend), result) if isinstance(result, Answer) else result

    checked.__doc__ = fn.__doc__
    return checked


AMBIGUOUS = Skip("this arrangement looks like three stacked for a motif without an up direction")


def _label(legend, fn) -> Answer | Skip:
    crest = _crest(legend)
    if isinstance(crest, Skip):
        return crest
    return _shown(legend) or Answer(fn(crest))


def _description(legend, fn) -> Answer | Skip:
    """A whole description (all three factors): not asked when the arrangement is ambiguous."""
    crest = _crest(legend)
    if not isinstance(crest, Skip) and crest.ambiguous:
        return AMBIGUOUS
    return _label(legend, fn)


@ANSWERS.key("describe_program")
@names_motif
def describe_program(legend, rng):
    return _description(legend, labels.program)


@ANSWERS.key("describe_kdl")
@names_motif
def describe_kdl(legend, rng):
    return _description(legend, labels.kdl)


@ANSWERS.key("describe_english")
@names_motif
def describe_english(legend, rng):
    return _description(legend, labels.english)


@ANSWERS.key("identify_container")
def identify_container(legend, rng):
    """The outermost container of a composite ("none" without one), or a container image's own (an
    empty canvas paired with a containerless composite is not asked)."""
    factors = legend["extras"].get("crest", {})
    if factors.get("kind") == "container":
        if factors.get("component") is None:
            return Skip("an empty canvas: the paired composite has no container")
        return _shown(legend) or Answer(library.CONTAINERS_BY_ID[factors["component"]].en)
    return _label(legend, lambda c: c.container_components[0].en if c.containers else "none")


@ANSWERS.key("identify_modifier")
def identify_modifier(legend, rng):
    crest = _crest(legend)
    if isinstance(crest, Skip):
        return crest
    if crest.ambiguous:
        return AMBIGUOUS
    return _shown(legend) or Answer(MODIFIER_WORDS[crest.modifier])


@ANSWERS.key("recall_motif")
@names_motif
def recall_motif(legend, rng):
    """Open recall over the whole inventory: the motif's English name (the vocabulary holds every
    motif's names, so any of them is read from the reply). Asked of composites and of motif
    component images."""
    factors = legend["extras"].get("crest", {})
    if factors.get("kind") == "motif":
        return _shown(legend) or Answer(library.MOTIFS_BY_ID[factors["component"]].en)
    crest = _crest(legend)
    if isinstance(crest, Skip):
        return crest
    return _shown(legend) or Answer(crest.motif_component.en)


@ANSWERS.key("identify_motif")
@names_motif
def identify_motif(legend, rng):
    crest = _crest(legend)
    if isinstance(crest, Skip):
        return crest
    others = [m.en for m in library.MOTIFS if m.id != crest.motif]
    picks = [others[k] for k in rng.choice(len(others), size=4, replace=False)]
    return _shown(legend) or multiple_choice(crest.motif_component.en, picks, rng)


def _swapped(crest: Crest, rng) -> list[str]:
    """Descriptions that differ from the crest in exactly one factor: container, arrangement, motif."""
    out = []
    options = {
        "containers": [(c.id,) for c in library.CONTAINERS if (c.id,) != crest.containers[:1]] if crest.containers else [],
        "modifier": [m for m in MODIFIERS if m != crest.modifier],
        "motif": [m.id for m in library.MOTIFS if m.id != crest.motif],
    }
    for factor in ("containers", "modifier", "motif"):
        for k in rng.permutation(len(options[factor])):
            value = options[factor][k]
            factors = {"containers": crest.containers, "modifier": crest.modifier, "motif": crest.motif,
                       factor: value if factor != "containers" else value + crest.containers[1:]}
            try:
                other = Crest(tuple(factors["containers"]), factors["modifier"], factors["motif"])
            except GrammarError:
                continue  # e.g. a containerless crest needs an arrangement
            if not other.ambiguous and labels.english(other) != labels.english(crest):
                out.append(labels.english(other))
                break
    return out


@ANSWERS.key("crest_choice")
@names_motif
def crest_choice(legend, rng):
    """Multiple choice: the crest's English description and one factor-swapped distractor per factor,
    plus a random crest."""
    crest = _crest(legend)
    if isinstance(crest, Skip):
        return crest
    if crest.ambiguous:  # its three-stacked twin would be a second right option
        return AMBIGUOUS
    distractors = _swapped(crest, rng)
    motif = library.MOTIFS[int(rng.integers(len(library.MOTIFS)))].id
    container = library.CONTAINERS[int(rng.integers(len(library.CONTAINERS)))].id
    distractors.append(labels.english(Crest((container,), "none", motif)))
    return _shown(legend) or multiple_choice(labels.english(crest), distractors, rng)
