"""Designing a scene with controls (the Blender add-on's panel): which parameters a designer
edits, what each shows for a config, and the config the panel exports. Pure Python; no bpy.

The exported config is the loaded (or last exported) one with only the controls the designer
changed written into it, so every key round-trips, shown or not, and presets stay presets.
"""

from __future__ import annotations

import copy
import functools
import math
import operator
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import yaml
from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel

from byo.core.errors import ConfigError
from byo.families import get_family, load_config
from byo.families.base import Family
from byo.scene.assets import PackError, find_pack, list_packs
from byo.scene.config import family_scene, set_path, validate_scene
from byo.scene.plan import combination_count, image_count
from byo.scene.setup import (
    BLUR_FSTOP,
    CAMERA_DISTANCE,
    CAMERA_ELEVATION,
    LIGHTING,
    QUALITY,
    RESOLUTION,
    TABLE_PALETTE,
    TABLE_TEXTURE,
)

KEEP = "(as in the config)"  # a choice whose config value is none of the choices: left as it is
NULL = "null"  # a choice or pack left unset (as YAML writes it)
Kind = Literal["int", "float", "bool", "choice", "text", "pack", "size"]


@dataclass(frozen=True)
class Control:
    """One parameter on the panel: a dotted path under the config's `scene`."""

    key: str
    label: str
    kind: Kind
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    presets: Mapping[str, float] | None = None  # names a config may give instead of the number
    pack_kind: str | None = None
    nullable: bool = False  # text: empty means null; choice and pack: NULL
    unit: str = ""  # what the number means, for tooltips

    @property
    def name(self) -> str:
        """An identifier for the control (Blender property names cannot hold dots)."""
        return self.key.replace(".", "__")

    def options(self) -> list[str]:
        """The values a choice or pack control can take."""
        if self.kind == "pack":
            return [NULL, *pack_options(self.pack_kind)]
        return [*((NULL,) if self.nullable and NULL not in self.choices else ()), *self.choices]


def pack_options(kind: str | None) -> list[str]:
    """Packs of `kind`; for table textures also "pack/texture" for each texture."""
    out = []
    for name in list_packs(kind):
        out.append(name)
        if kind == "table_texture":
            try:
                out += [f"{name}/{t}" for t in find_pack(name, kind).manifest.textures]
            except PackError:
                pass
    return out


SETUP_CONTROLS: tuple[Control, ...] = (  # labels are short: the panel shows them by section
    Control("camera.distance", "Distance", "float", minimum=0.05, maximum=100.0, presets=CAMERA_DISTANCE,
            unit="m from the scene centre"),
    Control("camera.elevation", "Elevation", "float", minimum=0.1, maximum=90.0, presets=CAMERA_ELEVATION,
            unit="degrees above the horizon"),
    Control("camera.azimuth", "Azimuth", "float", minimum=-360.0, maximum=360.0, unit="degrees; 0: from -Y"),
    Control("lighting.intensity", "Lighting", "float", minimum=0.0, maximum=10.0, presets=LIGHTING,
            unit="multiplier of the lights' power"),
    Control("blur.fstop", "Blur", "choice", choices=tuple(BLUR_FSTOP), unit="depth of field f-stop"),
    Control("table.enabled", "Table", "bool"),
    Control("table.shape", "Shape", "choice", choices=("rectangular", "circular", "elliptic")),
    Control("table.color", "Colour", "choice", choices=(*TABLE_PALETTE, "random")),
    Control("table.texture", "Texture", "choice", choices=TABLE_TEXTURE, unit="entropy"),
    Control("table.image", "Image", "pack", pack_kind="table_texture", nullable=True,
            unit="a table texture pack, or pack/texture"),
    Control("resolution", "Resolution", "size", unit="pixels"),
    Control("render.engine", "Engine", "choice", choices=("cycles", "workbench")),
    Control("render.quality", "Quality", "choice", choices=tuple(QUALITY), unit="preset (samples, denoiser, bounces)"),
    Control("render.samples", "Samples", "int", minimum=1, maximum=4096, unit="Cycles samples per pixel"),
)

