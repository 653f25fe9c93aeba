"""From YAML to scene spec, pure (no bpy): dataset configs, the setup (camera, lights, blur,
render), asset packs, camera geometry, plans (image index to levels and seed), specs, and the
readability evidence measured on rendered images."""
