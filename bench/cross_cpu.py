"""How far renders of the same config and seed drift between processors, measured on one
machine by running the same renders natively and under QEMU's user-mode emulation of other
x86-64 processors (Debian's qemu-user): EPYC-Rome (AVX2, no AVX-512), Haswell (AVX2) and
Sandy Bridge (AVX without AVX2, so Cycles' SSE4.2 kernel and Embree's AVX path; older
processors without AVX stop on an illegal instruction in the bpy wheel). Cycles, Embree and
OpenImageDenoise pick their kernels by instruction set at run time, which is what makes
float results differ in the last bits from one processor to another.

Two render settings: the goldens' (tests/support/golden_data.py: 64x48, 4 samples, no denoiser) over
every shipped config, and a denoised one (128x96, 16 samples, OpenImageDenoise) over a subset.
Each variant is compared with the native render: images (largest difference in grey levels,
share of pixel values more than 0 / 1 / 2 levels apart, PSNR), masks (pixels whose instance
id differs) and legends (fields that differ). Native renders twice to show run-to-run spread,
and the native undenoised renders are compared with tests/golden/, recorded on another machine
(bench/results.json names its processor). OpenImageDenoise crashes under QEMU's emulation, so
denoised renders are compared natively only.
The tolerances tests/render/test_golden.py applies, and the README states, come from this table.

Run with `python bench/cross_cpu.py --json bench/results/cross_cpu.json` (about an hour on
2 cores; `--configs` picks a subset). Not part of `make bench`: it needs qemu-user."""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from figures import ROOT, Section
from PIL import Image

sys.path.insert(0, str(ROOT / "tests" / "support"))
from golden_data import CONFIGS, GOLDEN, comparable_legend, render_tiny  # noqa: E402

from byo.scene.measure import read_mask  # noqa: E402

VARIANTS = {  # name: QEMU cpu model (None: this processor, natively)
    "native": None,
    "native_again": None,
    "epyc_rome_avx2": "EPYC-Rome",
    "haswell_avx2": "Haswell-v4",
    "sandybridge_avx": "SandyBridge",  # AVX without AVX2: Cycles' SSE4.2 kernel
}
DENOISED = {"resolution": [128, 96], "render": {"samples": 16, "denoise": "on"}}
DENOISED_CONFIGS = ("chess/count", "clevr/color_binding", "clevr/two_object", "poker/count",
                    "crest/composite_3d", "demo")


def render_all(out: Path, configs: list[str], denoised: bool) -> None:
    """Renders each config (golden settings, or DENOISED's) into out/<golden name>."""
    for name in configs:
        config = ROOT / "dataset_configs" / f"{name}.yaml"
        if denoised:
            render_tiny(config, out, DENOISED["resolution"], DENOISED["render"])
        else:
            render_tiny(config, out)


