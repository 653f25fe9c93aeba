"""The one place that puts a rendered image on disk: image, instance ids, legend text, the dense
passes when the config asks for them (render.passes, NPY), then the legend (written last, it marks the image complete and records the other files' sizes and
SHA-256, so a resume can tell a complete image from a truncated one). Each file is written
atomically."""

from __future__ import annotations

from byo.core.dataset import (
    PASSES,
    Layout,
    atomic_write_bytes,
    atomic_write_text,
    file_record,
    npy_bytes,
    png_bytes,
)
from byo.render import legend as legends
from byo.render.messages import RenderResult


def write_result(layout: Layout, result: RenderResult) -> None:
    contents = {"image": png_bytes(result.image), "mask": png_bytes(result.instance_ids),
                "legend_text": result.legend_text.encode(),
                **{kind: npy_bytes(array) for kind, array in result.passes.items()}}  # render.passes
    paths = layout.files(result.name, result.passes)
    if result.passes:
        paths["image"].parent.with_name(PASSES).mkdir(exist_ok=True)
    for key, data in contents.items():
        atomic_write_bytes(paths[key], data)
    legend = {**result.legend, "files": {key: file_record(data) for key, data in contents.items()}}
    atomic_write_text(layout.legend(result.name), legends.dumps(legend))
