"""Parse a free-form answer into a value of the question's answer type, with a status.

Statuses: `ok` (one answer), `ambiguous` (several different answers and no rule picks one),
`refusal` (the model declined), `unparsed` (no answer found), `error` (the request failed).

The stages, first hit wins:
1. structured answers: `{answer: 5}`, `<answer>5</answer>`, `\\boxed{5}`, JSON (the last one);
2. cue phrases: "the answer is 5", "Answer: C" (the last one);
3. the echoed prompt: the blank of a fill-in-the-blank sentence, the text after a declarative lead;
4. a refusal, if the model declined and gave none of the above;
5. the whole answer, without sentences echoed from the prompt and without numbers echoed from
   it ("row 3" when the question names row 3): one distinct value. Otherwise, direct prompts:
   the value the answer starts with, a value outside parentheses, a corrected value ("after
   checking again, 7"), a value anchored to the question ("5 pieces", "row 2"), the value after
   the last conclusion cue ("so", "in total"). Chain-of-thought prompts: the corrected or
   concluded value, an anchored value, else the last one. A hedge ("3 or 4") or anything else
   is ambiguous.
"""

from byo.score.parse.cards import card_code
from byo.score.parse.decide import parse_answer
from byo.score.parse.kinds import (
           ANSWER_TYPES,
           FAMILY_TYPES,
           KINDS,
           Domains,
           context_for,
           exact_labels,
)
from byo.score.parse.model import STATUSES, Kind, Mention, Parse, ParseContext, Status

__all__ = ["ANSWER_TYPES", "FAMILY_TYPES", "KINDS", "STATUSES", "Domains", "Kind", "Mention", "Parse", "ParseContext", "Status",
           "card_code", "context_for", "exact_labels", "parse_answer"]
