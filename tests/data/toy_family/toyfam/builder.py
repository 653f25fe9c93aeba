import bmesh

from byo.blender.materials import principled_material
from byo.blender.meshes import mesh_object


def build(spec, scene):
    material = principled_material("toy_grey", (0.5, 0.5, 0.5), 0.5)
    built = {}
    for o in spec.objects:
        bm = bmesh.new()
        bmesh.ops.create_cube(bm, size=2.0)
        obj = mesh_object(scene, o.name, bm, material)
        obj.location = o.location
        obj.scale = (o.scale,) * 3
        built[o.id] = [obj]
    return built
