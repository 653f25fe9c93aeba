"""Configs made elsewhere: the Blender add-on's controls and the config they export (design), and
BYO-Eval's configs imported as project configs (byo_eval_import)."""
