"""The setup model, pure Python: the family-independent part of a scene (camera, lighting, blur,
table, floor, background, resolution, render). byo/blender/setup_builder.py builds it in Blender.

Two layers per part: a config model (what a user writes, presets allowed) and a resolved
model (plain numbers, as applied to the render and recorded in the legend). Presets follow
BYO-Eval appendix D.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from pydantic import Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from byo.core.errors import Note
from byo.core.schema import SRGB, Strict, left_out_when_none, srgb
from byo.scene import camera as camera_math
from byo.scene.assets import PackError, find_pack
from byo.scene.measure import HIDDEN_FRACTION, MIN_VISIBLE_PIXELS, hidden_below, scaled_floor

# --- presets (BYO-Eval appendix D) -------------------------------------------------------
CAMERA_DISTANCE = {"low": 1.0, "medium": 3.0, "high": 5.0}  # metres from the scene centre
CAMERA_ELEVATION = {"top_down": 90.0, "steep": 80.0, "oblique": 60.0, "shallow": 30.0}  # degrees above horizon
# BYO-Eval's names of the same elevations count the tilt away from top-down, so as elevations they
# read backwards ("high" is 30 degrees, the lowest camera): still accepted, with a note.
ELEVATION_RENAMED = {"none": "top_down", "low": "steep", "medium": "oblique", "high": "shallow"}
LIGHTING = {"very_low": 0.3, "low": 0.6, "medium": 1.0, "high": 1.5, "very_high": 2.0}
BLUR_FSTOP = {"none": None, "very_low": 9.0, "low": 4.0, "medium": 2.0, "high": 1.0, "very_high": 0.5}
TABLE_TEXTURE = ("low", "medium", "high")  # texture entropy: plain / noise / layered noise + bump
RESOLUTION = {"low": (640, 480), "medium": (1280, 720), "high": (1920, 1080)}
HD_PIXELS = 1920 * 1080  # from this many pixels a family's quality presets for full HD apply
TABLE_PALETTE = {  # low-entropy table colours of appendix D.1.3
    "light_gray": (0.8, 0.8, 0.8),
    "medium_gray": (0.6, 0.6, 0.6),
    "dark_gray": (0.4, 0.4, 0.4),
    "light_wood": (0.8, 0.7, 0.6),
    "medium_wood": (0.6, 0.5, 0.4),
    "dark_wood": (0.4, 0.3, 0.2),
}
BASE_LIGHT_POWER = {"key": 400.0, "fill": 200.0, "back": 300.0}  # watts at 8 m, preset "medium"
LIGHT_REFERENCE_DISTANCE = 8.0

RGB = tuple[float, float, float]


class PresetRenamed(Note):
    """A preset given by a name it no longer goes by."""


def renamed_elevation(value):
    """A camera elevation preset under its current name; BYO-Eval's old names, with a note."""
    if isinstance(value, str) and value in ELEVATION_RENAMED:
        new = ELEVATION_RENAMED[value]
        warnings.warn(PresetRenamed(
            f"camera.elevation {value!r} is now {new!r} ({CAMERA_ELEVATION[new]:g} degrees above the horizon): "
            "BYO-Eval's names count the tilt from top-down"), stacklevel=2)
        return new
    return value


# Variables given by presets: the number each preset stands for, what it measures and how a value
# is written beside its name. Blur is fitted on the aperture 1 / f-number, which the blur circle's
# size is proportional to (0: no blur), so that more blur is a larger number.
PRESET_VARIABLES = {
    "camera.elevation": ({**CAMERA_ELEVATION, **{o: CAMERA_ELEVATION[n] for o, n in ELEVATION_RENAMED.items()}},
                         "degrees above the horizon", "{:g}°"),
    "camera.distance": (CAMERA_DISTANCE, "metres from the scene centre", "{:g} m"),
    "lighting.intensity": (LIGHTING, "times the lights' base power", "×{:g}"),
    "blur.fstop": ({name: 0.0 if f is None else 1 / f for name, f in BLUR_FSTOP.items()},
                   "aperture 1 / f-number (the blur circle grows with it; 0: no blur)", None),
}


