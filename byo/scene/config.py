"""Dataset configs: YAML with `dataset`, `scene` and `variables`, validated before any work.

Dataset size: the enumerated variables (`fixed`, `varying_all`, `varying_all_range`) form a
Cartesian product of their levels; each combination is rendered `n_images` times. Random
variables (`varying_random`, `varying_among`, `varying_among_range`) add no combinations: they are
drawn per image from that image's seed.

BYO-Eval's per-variable randomization (appendix D.1.5: `randomize: bool = False`,
`randomize_percentage: float = 0.2`, "Whether to randomize around the value"): a numeric
variable with `randomize: true` puts each image's value uniformly within +-randomize_percentage of
its level (relative), drawn from the image's seed; the image keeps its nominal level in `levels`
(so per-level scores group by the level asked for) and the legend records the value used.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Hashable
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

import yaml
from pydantic import (
    BaseModel,
    Field,
    PrivateAttr,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)

from byo.core.errors import ARGUMENTS, ConfigError, format_key_path
from byo.core.schema import Strict, shown, validation_problems
from byo.scene.setup import FAMILY_PRESETS, RESOLUTION, QualityPresets, SetupConfig


class DatasetSection(Strict):
    # A file-name part: image names add 7 characters, and file systems allow 255.
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_\-]*$", max_length=100)
    family: str
    output_dir: str | None = None
    seed: int = Field(0, ge=0, lt=2**63)
    n_images: int = Field(1, ge=1)
    split: str = "test"  # recorded in legends and the CLEVR scenes file
    # Several splits in one dataset: split name -> relative size. Each split renders
    # round(n_images * size / total) images per combination (at least 1) from a seed stream of its
    # own (byo.core.seeding.split_seed), and `split_key` (a dotted scene path) takes the split's name.
    splits: dict[str, float] | None = None
    split_key: str | None = None

    @field_validator("splits")
    @classmethod
    def _splits(cls, v):
        if v is None:
            return v
        if not v:
            raise ValueError("expected at least one split name with its relative size")
        for name, size in v.items():
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
                raise ValueError(f"split name {name!r}: expected letters, digits and _ (a file-name part)")
            if not (isinstance(size, int | float) and math.isfinite(size) and size > 0):
                raise ValueError(f"split {name!r}: expected a positive relative size, got {size!r}")
        return v

    @model_validator(mode="after")
    def _split_key(self):
        if self.split_key is not None and self.splits is None:
            raise ValueError("split_key needs splits (the split names it takes)")
        return self

    def split_sizes(self) -> list[tuple[str, int]]:
        """(split, images per combination) of a dataset with `splits`, in their order."""
        if self.splits is None:
            return [(self.split, self.n_images)]
        total = sum(self.splits.values())
        return [(name, max(1, round(self.n_images * size / total))) for name, size in self.splits.items()]


def _number(v) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


class _Variation(Strict):
    n_images: int | None = Field(None, ge=1)
    randomize: StrictBool = False  # `randomize: 1` is a mistake, not true
    randomize_percentage: float = Field(0.2, ge=0, le=1)

    def numeric_values(self) -> list:
        """The values a randomized variable must hold as numbers."""
        return []

    @model_validator(mode="after")
    def _randomized_numbers(self):
        if self.randomize and not all(_number(v) for v in self.numeric_values()):
            raise ValueError("randomize needs numeric levels: a value is put within +-randomize_percentage of its "
                             "level")
        return self


class Fixed(_Variation):
    type: Literal["fixed"]
    value: Any

    def numeric_values(self) -> list:
        return [self.value]

    def count(self) -> int:
        return 1

    def level(self, i: int) -> Any:
        return self.value


class VaryingAll(_Variation):
    type: Literal["varying_all"]
    levels: list[Any] = Field(min_length=1)

    def numeric_values(self) -> list:
        return self.levels

    def count(self) -> int:
        return len(self.levels)

    def level(self, i: int) -> Any:
        return self.levels[i]


class VaryingAllRange(_Variation):
    """Each integer in [min, max]; for floats every `step` from min up to max (inclusive)."""

    type: Literal["varying_all_range"]
    min: float
    max: float
    step: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _check(self):
        if self.max < self.min:
            raise ValueError(f"max ({self.max}) is below min ({self.min})")
        integral = float(self.min).is_integer() and float(self.max).is_integer()
        if self.step is None and not integral:
            raise ValueError("float ranges need a `step`")
        return self

    def count(self) -> int:
        return int(math.floor((self.max - self.min) / (self.step or 1) + 1e-9)) + 1

    def level(self, i: int) -> float | int:
        step = self.step or 1
        value = self.min + i * step
        integral = all(float(v).is_integer() for v in (self.min, self.max, step))
        return int(round(value)) if integral else round(value, 10)


class VaryingRandom(_Variation):
    type: Literal["varying_random"]
    choices: list[Any] = Field(min_length=1)

    def numeric_values(self) -> list:
        return self.choices


class VaryingAmong(_Variation):
    """One of `levels`, drawn per image: BYO-Eval's `varying_among` (appendix D.1.6, e.g. chip
    colour options). The paper names it without defining it and its code does not implement it;
    read as a draw among the listed levels, the same as `varying_random` over `choices`."""

    type: Literal["varying_among"]
    levels: list[Any] = Field(min_length=1)

    @property
    def choices(self) -> list[Any]:
        return self.levels

    def numeric_values(self) -> list:
        return self.levels


class VaryingAmongRange(_Variation):
    """Uniform draw from [min, max]; integers when both bounds are integers (unless `integer: false`)."""

    type: Literal["varying_among_range"]
    min: float
    max: float
    integer: bool | None = None

    @model_validator(mode="after")
    def _check(self):
        if self.max < self.min:
            raise ValueError(f"max ({self.max}) is below min ({self.min})")
        return self

    @property
    def is_integer(self) -> bool:
        if self.integer is not None:
            return self.integer
        return float(self.min).is_integer() and float(self.max).is_integer()


Variation = Annotated[
    Fixed | VaryingAll | VaryingAllRange | VaryingRandom | VaryingAmong | VaryingAmongRange,
    Field(discriminator="type")
]
ENUMERATED = (Fixed, VaryingAll, VaryingAllRange)


class SlurmSection(Strict):
    """`byo render --executor slurm`: what each array task asks Slurm for (flags override these).
    Not part of the dataset: two configs that differ only here render the same images."""

    shards: int | None = Field(None, ge=1, le=100_000)  # array tasks (one shard each)
    partition: str | None = Field(None, pattern=r"^[A-Za-z0-9_.,\-]+$")
    time_minutes: int | None = Field(None, ge=1, le=60 * 24 * 30)  # wall time per task (at most 30 days)
    mem_gb: float | None = Field(None, gt=0, le=100_000)
    cpus_per_task: int | None = Field(None, ge=1, le=4096)
    workers: int | None = Field(None, ge=1, le=4096)  # render processes within a task
    account: str | None = Field(None, pattern=r"^[A-Za-z0-9_.\-]+$")
    qos: str | None = Field(None, pattern=r"^[A-Za-z0-9_.\-]+$")
    array_parallelism: int | None = Field(None, ge=1, le=100_000)  # tasks running at once


UNREADABLE_POLICIES = ("skip", "flag", "ask")
MAX_OPTIONS = 702  # option labels A to ZZ


class QuestionsSection(Strict):
    """What `byo questions` does with a question a readability rule finds the rendered image does
    not show (docs/readability.md): skip it (counted with its reason), ask it flagged as unreadable
    (scored apart, never mixed into accuracy), or ask it as any other."""

    unreadable: Literal["skip", "flag", "ask"] = "skip"
    # The question keys (or patterns: 'compass_*') `byo questions` asks by default; None: every key
    # of the family but its opt-in ones (a family's opt_in_keys, e.g. COMPASS's 323 caption keys).
    keys: list[str] | None = None
    # The most lettered options a chat model is shown for a question with a candidate set (the
    # rest of the set is still ranked by image-text models); None: the family's default, the
    # paper's own count (Auto-Comp: 50).
    options: int | None = Field(None, ge=2, le=MAX_OPTIONS)


class SceneFamily(Protocol):
    """What a config needs of its family (a byo.families.base.Family)."""

    name: str
    default_scene: dict[str, Any]
    content_model: type[BaseModel]
    quality_presets: QualityPresets


class DatasetConfig(Strict):
    dataset: DatasetSection
    scene: dict[str, Any] = Field(default_factory=dict)
    variables: dict[str, Variation] = Field(default_factory=dict)
    slurm: SlurmSection = Field(default_factory=SlurmSection)
    questions: QuestionsSection = Field(default_factory=QuestionsSection)
    _family: SceneFamily | None = PrivateAttr(None)

    @property
    def family(self) -> SceneFamily:
        """The family the config was checked against (byo.families.load_config), which travels with it."""
        if self._family is None:
            raise RuntimeError(f"{self.dataset.name}: a config read without its family; use byo.families.load_config")
        return self._family

    def with_family(self, family: SceneFamily) -> DatasetConfig:
        self._family = family
        return self

    def full_scene(self) -> dict:
        """The config's scene over its family's defaults."""
        return family_scene(self.family, self.scene)

    def enumerated(self) -> dict[str, Fixed | VaryingAll | VaryingAllRange]:
        """The variables whose levels form the Cartesian product, each with count() and level(i)."""
        return {path: var for path, var in self.variables.items() if isinstance(var, ENUMERATED)}

    def random_variables(self) -> dict[str, VaryingRandom | VaryingAmong | VaryingAmongRange]:
        return {p: v for p, v in self.variables.items() if not isinstance(v, ENUMERATED)}

    @property
    def repetitions(self) -> int:
        declared = {v.n_images for v in self.variables.values() if v.n_images is not None}
        return declared.pop() if declared else self.dataset.n_images


# --- dotted paths into the scene --------------------------------------------------------
def set_path(tree: dict, path: str, value: Any) -> None:
    """Set `a.b.0.c` in nested dicts/lists, creating dicts on the way."""
    parts = path.split(".")
    node: Any = tree
    for i, part in enumerate(parts[:-1]):
        if isinstance(node, list):
            node = node[int(part)]
            continue
        if not isinstance(node.get(part, {}), (dict, list)):
            raise KeyError(".".join(parts[: i + 1]))
        node = node.setdefault(part, {})
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def deep_merge(base: dict, override: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


# --- loading and validation -----------------------------------------------------------
def family_scene(family: SceneFamily, scene: dict) -> dict:
    """A user's scene over the family's defaults."""
    return deep_merge(family.default_scene, scene)


def scene_for_levels(cfg: DatasetConfig, levels: dict[str, Any]) -> dict:
    scene = cfg.full_scene()
    for path, value in levels.items():
        set_path(scene, path, value)
    return scene


def validate_scene(scene: dict, family: SceneFamily, prefix: tuple = ("scene",)):
    """Validate a full scene dict: shared setup plus the family's `content`. Returns (setup,
    content, problems): the setup and the content models (None where invalid) and the problems
    as (key path, expectation)."""
    scene = dict(scene)
    content = scene.pop("content", {})
    problems = []
    setup = family_content = None
    try:
        setup = SetupConfig.model_validate(scene, context={FAMILY_PRESETS: family.quality_presets})
    except ValidationError as err:
        problems += validation_problems(err, prefix)
    try:
        family_content = family.content_model.model_validate(content)
    except ValidationError as err:
        problems += validation_problems(err, prefix + ("content",))
    return setup, family_content, problems


def _level_samples(var) -> list[tuple[str, Any]]:
    """Values worth validating for a variable, with the key naming each (a randomized one's levels
    also at both ends of their randomization)."""
    samples = _nominal_samples(var)
    if var.randomize:
        p = var.randomize_percentage
        samples += [(f"{key} randomized by {sign}{p:g}", randomized(value, factor))
                    for key, value in list(samples) for sign, factor in (("-", 1 - p), ("+", 1 + p))]
    return samples


def randomized(level: float, factor: float) -> float | int:
    """A randomized variable's value: its level times `factor`, kept whole for a whole level."""
    value = level * factor
    return int(round(value)) if isinstance(level, int) else value


