"""The design a scene holds (`scene.byo`): Blender properties made from byo's design controls
(byo/authoring/design.py), and the conversions between them and a dataset config."""

from __future__ import annotations

import json

import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    IntProperty,
    IntVectorProperty,
    PointerProperty,
    StringProperty,
)

from byo.authoring import design
from byo.authoring.design import KEEP, NULL, Control
from byo.families import get_family

SEED_MAX = 2**31 - 1  # Blender's integer properties are 32-bit
_enum_items: dict[str, list] = {}  # Blender needs Python to keep dynamic enum strings alive


def _label(option: str) -> str:
    return {NULL: "none", KEEP: KEEP}.get(option, option.replace("_", " "))


def _pack_items(control: Control):
    none = "none (procedural)" if control.key.startswith("content.") else "none"

    def items(self, context):
        found = [(o, none if o == NULL else _label(o), "") for o in control.options()]
        _enum_items[control.key] = [*found, (KEEP, KEEP, "a pack given by its folder in the loaded config")]
        return _enum_items[control.key]

    return items


def blender_property(control: Control, default):
    """The Blender property for a control, with the family's default value."""
    common = {"name": control.label, "description": f"scene.{control.key}" + (f" ({control.unit})" if control.unit else "")}
    if control.kind == "int":
        bounds = {k: int(v) for k, v in (("min", control.minimum), ("max", control.maximum)) if v is not None}
        return IntProperty(default=int(default), **bounds, **common)
    if control.kind == "float":
        bounds = {k: float(v) for k, v in (("min", control.minimum), ("max", control.maximum)) if v is not None}
        return FloatProperty(default=float(default), precision=3, step=10, **bounds, **common)
    if control.kind == "bool":
        return BoolProperty(default=bool(default), **common)
    if control.kind == "size":
        return IntVectorProperty(size=2, min=1, max=8192, default=tuple(default), **common)
    if control.kind == "choice":
        items = [(o, _label(o), "") for o in control.options()] + [(KEEP, KEEP, "the value of the loaded config")]
        return EnumProperty(items=items, default=default, **common)
    if control.kind == "pack":
        return EnumProperty(items=_pack_items(control), **common)
    return StringProperty(default=default, **common)


def _group(name: str, controls: list[Control], defaults: dict) -> type:
    annotations = {c.name: blender_property(c, defaults[c.key]) for c in controls}
    return type(name, (bpy.types.PropertyGroup,), {"__annotations__": annotations})


class ByoVariable(bpy.types.PropertyGroup):
    key: StringProperty(name="Key", description="dotted path under scene")
    type: EnumProperty(name="Variation", items=[(t, t.replace("_", " "), "") for t in design.VARIATION_TYPES])
    levels: StringProperty(name="Levels", description="a YAML list, e.g. [1.0, 3.0] or [low, high]")
    min: FloatProperty(name="Min", precision=3)
    max: FloatProperty(name="Max", precision=3)
    step: FloatProperty(name="Step", min=0.0, precision=3, description="0: every integer")
    integer: BoolProperty(name="Integers", description="draw whole numbers")
    n_images: IntProperty(name="Images", min=0, description="images per combination set by this variable (0: unset)")
    source_json: StringProperty(description="the variation as loaded")

    def fields(self) -> dict:
        return {"type": self.type, "levels": self.levels, "min": self.min, "max": self.max, "step": self.step,
                "integer": self.integer, "n_images": self.n_images}

    def set_fields(self, fields: dict) -> None:
        for key, value in fields.items():
            setattr(self, key, value)

    def variation(self) -> dict:
        return design.variable_config(self.fields(), json.loads(self.source_json) if self.source_json else None)


def _family_changed(self, context) -> None:
    if self.loading:
        return
    # The family the panel showed until now: the last loaded, else the first (the defaults').
    before = self.get("previous_family") or self.bl_rna.properties["family"].enum_items[0].identifier
    load_into(self, design.export_config(design_config(self, family=before), self.family, {}))


