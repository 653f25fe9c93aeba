"""The sidebar panel (3D viewport, tab BYO) once byo is found: the design's controls by
section, the experiment's variables and image count, and the legend. Registers the design
properties (`scene.byo`) and the operators."""

from __future__ import annotations

import json
import textwrap
from functools import lru_cache

import bpy
from bpy.props import PointerProperty

from byo.authoring.design import SETUP_CONTROLS, Control, content_controls, summary
from byo.core.errors import ConfigError
from byo.families import family_names, get_family
from byo.render.legend import legend_text

from . import draw_error, ops, preview, props

SECTIONS = {  # the shared setup's controls by sub-panel
    "Camera, light, blur": ("camera.distance", "camera.elevation", "camera.azimuth", "lighting.intensity",
                            "blur.fstop"),
    "Table": ("table.enabled", "table.shape", "table.color", "table.texture", "table.image"),
    "Output": ("resolution", "render.engine", "render.quality", "render.samples"),
}
_registered: list[type] = []


def draw_control(layout, design, control: Control, group) -> None:
    """Label, value, and the diamond that makes it a variable of the experiment."""
    varied = any(v.key == control.key for v in design.variables)
    row = layout.row(align=True)
    split = row.split(factor=0.4, align=True)
    split.label(text=control.label)
    split.prop(group, control.name, text="")
    op = row.operator("byo.toggle_variable", text="", icon="DECORATE_KEYFRAME" if varied else "DECORATE_ANIMATE",
                      depress=varied)
    op.key = control.key


def draw_main(layout, context) -> None:
    design = context.scene.byo
    col = layout.column(align=True)
    col.prop(design, "family")
    col.prop(design, "name")
    row = layout.row(align=True)
    row.prop(design, "seed")
    row.operator("byo.randomize", text="", icon="FILE_REFRESH")
    col = layout.column(align=True)
    col.operator("byo.build_scene", icon="SCENE_DATA")
    running = preview.JOBS.get(context.scene.name)
    if running is not None:
        col.operator("byo.render_preview", text=f"Rendering preview ({running.seconds():.0f} s)", icon="TIME")
    else:
        col.operator("byo.render_preview", icon="RENDER_STILL")
    col.operator("byo.show_legend", icon="TEXT")
    row = layout.row(align=True)
    row.operator("byo.load_yaml", icon="FILEBROWSER")
    row.operator("byo.export_yaml", icon="EXPORT")
    row.operator("byo.reset", text="", icon="LOOP_BACK")
    if design.status:
        for k, line in enumerate(textwrap.wrap(design.status, 44)[:3]):
            layout.label(text=line, icon="INFO" if k == 0 else "BLANK1")


class _Sub(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "BYO"
    bl_parent_id = "BYO_PT_main"


class BYO_PT_content(_Sub):
    bl_label = "Content"
    bl_idname = "BYO_PT_content"

    def draw_header(self, context):
        self.layout.label(text=f"({context.scene.byo.family})")

    def draw(self, context):
        design = context.scene.byo
        group = getattr(design, f"content_{design.family}")
        col = self.layout.column(align=True)
        for control in content_controls(get_family(design.family)):
            draw_control(col, design, control, group)


def _setup_panel(title: str, keys: tuple[str, ...], index: int) -> type:
    chosen = [c for c in SETUP_CONTROLS if c.key in keys]

    def draw(self, context):
        design = context.scene.byo
        col = self.layout.column(align=True)
        for control in chosen:
            draw_control(col, design, control, design.setup)

    return type(f"BYO_PT_setup_{index}", (_Sub,), {"bl_label": title, "bl_idname": f"BYO_PT_setup_{index}",
                                                   "draw": draw})


@lru_cache(maxsize=64)
def _count(config_json: str) -> tuple[int | None, str]:
    try:
        return summary(json.loads(config_json))
    except ConfigError as err:
        return None, ops.problem_text(err)


class BYO_PT_experiment(_Sub):
    bl_label = "Experiment"
    bl_idname = "BYO_PT_experiment"

    def draw(self, context):
        design = context.scene.byo
        layout = self.layout
        try:
            count, how = _count(json.dumps(props.design_config(design)))
        except ConfigError as err:
            count, how = None, ops.problem_text(err)
        if count is None:
            draw_error(layout, how)
        else:
            col = layout.column(align=True)
            col.label(text=f"{count} images", icon="RENDERLAYERS")
            col.label(text=how, icon="BLANK1")
        layout.prop(design, "n_images", text="Per combination")
        for item in design.variables:
            box = layout.box()
            row = box.row(align=True)
            row.label(text=item.key, icon="DECORATE_KEYFRAME")
            row.operator("byo.toggle_variable", text="", icon="X").key = item.key
            box.prop(item, "type", text="")
            if item.type in ("varying_all", "varying_random", "fixed"):
                box.prop(item, "levels", text="Value" if item.type == "fixed" else "Levels")
            else:
                col = box.column(align=True)
                col.prop(item, "min")
                col.prop(item, "max")
                col.prop(item, "step" if item.type == "varying_all_range" else "integer")
        if not design.variables:
            layout.label(text="Mark parameters with the diamond to vary them", icon="DECORATE_ANIMATE")


class BYO_PT_legend(_Sub):
    bl_label = "Legend"
    bl_idname = "BYO_PT_legend"
    bl_options = {"DEFAULT_CLOSED"}

    def draw(self, context):
        design = context.scene.byo
        if not design.legend_json:
            self.layout.label(text="Build scene or Render preview first")
            return
        legend = json.loads(design.legend_json)
        col = self.layout.column(align=True)
        for line in legend_text(legend, get_family(legend["family"])).splitlines()[:40]:
            col.label(text=line)


def register() -> None:
    families = family_names()
    design_cls, groups = props.design_group(families)
    setup_panels = [_setup_panel(title, keys, k) for k, (title, keys) in enumerate(SECTIONS.items())]
    classes = [props.ByoVariable, *groups, design_cls, *ops.CLASSES, BYO_PT_content, *setup_panels,
               BYO_PT_experiment, BYO_PT_legend]
    for cls in classes:
        bpy.utils.register_class(cls)
        _registered.append(cls)
    bpy.types.Scene.byo = PointerProperty(type=design_cls)


def unregister() -> None:
    for scene_name in list(preview.JOBS):
        preview.cancel(scene_name)
    if bpy.app.timers.is_registered(preview.poll):
        bpy.app.timers.unregister(preview.poll)
    del bpy.types.Scene.byo
    while _registered:
        bpy.utils.unregister_class(_registered.pop())
