"""The audit (the class names it: `audit = "audit"`): each answer again, from the objects the
instance mask shows (`seen`), never from the answer functions or the legend's own fields."""

from byo.families.api import AuditTable, Expected, IllPosed

from .metrics import WORDS

AUDITS = AuditTable()


@AUDITS.key("count_cubes")
def count_cubes(question, image, seen):
    return Expected(len(seen))


@AUDITS.key("count_cubes_word")
def count_cubes_word(question, image, seen):
    return Expected(WORDS[len(seen)]) if len(seen) < len(WORDS) else IllPosed("more cubes than the words know")