# --- controls from a family's content model -------------------------------------------------
def _field(model: type[BaseModel], parts: list[str]):
    field = model.model_fields[parts[0]]
    if len(parts) == 1:
        return field
    return _field(field.annotation, parts[1:])


def _unwrap_optional(annotation) -> tuple[Any, bool]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) < len(typing.get_args(annotation)):
            return functools.reduce(operator.or_, args), True
    return annotation, False


def _bounds(metadata) -> tuple[float | None, float | None]:
    low = high = None
    for m in metadata:
        if isinstance(m, (Ge, Gt)):
            low = float(m.ge if isinstance(m, Ge) else m.gt)
        elif isinstance(m, (Le, Lt)):
            high = float(m.le if isinstance(m, Le) else m.lt)
    return low, high


def field_control(model: type[BaseModel], key: str) -> Control:
    """A control for `key` (dotted) of a content model, its kind read from the field's type."""
    field = _field(model, key.split("."))
    label = key.split(".")[-1].replace("_", " ").capitalize()
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    annotation, nullable = _unwrap_optional(field.annotation)
    low, high = _bounds(field.metadata)
    content_key = f"content.{key}"
    if "pack" in extra:
        return Control(content_key, label, "pack", pack_kind=extra["pack"], nullable=True)
    if annotation is bool:
        return Control(content_key, label, "bool")
    if annotation is int and not nullable:
        return Control(content_key, label, "int", minimum=low, maximum=high)
    if annotation is float and not nullable:
        return Control(content_key, label, "float", minimum=low, maximum=high)
    if typing.get_origin(annotation) is Literal:
        return Control(content_key, label, "choice", choices=tuple(map(str, typing.get_args(annotation))),
                       nullable=nullable)
    return Control(content_key, label, "text", nullable=nullable)


def _plain_fields(model: type[BaseModel]) -> list[str]:
    return [name for name, f in model.model_fields.items()
            if not (isinstance(f.annotation, type) and issubclass(f.annotation, BaseModel))]


def content_controls(family: Family) -> list[Control]:
    model = family.content_model
    chosen = []
    for key in family.design_keys or _plain_fields(model):
        try:
            chosen.append(field_control(model, key))
        except (KeyError, AttributeError):
            continue  # a key this version of the family does not have
    return chosen or [field_control(model, k) for k in _plain_fields(model)]


def controls(family: Family) -> list[Control]:
    return [*SETUP_CONTROLS, *content_controls(family)]


# --- what a config shows on the panel --------------------------------------------------------
def _at(tree: Any, key: str) -> Any:
    for part in key.split("."):
        tree = tree.get(part) if isinstance(tree, dict) else None
    return tree


def text_of(value: Any) -> str:
    """A value as a one-line YAML text (empty for null)."""
    if value is None:
        return ""
    return yaml.safe_dump(value, default_flow_style=True, width=10_000).strip().removesuffix("...").strip()


def parse_text(text: str) -> Any:
    return None if not text.strip() else yaml.safe_load(text)


def effective_scene(config: dict, family: Family) -> tuple[dict, dict]:
    """The shared setup and the content as validated (JSON values), family defaults merged in.
    Raises ConfigError when the scene is invalid."""
    scene = family_scene(family, config.get("scene") or {})
    scene["content"] = scene.get("content") or {}  # the panel reads an empty content as the defaults
    setup, content, problems = validate_scene(scene, family)
    if problems:
        raise ConfigError("<design>", problems)
    return setup.model_dump(mode="json"), content.model_dump(mode="json")


