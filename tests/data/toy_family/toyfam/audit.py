"""The toy family's audit (its class names it: `audit = "audit"`): counts the cubes the mask shows."""

from byo.families.api import AuditTable, Expected

AUDITS = AuditTable()


@AUDITS.key("count_cubes")
def count_cubes(question, image, seen):
    return Expected(len(seen))
