"""Dataset layout on disk, atomic writes, completeness and the per-dataset files."""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from PIL import Image
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from byo.core.errors import InputError, format_key_path

IMAGES, MASKS, LEGENDS = "images", "masks", "legends"
PASSES = "passes"  # render.passes: passes/NAME.KIND.npy beside each image
PASS_KINDS = ("depth", "normal", "albedo", "object_ids")
# What `byo audit` rendered itself of the counterfactual check (byo/scene/counterfactual.py):
# counterfactuals/NAME.json per image, for a dataset whose legends record none.
COUNTERFACTUALS = "counterfactuals"
METADATA = "metadata.jsonl"
RESOLVED_CONFIG = "config.resolved.json"
SOURCE_CONFIG = "config.yaml"


class Layout:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    def image(self, name: str) -> Path:
        return self.root / IMAGES / f"{name}.png"

    def mask(self, name: str) -> Path:
        return self.root / MASKS / f"{name}.png"

    def legend(self, name: str) -> Path:
        return self.root / LEGENDS / f"{name}.json"

    def counterfactuals(self, name: str) -> Path:
        return self.root / COUNTERFACTUALS / f"{name}.json"

    def legend_text(self, name: str) -> Path:
        return self.root / LEGENDS / f"{name}.txt"

    @staticmethod
    def pass_path(name: str, kind: str) -> str:
        """A dense pass's file (render.passes), relative to the dataset."""
        return f"{PASSES}/{name}.{kind}.npy"

    def files(self, name: str, passes=()) -> dict[str, Path]:
        """An image's files other than its legend, by the key the legend's `files` records them under
        (its dense passes' too, given their kinds)."""
        return {"image": self.image(name), "mask": self.mask(name), "legend_text": self.legend_text(name),
                **{kind: self.root / self.pass_path(name, kind) for kind in passes}}

    def read_legend(self, name: str) -> tuple[dict | None, list[str]]:
        """The image's legend and what is wrong with it ([] when it reads and has the fields every
        command relies on); (None, ["no legend"]) before the render has written it."""
        try:
            legend = json.loads(self.legend(name).read_bytes())
        except FileNotFoundError:
            return None, ["no legend"]
        except (OSError, ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
            return None, ["legend unreadable (truncated?)"]
        return legend, legend_problems(legend, name)

    def problems(self, name: str, *, deep: bool = True) -> list[str]:
        """What is wrong with an image on disk: [] when complete. The legend, written last, records
        each other file's size and SHA-256; `deep` also compares the hashes (else sizes only)."""
        return self.checked(name, deep=deep)[1]

    def checked(self, name: str, *, deep: bool = True) -> tuple[dict | None, list[str]]:
        """(legend, problems) of an image: see `problems`."""
        path = self.legend(name)
        if path.is_symlink() and not path.resolve().is_relative_to(self.root.resolve()):
            return None, [f"legend: a symbolic link leading outside the dataset (to {os.readlink(path)})"]
        legend, found = self.read_legend(name)
        if found:
            return legend, found
        records = legend.get("files")
        # One rule for links (byo.core.paths): nothing is read from outside the dataset through one.
        root = self.root.resolve()
        files = self.files(name, [k for k in (records or {}) if k in PASS_KINDS])
        outside = [f"{key}: a symbolic link leading outside the dataset (to {os.readlink(p)})"
                   for key, p in {**files, "legend": self.legend(name)}.items()
                   if p.is_symlink() and not p.resolve().is_relative_to(root)]
        if outside:
            return legend, outside
        if records is None:  # a legend from before the integrity records
            return legend, [f"{key}: missing" for key, p in self.files(name).items()
                            if key != "legend_text" and not (p.is_file() and p.stat().st_size)]
        for key, path in files.items():
            record = records.get(key)
            if not path.is_file():
                found.append(f"{key}: missing")
            elif record is None:
                found.append(f"{key}: not recorded in the legend")
            elif path.stat().st_size != record["bytes"]:
                found.append(f"{key}: {path.stat().st_size} bytes, the legend records {record['bytes']}")
            elif deep and file_record(path.read_bytes())["sha256"] != record["sha256"]:
                found.append(f"{key}: content differs from the legend's hash")
        return legend, found

    def damage(self, name: str, found: list[str]) -> InputError:
        """The first of an image's problems as an error naming the damaged file."""
        key, _, what = found[0].partition(": ")
        path = {**self.files(name, PASS_KINDS), "legend": self.legend(name)}.get(key)
        if path is None or not what:
            path, what = self.legend(name), found[0]
        return InputError(path, f"{what} (a damaged image: `resume` renders it again)")

    def remove_temporary_files(self) -> int:
        """Temporary files left by an interrupted write (see `temp_path_for`)."""
        stale = [p for sub in (IMAGES, MASKS, LEGENDS, PASSES) for p in (self.root / sub).glob(".*")]
        for p in stale:
            p.unlink(missing_ok=True)
        return len(stale)

    def make_dirs(self) -> None:
        for sub in (IMAGES, MASKS, LEGENDS):
            (self.root / sub).mkdir(parents=True, exist_ok=True)

    def legends(self, *, damaged: str = "raise") -> list[dict]:
        """Complete legends, in image index order. An image whose legend is there but whose files do
        not match it (or whose legend does not read) is damaged: an InputError naming the file, or
        left out with `damaged="skip"`. Images without a legend (not rendered yet) are left out."""
        out = []
        for path in sorted((self.root / LEGENDS).glob("[!.]*.json")):  # not temporary files
            legend, found = self.checked(path.stem, deep=False)
            if not found:
                out.append(legend)
            elif damaged == "raise":
                raise self.damage(path.stem, found)
        return sorted(out, key=lambda lg: lg["index"])


# --- what every command reads of a legend -----------------------------------------------------
class _Fields(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True, allow_inf_nan=False)


Point = Annotated[list[float], Field(min_length=3, max_length=3)]
MaskId = Annotated[int, Field(ge=1, le=255)]  # masks are 8-bit


class LegendObject(_Fields):
    id: MaskId
    name: str
    kind: str
    attributes: dict[str, Any]
    location: Point
    rotation: float
    pixel_coords: Point
    bbox: Annotated[list[Annotated[int, Field(ge=0)]], Field(min_length=4, max_length=4)] | None
    visible_pixels: Annotated[int, Field(ge=0)]
    visibility: Literal["visible", "ambiguous", "hidden"] | None = None
    visible: bool = True


class LegendPart(_Fields):
    id: MaskId
    object: int


class FileRecord(_Fields):
    bytes: Annotated[int, Field(ge=0)]
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class LegendFields(_Fields):
    """The fields of a legend that commands other than the family's own code rely on."""

    image: str
    mask: str
    width: Annotated[int, Field(ge=1)]
    height: Annotated[int, Field(ge=1)]
    family: str
    dataset: str
    split: str
    index: Annotated[int, Field(ge=0)]
    name: str
    seed: int
    levels: dict[str, Any]
    setup: dict[str, Any]
    content: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    objects: list[LegendObject]
    parts: list[LegendPart] = []
    landmarks: dict[str, Any] = {}
    files: dict[str, FileRecord] | None = None


def legend_problems(legend: Any, name: str) -> list[str]:
    """What keeps `legend` (of image `name`) from being read by every command: [] when nothing.
    Its files must be the image's own (a legend never points outside its dataset)."""
    if not isinstance(legend, dict):
        return ["legend unreadable (not a JSON object)"]
    try:
        fields = LegendFields.model_validate(legend)
    except ValidationError as err:
        first = err.errors()[0]
        return [f"legend: {format_key_path(first['loc'])}: {first['msg']}"]
    found = [f"legend: {key}: {value!r}, expected {expected!r}" for key, value, expected in (
        ("name", fields.name, name), ("image", fields.image, f"{IMAGES}/{name}.png"),
        ("mask", fields.mask, f"{MASKS}/{name}.png")) if value != expected]
    ids = [o.id for o in fields.objects] + [p.id for p in fields.parts]
    if len(set(ids)) != len(ids):
        found.append("legend: objects: an id is given twice")
    if any(p.object not in {o.id for o in fields.objects} for p in fields.parts):
        found.append("legend: parts: a part of an object the legend does not list")
    return found[:1]


def _file_mode() -> int:
    """What a plainly created file gets under this process's umask (0644 under the usual 022)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


FILE_MODE = _file_mode()


def temp_path_for(final: Path) -> Path:
    """A temporary sibling (same directory, so the final rename is atomic), hidden by its dot."""
    fd, tmp = tempfile.mkstemp(prefix=f".{final.stem}.", suffix=final.suffix, dir=final.parent)
    os.close(fd)
    return Path(tmp)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write a temporary sibling, flush it to disk, rename it over `path` and flush the
    directory: a crash leaves the old file or the new one, never a part."""
    path = Path(path)
    try:
        tmp = temp_path_for(path)
    except OSError as err:  # named by the file wanted, not the temporary one
        raise OSError(err.errno, err.strerror, str(path)) from None
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, FILE_MODE)  # mkstemp makes 0600
        os.replace(tmp, path)
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    except OSError as err:  # a full disk, a directory in the way: named by the file wanted
        raise OSError(err.errno, err.strerror, str(path)) from None
    finally:
        tmp.unlink(missing_ok=True)


def file_record(data: bytes) -> dict:
    """What a legend records of each file it vouches for."""
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def png_bytes(pixels: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    return buffer.getvalue()


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode())


def metadata_row(legend: dict) -> dict:
    """One Hugging Face imagefolder row: `file_name` plus flat, loadable columns."""
    return {
        "file_name": legend["image"],
        "name": legend["name"],
        "index": legend["index"],
        "seed": legend["seed"],
        "family": legend["family"],
        "split": legend["split"],
        "legend": f"{LEGENDS}/{legend['name']}.json",
        "mask_file": legend["mask"],
        "levels": json.dumps(legend["levels"], sort_keys=True),
        "n_objects": len(legend["objects"]),
        "n_visible_objects": sum(o.get("visible", True) for o in legend["objects"]),
        "objects": [{"name": o["name"], "kind": o["kind"], "visible_pixels": o["visible_pixels"],
                     "visibility": o.get("visibility", "visible"), "bbox": o["bbox"]} for o in legend["objects"]],
    }


def write_metadata(layout: Layout, legends: list[dict]) -> Path:
    path = layout.root / METADATA
    atomic_write_text(path, "".join(json.dumps(metadata_row(lg)) + "\n" for lg in legends))
    return path