def _nominal_samples(var) -> list[tuple[str, Any]]:
    if isinstance(var, Fixed):
        return [("value", var.value)]
    if isinstance(var, VaryingAll):
        return [(f"levels[{i}]", v) for i, v in enumerate(var.levels)]
    if isinstance(var, VaryingAllRange):
        return [("min", var.level(0)), ("max", var.level(var.count() - 1))]
    if isinstance(var, VaryingRandom):
        return [(f"choices[{i}]", v) for i, v in enumerate(var.choices)]
    if isinstance(var, VaryingAmong):
        return [(f"levels[{i}]", v) for i, v in enumerate(var.levels)]
    lo, hi = (int(var.min), int(var.max)) if var.is_integer else (var.min, var.max)
    return [("min", lo), ("max", hi)]


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML that refuses a key given twice in one mapping (PyYAML would keep the last)."""


def _unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if not isinstance(key, Hashable):
            continue  # construct_mapping reports unhashable keys itself
        if key in seen:
            raise yaml.MarkedYAMLError("while reading a mapping", node.start_mark,
                                       f"the key {shown(key)} is given twice", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)
MAX_CONFIG_BYTES = 1_000_000


def read_yaml(path: Path, file: str) -> object:
    """A YAML file's data; every way it can fail is a ConfigError naming the file."""
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            raise ConfigError(file, [("<file>", f"larger than {MAX_CONFIG_BYTES:,} bytes: not a dataset config")])
        text = path.read_text(encoding="utf-8")
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 (a safe loader)
    except FileNotFoundError:
        raise ConfigError(file, [("<file>", "file not found")]) from None
    except IsADirectoryError:
        raise ConfigError(file, [("<file>", "is a directory; expected a YAML file")]) from None
    except PermissionError:
        raise ConfigError(file, [("<file>", "not readable (permission denied)")]) from None
    except UnicodeDecodeError:
        raise ConfigError(file, [("<file>", "not a text file (expected UTF-8 YAML)")]) from None
    except OSError as err:
        raise ConfigError(file, [("<file>", f"cannot be read ({err.strerror or err})")]) from None
    except yaml.YAMLError as err:
        raise ConfigError(file, [("<file>", f"not valid YAML: {err}")]) from None
    except RecursionError:
        raise ConfigError(file, [("<file>", f"nested more than {MAX_DEPTH} levels deep")]) from None


