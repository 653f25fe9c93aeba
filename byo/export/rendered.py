"""What the image-level exports (`coco`, `webdataset`) read: a rendered dataset's complete images
with their legends, masks, family, split and (when the dataset has them) questions."""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

from byo.core.dataset import LEGENDS, Layout
from byo.core.errors import ARGUMENTS, ConfigError
from byo.families import get_family
from byo.families.base import Family
from byo.questions.load import QUESTIONS, load_questions

NAME = re.compile(r"[A-Za-z0-9_-]+")  # an image name: a WebDataset key may hold no dot


@dataclass
class RenderedImage:
    name: str
    legend: dict
    split: str
    image: Path
    mask: Path
    legend_path: Path
    questions: list[dict] = field(default_factory=list)  # rows of questions.jsonl, in file order


@dataclass
class Rendered:
    root: Path
    family: Family
    images: list[RenderedImage]

    @property
    def splits(self) -> list[str]:
        return list(dict.fromkeys(i.split for i in self.images))


def extra(name: str, installed: str) -> ConfigError:
    """The error for a format whose reader/writer library is an optional extra."""
    return ConfigError(ARGUMENTS, [("format", f"needs {installed} (pip install 'byo-render[{name}]', "
                                  f"or .[{name}] from a checkout)")])


def load_rendered(dataset: str | Path) -> Rendered:
    """The complete images of a rendered dataset, in index order, or exit 2 naming what is wrong."""
    root = Path(dataset)
    if not (root / LEGENDS).is_dir():
        raise ConfigError(str(root), [("<dataset>", "not a rendered dataset: expected a legends/ folder "
                                       "(byo render)")])
    layout = Layout(root)
    legends = layout.legends()
    if not legends:
        raise ConfigError(str(root / LEGENDS), [("<legends>", "no complete image: render the dataset first "
                                                 "(or `resume` an interrupted render)")])
    families = {lg["family"] for lg in legends}
    if len(families) != 1:
        raise ConfigError(str(root / LEGENDS), [("family", f"expected one family, found {sorted(families)}")])
    try:
        family = get_family(families.pop())
    except KeyError as err:
        raise ConfigError(str(root / LEGENDS), [("family", str(err.args[0]))]) from None
    by_image: dict[str, list[dict]] = {}
    if (root / QUESTIONS).is_file():
        for q in load_questions(root / QUESTIONS, root):
            by_image.setdefault(q.image, []).append(q.model_dump(mode="json"))
    images = []
    for legend in legends:
        name = legend["name"]
        if not NAME.fullmatch(name):
            raise ConfigError(str(layout.legend(name)), [("name", f"{name!r}: expected letters, digits, '_' "
                                                          "and '-' only")])
        image = RenderedImage(name=name, legend=legend, split=family.image_split(legend),
                              image=layout.image(name), mask=layout.mask(name), legend_path=layout.legend(name),
                              questions=by_image.get(legend["image"], []))
        check_split(image, layout)
        images.append(image)
    return Rendered(root=root, family=family, images=images)


def check_split(image: RenderedImage, layout: Layout) -> None:
    if not NAME.fullmatch(image.split):
        raise ConfigError(str(layout.legend(image.name)), [("split", f"{image.split!r}: expected letters, "
                                                            "digits, '_' and '-' only (it names files)")])


def read_pixels(path: Path, legend: dict, mode: str) -> np.ndarray:
    """An image or mask as the legend describes it (its size), or exit 2 naming the file."""
    try:
        with Image.open(io.BytesIO(path.read_bytes())) as im:
            im.load()
            pixels = np.asarray(im.convert(mode) if im.mode != mode else im)
    except (OSError, UnidentifiedImageError) as err:
        raise ConfigError(str(path), [("<file>", f"does not decode as an image: {err}")]) from None
    if pixels.shape[:2] != (legend["height"], legend["width"]):
        raise ConfigError(str(path), [("<file>", f"{pixels.shape[1]}x{pixels.shape[0]} pixels; the legend says "
                                       f"{legend['width']}x{legend['height']}")])
    return pixels


def check_rendered(rendered: Rendered) -> None:
    """Every image and mask decodes whole, at its legend's size: a damaged one is named before
    anything is written (the exports copy them as they are)."""
    for image in rendered.images:
        read_pixels(image.image, image.legend, "RGB")
        read_pixels(image.mask, image.legend, "L")


def instance_masks(legend: dict, ids: np.ndarray) -> dict[int, np.ndarray]:
    """Each object's pixels (its own mask id and those of its parts, such as a card's corner
    indices, which are parts of it and no instance of their own), by the object's id."""
    owned: dict[int, list[int]] = {o["id"]: [o["id"]] for o in legend["objects"]}
    for part in legend.get("parts", []):
        owned[part["object"]].append(part["id"])
    return {oid: np.isin(ids, values) for oid, values in owned.items()}


def json_bytes(value) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=1) + "\n").encode()
