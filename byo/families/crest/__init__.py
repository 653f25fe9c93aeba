"""Crest (kamon) scenes after KamonBench: a container, a modifier and a motif, flat or printed
on a plaque, banner or lantern, with KDL, Japanese, English and program-code labels."""

from byo.families.crest.family import CrestFamily

FAMILY = CrestFamily()
