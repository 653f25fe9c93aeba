"""The contract a scene family is written against: everything a family package may use of byo.

A family package (`byo/families/<name>/`, or a package of its own registered through the
`byo.families` entry point) imports only this module, its own modules and, in its builder
module alone, the Blender toolkit `byo.blender`. `make lint` checks it (lint/family_contract.py);
docs/write_a_family.md walks through a family written this way (examples/toy_family/).

What is here, by the part of a family that uses it:

- the family itself: `Family` and the parts it declares (with `alternatives` and
  `rendered_attributes` for the counterfactual check: byo/scene/counterfactual.py) (`Sheet`, `SheetOption`,
  `SheetRequest`; `ReportTable` and `Column` for its answer types' metrics (the contract the scorer's
  own tables follow too: byo.core.report_tables), with `variants` (a table's rows per prompt variant,
  `ALL` first) and `group_by`; `Factor` and the
  shared `NO_BLUR`, `BRIGHT_LIGHT`, `OVERHEAD` for what byo explain changes), `SceneObject` and
  `PlacementError` for `sample`, `SceneSpec` for the builder, `ResolvedSetup` (the camera,
  lights, table... as applied), `CATALOG`; `QualityPreset` and `HD_PIXELS` for its own
  settings of the quality presets (`Family.quality_presets`);
- content models: `Strict`, `SRGB`, `ColorDef` (a user's own colour) with `color_name` and
  `custom_rgb`, `keyed_error`, `left_out_when_none`, asset packs (`find_pack`, `PackError`);
- answers: `Answer`, `Skip`, `Unreadable` and the readability rules (`unless`, `not_shown`,
  `not_separable`, `colour_unreadable`: docs/readability.md; the counterfactual check's
  `attribute_unreadable`, `measured_attribute`, `seen_as_rendered`), `AnswerTable`, `AnswerType`, `Retrieval` (candidate captions) and the
  helpers answer functions share (`multiple_choice`, `retrieval_choice`...);
- vocabulary: `domain`;
- the audit kit: `MeasuredImage`, `Seen`, `AuditTable`, `Expected`, `IllPosed`, `letter_of`
  and the visibility bands `SHOWN`, `EDGE`, `UNSEEN`;
- files and sheets: `atomic_write_text`, `atomic_write_bytes`, `png_bytes`, `Layout`,
  `RESOLVED_CONFIG`, the sheet grid (`grid`, `thumbnail`, `wrap`, `font`); checked reads
  (`read_json`, `reading`, and `InputError` for a damaged file);
- statistics: `proportion` (a share with its Wilson interval), `wilson`, `clustered_mean` and `cluster_index`
  (clustered by image); `ScoringOptions` for tables measured over a whole run;
- figures: `subplots` (a figure and its axes in the house style, matplotlib imported on first use),
  `pyplot` (for its helpers), `png`, `color`; and
  `ConfigError` for a bad option of a table's own.
"""

from byo.core.dataset import (
    RESOLVED_CONFIG,
    Layout,
    atomic_write_bytes,
    atomic_write_text,
    png_bytes,
)
from byo.core.errors import ARGUMENTS, ConfigError, InputError
from byo.core.figures import color, png, pyplot, subplots
from byo.core.inputs import read_json, reading
from byo.core.report_tables import ALL, Column, ReportTable, ScoringOptions, group_by, variants
from byo.core.schema import (
    SRGB,
    ColorDef,
    Strict,
    color_name,
    custom_rgb,
    keyed_error,
    left_out_when_none,
)
from byo.core.sheets import font, grid, thumbnail, wrap
from byo.core.stats import cluster_index, clustered_mean, proportion, wilson
from byo.families.audit_kit import (
    EDGE,
    SHOWN,
    UNSEEN,
    AuditTable,
    Expected,
    IllPosed,
    MeasuredImage,
    Seen,
    guarded,
    letter_of,
)
from byo.families.base import (
    BRIGHT_LIGHT,
    CATALOG,
    NO_BLUR,
    OVERHEAD,
    POSITION_WORDS,
    Answer,
    AnswerTable,
    AnswerType,
    Factor,
    Family,
    ForeignKey,
    MissingAsset,
    NoCounterpart,
    Problem,
    Retrieval,
    Sheet,
    SheetOption,
    SheetRequest,
    Skip,
    Unreadable,
    attribute_unreadable,
    blur_px,
    box_size,
    color_unreadable,
    domain,
    measured_attribute,
    multiple_choice,
    not_separable,
    not_shown,
    option_index,
    option_label,
    option_labels,
    options_shown,
    outline_unreadable,
    plural,
    retrieval_choice,
    seen_as_rendered,
    unless,
    unseen,
    view_elevation,
    visible,
)
from byo.scene.assets import PackError, find_pack
from byo.scene.outline import MIN_RESOLVED_PX
from byo.scene.setup import HD_PIXELS, QualityPreset, ResolvedSetup
from byo.scene.spec import PlacementError, SceneObject, SceneSpec

__all__ = [
    "MIN_RESOLVED_PX",
    "ForeignKey", "MissingAsset", "NoCounterpart", "Factor", "NO_BLUR", "BRIGHT_LIGHT", "OVERHEAD",
    "CATALOG", "EDGE", "HD_PIXELS", "QualityPreset", "POSITION_WORDS", "RESOLVED_CONFIG", "SHOWN", "SRGB", "UNSEEN",
    "Answer", "AnswerTable", "AnswerType", "AuditTable", "ColorDef", "Column", "Expected", "Family", "IllPosed", "InputError", "Layout",
    "MeasuredImage", "PackError", "PlacementError", "Problem", "ReportTable", "ResolvedSetup", "Retrieval", "SceneObject", "SceneSpec",
    "ALL", "ARGUMENTS", "ConfigError", "ScoringOptions", "cluster_index", "clustered_mean", "color", "png", "pyplot", "subplots",
    "Seen", "Sheet", "SheetOption", "SheetRequest", "Skip", "Unreadable", "Strict", "atomic_write_bytes", "atomic_write_text", "attribute_unreadable", "outline_unreadable", "blur_px", "box_size", "color_name", "color_unreadable", "custom_rgb", "domain",
    "find_pack", "font", "grid", "group_by", "guarded", "keyed_error", "left_out_when_none", "letter_of", "measured_attribute", "multiple_choice", "not_separable", "not_shown",
    "option_index", "option_label", "option_labels", "options_shown", "plural",
    "png_bytes", "proportion", "read_json", "reading", "retrieval_choice", "seen_as_rendered", "thumbnail", "unless", "unseen", "variants", "view_elevation", "visible", "wilson", "wrap",
]
