"""`byo import-config`: a config of BYO-Eval (appendix D; the public byoeval/BYO-EVAL
configs, tests/data/byo_eval_repo/) as a project config, with a mapping table of every key, or a
ConfigError naming every key that truly has no counterpart, one line each.

BYO-Eval writes a dataset config (`dataset`, and `variables`: dotted keys, each with a
`variate_type`, `variate_levels`, `n_images`, `randomize`, `randomize_percentage`) or a base scene
config (nested sections, a family's own and the setup's under `scene` or `scene_setup`). The
authors' generators (chess/ and poker/dataset/generate_dataset.py) lay each image's variables over
a base config, `default_config.yml` beside the dataset config unless `--default-config` names
another, and their scene models fill in what the base leaves out; so does this importer (`base`,
or `default_config.yml` beside the config, or the `dataset.base_config` it names), and it writes
the authors' own defaults where this project's differ: a 1920x1080 image, a 2 x 1 m table 0.9 m
high, the camera looking at (0, 0, 1 m) above the floor, blur focused at 10 m (noise/blur.py).
Its shared setup keys (camera, lighting, table, render, noise) map here; each family maps its own
(`Family.foreign_keys["byo-eval"]`, `Family.foreign_finish`), so no family is named here.

Every key read becomes a row of the mapping table (`Imported.rows`): the project key it became, or
"no counterpart" with what that changes (a key the authors' own code never reads, a look without a
counterpart that changes no answer), and whether a later key overrides it. A key whose value
would change the scene's content and has no counterpart is refused. Deviations, named:

- `n_images`: the authors' generator repeats each level of a varying variable, draws each random
  one and repeats each fixed one its `n_images` times; the product of them all is the dataset's
  `n_images` here (each combination of the enumerated levels that many times), times the levels
  of a varying variable that maps to nothing (its images are alike but for their seeds).
- a `fixed` variable becomes a value of the scene (the same images).
- the base's null values and empty sections mean "the default" and are skipped.
- a value naming an asset of BYO-Eval's repository that is not shipped here (its `.blend` piece
  sets and decks) is named as missing (a family's convert raises MissingAsset); the config still
  imports, the project's own objects standing in.
- every question is asked, those this project's readability rules find unreadable flagged
  (`questions.unreadable: flag`, docs/readability.md), as the paper asked them all.
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
from byo.families.base import ForeignKey, MissingAsset, NoCounterpart
from byo.scene.config import read_yaml, set_path

FORMAT = "byo-eval"
VARIATIONS = {"fixed", "varying_all", "varying_all_range", "varying_random", "varying_among", "varying_among_range"}
AUTHORS = "(the authors' code)"  # the file of a row that their code implies, not a key
SAME = "nothing to set: this project does the same"
READ = "read as the base config"


@dataclass
class Row:
    """One key read: where (`file`), its BYO-Eval `key` and value, the project paths it set ([]:
    no counterpart) and a note (how it converts, or what having no counterpart changes)."""

    file: str
    key: str
    value: Any
    project: list[str]
    note: str = ""
    overridden_by: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "key": self.key, "value": self.value, "project": self.project or None,
                "note": self.note, "overridden_by": self.overridden_by}

    def line(self) -> str:
        value = yaml.safe_dump(self.value, default_flow_style=True, width=10**6).strip().removesuffix("...").strip()
        value = value if len(value) <= 60 else value[:57] + "..."
        where = f"{self.file}: {self.key}" if self.key else self.file
        quiet = self.note.startswith((SAME, READ))
        target = ", ".join(self.project) if self.project else "-" if quiet else "no counterpart"
        text = f"{where} = {value} -> {target}" + (f": {self.note}" if self.note else "")
        return text + (f" (overridden by {self.overridden_by})" if self.overridden_by else "")


@dataclass
class Findings:
    """The mapping table, what has no counterpart and is refused, and assets named but not shipped."""

    rows: list[Row] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)


class Refused(Exception):
    """A value without a counterpart that would change the scene: its message says what was expected."""


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


def _texture(value):
    if isinstance(value, str) and value.lower() in ("low", "medium", "high"):
        return value.lower()
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise NoCounterpart(f"{value!r}: the authors' table texture takes low, medium or high (noise/models.py), "
                            "as table.texture here; the table keeps its texture")
    raise ValueError(f"expected low, medium or high, got {value!r}")


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
    out.update({"noise.blur": ForeignKey("blur.fstop"), "noise.table_texture": ForeignKey("table.texture", _texture),
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
IGNORED = {"output_path": "the output is byo render's -o", "random_seed": "seeds come from dataset.seed",
           "output_dir": "the output is byo render's -o"}


# The authors' scene models' defaults (scene_setup/models.py, noise/blur.py), laid under every
# config, where this project's family defaults differ.
AUTHORS_DEFAULTS: dict[str, tuple[Any, str]] = {
    "camera.distance": (3.0, "CameraModel's distance preset medium"),
    "camera.elevation": (60.0, "CameraModel's angle preset medium"),
    "camera.azimuth": (0.0, "CameraModel's horizontal_angle"),
    "camera.jitter.distance": (0.0, "CameraModel's randomize_distance: false"),
    "camera.jitter.elevation": (0.0, "CameraModel's randomize_angle: false"),
    "table.shape": ("rectangular", "TableModel's shape"),
    "table.length": (2.0, "TableModel's length"),
    "table.width": (1.0, "TableModel's width"),
    "table.height": (0.9, "TableModel's height"),
    "floor.color": ([0.8, 0.8, 0.8], "FloorModel's colour"),
    "floor.roughness": (0.5, "FloorModel's roughness"),
    "resolution": ([1920, 1080], "ResolutionModel's 1920x1080"),
    "render.samples": (128, "RenderModel's samples"),
    "blur.focus_distance": (10.0, "the authors' blur focuses at 10 m (noise/blur.py)"),
}
CAMERA_LOOKS_AT = 1.0  # metres above the floor (scene_setup/camera.py: the camera aims at (0, 0, 1))


def family_of(data: dict, keys_of: Mapping[str, Mapping[str, ForeignKey]]) -> str | None:
    """The family whose BYO-Eval keys the config uses (its sections or its variables' keys)."""
    used = set(data) | set((data.get("variables") or {}) if isinstance(data.get("variables"), dict) else ())
    firsts = {k.split(".")[0] for k in used} | used
    scores = {name: sum(k.split(".")[0] in firsts for k in keys if not k.startswith("dataset."))
              for name, keys in keys_of.items()}
    best = max(scores, key=scores.get, default=None)
    return best if best is not None and scores[best] > 0 else None


def _lookup(key: str, table: Mapping[str, ForeignKey]) -> ForeignKey | None:
    """The entry for `key`, or for a section above it (a whole section maps as one)."""
    parts = key.split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        if prefix in table:
            return table[prefix]
    return None


def _walk(tree: dict, table: Mapping[str, ForeignKey], prefix: str = ""):
    """(dotted key, value) of a nested config: a key the table knows whole, else its leaves."""
    for k, v in tree.items():
        key = f"{prefix}{k}"
        if key in table or key in PAIRED or key in CAMERA_JITTER or not isinstance(v, dict) or not v:
            yield key, v
        else:
            yield from _walk(v, table, key + ".")


def _convert(key: str, value: Any, table: Mapping[str, ForeignKey]) -> tuple[dict[str, Any], str, bool]:
    """({project path: value}, note, whether it names a missing asset) for one key and value;
    {} with a note: no counterpart, what that changes. Raises Refused."""
    entry = _lookup(key, table)
    if entry is None:
        if key.split(".")[-1] in IGNORED:
            return {}, IGNORED[key.split(".")[-1]], False
        raise Refused("no counterpart in this project")
    if entry.path is None and entry.convert is None:
        if entry.changes:
            return {}, entry.changes, False
        raise Refused(f"no counterpart: {entry.note}" if entry.note else "no counterpart")
    try:
        converted = entry.convert(value) if entry.convert else value
    except NoCounterpart as err:
        return {}, str(err), isinstance(err, MissingAsset)
    except (ValueError, SyntaxError, TypeError) as err:
        raise Refused(str(err)) from None
    if entry.path is None:
        paths = {p: v for p, v in converted.items() if v is not None}
        return paths, entry.note or ("" if paths else SAME), False
    return {entry.path: converted}, entry.note, False


def _record(found: Findings, file: str, key: str, value: Any, table) -> dict[str, Any]:
    """Convert one key and add its row (or its refusal)."""
    try:
        paths, note, missing = _convert(key, value, table)
    except Refused as err:
        found.problems.append((key, str(err)))
        return {}
    if missing:
        found.missing.append((key, note))
    found.rows.append(Row(file, key, value, list(paths), note))
    return paths


def _scene_of(tree: Any, file: str, table, found: Findings) -> dict[str, Any]:
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
            out.update(_record(found, file, key, value, table))
    out.update(_special(special, file, found))
    return out


def _special(values: dict[str, Any], file: str, found: Findings, prefix: str = "") -> dict[str, Any]:
    """The resolution given as two keys and the camera's randomization flags, together."""
    out: dict[str, Any] = {}
    get = {k.split(".")[-1]: v for k, v in values.items()}
    keys = {k.split(".")[-1]: k for k in values}
    w = get.get("resolution_x", get.get("width"))
    h = get.get("resolution_y", get.get("height"))
    if w is not None and h is not None:
        out["resolution"] = [w, h]
        both = [keys[k] for k in ("resolution_x", "resolution_y", "width", "height") if k in keys]
        found.rows.append(Row(file, " + ".join(prefix + k for k in both), [w, h], ["resolution"]))
    elif w is not None or h is not None:
        found.problems.append((prefix + next(k for k in values if k.endswith(("_x", "_y", "width", "height"))),
                               "the resolution needs its width and its height"))
    for what, path in (("distance", "camera.jitter.distance"), ("angle", "camera.jitter.elevation")):
        flag, pct = f"randomize_{what}", f"randomize_{what}_percentage"
        if flag in get:
            out[path] = float(get.get(pct, 0.1)) if get[flag] else 0.0
            found.rows.append(Row(file, prefix + keys[flag], get[flag], [path],
                                  f"+-{get.get(pct, 0.1):g} of the value" if get[flag] else "no jitter"))
        if pct in get:
            found.rows.append(Row(file, prefix + keys[pct], get[pct], [path] if get.get(flag) else [],
                                  "" if get.get(flag) else f"no effect: {flag} is not true"))
    return out


def _levels(kind: str, levels: Any) -> tuple[str, Any]:
    """The authors' varying_all_range of floats is its two ends and their middle (their generator)."""
    if kind == "varying_all_range" and isinstance(levels, list) and len(levels) == 2 \
            and not all(isinstance(v, int) and not isinstance(v, bool) for v in levels):
        a, b = levels
        return "varying_all", [a, (a + b) / 2.0, b]
    return kind, levels


def _variation(key: str, spec: Any, file: str, table, found: Findings) -> tuple[dict | None, dict[str, Any], int]:
    """(a project variation or None, values fixed in the scene, the images it multiplies) of one
    BYO-Eval variable; its row added to `found`."""
    vkey = f"variables.{key}"
    if not isinstance(spec, dict) or "variate_type" not in spec:
        found.problems.append((vkey, "expected {variate_type, variate_levels, n_images}"))
        return None, {}, 1
    kind, levels = _levels(spec.get("variate_type"), spec.get("variate_levels"))
    n = spec.get("n_images", 1)
    n = n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 1
    if kind not in VARIATIONS:
        found.problems.append((f"{vkey}.variate_type", f"{kind!r}: expected one of {', '.join(sorted(VARIATIONS))}"))
        return None, {}, n
    shown = {"variate_type": spec.get("variate_type"), "variate_levels": spec.get("variate_levels"), "n_images": n}
    times = f"; x{n} images (n_images)" if n > 1 else ""
    if kind == "fixed":
        try:
            paths, note, missing = _convert(key, levels, table)
        except Refused as err:
            found.problems.append((vkey, str(err)))
            return None, {}, n
        if missing:
            found.missing.append((vkey, note))
        found.rows.append(Row(file, vkey, shown, list(paths), (note or "a value of the scene") + times))
        if not paths and note == SAME and times:
            found.rows[-1].note = SAME + times
        return None, paths, n
    ranged = kind in ("varying_all_range", "varying_among_range")
    if ranged and not (isinstance(levels, list) and len(levels) == 2):
        found.problems.append((f"{vkey}.variate_levels", f"expected [min, max], got {levels!r}"))
        return None, {}, n
    if not ranged and (not isinstance(levels, list) or not levels):
        found.problems.append((f"{vkey}.variate_levels", f"expected a list of levels, got {levels!r}"))
        return None, {}, n
    try:
        converted = [_convert(key, level, table) for level in levels]
    except Refused as err:
        found.problems.append((vkey, str(err)))
        return None, {}, n
    paths = {p for c, _, _ in converted for p in c}
    deterministic = kind in ("varying_all", "varying_all_range")
    if not paths:  # no counterpart, accepted: its levels still multiply the images
        count = (levels[1] - levels[0] + 1) if kind == "varying_all_range" else len(levels) if deterministic else 1
        found.rows.append(Row(file, vkey, shown, [], f"{converted[0][1]}; its {count * n} images per combination "
                                                     "are alike here but for their seeds" if count * n > 1
                                                     else converted[0][1]))
        return None, {}, count * n
    if len(paths) != 1 or any(len(c) != 1 for c, _, _ in converted):
        found.problems.append((vkey, f"its levels set {', '.join(sorted(paths))}: no counterpart as one varying "
                                     "variable"))
        return None, {}, n
    (path,) = paths
    values = [c[path] for c, _, _ in converted]
    random = {k: spec[k] for k in ("randomize", "randomize_percentage") if k in spec and spec.get("randomize")}
    if ranged:
        variation = {"type": kind, "min": values[0], "max": values[1], **random}
    else:
        variation = {"type": kind, ("choices" if kind == "varying_random" else "levels"): values, **random}
    found.rows.append(Row(file, vkey, shown, [path], (converted[0][1] + times).strip("; ")))
    return {"_path": path, **variation}, {}, n


def _find_base(path: Path, data: dict, base: Path | None, found: Findings) -> Path | None:
    """The base config the authors' generator lays the dataset config over."""
    if base is not None:
        return base
    if not isinstance(data.get("variables"), dict):
        return None  # a base or scene config itself
    beside = path.parent / "default_config.yml"
    if beside.is_file() and beside.resolve() != path.resolve():
        return beside
    named = (data.get("dataset") or {}).get("base_config") if isinstance(data.get("dataset"), dict) else None
    if named:
        for folder in (path.parent, *path.resolve().parents):
            if (folder / named).is_file():
                return folder / named
        found.problems.append(("dataset.base_config", f"{named} not found beside the config or above it: give "
                                                      "the base config (`base`)"))
        return None
    found.problems.append(("dataset", "a dataset config without its base config: the authors' generator reads "
                                      "default_config.yml beside it or the default config it is given; give it (`base`)"))
    return None


def convert(data: Any, file: str, family: str | None = None, base_dir: Path | None = None,
            skipped: list[tuple[str, str]] | None = None, missing: list[tuple[str, str]] | None = None,
            base: Path | None = None, rows: list[Row] | None = None) -> dict:
    """A project config (a dict) from BYO-Eval's, checked with load_config; every key refused is
    named in one ConfigError, or, given a `skipped` list, left out and listed there. A key naming
    an asset not shipped here is listed in `missing`; every key read is a Row of `rows`."""
    if not isinstance(data, dict):
        raise ConfigError(file, [("<file>", "expected a BYO-Eval config (a mapping)")])
    keys_of = {name: get_family(name).foreign_keys.get(FORMAT, {}) for name in family_names()}
    keys_of = {n: k for n, k in keys_of.items() if k}
    family = family or family_of(data, keys_of)
    if family not in keys_of:
        raise ConfigError(file, [("<file>", "no key of a family whose BYO-Eval configs byo reads "
                                            f"({', '.join(sorted(keys_of))}); give `family`")])
    table = {**SETUP, **keys_of[family]}
    found = Findings()
    name = Path(file).name
    values: dict[str, Any] = {}
    for path, (value, why) in AUTHORS_DEFAULTS.items():
        values[path] = value
        found.rows.append(Row(AUTHORS, "", value, [path], why))
    base_file = _find_base(Path(file) if base_dir is None else base_dir / name, data, base, found)
    if base_file is not None:
        base_data = read_yaml(Path(base_file), str(base_file))
        base_tree = {k: v for k, v in base_data.items() if k not in ("dataset", "variables")} \
            if isinstance(base_data, dict) else base_data
        values.update(_scene_of(base_tree, Path(base_file).name, table, found))
    values.update(_scene_of({k: v for k, v in data.items() if k not in ("dataset", "variables")}, name, table, found))
    dataset = data.get("dataset") or {}
    out_dataset = {"name": str(dataset.get("name") or Path(file).stem).replace(" ", "_"), "family": family}
    for k, v in (dataset.items() if isinstance(dataset, dict) else ()):
        if k in ("name", "base_config"):
            found.rows.append(Row(name, f"dataset.{k}", v, ["dataset.name"] if k == "name" else [],
                                  "" if k == "name" else f"{READ}: {base_file}"))
        elif k == "seed":
            out_dataset[k] = v
            found.rows.append(Row(name, "dataset.seed", v, ["dataset.seed"]))
        elif k == "output_dir":
            found.rows.append(Row(name, "dataset.output_dir", v, [], IGNORED["output_dir"]))
        else:
            values.update(_record(found, name, f"dataset.{k}", v, table))
    variables: dict[str, dict] = {}
    n_images = 1
    special: dict[str, Any] = {}
    for key, spec in (data.get("variables") or {}).items():
        if key in CAMERA_JITTER or key in PAIRED:
            if isinstance(spec, dict) and spec.get("variate_type") == "fixed":
                special[key] = spec.get("variate_levels")
            else:
                found.problems.append((f"variables.{key}", "varies: no counterpart as a varying variable"))
            continue
        variation, fixed, n = _variation(key, spec, name, table, found)
        n_images *= n
        values.update(fixed)
        if variation is not None:
            variables[variation.pop("_path")] = variation
    values.update(_special(special, name, found, prefix="variables."))
    finish = get_family(family).foreign_finish.get(FORMAT)
    for path, value, why in (finish(values, variables) if finish else []):  # value None: path dropped
        found.rows.append(Row(AUTHORS, "" if value is not None else path, value, [path] if value is not None else [],
                              why))
    target = [0.0, 0.0, round(CAMERA_LOOKS_AT - float(values["table.height"]), 6)]
    values["camera.target"] = target
    found.rows.append(Row(AUTHORS, "", target, ["camera.target"], "the authors' camera aims at (0, 0, 1 m) above "
                                                                  "the floor; the table top is at table.height"))
    found.rows.append(Row(AUTHORS, "", "flag", ["questions.unreadable"], "every question asked, as the paper "
                                                                         "did; those found unreadable flagged"))
    found.rows.append(Row(AUTHORS, "", n_images, ["dataset.n_images"], "the product of the variables' n_images "
                                                                        "(and of the levels of those that map to "
                                                                        "nothing)"))
    _mark_overrides(found.rows, variables)
    if found.problems and skipped is None:
        raise ConfigError(file, found.problems)
    if skipped is not None:
        skipped += found.problems
        found.rows += [Row(name, key, None, [], f"left out: {why}") for key, why in found.problems]
    if missing is not None:
        missing += found.missing
    if rows is not None:
        rows += found.rows
    out_dataset["n_images"] = n_images
    scene: dict = {}
    for path, value in values.items():
        set_path(scene, path, value)
    config = {"dataset": out_dataset, "scene": scene, "variables": variables, "questions": {"unreadable": "flag"}}
    load_config(config, file=f"{file} (imported)")  # what maps must also be valid here
    return config


def _mark_overrides(rows: list[Row], variables: Mapping[str, dict]) -> None:
    """Each row whose project path a later row (or a variable) sets again says which."""
    last: dict[str, Row] = {}
    for row in rows:
        for path in row.project:
            last[path] = row
    for row in rows:
        later = [last[p] for p in row.project if last.get(p) is not row and last.get(p) is not None]
        if later and not row.key.startswith("variables."):
            row.overridden_by = later[0].key or later[0].file
        for p in row.project:
            if p in variables and not row.key.startswith("variables.") and row.overridden_by is None:
                row.overridden_by = next((r.key for r in rows if r.key.startswith("variables.") and p in r.project),
                                         "a variable")


class Imported(NamedTuple):
    config: dict  # the project config
    text: str  # its YAML, with what was left out and what is missing in comments
    skipped: list[tuple[str, str]]  # keys without a counterpart, left out (--skip-unmapped), with why
    missing: list[tuple[str, str]]  # keys naming an asset not shipped here, with what stands in
    rows: list[Row] = []  # the mapping table: every key read and what it became


def import_config(path: Path, family: str | None = None, skip_unmapped: bool = False,
                  base: Path | None = None) -> Imported:
    """A BYO-Eval config file as a project config, laid over its base config (`base`, else as the
    authors' generator finds it). Without `skip_unmapped`, a key refused is a ConfigError; an
    asset it names that is not shipped is listed as missing."""
    data = read_yaml(Path(path), str(path))
    skipped: list[tuple[str, str]] | None = [] if skip_unmapped else None
    missing: list[tuple[str, str]] = []
    rows: list[Row] = []
    if base is not None and not Path(base).is_file():
        raise ConfigError(str(base), [(None, "base config not found (expected a BYO-Eval default_config.yml)")])
    config = convert(data, str(path), family, base_dir=Path(path).parent, skipped=skipped, missing=missing,
                     base=Path(base) if base is not None else None, rows=rows)
    lines = [f"# Imported from BYO-Eval's {Path(path).name} by byo import-config."]
    lines += [f"# Left out: {key}: {why}" for key, why in skipped or []]
    lines += [f"# Missing: {key}: {why}" for key, why in missing]
    return Imported(config, "\n".join(lines) + "\n" + yaml.safe_dump(config, sort_keys=False), skipped or [],
                    missing, rows)