def preset_number(variable: str, level) -> float | None:
    """The number a preset level of a variable stands for (camera.elevation "shallow": 30.0), or None
    for a level that is not one of the variable's presets."""
    table = PRESET_VARIABLES.get(variable)
    if table is None or not isinstance(level, str) or level not in table[0]:
        return None
    return float(table[0][level])


def preset_unit(variable: str) -> str | None:
    """What a preset variable's numbers measure ("degrees above the horizon"), or None."""
    return PRESET_VARIABLES[variable][1] if variable in PRESET_VARIABLES else None


def level_label(variable: str, level) -> str:
    """A level for people: a preset's name with its value beside it ("shallow (30°)", "high (f/1)"),
    anything else as it is."""
    number = preset_number(variable, level)
    if number is None:
        return str(level)
    if variable == "blur.fstop":
        fstop = BLUR_FSTOP.get(level)
        return f"{level} ({'no blur' if fstop is None else f'f/{fstop:g}'})"
    return f"{level} ({PRESET_VARIABLES[variable][2].format(number)})"


def _preset_or_number(value, table: dict, what: str):
    if isinstance(value, bool):
        raise ValueError(f"expected a {what} preset ({', '.join(table)}) or a number")
    if isinstance(value, str) and value not in table:
        raise ValueError(f"unknown {what} preset {value!r}; expected one of {', '.join(table)} or a number")
    return value



# --- config models ------------------------------------------------------------------------
class Jitter(Strict):
    """Seeded uniform jitter, as a fraction of the value (distance, elevation) or degrees (azimuth)."""

    distance: float = Field(0.0, ge=0.0, le=0.9)
    elevation: float = Field(0.0, ge=0.0, le=0.9)
    azimuth: float = Field(0.0, ge=0.0, le=180.0)


class CameraConfig(Strict):
    distance: float | str = "medium"
    elevation: float | str = "oblique"
    azimuth: float = 0.0
    focal_length: float = Field(50.0, gt=0)
    sensor_width: float = Field(36.0, gt=0)
    projection: Literal["perspective", "orthographic"] = "perspective"
    ortho_scale: float = Field(2.0, gt=0)  # orthographic: metres spanned by the larger image side
    target: tuple[float, float, float] = (0.0, 0.0, 0.0)
    jitter: Jitter = Jitter()

    @field_validator("distance")
    @classmethod
    def _distance(cls, v):
        v = _preset_or_number(v, CAMERA_DISTANCE, "camera distance")
        if not isinstance(v, str) and v <= 0:
            raise ValueError("camera distance must be positive")
        return v

    @field_validator("elevation")
    @classmethod
    def _elevation(cls, v):
        v = _preset_or_number(renamed_elevation(v), CAMERA_ELEVATION, "camera elevation")
        if not isinstance(v, str) and not 0.0 < v <= 90.0:
            raise ValueError("camera elevation must be in (0, 90] degrees above the horizon")
        return v


class LightingConfig(Strict):
    intensity: float | str = "medium"
    key_power: float = Field(BASE_LIGHT_POWER["key"], ge=0)
    fill_power: float = Field(BASE_LIGHT_POWER["fill"], ge=0)
    back_power: float = Field(BASE_LIGHT_POWER["back"], ge=0)
    jitter: float = Field(0.0, ge=0.0, le=0.9)  # fractional power jitter per light

    @field_validator("intensity")
    @classmethod
    def _intensity(cls, v):
        v = _preset_or_number(v, LIGHTING, "lighting")
        if not isinstance(v, str) and v < 0:
            raise ValueError("lighting multiplier must be >= 0")
        return v


# Blur is a defocus of the whole scene: by default the camera focuses in front of it, at this
# fraction of its distance to the target, so that everything on the table is out of focus by
# about the same amount and each f-stop preset blurs visibly more than the previous one.
DEFAULT_FOCUS_FRACTION = 0.5


