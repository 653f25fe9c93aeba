"""The one place that puts a rendered image on disk: image, instance ids, legend text, then the
legend (written last, it marks the image complete). Each file is written atomically."""

from __future__ import annotations

from byo import legend as legends
from byo.dataset import Layout, atomic_write_bytes, atomic_write_text, png_bytes
from byo.render.messages import RenderResult


def write_result(layout: Layout, result: RenderResult) -> None:
    atomic_write_bytes(layout.image(result.name), png_bytes(result.image))
    atomic_write_bytes(layout.mask(result.name), png_bytes(result.instance_ids))
    atomic_write_text(layout.legend_text(result.name), result.legend_text)
    atomic_write_text(layout.legend(result.name), legends.dumps(result.legend))
