"""Yes/no answers: the words yes and no, and a statement that restates the question ("Are
there fewer metal cubes than rubber spheres?" - "There are fewer metal cubes than rubber
spheres": yes; "Is the function convex?" - "The function is not convex": no)."""

from __future__ import annotations

import re

from byo.score import text
from byo.score.parse.integer import stem
from byo.score.parse.labels import matcher
from byo.score.parse.model import Mention, ParseContext
from byo.score.vocab import DOMAINS

YES_NO = next(d for d in DOMAINS if d.name == "yes_no")


_NOT_AN_ANSWER = re.compile(r"\s+(?:doubt|question|problem|matter|way|idea)\b", re.IGNORECASE)


def find_yes_no(span: str, ctx: ParseContext) -> list[Mention]:
    """Yes/no words; "no doubt", "no problem" are not answers."""
    return [Mention(m.value, m.start, m.end) for m in matcher(YES_NO).find(span)
            if not (m.value == "no" and _NOT_AN_ANSWER.match(span, m.end))]


_AUXILIARY = r"(?:is|are|was|were|does|do|did|can|could|has|have|had|will|would|should)"
_QUESTION = re.compile(rf"\b{_AUXILIARY}\b[^?.!\n]*\?", re.IGNORECASE)
_CONTENT = re.compile(r"[a-z][a-z-]+", re.IGNORECASE)
_FUNCTION = frozenset(
    "is are was were does do did can could has have had will would should the a an this that these those there it "
    "its of in on at to for with by from and or any some image picture photo shown visible".split())
_STATEMENT_NEGATOR = re.compile(r"\b(?:not|no|never|none|nothing|neither|nor|without)\b|n't\b", re.IGNORECASE)
_UNSURE = re.compile(r"\b(?:unclear|uncertain|whether|might|may|maybe|perhaps|possibly|probably|likely|difficult|"
                     r"hard to|cannot|can't|unable|not sure|appears?|seems?|if)\b", re.IGNORECASE)
STATEMENT_SHARE = 0.75  # of the question's content words the answer's first sentence restates


def statement(body: str, prompt: str) -> str | None:
    """"yes" or "no" for an answer whose first sentence restates the question as a statement,
    negated ("not", "no", "n't") or not; None where it does not, or hedges ("it may be")."""
    asked = _QUESTION.findall(text.clean(prompt))
    if len(asked) != 1:
        return None
    words = {stem(w) for w in _CONTENT.findall(asked[0].lower())} - {stem(w) for w in _FUNCTION}
    sentence = body[: text.sentence_end(body, 0)]
    if len(words) < 2 or _UNSURE.search(sentence):
        return None
    said = {stem(w) for w in _CONTENT.findall(sentence.lower())}
    if len(words & said) < STATEMENT_SHARE * len(words):
        return None
    negated = len(_STATEMENT_NEGATOR.findall(sentence)) - len(_STATEMENT_NEGATOR.findall(asked[0]))
    return "no" if negated % 2 else "yes" if negated == 0 else None
