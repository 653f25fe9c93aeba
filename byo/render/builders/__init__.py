"""Per-family builders: realize a scene spec's objects as Blender objects."""
