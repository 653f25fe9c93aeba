"""Per-family builders: each has `build(spec) -> {mask index: [Blender objects]}`, realizing a
scene spec's objects (and any family scenery) in the scene the shared setup prepared."""
