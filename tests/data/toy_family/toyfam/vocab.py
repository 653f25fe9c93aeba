from byo.families.api import domain

VOCABULARY = (domain("toy_shape", cube="cube|box"),)
