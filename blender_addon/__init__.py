"""BYO Render in Blender: design a scene in the 3D viewport's sidebar (tab BYO), build it into a
scene of its own, render a preview in the background, see its legend, and export the experiment
as a dataset config for `byo render`.

Installs as an extension in Blender 4.2+ (blender_manifest.toml) and as a legacy add-on in 3.x
(bl_info). It needs the byo package: from Blender's own Python, or from a folder set in its
preferences; when it finds none, the panel says what to do.
"""

from __future__ import annotations

import importlib
import os

import bpy
from bpy.props import StringProperty

from . import connect

bl_info = {
    "name": "BYO Render",
    "author": "BYO Render",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "View3D > Sidebar > BYO",
    "description": "Design a BYO Render scene, preview what the model sees, export the experiment as a dataset config",
    "doc_url": "https://github.com/byo-render/byo-render#blender-add-on",
    "category": "Render",
}

# The folder env variable, for scripts and tests that start Blender with the add-on.
PATH_ENV = "BYO_RENDER_PATH"
_state: dict = {"ui": None, "error": None}


def byo_folder() -> str:
    addon = bpy.context.preferences.addons.get(__package__)
    folder = addon.preferences.byo_path if addon is not None else ""
    return folder or os.environ.get(PATH_ENV, "")


def _reconnect(prefs, context) -> None:
    attach()


def attach() -> bool:
    """Import byo and register the panel's controls and operators (once); False with the reason
    kept for the panel when byo cannot be imported."""
    if _state["ui"] is not None:
        return True
    error = connect.connect(byo_folder())
    _state["error"] = error
    if error is not None:
        return False
    ui = importlib.import_module(f"{__package__}.ui")
    ui.register()
    _state["ui"] = ui
    if bpy.app.binary_path:
        from byo.core.blender_python import drop_script_main_alias

        drop_script_main_alias()
    return True


class ByoPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    byo_path: StringProperty(
        name="byo folder", subtype="DIR_PATH", update=_reconnect,
        description="A byo-render checkout (with its .venv after `make install`), a virtualenv or a "
                    "site-packages folder holding byo; empty: Blender's own Python")

    def draw(self, context):
        self.layout.prop(self, "byo_path")
        if _state["error"]:
            draw_error(self.layout, _state["error"])
        else:
            self.layout.label(text="byo found", icon="CHECKMARK")


def draw_error(layout, message: str, width: int = 48) -> None:
    import textwrap

    box = layout.box()
    for k, line in enumerate(textwrap.wrap(message, width)):
        box.label(text=line, icon="ERROR" if k == 0 else "BLANK1")


class BYO_OT_connect(bpy.types.Operator):
    """Look for the byo package again (after installing it or setting the byo folder)"""

    bl_idname = "byo.connect"
    bl_label = "Find byo again"

    def execute(self, context):
        if attach():
            self.report({"INFO"}, "byo found")
            return {"FINISHED"}
        self.report({"ERROR"}, _state["error"])
        return {"CANCELLED"}


class BYO_PT_main(bpy.types.Panel):
    bl_label = "BYO Render"
    bl_idname = "BYO_PT_main"
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "BYO"

    def draw(self, context):
        if _state["ui"] is None:
            draw_error(self.layout, _state["error"] or connect.hint())
            addon = context.preferences.addons.get(__package__)
            if addon is not None:
                self.layout.prop(addon.preferences, "byo_path")
            self.layout.operator("byo.connect", icon="FILE_REFRESH")
            return
        _state["ui"].draw_main(self.layout, context)


CLASSES = (ByoPreferences, BYO_OT_connect, BYO_PT_main)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    attach()


def unregister():
    if _state["ui"] is not None:
        _state["ui"].unregister()
        _state["ui"] = None
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
