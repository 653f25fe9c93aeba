from byo.families.base import domain

VOCABULARY = (domain("toy_shape", cube="cube|box"),)