def _shown(control: Control, value: Any) -> Any:
    """A config value as the control shows it."""
    if control.kind == "size":
        if isinstance(value, str):
            return list(RESOLUTION[value])
        return [value["width"], value["height"]] if isinstance(value, dict) else list(value)
    if control.kind == "float":
        if isinstance(value, str) and control.presets:
            return float(control.presets[value])
        return float(value)
    if control.kind == "int":
        return int(value)
    if control.kind == "bool":
        return bool(value)
    if control.kind == "pack":
        if value is None:
            return NULL
        if isinstance(value, dict):  # table.image: {pack, texture}
            return value["pack"] + (f"/{value['texture']}" if value.get("texture") else "")
        return value
    if control.kind == "choice":
        shown = NULL if value is None else str(value)
        return shown if shown in control.options() else KEEP
    return text_of(value)


def panel_values(config: dict, family: Family) -> dict[str, Any]:
    """Every control's value for `config` (whose scene must be valid for `family`)."""
    setup, content = effective_scene(config, family)
    tree = {**setup, "content": content}
    return {c.key: _shown(c, _at(tree, c.key)) for c in controls(family)}


# --- the config the panel exports ------------------------------------------------------------
def _same(control: Control, a: Any, b: Any) -> bool:
    if control.kind == "float":
        return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-6)  # Blender keeps float32
    if control.kind == "size":
        return list(a) == list(b)
    return a == b


def _written(control: Control, value: Any) -> Any:
    """A panel value as the config holds it."""
    if control.kind == "float":
        return float(repr(np.float32(value)))  # Blender keeps 32 bits: the shortest decimal that is them
    if control.kind == "int":
        return int(value)
    if control.kind == "size":
        return [int(value[0]), int(value[1])]
    if control.kind == "pack":
        if value == NULL:
            return None
        if control.key == "table.image":
            pack, _, texture = value.partition("/")
            return {"pack": pack, "texture": texture or None}
        return value
    if control.kind == "choice":
        return None if value == NULL and control.nullable else value
    if control.kind == "text":
        return parse_text(value)
    return value


def new_config(family: str, name: str = "design", seed: int = 0) -> dict:
    return {"dataset": {"name": name, "family": family, "seed": seed, "n_images": 1}, "scene": {}, "variables": {}}


def export_config(base: dict, family: str, values: Mapping[str, Any], *, dataset: Mapping[str, Any] | None = None,
                  variables: Mapping[str, dict] | None = None) -> dict:
    """`base` with the controls whose `values` differ from what `base` shows written into its
    scene, `dataset` keys set and `variables` (when given) replacing its variables. Switching
    the family starts the content from the new family's defaults."""
    config = copy.deepcopy(base)
    config.setdefault("scene", {})
    fam = get_family(family)
    if config.setdefault("dataset", {}).get("family") != family:
        config["dataset"]["family"] = family
        config["scene"].pop("content", None)
        config["variables"] = {k: v for k, v in (config.get("variables") or {}).items()
                               if not k.startswith("content.")}
    config["dataset"].update(dataset or {})
    shown = panel_values(config, fam)
    for control in controls(fam):
        if control.key not in values:
            continue
        value = values[control.key]
        if value == KEEP or _same(control, value, shown[control.key]):
            continue
        set_path(config["scene"], control.key, _written(control, value))
    if variables is not None and (variables or "variables" in config):
        config["variables"] = dict(variables)
    return config


# --- variables --------------------------------------------------------------------------------
VARIATION_TYPES = ("varying_all", "varying_all_range", "varying_random", "varying_among_range", "fixed")


SUGGESTED = {"camera.azimuth": {"type": "varying_among_range", "min": 0.0, "max": 360.0, "integer": False}}


def _within(control: Control, value: float) -> bool:
    return (control.minimum is None or value >= control.minimum) and (
        control.maximum is None or value <= control.maximum)


