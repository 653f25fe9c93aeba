"""The render layer: the only part of the package (with the add-on) that imports bpy."""
