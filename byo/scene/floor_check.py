"""Which images of a plan cannot meet the visibility floor, and the change that would let them,
from the scene specs alone (byo/scene/visibility.py projects the objects); before any render.

An image cannot meet the floor when one of its objects, at its nearest placement in view and
with nothing in front of it, covers fewer pixels than render.min_visible_pixels: every
placement and every restart of the same draw fails, so its render would fail after all its
tries. The fix offered is computed, and checked on the specs:

- a camera distance: the largest at which every object of each such image covers the floor
  wherever it stands in view (only occlusion can then hide one, and placing it again settles
  that); the scenes are sampled at that distance, and where they no longer place, the count
  that does is offered with it;
- a resolution, only when the config states its floor in pixels (render.min_visible_pixels):
  the default floor is a share of the image, which a larger image asks of it just as much.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from byo.core.errors import ConfigError
from byo.scene.config import DatasetConfig, scene_for_levels
from byo.scene.plan import ImageJob
from byo.scene.setup import CAMERA_DISTANCE, CameraConfig
from byo.scene.spec import PlacementError, SceneSpec, placed_spec
from byo.scene.visibility import (
    Reach,
    at_distance,
    largest_distance,
    placements,
    reach,
    resolution_for,
)

SHOWN_IMAGES = 8  # images named in the one-line refusal


@dataclass(frozen=True)
class Unmet:
    """An image whose objects cannot all meet the floor."""

    job: ImageJob
    spec: SceneSpec
    short: list[Reach]  # its objects below the floor even at their nearest placement


def object_reaches(cfg: DatasetConfig, spec: SceneSpec, projector=None) -> list[Reach] | None:
    """Each object's silhouette pixels at its nearest and farthest placement in view; None when
    the family does not give its objects' silhouettes."""
    family = cfg.family
    projector = projector or spec.setup.projector()
    area = family.placement_area(spec)
    out = []
    for obj in spec.objects:
        shape = family.silhouette(spec, obj)
        if shape is None:
            return None
        out.append(reach(projector, shape, placements(area, obj.location), obj.name))
    return out


def unmet(cfg: DatasetConfig, tasks: Sequence[tuple[ImageJob, SceneSpec]]) -> list[Unmet]:
    """The images (job, spec) that cannot meet their floor; none when an object below the floor
    is kept and flagged (render.on_hidden: flag) rather than placed again."""
    found = []
    for job, spec in tasks:
        if spec.setup.render.on_hidden != "resample":
            continue
        reaches = object_reaches(cfg, spec)
        short = [r for r in reaches or [] if r.best < spec.setup.min_visible_pixels]
        if short:
            found.append(Unmet(job, spec, short))
    return found


def _meets_everywhere(cfg: DatasetConfig, spec: SceneSpec, distance: float) -> bool:
    """Whether every object covers the floor wherever it stands in view, the camera at `distance`
    metres (the spec's own elevation and azimuth)."""
    cam = spec.setup.camera
    projector = at_distance(spec.setup.projector(), distance, cam.elevation, cam.azimuth)
    family, area, floor = cfg.family, cfg.family.placement_area(spec), spec.setup.min_visible_pixels
    kinds = {}  # objects alike (shape, size, turn) are projected once; the smallest first
    for obj in spec.objects:
        kinds.setdefault((obj.kind, obj.scale, obj.rotation, obj.location[2]), obj)
    for obj in sorted(kinds.values(), key=lambda o: o.scale):
        shape = family.silhouette(spec, obj)
        if shape is not None and reach(projector, shape, placements(area, obj.location), obj.name).worst < floor:
            return False
    return True


def _level(job: ImageJob, cfg: DatasetConfig) -> float:
    """The camera distance the config asks of this image, in metres (before the camera's jitter)."""
    level = scene_for_levels(cfg, job.levels).get("camera", {}).get("distance", CameraConfig().distance)
    return float(CAMERA_DISTANCE[level] if isinstance(level, str) else level)