class BlurConfig(Strict):
    fstop: float | str | None = "none"
    # metres from the camera; default DEFAULT_FOCUS_FRACTION x the camera's distance to its target
    focus_distance: float | None = Field(None, gt=0)

    @field_validator("fstop")
    @classmethod
    def _fstop(cls, v):
        if v is None:
            return "none"
        v = _preset_or_number(v, BLUR_FSTOP, "blur")
        if not isinstance(v, str) and v <= 0:
            raise ValueError("f-stop must be positive")
        return v


class TableImage(Strict):
    """An image from an asset pack of kind table_texture, repeated across the table top."""

    pack: str  # the pack's name or folder
    texture: str | None = None  # one of its textures; None: each image draws one (seeded)

    @model_validator(mode="after")
    def _check(self):
        try:
            textures = find_pack(self.pack, "table_texture").manifest.textures
        except PackError as err:
            raise ValueError(str(err)) from None
        if self.texture is not None and self.texture not in textures:
            raise ValueError(f"table texture pack {self.pack!r} has no texture {self.texture!r}; "
                             f"expected one of {', '.join(textures)}")
        return self


class TableConfig(Strict):
    enabled: bool = True
    shape: Literal["rectangular", "circular", "elliptic"] = "rectangular"
    length: float = Field(2.0, gt=0)  # along x
    width: float = Field(1.2, gt=0)  # along y
    thickness: float = Field(0.04, gt=0)
    height: float = Field(0.75, ge=0)  # table top above the floor
    texture: Literal["low", "medium", "high"] = "low"
    color: str | tuple[float, ...] = "medium_wood"  # palette name, RGB, or "random" (seeded palette pick)
    roughness: float = Field(0.6, ge=0, le=1)
    image: TableImage | None = None  # an image instead of the colour and the texture noise

    @model_validator(mode="after")
    def _image_or_texture(self):
        if self.image is not None and "texture" in self.model_fields_set and self.texture != "low":
            raise ValueError("table.image replaces the texture noise: leave texture at low, or drop image")
        return self

    @field_validator("color")
    @classmethod
    def _color(cls, v):
        if isinstance(v, str):
            if v not in TABLE_PALETTE and v != "random":
                raise ValueError(f"unknown table colour {v!r}; expected one of {', '.join(TABLE_PALETTE)}, "
                                 "random or RGB")
            return v
        return srgb(v)


class FloorConfig(Strict):
    enabled: bool = True
    color: SRGB = (0.35, 0.35, 0.35)
    roughness: float = Field(0.8, ge=0, le=1)


class BackgroundConfig(Strict):
    color: SRGB = (0.5, 0.5, 0.5)
    strength: float = Field(0.3, ge=0)


class ResolutionConfig(Strict):
    width: int = Field(gt=0, le=8192)
    height: int = Field(gt=0, le=8192)


# Quality presets (render.quality): for each, the cheapest Cycles settings measured to reach its
# target on every scene against 1024-sample references, the busiest of each family included
# (PSNR / SSIM: draft 40 dB / 0.99, standard 45 dB / 0.995, final 50 dB / 0.995). Above draft,
# adaptive sampling spends the samples on edges, where a busy scene's error is. bench/quality.py
# measures them; docs/quality_presets.md has the figures. These are the shared presets: a family
# may declare its own per preset and image size (Family.quality_presets, QualityPreset below;
# bench/family_presets.py chooses them). Keys a config sets itself override any preset's.
QUALITY = {
    "draft": {"samples": 12, "adaptive_threshold": None, "adaptive_min_samples": 0, "denoise_prefilter": "fast",
              "light_tree": False, "sampling_pattern": "sobol"},
    "standard": {"samples": 64, "adaptive_threshold": 0.0325, "adaptive_min_samples": 8, "denoise_prefilter": "none",
                 "light_tree": False, "sampling_pattern": "blue_noise"},
    "final": {"samples": 384, "adaptive_threshold": 0.0075, "adaptive_min_samples": 8, "denoise_prefilter": "none",
              "light_tree": False, "sampling_pattern": "blue_noise"},
}
QualityName = Literal["draft", "standard", "final"]


