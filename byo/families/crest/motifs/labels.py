"""Crest labels and their parsers: KDL, segmented Japanese analysis, English, program code.

- KDL (kamon description language): `{C}に{R}{M}`, nested containers outermost first
  (`C1にC2にRM`), containerless `{R}{M}`: 丸に三つ盛り桔梗, 丸に覗き桔梗, 三つ盛り桔梗.
- Segmented analysis: the KDL's tokens [C, に, R, M] with empty parts left out.
- English, in the words of KamonBench's Figure 2 ("crab in a circle", "bean crab in a circle",
  "peeking crab in a circle", "three stacked crabs in a circle", "three bottoms-together crabs
  in a circle"): "bellflower in a circle", "bean bellflower in a circle", "peeking bellflower in
  a circle", "three stacked bellflowers in a circle"; outer containers follow as "in a C".
- Program code: `C:<id>` per container (outermost first), one `X:<k>`, one `M:<id>`.
  Component images are labelled `M:<id>` or `C:<id>`.

Every label parses back to the same factors (tests check every library entry).
"""

from __future__ import annotations

import functools
import re

from byo.families.crest.motifs import library
from byo.families.crest.motifs.grammar import ARRANGEMENTS, MODIFIERS, X_CODE, Crest, GrammarError
from byo.families.crest.motifs.library import Component

NI = "に"
MODIFIER_JA = {"none": "", "peeking": "覗き", "bean": "豆", "three_stacked": "三つ盛り",
               "bottoms_together": "尻合せ三つ", "heads_together": "頭合せ三つ"}
MODIFIER_READING = {"none": "", "peeking": "のぞき", "bean": "まめ", "three_stacked": "みつもり",
                    "bottoms_together": "しりあわせみつ", "heads_together": "かしらあわせみつ"}
MODIFIER_ROMAJI = {"none": "", "peeking": "nozoki", "bean": "mame", "three_stacked": "mitsumori",
                   "bottoms_together": "shiriawase mitsu", "heads_together": "kashira awase mitsu"}
STACK_EN = {"three_stacked": "three stacked", "bottoms_together": "three bottoms-together",
            "heads_together": "three heads-together"}
MODIFICATION_EN = {"none": "", "peeking": "peeking", "bean": "bean"}
X_MODIFIER = {k: m for m, k in X_CODE.items()}


# --- from factors ------------------------------------------------------------------------
def analysis(crest: Crest) -> list[str]:
    tokens = []
    for c in crest.container_components:
        tokens += [c.ja, NI]
    if crest.modifier != "none":
        tokens.append(MODIFIER_JA[crest.modifier])
    return tokens + [crest.motif_component.ja]


def kdl(crest: Crest) -> str:
    return "".join(analysis(crest))


def reading(crest: Crest) -> str:
    """The KDL read aloud, in hiragana, one word per analysis token."""
    words = []
    for c in crest.container_components:
        words += [c.reading, "に"]
    if crest.modifier != "none":
        words.append(MODIFIER_READING[crest.modifier])
    return " ".join(words + [crest.motif_component.reading])


def romaji(crest: Crest) -> str:
    words = []
    for c in crest.container_components:
        words += [c.romaji, "ni"]
    if crest.modifier != "none":
        words.append(MODIFIER_ROMAJI[crest.modifier])
    return " ".join(words + [crest.motif_component.romaji])


def article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def _in(c: Component) -> str:
    return f" in {article(c.en)} {c.en}"


def english(crest: Crest) -> str:
    """The modifier's word before the motif, then each container from the innermost out."""
    m, r = crest.motif_component, crest.modifier
    if r in ARRANGEMENTS:
        core = f"{STACK_EN[r]} {m.en_plural}"
    else:
        core = f"{MODIFICATION_EN[r]} {m.en}".lstrip()
    return core + "".join(_in(c) for c in reversed(crest.container_components))


def program(crest: Crest) -> str:
    return " ".join([f"C:{c}" for c in crest.containers] + [f"X:{X_CODE[crest.modifier]}", f"M:{crest.motif}"])


def labels(crest: Crest) -> dict:
    return {"kdl": kdl(crest), "analysis": analysis(crest), "reading": reading(crest), "romaji": romaji(crest),
            "english": english(crest), "program": program(crest)}


def component_labels(c: Component) -> dict:
    return {"kdl": c.ja, "analysis": [c.ja], "reading": c.reading, "romaji": c.romaji, "english": c.en,
            "program": c.token}


# --- parsers -----------------------------------------------------------------------------
_KATAKANA = {chr(k): chr(k - 0x60) for k in range(0x30A1, 0x30F7)}


