"""The training labels of a dataset, for metrics that need them (KamonBench's Acc NIT and its
novel-combination slices): the true answers of each question key over the images of the
dataset's training split, rendered or not. The split is a deterministic function of the config,
so the images are sampled from it (no rendering): the family says which config holds its
training images (`Family.training_config`) and which split an image is in (`image_split`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from byo.core.dataset import RESOLVED_CONFIG
from byo.core.errors import ConfigError
from byo.core.inputs import read_json
from byo.families import load_config
from byo.families.base import Answer, ask
from byo.scene.plan import jobs
from byo.scene.spec import PlacementError, placed_spec

TRAIN = "train"


def training_answers(dataset: Path, keys: Iterable[str]) -> dict[str, list]:
    """key -> the true answers of the training images (an empty dict when the dataset has no
    recorded config, or its family answers none of `keys`)."""
    path = Path(dataset) / RESOLVED_CONFIG
    if not path.is_file():
        return {}
    data = read_json(path)
    if not isinstance(data, dict):
        return {}
    data = {k: v for k, v in data.items() if k != "images"}  # the resolved config's image count
    try:
        family = load_config(data, str(path)).family
        cfg = load_config(family.training_config(data), f"{path} (its training split)")
    except ConfigError:
        return {}  # a config of an older version: the metrics fall back on the run's own train rows
    wanted = [k for k in dict.fromkeys(keys) if k in family.answers]
    if not wanted:
        return {}
    out: dict[str, list] = {k: [] for k in wanted}
    for job in jobs(cfg):
        try:
            legend = placed_spec(cfg, job).model_dump(mode="json")
        except PlacementError:
            continue
        if family.image_split(legend) != TRAIN:
            continue
        for key in wanted:
            result = ask(family.answers[key], legend, key)
            if isinstance(result, Answer):
                out[key].append(result.value)
    return out
