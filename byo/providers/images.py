"""Images as sent: the file's real format, checked against the provider's limits, downscaled
only when asked (`max_side`). Whatever happens is recorded in the prediction row."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from byo.providers.base import ImageLimits, ImagePayload, ProviderFailure

MIME = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}


def prepare_image(path: Path, limits: ImageLimits, max_side: int | None = None,
                  provider: str = "the provider") -> tuple[ImagePayload, dict]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ProviderFailure("image_missing", f"{path} does not exist") from None
    try:
        with Image.open(io.BytesIO(data)) as img:
            fmt, (width, height) = img.format, img.size
            sent_size = (width, height)
            if max_side is not None and max(width, height) > max_side:
                scale = max_side / max(width, height)
                sent_size = (max(1, round(width * scale)), max(1, round(height * scale)))
                out = io.BytesIO()
                img.resize(sent_size, Image.Resampling.LANCZOS).save(out, format=fmt)
                data = out.getvalue()
    except (UnidentifiedImageError, OSError) as err:
        raise ProviderFailure("image_unreadable", f"{path}: {err}") from None
    if fmt not in MIME:
        raise ProviderFailure("image_unreadable", f"{path}: {fmt} images are not sent (PNG, JPEG or WebP)")

    info = {"sha256": hashlib.sha256(data).hexdigest(), "format": fmt.lower(), "size": [width, height],
            "sent_size": list(sent_size), "bytes": len(data), "downscaled": sent_size != (width, height)}
    hint = "; pass `max_side` to downscale" if max_side is None else "; pass a smaller `max_side`"
    if limits.max_bytes is not None and len(data) > limits.max_bytes:
        raise ProviderFailure("image_too_large", f"{path}: {len(data)} bytes exceeds {provider}'s limit of "
                              f"{limits.max_bytes} bytes{hint}")
    if limits.max_pixels is not None and sent_size[0] * sent_size[1] > limits.max_pixels:
        raise ProviderFailure("image_too_large", f"{path}: {sent_size[0]}x{sent_size[1]} exceeds {provider}'s "
                              f"limit of {limits.max_pixels} pixels{hint}")
    return ImagePayload(data=data, mime=MIME[fmt]), info
