"""CLEVR-style scenes: cubes, spheres, cylinders and cones in CLEVR's colours and materials."""

from byo.families.clevr.family import ClevrFamily

FAMILY = ClevrFamily()
