"""Label domains: the words a model may use for the family's labels, for parsing its answers."""

from byo.families.api import domain

VOCABULARY = (domain("toy_shape", cube="cube|box"),)
