"""The small Blender toolkit every family's builder uses: materials, meshes, the shared setup
(render settings, camera, lights, table, floor, background) and the engine calls. No family
knowledge here; the only package besides the builders that imports bpy."""
