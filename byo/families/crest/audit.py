"""The audit of crest questions (`byo audit`): answers are parsed back to factors with the crest
library's parsers and compared with the crest the legend records, whose parts the mask must show
(every container band and motif copy, as many copies as the arrangement draws). Never uses
answers.py.

A description is ill-posed when the image cannot tell the arrangement apart: bottoms- or
heads-together of a motif without an up direction looks like three stacked, so a description
of such a crest, or a choice holding such a twin of the true crest, is not decided by the image.
"""

from __future__ import annotations

from byo.families.api import AuditTable, Expected, IllPosed, MeasuredImage, letter_of
from byo.families.crest.motifs import library
from byo.families.crest.motifs.grammar import MODIFIERS, GrammarError
from byo.families.crest.motifs.labels import parse_english, parse_kdl, parse_program

AUDITS = AuditTable()
STACKS = ("three_stacked", "bottoms_together", "heads_together")  # three copies
TURNED = ("bottoms_together", "heads_together")  # need an up direction to tell from three stacked


def _factors(crest) -> tuple:
    return tuple(crest.containers), crest.modifier, crest.motif


def _recorded(image: MeasuredImage) -> tuple | None:
    c = image.legend["extras"].get("crest", {})
    if c.get("kind") != "composite":
        return None
    return tuple(c["containers"]), c["modifier"], c["motif"]


def _twins(a: tuple, b: tuple) -> bool:
    """Two different crests the image cannot tell apart."""
    return (a != b and a[0] == b[0] and a[2] == b[2] and {a[1], b[1]} <= set(STACKS)
            and bool({a[1], b[1]} & set(TURNED)) and not library.MOTIFS_BY_ID[a[2]].oriented)


def _problem(image: MeasuredImage, seen) -> IllPosed | None:
    if _recorded(image) is None:
        return IllPosed("not a composite crest")
    if len(seen) != len(image.objects):
        return IllPosed(f"{len(image.objects) - len(seen)} part(s) of the crest do not show")
    return None


def _described(fn):
    """Questions about the whole crest: the arrangement must be told apart too."""
    def checked(q, image, seen):
        problem = _problem(image, seen)
        if problem:
            return problem
        containers, modifier, motif = _recorded(image)
        if modifier in TURNED and not library.MOTIFS_BY_ID[motif].oriented:
            return IllPosed("a motif without an up direction: this arrangement looks like three stacked")
        return fn(q, image, seen)

    return checked


def _parsed(parser, text: str, truth: tuple) -> Expected:
    try:
        ok = _factors(parser(text)) == truth
    except GrammarError:
        ok = False
    return Expected(text if ok else f"<the crest {truth}>")


@AUDITS.key("describe_program")
@_described
def describe_program(q, image, seen):
    return _parsed(parse_program, q["answer"], _recorded(image))


@AUDITS.key("describe_kdl")
@_described
def describe_kdl(q, image, seen):
    return _parsed(parse_kdl, q["answer"], _recorded(image))


@AUDITS.key("describe_english")
@_described
def describe_english(q, image, seen):
    return _parsed(parse_english, q["answer"], _recorded(image))


@AUDITS.key("identify_container")
def identify_container(q, image, seen):
    c = image.legend["extras"].get("crest", {})
    if c.get("kind") == "container" and c.get("component") is not None:
        if len(seen) != len(image.objects):
            return IllPosed("the container does not show")
        return Expected(library.CONTAINERS_BY_ID[c["component"]].en)
    problem = _problem(image, seen)
    if problem:
        return problem
    containers = _recorded(image)[0]
    return Expected(library.CONTAINERS_BY_ID[containers[0]].en if containers else "none")


@AUDITS.key("identify_modifier")
@_described
def identify_modifier(q, image, seen):
    """Answers: once, peeking, bean, three stacked, three bottoms-together, three heads-together."""
    word = q["answer"].replace(" ", "_").replace("-", "_")
    said = "none" if word == "once" else word if word in MODIFIERS else word.removeprefix("three_")
    truth = _recorded(image)[1]
    return Expected(q["answer"] if said == truth else f"<the arrangement {truth}>")


@AUDITS.key("recall_motif")
def recall_motif(q, image, seen):
    """A composite's motif, or a motif component image's own."""
    c = image.legend["extras"].get("crest", {})
    if c.get("kind") == "motif":
        if len(seen) != len(image.objects):
            return IllPosed("the motif does not show")
        return Expected(library.MOTIFS_BY_ID[c["component"]].en)
    problem = _problem(image, seen)
    if problem:
        return problem
    return Expected(library.MOTIFS_BY_ID[_recorded(image)[2]].en)


@AUDITS.key("identify_motif")
def identify_motif(q, image, seen):
    problem = _problem(image, seen)
    if problem:
        return problem
    truth = library.MOTIFS_BY_ID[_recorded(image)[2]].en
    return letter_of(q, [option == truth for option in q["choices"]])


@AUDITS.key("crest_choice")
@_described
def crest_choice(q, image, seen):
    truth = _recorded(image)
    options = []
    for text in q["choices"]:
        try:
            options.append(_factors(parse_english(text)))
        except GrammarError:
            return IllPosed(f"option {text!r} is not a crest description")
    if any(_twins(truth, o) for o in options):
        return IllPosed("an option is a crest the image cannot tell from the true one")
    return letter_of(q, [o == truth for o in options])


def check_parts(image: MeasuredImage) -> list[tuple[str, str]]:
    """The parts the legend lists are those the crest draws: its containers, and one motif copy or
    three for the stacked arrangements; extras.arrangement_ambiguous as the motif's orientation says."""
    truth = _recorded(image)
    if truth is None:
        return []
    containers, modifier, motif = truth
    kinds = [o.kind for o in image.objects]
    problems = []
    if kinds.count("container") != len(containers):
        problems.append(("objects", f"{kinds.count('container')} container parts for {len(containers)} containers"))
    copies = 3 if modifier in STACKS else 1
    if kinds.count("motif") != copies:
        problems.append(("objects", f"{kinds.count('motif')} motif parts, the {modifier} arrangement draws {copies}"))
    ambiguous = modifier in TURNED and not library.MOTIFS_BY_ID[motif].oriented
    if image.legend["extras"].get("arrangement_ambiguous") != ambiguous:
        problems.append(("extras.arrangement_ambiguous", f"{image.legend['extras'].get('arrangement_ambiguous')}, "
                                                         f"the motif's orientation gives {ambiguous}"))
    return problems


LEGEND_CHECKS = [check_parts]