def distance_fix(cfg: DatasetConfig, found: Sequence[Unmet]) -> float | None:
    """The largest camera distance (as the config writes it, before jitter; rounded down to the
    centimetre) at which every object of every image in `found` covers the floor wherever it
    stands; None when no distance does."""
    fixes = []
    for u in found:
        resolved = largest_distance(lambda d, u=u: _meets_everywhere(cfg, u.spec, d), u.spec.setup.camera.distance)
        if resolved is None:
            return None
        # jitter scales the level: the level that gives at most `resolved` is in the same ratio
        fixes.append(resolved / u.spec.setup.camera.distance * _level(u.job, cfg))
    return math.floor(min(fixes) * 100) / 100 if fixes else None


def _with(job: ImageJob, levels: dict) -> ImageJob:
    """`job` with some of its levels (key paths) set otherwise."""
    return replace(job, levels={**job.levels, **levels})


COUNT_RESTARTS = 2  # draws of a scene tried at each smaller count (a count that places, places at once)


def placeable_count(cfg: DatasetConfig, job: ImageJob, n: int, file: str) -> int:
    """The largest object count below `n` at which the scene of `job` places (0: none does, or
    the family's content has no `count`)."""
    for k in range(n - 1, 0, -1):
        try:
            placed_spec(cfg, _with(job, {"content.count": k}), file, restarts=COUNT_RESTARTS)
            return k
        except PlacementError:
            continue
        except ConfigError:
            return 0
    return 0


def count_fix(cfg: DatasetConfig, found: Sequence[Unmet], distance: float, file: str) -> int | None:
    """With the camera at `distance`: None when every image in `found` still places; else the
    largest object count at which each does (0: none does)."""
    fits = None
    for u in found:
        job = _with(u.job, {"camera.distance": distance})
        try:
            placed_spec(cfg, job, file)
            continue
        except PlacementError:
            pass
        n = placeable_count(cfg, job, len(u.spec.objects), file)
        fits = n if fits is None else min(fits, n)
    return fits


def resolution_fix(found: Sequence[Unmet]) -> tuple[int, int] | None:
    """A floor stated in pixels (render.min_visible_pixels set): the resolution at which every
    short object of `found` covers it wherever it stands; None for a floor that scales with the image."""
    if any("min_visible_pixels" not in u.spec.setup.render.model_fields_set for u in found):
        return None
    sizes = []
    for u in found:
        cfg_size = u.spec.setup.resolution
        least = min(r.worst for r in u.short) or min(r.best for r in u.short)
        sizes.append(resolution_for(cfg_size, least, u.spec.setup.min_visible_pixels))
    return max(sizes, key=lambda s: s[0] * s[1]) if sizes else None


def refusal(cfg: DatasetConfig, found: Sequence[Unmet], total: int, file: str) -> ConfigError:
    """The refusal: its first line names the key and the changes that would let the images meet
    the floor; the second, the floor and the images."""
    first = found[0]
    floor = first.spec.setup.min_visible_pixels
    worst = min(first.short, key=lambda r: r.best)
    levels = ", ".join(f"{k}={v}" for k, v in first.job.levels.items())
    images = ", ".join(str(u.job.index) for u in found[:SHOWN_IMAGES]) + (" ..." if len(found) > SHOWN_IMAGES else "")
    scaled = "" if "min_visible_pixels" in first.spec.setup.render.model_fields_set else (
        f", CLEVR's 200 px at 320x240 scaled to {first.spec.setup.resolution[0]}x{first.spec.setup.resolution[1]}")
    fixes = []
    distance = distance_fix(cfg, found)
    if distance is not None:
        n = count_fix(cfg, found, distance, file)
        if n != 0:  # 0: at that distance no count places
            fixes.append(f"camera.distance at most {distance:g} m" + (f" with content.count at most {n}" if n else ""))
    size = resolution_fix(found)
    if size is not None:
        fixes.append(f"resolution at least {size[0]}x{size[1]}")
    fixes.append("render.on_hidden: flag")
    key = "variables.camera.distance" if "camera.distance" in cfg.variables else "scene.camera.distance"
    return ConfigError(file, [
        (key, f"expected {' or '.join(fixes)}: {len(found)} of {total} images cannot show every object on the "
              f"visibility floor ({floor} px) even unoccluded at its nearest placement"),
        ("scene.render.min_visible_pixels", f"{floor} px{scaled}; images {images} (image {first.job.index}"
                                            f"{f', {levels}' if levels else ''}: {worst.name} at most "
                                            f"{worst.best:.0f} px)")])