@dataclass(frozen=True)
class QualityPreset:
    """A family's own settings for one quality preset, for images of at least `from_pixels`
    pixels (width x height): render keys over the shared preset's (QUALITY)."""

    settings: Mapping[str, Any]
    from_pixels: int = 0


# A family's presets: preset name -> its steps by image size (the step with the largest
# `from_pixels` at most the image's pixels applies; below every step, the shared preset).
QualityPresets = Mapping[str, Sequence[QualityPreset]]


def preset_settings(quality: str, pixels: int, presets: QualityPresets | None = None) -> dict[str, Any]:
    """The render keys of preset `quality` for an image of `pixels` pixels: the shared preset,
    and over it the family's step for that size."""
    settings = dict(QUALITY[quality])
    steps = [p for p in (presets or {}).get(quality, ()) if p.from_pixels <= pixels]
    if steps:
        settings.update(max(steps, key=lambda p: p.from_pixels).settings)
    return settings


# The validation context key under which byo.scene.config passes a family's presets to SetupConfig.
FAMILY_PRESETS = "quality_presets"


class CounterfactualConfig(Strict):
    """The counterfactual readability check (byo/scene/counterfactual.py): renders of each object's
    region without it and with each other value of the attributes its family checks by rendering."""

    enabled: bool = True
    samples: int = Field(4, ge=1, le=4096)  # per pixel of a region render (Cycles; Workbench takes its own)
    denoise: bool = False  # the image's denoiser on the region renders too (slower; see docs/readability.md)
    # A first pass at half the samples settles the changes clearly on one side of the threshold;
    # the rest are rendered again at `samples` (byo/scene/counterfactual.py, `settled`).
    screen: bool = True
    # The attributes rendered with each other value; None: the family's choice (Family.rendered_attributes).
    attributes: list[str] | None = None
    # `byo render --for MODEL`: each model and the size it receives of this image (width, height; its
    # provider's published resize): the check is measured again at each such size smaller than the
    # image, on its renders resampled as the model receives them (byo/render/counterfactuals.py).
    received: dict[str, tuple[int, int]] | None = None

    _serialize = left_out_when_none("received")  # legends rendered for no model stay as they were


