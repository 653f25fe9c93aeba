from byo.families.api import Answer, AnswerTable, visible

ANSWERS = AnswerTable()


@ANSWERS.key("count_cubes")
def count_cubes(legend, rng):
    return Answer(len(visible(legend)))