def normalize(text: str) -> str:
    """The benchmark's normalization: no whitespace, katakana as hiragana."""
    return "".join(_KATAKANA.get(ch, ch) for ch in text if not ch.isspace())


def parse_program(text: str) -> Crest:
    """Factors from a program code: `C:` tokens (outermost first), exactly one `X:`, exactly one `M:`."""
    containers, xs, ms = [], [], []
    for token in text.split():
        kind, _, value = token.partition(":")
        if kind == "C" and value in library.CONTAINERS_BY_ID:
            containers.append(value)
        elif kind == "X" and value.isdigit() and int(value) in X_MODIFIER:
            xs.append(X_MODIFIER[int(value)])
        elif kind == "M" and value in library.MOTIFS_BY_ID:
            ms.append(value)
        else:
            raise GrammarError(f"{text!r}: unknown token {token!r}")
    if len(xs) != 1 or len(ms) != 1:
        raise GrammarError(f"{text!r}: a program needs exactly one X and one M token")
    return Crest(tuple(containers), xs[0], ms[0])


def program_factors(text: str) -> dict | None:
    """Parsed factors of a (predicted) program, or None when it is not parseable."""
    try:
        return parse_program(text).factors()
    except GrammarError:
        return None


def _by_name(components, attr: str) -> dict[str, Component]:
    return {normalize(getattr(c, attr)): c for c in components}


@functools.cache
def _japanese_names() -> tuple[dict[str, Component], dict[str, Component]]:
    """Containers and motifs by their normalized Japanese name (the library is fixed: built once)."""
    return _by_name(library.CONTAINERS, "ja"), _by_name(library.MOTIFS, "ja")


def parse_kdl(text: str) -> Crest:
    """Factors from a KDL description (whitespace and katakana/hiragana differences ignored)."""
    s = normalize(text)
    containers, motifs = _japanese_names()
    found: list[Crest] = []

    def walk(rest: str, outer: tuple[str, ...]) -> None:
        for name, c in containers.items():
            if rest.startswith(name + NI):
                walk(rest[len(name) + 1:], outer + (c.id,))
        for mod, prefix in MODIFIER_JA.items():
            if rest.startswith(prefix) and rest[len(prefix):] in motifs:
                try:
                    found.append(Crest(outer, mod, motifs[rest[len(prefix):]].id))
                except GrammarError:
                    pass

    walk(s, ())
    unique = set(found)
    if len(unique) != 1:
        raise GrammarError(f"{text!r}: {'no parse' if not unique else 'ambiguous'} as a KDL description")
    return unique.pop()


def parse_analysis(tokens: list[str]) -> Crest:
    """Factors from the segmented analysis; the token boundaries must be the canonical ones."""
    crest = parse_kdl("".join(tokens))
    if [normalize(t) for t in tokens] != [normalize(t) for t in analysis(crest)]:
        raise GrammarError(f"{tokens!r}: not segmented as [C, に, R, M]")
    return crest


def parse_english(text: str) -> Crest:
    s = " ".join(text.split())
    containers = sorted(library.CONTAINERS, key=lambda c: -len(c.en))
    singular = {m.en: m for m in library.MOTIFS}
    plural = {m.en_plural: m for m in library.MOTIFS}
    outer: list[str] = []
    while True:
        hit = next((c for c in containers if s.endswith(_in(c))), None)
        if hit is None:
            break
        outer.append(hit.id)
        s = s[: -len(_in(hit))]
    for mod, phrase in STACK_EN.items():
        if s.startswith(phrase + " ") and s[len(phrase) + 1:] in plural:
            return Crest(tuple(outer), mod, plural[s[len(phrase) + 1:]].id)
    for mod in ("peeking", "bean"):
        if s.startswith(mod + " ") and s[len(mod) + 1:] in singular:
            return Crest(tuple(outer), mod, singular[s[len(mod) + 1:]].id)
    if s in singular:
        return Crest(tuple(outer), "none", singular[s].id)
    raise GrammarError(f"{text!r}: no parse as an English crest description")


def parse_component(token: str) -> Component:
    """`M:<id>` or `C:<id>` (a component image's label)."""
    m = re.fullmatch(r"([MC]):(\w+)", token.strip())
    if not m:
        raise GrammarError(f"{token!r}: a component label is M:<id> or C:<id>")
    table = library.MOTIFS_BY_ID if m.group(1) == "M" else library.CONTAINERS_BY_ID
    if m.group(2) not in table:
        raise GrammarError(f"{token!r}: unknown id")
    return table[m.group(2)]


__all__ = ["MODIFIERS", "analysis", "kdl", "english", "program", "labels", "parse_kdl", "parse_english",
           "parse_program", "parse_analysis", "normalize", "component_labels", "parse_component"]
