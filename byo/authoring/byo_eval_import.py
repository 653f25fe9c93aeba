"""`byo import-config`: a config of BYO-Eval (seed 002, appendix D; the public byoeval/BYO-EVAL
configs) as a project config, or a ConfigError naming every key without a counterpart.

BYO-Eval writes a dataset config (`dataset`, and `variables`: dotted keys, each with a
`variate_type`, `variate_levels`, `n_images`, `randomize`, `randomize_percentage`) or a base scene
config (nested sections, a family's own and the setup's under `scene` or `scene_setup`). Its
shared setup keys (camera, lighting, table, render, noise) map here; each family maps its own
(`Family.foreign_keys["byo-eval"]`), so no family is named here. Deviations, named:

- `n_images`: BYO-Eval gives one per variable; here the dataset renders each combination the
  largest of them times.
- a `fixed` variable becomes a value of the scene (the same images).
- `base_config` is read and laid under the variables when the file is found (beside the
  config, or from where byo runs); the base's null values mean "the default" and are skipped.
- a value naming an asset of BYO-Eval's repository that is not shipped here (its `.blend` piece
  sets) is left out and named as missing (a family's convert raises MissingAsset); the config
  still imports, the project's own objects standing in.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from byo.core.errors import ConfigError
from byo.families import family_names, get_family, load_config
from byo.families.base import ForeignKey, MissingAsset
from byo.scene.config import read_yaml, set_path

FORMAT = "byo-eval"


@dataclass
class Findings:
    """What a conversion left out: keys without a counterpart, and assets named but not shipped."""

    problems: list[tuple[str, str]] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)
VARIATIONS = {"fixed", "varying_all", "varying_all_range", "varying_random", "varying_among", "varying_among_range"}


def _lower(value):
    return value.lower() if isinstance(value, str) else value


def _rgb(value):
    """'(0.1, 0.4, 0.15, 1.0)' or a list: RGB(A) in 0..1 -> an RGB triple."""
    if isinstance(value, str):
        value = ast.literal_eval(value)
    if not (isinstance(value, list | tuple) and len(value) in (3, 4)):
        raise ValueError(f"expected an RGB(A) colour, got {value!r}")
    return [float(v) for v in value[:3]]


def _engine(value):
    engine = str(value).lower()
    if engine not in ("cycles", "workbench"):
        raise ValueError(f"engine {value!r}: expected CYCLES or WORKBENCH (EEVEE has no counterpart)")
    return engine


def _exposure(value):
    if value == 0:
        return {}
    raise ValueError(f"exposure {value!r}: no exposure setting; lighting.intensity scales the lights")


def _png(value):
    if str(value).upper() == "PNG":
        return {}
    raise ValueError(f"file format {value!r}: images are PNG")


def _no_hdri(value):
    if value is False:
        return {}
    raise ValueError("no HDRI lighting: background.color and background.strength")


def _device(value):
    return "auto" if value else "cpu"


def _resolution(value):
    if isinstance(value, dict) and {"width", "height"} <= value.keys():
        return [value["width"], value["height"]]
    if isinstance(value, str) and value in ("low", "medium", "high"):
        return value
    raise ValueError(f"expected {{width, height}} or a preset, got {value!r}")


def _light(value):
    """LightNoiseModel as a preset or multiplier, or as {lighting: preset or multiplier}."""
    if isinstance(value, dict):
        if set(value) != {"lighting"}:
            raise ValueError(f"{', '.join(sorted(set(value) - {'lighting'}))}: only the lighting preset or "
                             "multiplier has a counterpart (lighting.intensity)")
        return value["lighting"]
    return value


def _setup_keys() -> dict[str, ForeignKey]:
    """BYO-Eval's shared setup keys, at the top level (appendix D.1.2) and under `scene.` or
    `scene_setup.` (its two layouts of a base config)."""
    keys = {
        "camera.distance": ForeignKey("camera.distance"),
        "camera.angle": ForeignKey("camera.elevation"),
        "camera.horizontal_angle": ForeignKey("camera.azimuth"),
        "lighting.type": ForeignKey("lighting.intensity"),
        "lighting.lighting": ForeignKey("lighting.intensity"),
        "lighting.key_light_power": ForeignKey("lighting.key_power"),
        "lighting.fill_light_power": ForeignKey("lighting.fill_power"),
        "lighting.back_light_power": ForeignKey("lighting.back_power"),
        "table.shape": ForeignKey("table.shape", _lower),
        "table.length": ForeignKey("table.length"),
        "table.width": ForeignKey("table.width"),
        "table.height": ForeignKey("table.height"),
        "table.felt_color": ForeignKey("table.color", _rgb),
        "table.material.color": ForeignKey("table.color", _rgb),
        "resolution.resolution": ForeignKey("resolution"),
        "resolution.width": ForeignKey(None, note="give resolution: [width, height]"),
        "table.texture": ForeignKey(None, note="the table's material (WOOD, MARBLE, METAL): table.color or a "
                                               "texture pack (table.image); table.texture is the noise level "
                                               "(BYO-Eval's noise.table_texture)"),
        "render.engine": ForeignKey("render.engine", _engine),
        "render.samples": ForeignKey("render.samples"),
        "render.resolution": ForeignKey("resolution", _resolution),
        "render.gpu_enabled": ForeignKey("render.device", _device),
        "render.gpus_enabled": ForeignKey("render.device", _device),
        "render.gpus": ForeignKey(None, note="GPUs are chosen by render.device (gpu, auto): every GPU of the first "
                                             "compute backend"),
        "render.exposure": ForeignKey(None, _exposure),
        "render.file_format": ForeignKey(None, _png),
        "floor.color": ForeignKey("floor.color", _rgb),
        "floor.roughness": ForeignKey("floor.roughness"),
        "background.color": ForeignKey("background.color", _rgb),
        "background.use_hdri": ForeignKey(None, _no_hdri),
    }
    out = dict(keys)  # appendix D.1.2's scene setup, at the top level
    for prefix in ("scene", "scene_setup"):
        out.update({f"{prefix}.{k}": v for k, v in keys.items()})
    out.update({"noise.blur": ForeignKey("blur.fstop"), "noise.table_texture": ForeignKey("table.texture"),
                # D.1.3's LightNoiseModel: the lighting preset or multiplier, as `noise.lighting`
                # (its example) or `noise.light.lighting` (NoiseConfigModel's field)
                "noise.lighting": ForeignKey("lighting.intensity"),
                "noise.light": ForeignKey("lighting.intensity", _light)})
    return out


SETUP = _setup_keys()
# Handled together, after the walk: a resolution given as two keys, the camera's randomization.
PAIRED = {"scene.render.resolution_x", "scene.render.resolution_y", "scene_setup.render.resolution.width",
          "scene_setup.render.resolution.height"}
CAMERA_JITTER = {f"{p}camera.{w}" for p in ("", "scene.", "scene_setup.")
                 for w in ("randomize_distance", "randomize_distance_percentage", "randomize_angle",
                           "randomize_angle_percentage")}
IGNORED = {"output_path": "the output is byo render's -o", "random_seed": "seeds come from dataset.seed"}


def family_of(data: dict, keys_of: Mapping[str, Mapping[str, ForeignKey]]) -> str | None:
    """The family whose BYO-Eval keys the config uses (its sections or its variables' keys)."""
    used = set(data) | set((data.get("variables") or {}) if isinstance(data.get("variables"), dict) else ())
    firsts = {k.split(".")[0] for k in used} | used
    scores = {name: sum(k.split(".")[0] in firsts for k in keys if not k.startswith("dataset."))
              for name, keys in keys_of.items()}
    best = max(scores, key=scores.get, default=None)
    return best if best is not None and scores[best] > 0 else None


def _lookup(key: str, table: Mapping[str, ForeignKey]) -> tuple[str, ForeignKey] | None:
    """The entry for `key`, or for a section above it (a whole section without a counterpart)."""
    parts = key.split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        if prefix in table:
            return prefix, table[prefix]
    return None


def _walk(tree: dict, table: Mapping[str, ForeignKey], prefix: str = ""):
    """(dotted key, value) of a nested config: a key the table knows whole, else its leaves."""
    for k, v in tree.items():
        key = f"{prefix}{k}"
        if key in table or key in PAIRED or key in CAMERA_JITTER or not isinstance(v, dict) or not v:
            yield key, v
        else:
            yield from _walk(v, table, key + ".")


def _apply(key: str, value: Any, table: Mapping[str, ForeignKey], found: Findings) -> dict[str, Any]:
    """{project path: value} for one BYO-Eval key and value; what has no counterpart (or names a
    missing asset) is added to `found`."""
    entry_of = _lookup(key, table)
    if entry_of is None:
        if key.split(".")[-1] in IGNORED:
            return {}
        found.problems.append((key, "no counterpart in this project"))
        return {}
    _, entry = entry_of
    if entry.path is None and entry.convert is None:
        found.problems.append((key, f"no counterpart: {entry.note}" if entry.note else "no counterpart"))
        return {}
    try:
        converted = entry.convert(value) if entry.convert else value
    except MissingAsset as err:
        found.missing.append((key, f"{err}"))
        return {}
    except (ValueError, SyntaxError, TypeError) as err:
        found.problems.append((key, f"{err}"))
        return {}
    if entry.path is None:
        return {p: v for p, v in converted.items() if v is not None}
    return {entry.path: converted}


def _variation(key: str, spec: Any, table, found: Findings) -> tuple[dict | None, dict[str, Any], int]:
    """(a project variation or None, values fixed in the scene, n_images) of one BYO-Eval variable."""
    if not isinstance(spec, dict) or "variate_type" not in spec:
        found.problems.append((f"variables.{key}", "expected {variate_type, variate_levels, n_images}"))
        return None, {}, 1
    kind, levels = spec.get("variate_type"), spec.get("variate_levels")
    n = spec.get("n_images", 1)
    if kind not in VARIATIONS:
        found.problems.append((f"variables.{key}.variate_type", f"{kind!r}: expected one of {', '.join(sorted(VARIATIONS))}"))
        return None, {}, n
    if kind == "fixed":
        return None, _apply(key, levels, table, found), n
    random = {k: spec[k] for k in ("randomize", "randomize_percentage") if k in spec and spec.get("randomize")}
    if kind in ("varying_all_range", "varying_among_range"):
        if not (isinstance(levels, list) and len(levels) == 2):
            found.problems.append((f"variables.{key}.variate_levels", f"expected [min, max], got {levels!r}"))
            return None, {}, n
        paths = _apply(key, levels[0], table, found)
        if len(paths) != 1:
            if paths:
                found.problems.append((key, "varies several keys here: no counterpart as a range"))
            return None, {}, n
        ((path, _),) = paths.items()
        return {"_path": path, "type": kind, "min": levels[0], "max": levels[1], **random}, {}, n
    if not isinstance(levels, list) or not levels:
        found.problems.append((f"variables.{key}.variate_levels", f"expected a list of levels, got {levels!r}"))
        return None, {}, n
    converted = [_apply(key, level, table, found) for level in levels]
    paths = {p for c in converted for p in c}
    if len(paths) != 1 or any(len(c) != 1 for c in converted):
        if converted and all(converted):
            found.problems.append((key, f"levels set {', '.join(sorted(paths)) or 'nothing'}: no counterpart as one "
                                  "varying variable"))
        return None, {}, n
    (path,) = paths
    field = "choices" if kind == "varying_random" else "levels"
    return {"_path": path, "type": kind, field: [c[path] for c in converted], **random}, {}, n


def convert(data: Any, file: str, family: str | None = None, base_dir: Path | None = None,
            skipped: list[tuple[str, str]] | None = None, missing: list[tuple[str, str]] | None = None) -> dict:
    """A project config (a dict) from BYO-Eval's, checked with load_config; every key without a
    counterpart is named in one ConfigError, or, given a `skipped` list, left out and listed there.
    A key naming an asset not shipped here (a .blend piece set) is left out and listed in `missing`."""
    if not isinstance(data, dict):
        raise ConfigError(file, [("<file>", "expected a BYO-Eval config (a mapping)")])
    keys_of = {name: get_family(name).foreign_keys.get(FORMAT, {}) for name in family_names()}
    keys_of = {n: k for n, k in keys_of.items() if k}
    family = family or family_of(data, keys_of)
    if family not in keys_of:
        raise ConfigError(file, [("<file>", "no key of a family whose BYO-Eval configs byo reads "
                                            f"({', '.join(sorted(keys_of))}); give --family")])
    table = {**SETUP, **keys_of[family]}
    found = Findings()
    dataset = data.get("dataset") or {}
    base = dataset.get("base_config") if isinstance(dataset, dict) else None
    scene_values: dict[str, Any] = {}
    if base:
        base_file = next((p for p in ((base_dir or Path()) / base, Path(base)) if p.is_file()), None)
        if base_file is None:
            found.problems.append(("dataset.base_config", f"{base} not found (beside the config or from here)"))
        else:
            scene_values.update(_scene_of(read_yaml(base_file, str(base_file)), table, found))
    scene_values.update(_scene_of({k: v for k, v in data.items() if k not in ("dataset", "variables")}, table,
                                  found))
    out_dataset = {"name": str(dataset.get("name") or Path(file).stem).replace(" ", "_"), "family": family}
    for k, v in (dataset.items() if isinstance(dataset, dict) else ()):
        if k in ("name", "base_config"):
            continue
        if k in ("output_dir", "seed"):
            out_dataset[k] = v
        else:
            scene_values.update(_apply(f"dataset.{k}", v, table, found))
    variables: dict[str, dict] = {}
    repetitions = [1]
    special: dict[str, Any] = {}
    for key, spec in (data.get("variables") or {}).items():
        if key in CAMERA_JITTER or key in PAIRED:
            if isinstance(spec, dict) and spec.get("variate_type") == "fixed":
                special[key] = spec.get("variate_levels")
            else:
                found.problems.append((f"variables.{key}", "varies: no counterpart as a varying variable"))
            continue
        variation, fixed, n = _variation(key, spec, table, found)
        repetitions.append(n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 1)
        scene_values.update(fixed)
        if variation is not None:
            variables[variation.pop("_path")] = variation
    scene_values.update(_special(special, found))
    if found.problems and skipped is None:
        raise ConfigError(file, found.problems)
    if skipped is not None:
        skipped += found.problems
    if missing is not None:
        missing += found.missing
    out_dataset["n_images"] = max(repetitions)
    scene: dict = {}
    for path, value in scene_values.items():
        set_path(scene, path, value)
    config = {"dataset": out_dataset, "scene": scene, "variables": variables}
    load_config(config, file=f"{file} (imported)")  # what maps must also be valid here
    return config


def _special(values: dict[str, Any], found: Findings) -> dict[str, Any]:
    """The resolution given as two keys and the camera's randomization flags, together."""
    out: dict[str, Any] = {}
    get = {k.split(".")[-1]: v for k, v in values.items()}
    w = get.get("resolution_x", get.get("width"))
    h = get.get("resolution_y", get.get("height"))
    if w is not None and h is not None:
        out["resolution"] = [w, h]
    elif w is not None or h is not None:
        found.problems.append((next(k for k in values if k.endswith(("_x", "_y", "width", "height"))),
                         "the resolution needs its width and its height"))
    for what, path in (("distance", "camera.jitter.distance"), ("angle", "camera.jitter.elevation")):
        if get.get(f"randomize_{what}"):
            out[path] = get.get(f"randomize_{what}_percentage", 0.1)
    return out


def _scene_of(tree: Any, table, found: Findings) -> dict[str, Any]:
    if not isinstance(tree, dict):
        return {}
    out: dict[str, Any] = {}
    special: dict[str, Any] = {}
    for key, value in _walk(tree, table):
        if value is None or (isinstance(value, dict) and not value):
            continue  # BYO-Eval's "use the default"
        if key in PAIRED or key in CAMERA_JITTER:
            special[key] = value
        else:
            out.update(_apply(key, value, table, found))
    out.update(_special(special, found))
    return out


class Imported(NamedTuple):
    config: dict  # the project config
    text: str  # its YAML, with what was left out and what is missing in comments
    skipped: list[tuple[str, str]]  # keys without a counterpart, left out (--skip-unmapped), with why
    missing: list[tuple[str, str]]  # keys naming an asset not shipped here, with what stands in


def import_config(path: Path, family: str | None = None, skip_unmapped: bool = False) -> Imported:
    """A BYO-Eval config file as a project config. Without `skip_unmapped`, a key without a
    counterpart is a ConfigError; an asset it names that is not shipped is listed as missing."""
    data = read_yaml(Path(path), str(path))
    skipped: list[tuple[str, str]] | None = [] if skip_unmapped else None
    missing: list[tuple[str, str]] = []
    config = convert(data, str(path), family, base_dir=Path(path).parent, skipped=skipped, missing=missing)
    lines = [f"# Imported from BYO-Eval's {Path(path).name} by byo import-config."]
    lines += [f"# Left out: {key}: {why}" for key, why in skipped or []]
    lines += [f"# Missing: {key}: {why}" for key, why in missing]
    return Imported(config, "\n".join(lines) + "\n" + yaml.safe_dump(config, sort_keys=False), skipped or [], missing)
