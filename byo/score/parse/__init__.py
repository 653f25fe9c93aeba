"""Parse a free-form answer into a value of the question's answer type, with a status.

Statuses: `ok` (one answer), `ambiguous` (several different answers and no rule picks one),
`refusal` (the model declined), `unparsed` (no answer found), `error` (the request failed).

A reasoning model's `<think>` block is never read (byo.providers.reasoning), nor a turn the
model wrote after its answer ("... Question: ..."). A minus sign makes a number negative ("-2"
is a wrong count of 2). The stages, first hit wins (each parse names the rule that decided it:
`Parse.method`, one of decide.RULES):
1. structured answers: `{answer: 5}`, `<answer>5</answer>`, `\\boxed{5}`, JSON (the last one);
   then a value alone in braces as prompts ask for ("{5}", "rows={4} columns={5}");
2. cue phrases: "the answer is 5", "Answer: C" (the last one; its first value when it goes on);
3. the echoed prompt: the blank of a fill-in-the-blank sentence, the text after a declarative lead;
4. a refusal, if the model declined and gave none of the above; for multiple choice, a letter
   followed by another option's text ("A: No" where (B) is No) is ambiguous;
5. the whole answer, without sentences echoed from the prompt (an option's own sentences are no
   echo: a reply that is an option's text names it) and without numbers echoed from it ("row 3"
   when the question names row 3; where other numbers remain, a number beside the same word as
   in the question: "in at least one store", "50%"), nor list numbering and a sum's operands:
   one distinct value. A text that loops is unparsed. Otherwise, direct prompts: a label, yes/no,
   choice or card said first (the answer starts with it, or its first sentence names only it);
   a yes or no set apart at the start ("Yes, there are no cracks"); a hedge ("3 or 4",
   "10-12"; not a list's dash nor a sum) is ambiguous; a corrected value ("after checking again,
   7"); the result of a calculation that ends the answer ("9 - 5 = 4"); the value alone on the
   last line; the value after the last conclusion cue ("therefore", "in total", "so"); the
   value the answer starts with; the one
   value tied to what is asked ("5 pieces", "they cross twice", "do not intersect": 0; see
   byo.score.parse.integer); a stated total before its breakdown; a value outside parentheses.
   Chain-of-thought prompts: the corrected value, the last line, the concluded value, an
   anchored value, else the last one. Anything else is ambiguous. What is left unparsed: a yes/no
   answer whose first sentence restates the question ("The function is not convex": no); an
   answer that says the question does not apply (none of the options fits; "There is no letter
   being circled") is a refusal.
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