MAX_DEPTH = 40


def _too_deep(data, limit: int = MAX_DEPTH) -> bool:
    """Whether lists and mappings nest deeper than `limit`. Without recursion, and each shared
    node (a YAML alias) measured once, so an alias bomb costs no more than its text."""
    height: dict[int, int] = {}
    stack = [(data, False)]
    while stack:
        node, children_done = stack.pop()
        children = list(node.values()) if isinstance(node, dict) else node if isinstance(node, list) else []
        if not children or id(node) in height:
            height.setdefault(id(node), 1 if children else 0)
            continue
        if children_done:
            height[id(node)] = 1 + max(height[id(c)] for c in children)
            if height[id(node)] > limit:
                return True
            continue
        stack.append((node, True))
        if len(stack) > 100_000:
            return True
        stack.extend((child, False) for child in children if id(child) not in height)
    return False


def read_config(source: str | Path | dict, file: str | None = None) -> DatasetConfig:
    """A dataset config from a YAML file or from data (then `file` only names it in errors).
    Checks the structure (dataset, scene, variables); the scene itself is checked against its
    family by `check_scene`. Raises ConfigError naming file, key path and expectation."""
    if isinstance(source, dict):
        raw, file = source, file or "<config>"
    else:
        path = Path(source)
        file = file or str(path)
        raw = read_yaml(path, file)
    if not isinstance(raw, dict):
        raise ConfigError(file, [("<top level>", "expected a mapping with keys dataset, scene, variables")])
    if _too_deep(raw):
        raise ConfigError(file, [("<file>", f"nested more than {MAX_DEPTH} levels deep")])
    try:
        return DatasetConfig.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(file, validation_problems(err)) from None