class RenderConfig(Strict):
    engine: Literal["cycles", "workbench"] = "cycles"
    # Cycles' device: gpu takes the first backend with a device (OptiX, CUDA, HIP, Metal, oneAPI)
    # and fails without one; auto falls back to the CPU. The legend records what was used.
    device: Literal["cpu", "gpu", "auto"] = "cpu"
    quality: QualityName = "standard"
    # The keys below default to the quality preset's values (QUALITY); set, they override it.
    samples: int = Field(64, ge=1, le=4096)
    adaptive_threshold: float | None = Field(0.01, ge=0)  # None disables adaptive sampling
    adaptive_min_samples: int = Field(0, ge=0, le=4096)  # before a pixel may stop; 0: Cycles picks
    denoise: Literal["auto", "on", "off"] = "auto"
    denoise_prefilter: Literal["none", "fast", "accurate"] = "accurate"  # of OIDN's albedo and normal guides
    denoise_quality: Literal["high", "balanced", "fast"] = "high"  # OIDN's (Blender 4.1 on; earlier: high)
    # What OIDN sees beside the noisy colour: its albedo and normal guides, the albedo only, or none.
    denoise_guides: Literal["albedo_normal", "albedo", "none"] = "albedo_normal"
    # Cycles' sampling pattern: sobol (tabulated Sobol) or blue_noise (Blender 4.2 on; earlier: sobol).
    sampling_pattern: Literal["sobol", "blue_noise"] = "sobol"
    light_tree: bool = True  # Cycles' light tree (Blender 4.0 on)
    clamp_indirect: float = Field(10.0, ge=0)  # 0: no clamping of indirect light
    caustics: bool = True
    max_bounces: int = Field(4, ge=0, le=1024)  # Cycles' own limit
    diffuse_bounces: int = Field(3, ge=0, le=1024)  # Cycles' own limit
    glossy_bounces: int = Field(3, ge=0, le=1024)  # Cycles' own limit
    transparent_bounces: int = Field(8, ge=0, le=1024)  # Cycles' own limit
    filter_width: float = Field(1.5, ge=0.01, le=10)
    view_transform: Literal["Standard", "Filmic", "AgX"] = "Standard"
    dither: float = Field(1.0, ge=0, le=2)  # 0: no noise before 8-bit quantization (exact flat colours)
    workbench_lighting: Literal["studio", "flat"] = "studio"  # flat: unlit material colours (2D art)
    workbench_aa: Literal["off", "fxaa", "5", "8", "11", "16", "32"] = "8"  # samples; off: crisp edges
    # An object counts as visible with at least this many mask pixels of the image as rendered
    # (byo/scene/measure.py): the family's own floor where it sets one, else CLEVR's 200 px at
    # 320x240 scaled with the image's area (SetupConfig._visibility_floor).
    min_visible_pixels: int = Field(MIN_VISIBLE_PIXELS, ge=1, le=8192 * 8192)
    # The visibility band: below this fraction of the threshold an object is hidden (it enters no
    # answer); between the two it is ambiguous (a person may or may not see it), and the scene is
    # placed again (resample) or the questions that depend on it are not asked (flag).
    hidden_fraction: float = Field(HIDDEN_FRACTION, ge=0, le=1)
    # What to do when an object is below the threshold: place the scene again (bounded), or keep
    # it and mark the object `visible: false` in the legend.
    on_hidden: Literal["resample", "flag"] = "resample"
    max_visibility_attempts: int = Field(20, ge=1, le=1000)
    # Dense ground truth written next to each image (passes/NAME.KIND.npy), and the camera's
    # intrinsics and extrinsics in the legend; off (None) by default. Cycles only.
    passes: list[Literal["depth", "normal", "albedo", "object_ids"]] | None = None
    counterfactual: CounterfactualConfig = CounterfactualConfig()

    _serialize = left_out_when_none("passes")  # legends without passes stay as they were

    @model_validator(mode="before")
    @classmethod
    def _no_fraction(cls, data):
        if isinstance(data, dict) and "min_visible_fraction" in data:
            raise ValueError("min_visible_fraction: visibility is counted in pixels of the image as rendered, not as "
                             "a share of its area; set render.min_visible_pixels")
        return data

    @model_validator(mode="after")
    def _passes(self):
        if self.passes is not None:
            if len(set(self.passes)) != len(self.passes):
                raise ValueError("render.passes: each pass once")
            if self.engine != "cycles" and self.passes:
                raise ValueError("render.passes needs render.engine cycles (Workbench has no data passes)")
        return self

    # Every setting as applied (the preset's, a family's step for the image size, the config's
    # own): pydantic runs the validator below again when this instance is handed to another model,
    # and a spec read back from its JSON (every key set) holds the same.
    _applied: dict[str, Any] | None = PrivateAttr(None)

    @model_validator(mode="after")
    def _quality_preset(self):
        self.apply_preset(self._applied or QUALITY[self.quality])
        return self

    def apply_preset(self, settings: Mapping[str, Any]) -> None:
        """Take the preset's value of every key the config does not set itself."""
        for key, value in settings.items():
            if key not in self.model_fields_set:
                self.__dict__[key] = value
        self._applied = {key: self.__dict__[key] for key in type(self).model_fields}


