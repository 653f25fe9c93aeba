"""The panel's operators: Randomize, Build scene, Render preview, Show legend, Load YAML,
Export YAML, and marking a parameter as a variable of the experiment."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import bpy
import yaml
from bpy.props import StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from byo.authoring.design import new_config, summary
from byo.blender import engine
from byo.core.errors import ConfigError, RenderError
from byo.families import get_family, load_config
from byo.render import job
from byo.render.legend import legend_text
from byo.render.runner import sample_tasks
from byo.scene.plan import make_job

from . import byo_folder, preview, props

LEGEND_TEXT = "BYO legend"


def problem_text(err: Exception) -> str:
    """One line for the status and the report (a ConfigError lists its problems)."""
    if isinstance(err, ConfigError):
        return "; ".join(f"{key}: {msg}" for key, msg in err.problems)
    return str(err)


class _DesignOperator(bpy.types.Operator):
    bl_options = {"REGISTER"}

    @classmethod
    def poll(cls, context):
        return context.scene is not None and hasattr(context.scene, "byo")

    def fail(self, design, message: str) -> set[str]:
        design.status = message
        self.report({"ERROR"}, message)
        return {"CANCELLED"}

    def done(self, design, message: str) -> set[str]:
        design.status = message
        self.report({"INFO"}, message)
        return {"FINISHED"}


class BYO_OT_randomize(_DesignOperator):
    """Draw a new seed: a new scene with the same parameters"""

    bl_idname = "byo.randomize"
    bl_label = "Randomize"

    def execute(self, context):
        design = context.scene.byo
        design.seed = random.randrange(props.SEED_MAX)
        return self.done(design, f"seed {design.seed}")


def build(context, config: dict) -> bpy.types.Scene:
    """Build the first image of `config` into a new scene named after it that stays. What an
    earlier build of a config of that name made is replaced; any other scene is left alone."""
    cfg = load_config(config, "<design>")
    (task,) = sample_tasks(cfg, [make_job(cfg, 0)], "<design>")
    name = cfg.dataset.name
    scene, legend = job.build_kept(task, f"{name} (building)", threads=os.cpu_count() or 1)
    window = context.window if not bpy.app.background else None
    if window is not None:  # show it (the user's scenes stay as they are)
        window.scene = scene
    for earlier in [s for s in bpy.data.scenes if s != scene and engine.is_build(s) and s.byo.name == name]:
        engine.remove_build(earlier)
    scene.name = name
    props.load_into(scene.byo, config)
    scene.byo.legend_json = json.dumps(legend)
    for _, area in preview._areas("VIEW_3D"):
        area.spaces.active.region_3d.view_perspective = "CAMERA"  # what the model will see
    return scene


class BYO_OT_build_scene(_DesignOperator):
    """Build the design's first image into a new scene named after the config (your other
    scenes and objects are left alone; a scene built before under that name is replaced)"""

    bl_idname = "byo.build_scene"
    bl_label = "Build scene"

    def execute(self, context):
        design = context.scene.byo
        try:
            config = props.design_config(design)
            scene = build(context, config)
        except (ConfigError, RenderError) as err:
            return self.fail(design, problem_text(err))
        legend = json.loads(scene.byo.legend_json)
        shown = sum(o["visible"] for o in legend["objects"])
        return self.done(scene.byo, f"built scene {scene.name!r}: {len(legend['objects'])} objects, {shown} visible")


class BYO_OT_render_preview(_DesignOperator):
    """Render the design's first image in a background process (the interface stays
    responsive) and show it in an image editor"""

    bl_idname = "byo.render_preview"
    bl_label = "Render preview"

    def execute(self, context):
        design = context.scene.byo
        try:
            config = props.design_config(design)
            load_config(config, "<design>")
        except ConfigError as err:
            return self.fail(design, problem_text(err))
        preview.start(context.scene.name, config, byo_folder())
        return self.done(design, "rendering the preview in the background...")


class BYO_OT_show_legend(_DesignOperator):
    """Show the legend (ground truth) of the last build or preview in a text editor"""

    bl_idname = "byo.show_legend"
    bl_label = "Show legend"

    def execute(self, context):
        design = context.scene.byo
        if not design.legend_json:
            return self.fail(design, "no legend yet: Build scene or Render preview first")
        legend = json.loads(design.legend_json)
        text = bpy.data.texts.get(LEGEND_TEXT) or bpy.data.texts.new(LEGEND_TEXT)
        text.clear()
        text.write(legend_text(legend, get_family(legend["family"])))
        preview.show_text(text)
        return self.done(design, f"legend of {legend['name']} in the text {LEGEND_TEXT!r}")


class _YamlFile(_DesignOperator):
    filename_ext = ".yaml"
    filter_glob: StringProperty(default="*.yaml;*.yml", options={"HIDDEN"})


class BYO_OT_load_yaml(_YamlFile, ImportHelper):
    """Load a dataset config (YAML) into the panel"""

    bl_idname = "byo.load_yaml"
    bl_label = "Load YAML"

    def execute(self, context):
        design = context.scene.byo
        try:
            load_config(self.filepath)
            props.load_into(design, yaml.safe_load(Path(self.filepath).read_text()))
        except ConfigError as err:
            return self.fail(design, problem_text(err))
        design.legend_json = ""
        return self.done(design, f"loaded {self.filepath}")


class BYO_OT_export_yaml(_YamlFile, ExportHelper):
    """Export the design and its variables as a dataset config (YAML) for `byo render`"""

    bl_idname = "byo.export_yaml"
    bl_label = "Export YAML"

    def invoke(self, context, event):
        self.filepath = f"{context.scene.byo.name}.yaml"
        return ExportHelper.invoke(self, context, event)

    def execute(self, context):
        design = context.scene.byo
        try:
            config = props.design_config(design)
            count, how = summary(config)
        except ConfigError as err:
            return self.fail(design, problem_text(err))
        Path(self.filepath).write_text(yaml.safe_dump(config, sort_keys=False))
        return self.done(design, f"exported {self.filepath}: {count} images ({how})")


class BYO_OT_toggle_variable(_DesignOperator):
    """Vary this parameter across the experiment (again: hold it fixed)"""

    bl_idname = "byo.toggle_variable"
    bl_label = "Vary"

    key: StringProperty(name="Key", description="dotted path under scene")

    def execute(self, context):
        design = context.scene.byo
        for k, item in enumerate(design.variables):
            if item.key == self.key:
                design.variables.remove(k)
                return self.done(design, f"{self.key} is fixed again")
        try:
            props.add_variable(design, self.key)
        except StopIteration:
            return self.fail(design, f"{self.key} is not a control of the {design.family} panel")
        return self.done(design, f"{self.key} varies: set its levels under Experiment")


class BYO_OT_reset(_DesignOperator):
    """Start the design again from the family's defaults"""

    bl_idname = "byo.reset"
    bl_label = "Reset"

    def execute(self, context):
        design = context.scene.byo
        props.load_into(design, new_config(design.family, design.name, design.seed))
        design.legend_json = ""
        return self.done(design, f"{design.family} defaults")


CLASSES = (BYO_OT_randomize, BYO_OT_build_scene, BYO_OT_render_preview, BYO_OT_show_legend, BYO_OT_load_yaml,
           BYO_OT_export_yaml, BYO_OT_toggle_variable, BYO_OT_reset)