def check_scene(cfg: DatasetConfig, file: str) -> None:
    """The base scene and every level of every variable must make a valid scene of the config's family."""
    family = cfg.family
    base = cfg.full_scene()
    _, _, problems = validate_scene(base, family)
    known = set(problems)

    declared = {name: v.n_images for name, v in cfg.variables.items() if v.n_images is not None}
    if len(set(declared.values())) > 1:
        listing = ", ".join(f"{k}: {n}" for k, n in declared.items())
        problems.append(("variables", f"n_images must be the same for every variable that sets it (got {listing})"))
    if cfg.dataset.split_key is not None:
        for name in cfg.dataset.splits or {}:
            scene = copy.deepcopy(base)
            try:
                set_path(scene, cfg.dataset.split_key, name)
            except (KeyError, IndexError, ValueError) as err:
                problems.append(("dataset.split_key", f"path does not lead into the scene (stuck at {err})"))
                break
            new = [p for p in validate_scene(scene, family)[2] if p not in known]
            if new:
                problems.append(("dataset.split_key", f"split {name!r} makes the scene invalid: "
                                 + "; ".join(f"{k}: {m}" for k, m in new)))

    for var_path, var in cfg.variables.items():
        for key, value in _level_samples(var):
            where = format_key_path(("variables", var_path, key))
            scene = copy.deepcopy(base)
            try:
                set_path(scene, var_path, value)
            except (KeyError, IndexError, ValueError) as err:
                problems.append((format_key_path(("variables", var_path)),
                                 f"path does not lead into the scene (stuck at {err})"))
                break
            # Report what this level breaks, not what the base scene already reported.
            new = [p for p in validate_scene(scene, family)[2] if p not in known]
            if new:
                problems.append((where, f"level {shown(value)} makes the scene invalid: "
                                 + "; ".join(f"{k}: {m}" for k, m in new)))
    if problems:
        raise ConfigError(file, problems)


