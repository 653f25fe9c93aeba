"""A toy scene family: one to four grey cubes in a row on the floor. It is the smallest family
with every part a family can have, written against byo's family contract (byo.families.api) and
registered through the `byo.families` entry point of its own pyproject.toml; docs/write_a_family.md
walks through it. Copy the folder, rename this package and its entry point, and it is yours."""

from .family import ToyFamily

FAMILY = ToyFamily()