def _candidates(control: Control, value: Any) -> dict[str, Any]:
    if control.key in SUGGESTED:
        return dict(SUGGESTED[control.key])
    if control.kind == "float" and control.presets:
        return {"type": "varying_all", "levels": list(control.presets)}
    if control.kind == "float":
        levels = [_written(control, value * f) for f in (0.5, 1.0, 1.5)]
        return {"type": "varying_all", "levels": [v for v in levels if _within(control, v)]}
    if control.kind == "int":
        high = int(value) + 2 if control.maximum is None else min(int(value) + 2, int(control.maximum))
        low = max(high - 2, int(value) if control.minimum is None else int(control.minimum))
        return {"type": "varying_all_range", "min": min(low, int(value)), "max": high}
    if control.kind == "bool":
        return {"type": "varying_all", "levels": [True, False]}
    if control.kind in ("choice", "pack"):
        options = [o for o in control.options() if o != KEEP]
        return {"type": "varying_all", "levels": [_written(control, o) for o in options]}
    return {"type": "varying_all", "levels": [_written(control, value)]}


def suggested_variable(config: dict, control: Control) -> dict[str, Any]:
    """A first variation for a control marked as a variable: levels around its current value
    (or every choice), keeping only those that make a valid scene with the rest of `config`."""
    family = get_family(config["dataset"]["family"])
    value = panel_values(config, family)[control.key]
    variation = _candidates(control, value)
    if "levels" in variation:
        base = family_scene(family, config.get("scene") or {})
        kept = []
        for level in variation["levels"]:
            scene = copy.deepcopy(base)
            set_path(scene, control.key, level)
            if not validate_scene(scene, family)[2]:
                kept.append(level)
        variation["levels"] = kept or [_written(control, value)]
    return variation


def variable_fields(variation: Mapping[str, Any]) -> dict[str, Any]:
    """A variation as the panel edits it: its type, its levels (one YAML text) or bounds."""
    kind = variation["type"]
    listed = {"varying_all": "levels", "varying_random": "choices", "fixed": "value"}.get(kind)
    return {
        "type": kind,
        "levels": text_of(variation[listed]) if listed else "",
        "min": float(variation.get("min", 0.0)), "max": float(variation.get("max", 0.0)),
        "step": float(variation.get("step") or 0.0),
        "integer": bool(variation["integer"]) if variation.get("integer") is not None else (
            kind == "varying_among_range" and all(float(variation[b]).is_integer() for b in ("min", "max"))),
        "n_images": int(variation.get("n_images") or 0),
    }


def _number(x: float, integral: bool) -> float | int:
    return int(round(x)) if integral else round(float(x), 6)


def variable_config(fields: Mapping[str, Any], original: Mapping[str, Any] | None = None) -> dict:
    """The variation of panel `fields`; `original` itself when the fields are unchanged from it."""
    if original is not None and variable_fields(original) == dict(fields):
        return dict(original)
    kind = fields["type"]
    out: dict[str, Any] = {"type": kind}
    if kind in ("varying_all", "varying_random", "fixed"):
        key = {"varying_all": "levels", "varying_random": "choices", "fixed": "value"}[kind]
        value = parse_text(fields["levels"])
        out[key] = value if kind == "fixed" or isinstance(value, list) else [value]
    elif kind == "varying_all_range":
        integral = fields["step"] <= 0 or float(fields["step"]).is_integer() and all(
            float(fields[b]).is_integer() for b in ("min", "max"))
        out.update(min=_number(fields["min"], integral), max=_number(fields["max"], integral))
        if fields["step"] > 0:
            out["step"] = _number(fields["step"], integral)
    else:
        out.update(min=_number(fields["min"], fields["integer"]), max=_number(fields["max"], fields["integer"]),
                   integer=bool(fields["integer"]))
    if fields.get("n_images"):
        out["n_images"] = int(fields["n_images"])
    return out


def summary(config: dict) -> tuple[int, str]:
    """The image count of an exported config and a line saying how it comes about; raises
    ConfigError when the config is invalid."""
    cfg = load_config(config, "<design>")
    combos, reps = combination_count(cfg), cfg.repetitions
    return image_count(cfg), f"{combos} combination{'s' * (combos != 1)} x {reps} image{'s' * (reps != 1)}"