# --- a quick render of a config (byo render / byo plan --quality, --resolution) ------------------
def quick_config(source: str | Path | dict, *, quality: str | None = None,
              resolution: str | None = None, file: str | None = None) -> dict:
    """The config's data with `scene.render.quality` and `scene.resolution` replaced (a quick,
    smaller run of a config written at its paper's size): `resolution` is WIDTHxHEIGHT or a
    preset. A variable setting either key would undo it: a ConfigError."""
    if isinstance(source, dict):
        raw, file = copy.deepcopy(source), file or "<config>"
    else:
        file = file or str(source)
        raw = read_yaml(Path(source), file)
    if not isinstance(raw, dict):
        raise ConfigError(file, [("<top level>", "expected a mapping with keys dataset, scene, variables")])
    overrides = {}
    if quality is not None:
        overrides["render.quality"] = quality
    if resolution is not None:
        overrides["resolution"] = parse_resolution(resolution)
    scene = raw.setdefault("scene", {})
    variables = raw.get("variables") or {}
    if not isinstance(scene, dict):
        raise ConfigError(file, [("scene", "expected a mapping")])
    clash = [(f"variables.{path}", "varies the key that `quality` / `resolution` sets; render the config as it is")
             for path in overrides if isinstance(variables, dict) and path in variables]
    if clash:
        raise ConfigError(file, clash)
    for path, value in overrides.items():
        try:
            set_path(scene, path, value)
        except KeyError as err:
            raise ConfigError(file, [(f"scene.{err.args[0]}", "expected a mapping")]) from None
    return raw


def parse_resolution(text: str) -> str | list[int]:
    """'1280x720' -> [1280, 720]; a preset name stays a name (checked with the config)."""
    if text in RESOLUTION:
        return text
    width, sep, height = text.lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit() and int(width) > 0 and int(height) > 0):
        raise ConfigError(ARGUMENTS, [("resolution", f"{text[:40]!r}: expected WIDTHxHEIGHT (e.g. 640x360) "
                                                   f"or a preset ({', '.join(RESOLUTION)})")])
    return [int(width), int(height)]