class SetupConfig(Strict):
    """The family-independent part of a scene."""

    camera: CameraConfig = CameraConfig()
    lighting: LightingConfig = LightingConfig()
    blur: BlurConfig = BlurConfig()
    table: TableConfig = TableConfig()
    floor: FloorConfig = FloorConfig()
    background: BackgroundConfig = BackgroundConfig()
    resolution: str | ResolutionConfig | tuple[int, int] = "low"
    render: RenderConfig = RenderConfig()

    @field_validator("resolution")
    @classmethod
    def _resolution(cls, v):
        if isinstance(v, str):
            return _preset_or_number(v, RESOLUTION, "resolution")
        if isinstance(v, tuple):
            return ResolutionConfig(width=v[0], height=v[1])
        return v

    @property
    def pixels(self) -> int:
        res = self.resolution
        width, height = RESOLUTION[res] if isinstance(res, str) else (res.width, res.height)
        return width * height

    @model_validator(mode="after")
    def _family_preset(self, info: ValidationInfo):
        """The family's own settings of the quality preset at this image size (passed as the
        validation context by byo.scene.config.validate_scene), where it declares any."""
        presets = (info.context or {}).get(FAMILY_PRESETS)
        if presets:
            self.render.apply_preset(preset_settings(self.render.quality, self.pixels, presets))
        return self

    @model_validator(mode="after")
    def _visibility_floor(self):
        """The visibility floor in the image's terms: unless the config (or its family) sets
        render.min_visible_pixels, CLEVR's 200 px at 320x240 scaled with this image's area."""
        if "min_visible_pixels" not in self.render.model_fields_set:
            self.render.apply_preset({"min_visible_pixels": scaled_floor(self.pixels)})
        return self

    @model_validator(mode="after")
    def _observable(self):
        """Options Workbench cannot show are errors, not silently inert levels: its studio light
        ignores the scene's lights, it draws no node textures, and its depth of field drops small blurs."""
        if self.render.engine != "workbench":
            return self
        inert = [f"lighting.{k}" for k, v in self.lighting if v != LightingConfig.model_fields[k].default]
        if self.blur.fstop not in ("none", None):
            inert.append("blur.fstop")
        if self.table.texture != "low":
            inert.append("table.texture")
        if inert:
            raise ValueError(f"{', '.join(inert)}: no effect under render.engine workbench (it ignores the "
                             "scene's lights, node textures and small blurs); use render.engine cycles")
        return self


# --- resolved models ----------------------------------------------------------------------
class ResolvedCamera(Strict):
    distance: float
    elevation: float
    azimuth: float
    focal_length: float
    sensor_width: float
    projection: Literal["perspective", "orthographic"] = "perspective"
    ortho_scale: float = 2.0
    target: tuple[float, float, float]
    location: tuple[float, float, float]


class ResolvedLight(Strict):
    name: Literal["key", "fill", "back"]
    power: float
    location: tuple[float, float, float]
    size: float


class ResolvedBlur(Strict):
    enabled: bool
    fstop: float | None
    focus_distance: float | None


class ResolvedTableImage(Strict):
    pack: str
    texture: str
    size: tuple[float, float]  # metres one copy of the image covers


class ResolvedTable(Strict):
    enabled: bool
    shape: str
    length: float
    width: float
    thickness: float
    height: float
    texture: str
    color: RGB
    roughness: float
    image: ResolvedTableImage | None = None

    _serialize = left_out_when_none("image")  # legends of tables without an image stay as they were


class ResolvedSetup(Strict):
    camera: ResolvedCamera
    lighting_multiplier: float
    lights: list[ResolvedLight]
    blur: ResolvedBlur
    table: ResolvedTable
    floor: FloorConfig
    background: BackgroundConfig
    resolution: tuple[int, int]
    render: RenderConfig
    min_visible_pixels: int  # visible from this many mask pixels...
    hidden_below_pixels: int  # ...hidden below this many; ambiguous in between
    floor_z: float

    def projector(self) -> camera_math.Projector:
        c = self.camera
        return camera_math.Projector(
            location=c.location, target=c.target, azimuth=c.azimuth,
            focal_length=c.focal_length, sensor_width=c.sensor_width, resolution=self.resolution,
            ortho_scale=c.ortho_scale if c.projection == "orthographic" else None,
        )


def _table_image(image: TableImage | None, rng: np.random.Generator) -> ResolvedTableImage | None:
    """The texture, drawn after every other setup draw when the config leaves it to each image."""
    if image is None:
        return None
    textures = find_pack(image.pack, "table_texture").manifest.textures
    name = image.texture or list(textures)[int(rng.integers(len(textures)))]
    return ResolvedTableImage(pack=image.pack, texture=name, size=textures[name].size)


