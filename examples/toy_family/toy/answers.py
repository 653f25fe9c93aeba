"""One answer function per question key: the legend (what was rendered and measured) and a
generator seeded by the image and the key, to an Answer or a Skip. Only visible objects count."""

from byo.families.api import Answer, AnswerTable, Skip, visible

from .metrics import WORDS

ANSWERS = AnswerTable()


@ANSWERS.key("count_cubes")
def count_cubes(legend, rng):
    return Answer(len(visible(legend)))


@ANSWERS.key("count_cubes_word")
def count_cubes_word(legend, rng):
    n = len(visible(legend))
    return Answer(WORDS[n]) if n < len(WORDS) else Skip("more cubes than the words know")
