"""Reads one channel of an uncompressed scanline OpenEXR, as Blender writes a render's passes
(one part in 3.x, a part per pass from 4.x). No bpy. The OpenEXR Python bindings would do, but
they crash inside Debian's Blender (which links its own OpenEXR), and this is the only layout
the render layer ever writes."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = 20000630
MULTIPART = 0x1000
TILED = 0x200
PIXEL_TYPES = {0: np.dtype("<u4"), 1: np.dtype("<f2"), 2: np.dtype("<f4")}  # uint, half, float


class ExrError(ValueError):
    pass


@dataclass
class _Part:
    channels: list[tuple[str, np.dtype]]  # in file order (sorted by name)
    window: tuple[int, int, int, int]  # xmin, ymin, xmax, ymax
    compression: int

    @property
    def size(self) -> tuple[int, int]:
        return self.window[3] - self.window[1] + 1, self.window[2] - self.window[0] + 1


def _cstring(data: bytes, at: int) -> tuple[str, int]:
    end = data.index(b"\0", at)
    return data[at:end].decode(), end + 1


def _channels(value: bytes) -> list[tuple[str, np.dtype]]:
    channels, at = [], 0
    while value[at] != 0:
        name, at = _cstring(value, at)
        (pixel_type,) = struct.unpack_from("<i", value, at)
        channels.append((name, PIXEL_TYPES[pixel_type]))
        at += 16  # type, linear flag and reserved bytes, x and y sampling
    return channels


def _header(data: bytes, at: int) -> tuple[_Part, int]:
    attributes = {}
    while data[at] != 0:
        name, at = _cstring(data, at)
        _, at = _cstring(data, at)
        (size,) = struct.unpack_from("<i", data, at)
        attributes[name] = data[at + 4:at + 4 + size]
        at += 4 + size
    part = _Part(_channels(attributes["channels"]), struct.unpack("<4i", attributes["dataWindow"]),
                 attributes["compression"][0])
    return part, at + 1


def read_channel(path: Path, suffixes: tuple[str, ...]) -> np.ndarray:
    """The first channel whose name ends with one of `suffixes`, as a (height, width) float32
    array, rows from the top."""
    data = Path(path).read_bytes()
    magic, flags = struct.unpack_from("<ii", data, 0)
    if magic != MAGIC or flags & TILED:
        raise ExrError(f"{path}: not a scanline OpenEXR")
    multipart = bool(flags & MULTIPART)
    parts, at = [], 8
    while True:
        part, at = _header(data, at)
        parts.append(part)
        if not multipart or data[at] == 0:
            at += multipart
            break
    offsets = []
    for part in parts:
        height = part.size[0]
        offsets.append(np.frombuffer(data, "<u8", height, at))
        at += 8 * height
    for number, part in enumerate(parts):
        names = [name for name, _ in part.channels]
        wanted = next((n for n in names if n.endswith(suffixes)), None)
        if wanted is None:
            continue
        if part.compression != 0:
            raise ExrError(f"{path}: compressed (method {part.compression}); only uncompressed files are read")
        height, width = part.size
        out = np.empty((height, width), np.float32)
        for offset in offsets[number]:
            at = int(offset) + (4 if multipart else 0)
            y, _ = struct.unpack_from("<ii", data, at)
            at += 8
            for name, dtype in part.channels:
                if name == wanted:
                    out[y - part.window[1]] = np.frombuffer(data, dtype, width, at)
                    break
                at += width * dtype.itemsize
        return out
    raise ExrError(f"{path}: no channel ending with {' or '.join(suffixes)}")