def _pixels(path: Path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"), dtype=np.int16)


def _legend_differences(a: object, b: object, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            out += _legend_differences(a.get(key), b.get(key), f"{path}.{key}" if path else key)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out += _legend_differences(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [path]


def compare(reference: Path, other: Path) -> dict:
    """Image, mask and legend differences of every image of `other` against `reference`."""
    worst, over = 0, [0, 0, 0]
    values = pixels = mask_pixels = 0
    mse_sum = 0.0
    images = 0
    worst_image_over_2, worst_image_psnr = 0.0, math.inf  # the worst single image's figures
    legend_fields: set[str] = set()
    for png in sorted(reference.rglob("images/*.png")):
        twin = other / png.relative_to(reference)
        if not twin.exists():  # the goldens hold every config; a run may hold a subset
            continue
        a, b = _pixels(png), _pixels(twin)
        diff = np.abs(a - b)
        worst = max(worst, int(diff.max()))
        for level in range(3):
            over[level] += int((diff > level).sum())
        values += diff.size
        pixels += diff.shape[0] * diff.shape[1]
        image_mse = float((diff.astype(float) ** 2).mean())
        mse_sum += image_mse
        images += 1
        worst_image_over_2 = max(worst_image_over_2, float((diff > 2).mean()))
        if image_mse:
            worst_image_psnr = min(worst_image_psnr, 10 * math.log10(255**2 / image_mse))
        mask = png.parent.parent / "masks" / png.name
        if mask.exists():
            mask_pixels += int((read_mask(mask) != read_mask(twin.parent.parent / "masks" / png.name)).sum())
        legend = png.parent.parent / "legends" / png.with_suffix(".json").name
        legend_fields |= {
            _general(f) for f in _legend_differences(comparable_legend(legend),
                                                     comparable_legend(twin.parent.parent / "legends" / legend.name))}
    mse = mse_sum / max(images, 1)
    return {"images": images, "max_grey_levels": worst,
            "share_over_0": over[0] / values, "share_over_1": over[1] / values, "share_over_2": over[2] / values,
            "psnr_db": math.inf if mse == 0 else 10 * math.log10(255**2 / mse),
            "worst_image_share_over_2": worst_image_over_2, "worst_image_psnr_db": worst_image_psnr,
            "mask_pixels_differing": mask_pixels, "mask_share": mask_pixels / max(pixels, 1),
            "legend_fields_differing": sorted(legend_fields)}


def _general(field: str) -> str:
    """objects[3].visible_pixels -> objects[].visible_pixels"""
    out, depth = [], 0
    for ch in field:
        if ch == "[":
            depth += 1
            out.append("[]")
        elif ch == "]":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def run_variant(name: str, cpu: str | None, out: Path, configs: list[str], denoised: bool) -> None:
    command = [sys.executable, __file__, "--render-into", str(out), "--configs", ",".join(configs)]
    if denoised:
        command.append("--denoised")
    if cpu:
        command = ["qemu-x86_64", "-cpu", cpu, *command]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{name}: {' '.join(command)} exited {done.returncode}:\n{done.stderr[-3000:]}")


def _db(x: float) -> str | float:
    return "inf" if math.isinf(x) else round(x, 1)


def _fmt_share(x: float) -> str:
    return f"{100 * x:.4f}%"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--configs", help="comma-separated config names (chess/count, ...); default: all")
    parser.add_argument("--variants", help="comma-separated variant names; default: all")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--render-into", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--denoised", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    every = [c.relative_to(ROOT / "dataset_configs").with_suffix("").as_posix() for c in CONFIGS]
    configs = args.configs.split(",") if args.configs else every
    if args.render_into:  # a worker: render, nothing else
        render_all(args.render_into, configs, args.denoised)
        return
    if shutil.which("qemu-x86_64") is None:
        sys.exit("bench/cross_cpu.py needs qemu-user (apt-get install qemu-user)")
    variants = {k: v for k, v in VARIANTS.items() if not args.variants or k in args.variants.split(",")}
    section = Section("cross_cpu", "Cross-processor spread of renders (native vs QEMU-emulated CPUs)",
                      " ".join(__doc__.split("Run with")[0].split()))
    rows = []
    failed: dict[tuple[str, str], str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode, mode_configs in (("undenoised", configs),
                                   ("denoised", [c for c in configs if c in DENOISED_CONFIGS])):
            if not mode_configs:
                continue
            for name, cpu in variants.items():
                if mode == "denoised" and cpu:
                    continue  # OpenImageDenoise crashes under QEMU's emulation
                print(f"{mode}: rendering {len(mode_configs)} configs as {name}", file=sys.stderr, flush=True)
                try:
                    run_variant(name, cpu, Path(tmp) / mode / name, mode_configs, mode == "denoised")
                except RuntimeError as err:
                    failed[(mode, name)] = str(err).splitlines()[0][-200:]
                    print(err, file=sys.stderr, flush=True)
            pairs = [(name, Path(tmp) / mode / "native", Path(tmp) / mode / name) for name, cpu in variants.items()
                     if name != "native" and not (mode == "denoised" and cpu)]
            if mode == "undenoised":
                pairs.append(("goldens (recorded elsewhere)", GOLDEN, Path(tmp) / mode / "native"))
            for name, reference, other in pairs:
                if (mode, name) in failed:
                    rows.append([mode, name, 0, *["-"] * 8, f"failed: {failed[(mode, name)]}"])
                    continue
                found = compare(reference, other)
                rows.append([mode, name, found["images"], found["max_grey_levels"],
                             _fmt_share(found["share_over_0"]), _fmt_share(found["share_over_1"]),
                             _fmt_share(found["share_over_2"]), _fmt_share(found["worst_image_share_over_2"]),
                             _db(found["psnr_db"]), _db(found["worst_image_psnr_db"]),
                             found["mask_pixels_differing"], ", ".join(found["legend_fields_differing"]) or "-"])
                print(json.dumps({"mode": mode, "variant": name, **found}), file=sys.stderr, flush=True)
    section.table("spread against this processor, native",
                  [("render", ""), ("variant", ""), ("images", ""), ("max difference", "grey levels"),
                   ("values > 0 apart", ""), ("values > 1 apart", ""), ("values > 2 apart", ""),
                   ("values > 2 apart, worst image", ""), ("PSNR", "dB"), ("PSNR, worst image", "dB"),
                   ("mask pixels differing", ""), ("legend fields differing", "")], rows)
    section.write(args.json)


if __name__ == "__main__":
    main()
