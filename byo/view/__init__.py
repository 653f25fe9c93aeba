"""A static page of every answered question, for people: byo view."""
