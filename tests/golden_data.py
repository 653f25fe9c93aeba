"""Golden renders: every config under dataset_configs/, first images only, at a tiny size.

`python tests/golden_data.py` records them into tests/golden/ (a change that alters pixels or
legends on purpose re-records them in the same commit and says why); test_golden.py renders
again and compares.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import yaml

from byo.families import family_names, load_config
from byo.scene.config import validate_scene
from byo.scene.setup import RESOLUTION

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = sorted((ROOT / "dataset_configs").rglob("*.yaml"))
GOLDEN = Path(__file__).resolve().parent / "golden"
LIMIT = 2
TINY = {"resolution": [64, 48], "render": {"samples": 4, "denoise": "off"}}
KEPT = ("images", "masks", "legends")


def golden_name(config: Path) -> str:
    return config.relative_to(ROOT / "dataset_configs").with_suffix("").as_posix().replace("/", "__")


def shrunk_threshold(data: dict, resolution: list[int]) -> int | None:
    """The config's visibility threshold (render.min_visible_pixels, pixels of the image as
    rendered) shrunk with its image area to `resolution`: a golden is a shrunk render, and keeping
    the threshold's share of the image keeps the objects that count (at least 1 px). None for a
    family not installed here (an example family's config, before its package is)."""
    if data.get("dataset", {}).get("family") not in family_names():
        return None
    cfg = load_config(data)
    setup, _, _ = validate_scene(cfg.full_scene(), cfg.family)
    width, height = setup.resolution if isinstance(setup.resolution, tuple) else (
        RESOLUTION[setup.resolution] if isinstance(setup.resolution, str) else
        (setup.resolution.width, setup.resolution.height))
    return max(1, round(setup.render.min_visible_pixels * resolution[0] * resolution[1] / (width * height)))


def tiny_config(config: Path, resolution: list[int] | None = None, render: dict | None = None) -> dict:
    data = yaml.safe_load(config.read_text())
    scene = data.setdefault("scene", {})
    resolution = resolution or TINY["resolution"]
    threshold = shrunk_threshold(data, resolution)
    scene["resolution"] = resolution
    scene["render"] = {**scene.get("render", {}), **(render or TINY["render"])}
    if threshold is not None:
        scene["render"].setdefault("min_visible_pixels", threshold)
    data["dataset"].pop("output_dir", None)
    return data


def render_tiny(config: Path, work: Path, resolution: list[int] | None = None,
                render: dict | None = None) -> Path:
    """Render the first LIMIT images of `config`, shrunk (to `resolution`, default TINY's, with the
    render keys `render`, default TINY's), through the command line; returns the dataset directory."""
    from byo.cli import main

    work.mkdir(parents=True, exist_ok=True)
    tiny = work / f"{golden_name(config)}.yaml"
    tiny.write_text(yaml.safe_dump(tiny_config(config, resolution, render), sort_keys=False))
    out = work / golden_name(config)
    code = main(["render", str(tiny), "-o", str(out), "--limit", str(LIMIT), "--in-process"])
    if code != 0:
        raise RuntimeError(f"{config}: byo render exited {code}")
    return out


# How far an image may differ from its golden: Cycles, Embree and OpenImageDenoise choose their
# kernels by instruction set, so another processor changes float results in the last bits and,
# rarely, a sample's path. Measured by bench/cross_cpu.py over every config's golden renders
# under emulated EPYC-Rome, Haswell and Sandy Bridge processors, and against goldens recorded on
# an Intel Xeon (bench/results.md, "Cross-processor spread"): the worst image had 3 of its 9,216
# values (0.033%) more than 2 grey levels apart, none more than 6, and a PSNR of 69 dB; masks and
# legends were identical. The tolerance leaves room above that and fails a visible change
# (tests/test_golden.py shows both):
MAX_GREY_LEVELS = 2  # a value further apart than this counts as an outlier ...
MAX_OUTLIER_SHARE = 0.001  # ... and at most 0.1% of an image's values may be outliers
MIN_PSNR_DB = 60.0  # and the image as a whole within 60 dB (a 1-level shift of every pixel is 48 dB)


def image_disagreement(image, golden) -> str | None:
    """Why `image` (an integer array) is not its golden within the stated tolerance, or None."""
    import numpy as np

    if image.shape != golden.shape:
        return f"size {image.shape} instead of {golden.shape}"
    diff = np.abs(image.astype(np.int32) - golden.astype(np.int32))
    outliers = float((diff > MAX_GREY_LEVELS).mean())
    mse = float((diff.astype(np.float64) ** 2).mean())
    psnr = float("inf") if mse == 0 else 10 * np.log10(255**2 / mse)
    if outliers > MAX_OUTLIER_SHARE:
        return f"{outliers:.3%} of values more than {MAX_GREY_LEVELS} grey levels apart (at most {MAX_OUTLIER_SHARE:.1%})"
    if psnr < MIN_PSNR_DB:
        return f"PSNR {psnr:.1f} dB (at least {MIN_PSNR_DB:.0f} dB)"
    return None


# The legend's record of its files' sizes and SHA-256 (for resume): checked by the render tests,
# left out here, so that the goldens compare what was rendered rather than PNG encoder bytes.
INTEGRITY_FIELDS = ("files",)


def comparable_legend(path: Path) -> dict:
    """A legend without what the goldens leave to other tests (the file-integrity records)."""
    legend = json.loads(path.read_text())
    for key in INTEGRITY_FIELDS:
        legend.pop(key, None)
    return legend


def record(work: Path) -> None:
    if GOLDEN.exists():
        shutil.rmtree(GOLDEN)
    for config in CONFIGS:
        out = render_tiny(config, work)
        for sub in KEPT:
            shutil.copytree(out / sub, GOLDEN / golden_name(config) / sub,
                            ignore=shutil.ignore_patterns("*.txt"))


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        record(Path(tmp))
    print(f"recorded {len(CONFIGS)} configs into {GOLDEN}", file=sys.stderr)