def design_group(families: list[str]) -> tuple[type, list[type]]:
    """The design PropertyGroup and the groups it points to (setup, one per family's content)."""
    made = []
    first = families[0]
    setup_defaults = design.panel_values(design.new_config(first), get_family(first))
    setup = _group("ByoSetup", list(design.SETUP_CONTROLS), setup_defaults)
    made.append(setup)
    annotations = {
        "config_json": StringProperty(description="the config loaded or built last (keys not on the panel)"),
        "family": EnumProperty(name="Family", items=[(f, f, "") for f in families], update=_family_changed),
        "name": StringProperty(name="Name", default="design", description="dataset.name: files and the scene"),
        "seed": IntProperty(name="Seed", min=0, max=SEED_MAX, description="dataset.seed"),
        "n_images": IntProperty(name="Images", min=1, default=1, description="dataset.n_images: per combination"),
        "setup": PointerProperty(type=setup),
        "variables": CollectionProperty(type=ByoVariable),
        "legend_json": StringProperty(description="the legend of the last build or preview"),
        "status": StringProperty(description="what the last operator said"),
        "loading": BoolProperty(default=False),
    }
    for family in families:
        fam = get_family(family)
        defaults = design.panel_values(design.new_config(family), fam)
        group = _group(f"ByoContent_{family}", design.content_controls(fam), defaults)
        made.append(group)
        annotations[f"content_{family}"] = PointerProperty(type=group)
    return type("ByoDesign", (bpy.types.PropertyGroup,), {"__annotations__": annotations}), made


# --- design <-> config ---------------------------------------------------------------------
def holder(d, control: Control, family: str | None = None):
    """The property group holding a control: the shared setup, or the family's content."""
    return d.setup if not control.key.startswith("content.") else getattr(d, f"content_{family or d.family}")


def read_values(d, family: str | None = None) -> dict:
    family = family or d.family
    values = {}
    for c in design.controls(get_family(family)):
        value = getattr(holder(d, c, family), c.name)
        values[c.key] = list(value) if c.kind == "size" else value
    return values


def _set(group, control: Control, value) -> None:
    try:
        setattr(group, control.name, value)
    except TypeError:  # a choice or pack the enum does not list (a custom value): kept as in the config
        setattr(group, control.name, KEEP)


def base_config(d, family: str | None = None) -> dict:
    return json.loads(d.config_json) if d.config_json else design.new_config(family or d.family, d.name, d.seed)


def design_config(d, family: str | None = None) -> dict:
    """The dataset config the design stands for (`family`: read its content as that family's)."""
    family = family or d.family
    base = base_config(d, family)
    dataset = base.get("dataset", {})
    shown = {"name": dataset.get("name"), "n_images": dataset.get("n_images", 1),
             "seed": min(int(dataset.get("seed", 0)), SEED_MAX)}  # what the panel showed when loaded
    changed = {k: getattr(d, k) for k, v in shown.items() if getattr(d, k) != v}
    variables = {v.key: v.variation() for v in d.variables}
    return design.export_config(base, family, read_values(d, family), dataset=changed, variables=variables)


def load_into(d, config: dict) -> None:
    """Show `config` on the panel (its scene must be valid for its family)."""
    family = config["dataset"]["family"]
    values = design.panel_values(config, get_family(family))
    d.loading = True
    try:
        d.config_json = json.dumps(config)
        d.family = family
        d["previous_family"] = family
        dataset = config["dataset"]
        d.name = dataset["name"]
        d.seed = min(int(dataset.get("seed", 0)), SEED_MAX)
        d.n_images = int(dataset.get("n_images", 1))
        for c in design.controls(get_family(family)):
            _set(holder(d, c, family), c, values[c.key])
        d.variables.clear()
        for key, variation in (config.get("variables") or {}).items():
            item = d.variables.add()
            item.key = key
            item.set_fields(design.variable_fields(variation))
            item.source_json = json.dumps(variation)
    finally:
        d.loading = False


def control(d, key: str) -> Control:
    return next(c for c in design.controls(get_family(d.family)) if c.key == key)


def add_variable(d, key: str) -> None:
    suggested = design.suggested_variable(design_config(d), control(d, key))
    item = d.variables.add()
    item.key = key
    item.set_fields(design.variable_fields(suggested))