def _r(x: float, nd: int = 6) -> float:
    return float(round(float(x), nd))


def resolve_setup(cfg: SetupConfig, rng: np.random.Generator) -> ResolvedSetup:
    """Turn presets into numbers and draw the seeded jitter. Pure Python; no bpy."""
    cam = cfg.camera
    distance = CAMERA_DISTANCE[cam.distance] if isinstance(cam.distance, str) else float(cam.distance)
    elevation = CAMERA_ELEVATION[cam.elevation] if isinstance(cam.elevation, str) else float(cam.elevation)
    # Always draw the same number of values so that enabling one jitter never shifts the others.
    u = rng.uniform(-1.0, 1.0, size=3)
    distance *= 1.0 + cam.jitter.distance * u[0]
    elevation = min(90.0, elevation * (1.0 + cam.jitter.elevation * u[1]))
    azimuth = (cam.azimuth + cam.jitter.azimuth * u[2]) % 360.0
    location = camera_math.orbit_location(cam.target, distance, elevation, azimuth)
    camera = ResolvedCamera(
        distance=_r(distance), elevation=_r(elevation), azimuth=_r(azimuth),
        focal_length=cam.focal_length, sensor_width=cam.sensor_width, projection=cam.projection,
        ortho_scale=cam.ortho_scale, target=cam.target, location=tuple(_r(v) for v in location),
    )

    light = cfg.lighting
    multiplier = LIGHTING[light.intensity] if isinstance(light.intensity, str) else float(light.intensity)
    light_u = rng.uniform(-1.0, 1.0, size=3)
    radius = max(2.0, 1.2 * distance)
    falloff = (radius / LIGHT_REFERENCE_DISTANCE) ** 2
    # Three-point rig that turns with the camera: key front-left, fill front-right, back light behind.
    rig = {"key": (-45.0, 50.0), "fill": (50.0, 30.0), "back": (180.0, 60.0)}
    base = {"key": light.key_power, "fill": light.fill_power, "back": light.back_power}
    lights = []
    for i, (name, (d_az, el)) in enumerate(rig.items()):
        loc = camera_math.orbit_location(cam.target, radius, el, azimuth + d_az)
        power = base[name] * multiplier * falloff * (1.0 + light.jitter * light_u[i])
        lights.append(ResolvedLight(name=name, power=_r(power, 3), location=tuple(_r(v) for v in loc),
                                    size=_r(0.35 * radius)))

    fstop = BLUR_FSTOP[cfg.blur.fstop] if isinstance(cfg.blur.fstop, str) else float(cfg.blur.fstop)
    focus = cfg.blur.focus_distance or DEFAULT_FOCUS_FRACTION * math.dist(location, cam.target)
    blur = ResolvedBlur(enabled=fstop is not None, fstop=fstop, focus_distance=_r(focus) if fstop else None)

    t = cfg.table
    palette_pick = list(TABLE_PALETTE)[int(rng.integers(len(TABLE_PALETTE)))]
    color = palette_pick if t.color == "random" else t.color
    color = TABLE_PALETTE[color] if isinstance(color, str) else tuple(color)
    table = ResolvedTable(enabled=t.enabled, shape=t.shape, length=t.length, width=t.width,
                          thickness=t.thickness, height=t.height, texture=t.texture, color=color,
                          roughness=t.roughness, image=_table_image(t.image, rng))

    res = cfg.resolution
    size = RESOLUTION[res] if isinstance(res, str) else (res.width, res.height)
    min_px = cfg.render.min_visible_pixels
    return ResolvedSetup(
        camera=camera, lighting_multiplier=multiplier, lights=lights, blur=blur, table=table,
        floor=cfg.floor, background=cfg.background, resolution=size, render=cfg.render,
        min_visible_pixels=min_px, hidden_below_pixels=hidden_below(min_px, cfg.render.hidden_fraction),
        floor_z=-t.height if t.enabled else 0.0,
    )
