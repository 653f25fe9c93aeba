"""The builder: a spec into Blender objects, {mask id: [objects]}. The only module of the
family that imports bpy (through byo.blender, the toolkit it may use besides the contract)."""

from byo.blender.materials import principled_material
from byo.blender.meshes import box_object


def build(spec, scene):
    material = principled_material("toy_grey", (0.5, 0.5, 0.5), 0.5)
    return {o.id: [box_object(scene, o.name, (2 * o.scale,) * 3, o.location, material)] for o in spec.objects}
