"""A toy scene family for the tests: grey cubes on the floor. It has the shape of a family
folder and lives outside byo/; the tests register it through the `byo.families` entry point."""

from toyfam.family import ToyFamily

FAMILY = ToyFamily()
