"""Dataset layout on disk, atomic writes, completeness and the per-dataset files."""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

IMAGES, MASKS, LEGENDS = "images", "masks", "legends"
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

    def legend_text(self, name: str) -> Path:
        return self.root / LEGENDS / f"{name}.txt"

    def is_complete(self, name: str) -> bool:
        """The legend is written last, so its presence (with image and mask) marks a finished image."""
        return all(p.is_file() for p in (self.legend(name), self.image(name), self.mask(name)))

    def remove_temporary_files(self) -> int:
        """Temporary files left by an interrupted write (see `temp_path_for`)."""
        stale = [p for sub in (IMAGES, MASKS, LEGENDS) for p in (self.root / sub).glob(".*")]
        for p in stale:
            p.unlink(missing_ok=True)
        return len(stale)

    def make_dirs(self) -> None:
        for sub in (IMAGES, MASKS, LEGENDS):
            (self.root / sub).mkdir(parents=True, exist_ok=True)

    def legends(self) -> list[dict]:
        """Complete legends, in image index order."""
        out = []
        for path in sorted((self.root / LEGENDS).glob("*.json")):
            legend = json.loads(path.read_text())
            if self.is_complete(legend["name"]):
                out.append(legend)
        return sorted(out, key=lambda lg: lg["index"])


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
    tmp = temp_path_for(path)
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
    finally:
        tmp.unlink(missing_ok=True)


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
