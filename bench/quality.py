"""Quality presets, measured: each family's representative scene rendered once at 1024 samples
(the reference), then candidate Cycles settings compared with it (PSNR, SSIM) and timed. Writes
docs/quality_presets.md and bench/results/quality.json. Run with `make bench` (or alone:
`.venv/bin/python bench/quality.py`); references are cached in bench/references/."""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml
from PIL import Image
from skimage.metrics import peak_signal_noise_ratio, structural_similarity

from byo.blender import engine
from byo.families import load_config
from byo.plan import make_job
from byo.render.job import build_scene
from byo.spec import sample_spec

ROOT = Path(__file__).resolve().parent.parent
REFERENCES = ROOT / "bench" / "references"
REFERENCE_SAMPLES = 1024


@dataclass(frozen=True)
class Scene:
    """A family's representative scene: a shipped config, an image index, a resolution."""

    family: str
    config: str
    index: int
    resolution: tuple[int, int]

    @property
    def key(self) -> str:
        return f"{self.family}_{self.index}_{self.resolution[0]}x{self.resolution[1]}"


SCENES = [
    Scene("chess", "dataset_configs/chess/count.yaml", 0, (640, 360)),
    Scene("chess", "dataset_configs/chess/count.yaml", 100, (640, 360)),
    Scene("chess", "dataset_configs/chess/count.yaml", 200, (640, 360)),
    Scene("clevr", "dataset_configs/clevr/count.yaml", 20, (320, 240)),
    Scene("poker", "dataset_configs/poker/count.yaml", 40, (800, 600)),
    Scene("crest", "dataset_configs/crest/composite_3d.yaml", 0, (320, 240)),
]

# The reference: the final preset's light paths (the Cycles defaults: bounces 4/3/3, indirect
# clamp 10, caustics on) at 1024 samples everywhere, denoised.
REFERENCE = {"quality": "final", "samples": REFERENCE_SAMPLES, "adaptive_threshold": None, "denoise": "on"}
# BYO-Eval's setting, timed in the same run as the presets: 128 samples, adaptive.
BASELINE = {"quality": "final", "samples": 128, "adaptive_threshold": 0.01, "denoise": "on"}


def scene_config(scene: Scene, render_keys: dict):
    """The scene's config at its resolution, its render keys replaced by `render_keys` (the
    engine and on_hidden kept)."""
    raw = yaml.safe_load((ROOT / scene.config).read_text())
    raw["scene"]["resolution"] = list(scene.resolution)
    raw["scene"]["render"] = {k: v for k, v in raw["scene"].get("render", {}).items() if k in ("on_hidden", "engine")}
    raw["scene"]["render"].update(render_keys)
    return load_config(raw, file=scene.config)


def render(scene: Scene, render_keys: dict, seed_offset: int = 0, threads: int = 2) -> tuple[np.ndarray, float]:
    """The scene rendered with these render keys (a preset and overrides); the image and the
    CPU seconds the render took (all threads: steadier than wall time on a busy machine)."""
    cfg = scene_config(scene, render_keys)
    spec = sample_spec(cfg, make_job(cfg, scene.index), 0)
    with engine.own_scene(f"quality_{scene.key}") as bl_scene:
        build_scene(spec, cfg.family, bl_scene, threads)
        bl_scene.cycles.seed += seed_offset
        before = time.process_time()
        image = engine.render_image(bl_scene)
        return image, time.process_time() - before


def reference(scene: Scene) -> np.ndarray:
    """The cached reference image (rendered with another seed than the candidates)."""
    digest = hashlib.sha256(json.dumps([scene.key, scene.config, REFERENCE], sort_keys=True).encode()).hexdigest()[:12]
    path = REFERENCES / f"{scene.key}_{digest}.png"
    if not path.exists():
        image, seconds = render(scene, REFERENCE, seed_offset=7919)
        REFERENCES.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name("." + path.name)
        Image.fromarray(image).save(tmp, format="PNG")
        tmp.rename(path)
        print(f"reference {scene.key}: {seconds:.0f} s", flush=True)
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


def quality(image: np.ndarray, ref: np.ndarray) -> tuple[float, float]:
    psnr = peak_signal_noise_ratio(ref, image, data_range=255)
    ssim = structural_similarity(ref, image, channel_axis=2, data_range=255)
    return float(psnr), float(ssim)


@dataclass
class Measured:
    psnr: float
    ssim: float
    seconds: float


def measure_settings(scenes: list[Scene], render_keys: dict) -> Measured:
    """Mean PSNR, mean SSIM and mean engine seconds of these settings over `scenes`."""
    runs = []
    for scene in scenes:
        image, seconds = render(scene, render_keys)
        runs.append((*quality(image, reference(scene)), seconds))
    psnr, ssim, seconds = (float(np.mean(column)) for column in zip(*runs, strict=True))
    return Measured(round(psnr, 2), round(ssim, 4), round(seconds, 3))


# Preset targets against the references: mean PSNR (dB) and SSIM, on every family's scene.
TARGETS = {"draft": (40.0, 0.99), "standard": (45.0, 0.995), "final": (50.0, 0.995)}
# Candidates. Light paths: "full" is the reference's (bounces 4/3/3, indirect clamp 10,
# caustics); "lean" (no caustics, two diffuse and glossy bounces, indirect light clamped at 1)
# was tried because it hid nothing on chess at 8 samples; measured on every family it saves no
# time and costs CLEVR's metal 2-4 dB, so the presets keep the full paths.
FULL = {"clamp_indirect": 10.0, "caustics": True, "max_bounces": 4, "diffuse_bounces": 3, "glossy_bounces": 3}
LEAN = {"clamp_indirect": 1.0, "caustics": False, "max_bounces": 4, "diffuse_bounces": 2, "glossy_bounces": 2}
FIXED = {"adaptive_threshold": None}
CANDIDATES = [  # the presets are chosen among these
    {"samples": 6, **FIXED, **FULL, "denoise_prefilter": "fast"},
    {"samples": 8, **FIXED, **FULL, "denoise_prefilter": "fast"},
    {"samples": 12, **FIXED, **FULL},
    {"samples": 16, **FIXED, **FULL, "denoise_prefilter": "fast"},
    {"samples": 16, "adaptive_threshold": 0.05, "adaptive_min_samples": 2, **FULL},
    {"samples": 24, **FIXED, **FULL, "denoise_prefilter": "fast"},
    {"samples": 24, "adaptive_threshold": 0.05, "adaptive_min_samples": 4, **FULL},
    {"samples": 32, "adaptive_threshold": 0.05, "adaptive_min_samples": 4, **FULL, "denoise_prefilter": "fast"},
    {"samples": 32, "adaptive_threshold": 0.05, "adaptive_min_samples": 4, **FULL},
    {"samples": 32, "adaptive_threshold": 0.03, "adaptive_min_samples": 4, **FULL},
    {"samples": 64, "adaptive_threshold": 0.02, "adaptive_min_samples": 8, **FULL},
    {"samples": 128, "adaptive_threshold": 0.01, **FULL},
    {"samples": 256, "adaptive_threshold": 0.01, "adaptive_min_samples": 8, **FULL},
]
LEAN_TRIED = [  # measured and shown, not chosen (see above)
    {"samples": 4, **FIXED, **LEAN, "denoise_prefilter": "fast"},
    {"samples": 8, **FIXED, **LEAN},
    {"samples": 16, **FIXED, **LEAN},
    {"samples": 16, "adaptive_threshold": 0.05, "adaptive_min_samples": 2, **LEAN},
    {"samples": 32, "adaptive_threshold": 0.05, "adaptive_min_samples": 4, **LEAN},
]
MEASURED = ROOT / "bench" / "results" / "quality_candidates.jsonl"  # one line per candidate measured


def _family_means(entry: dict) -> dict[str, tuple[float, float]]:
    """Per family: mean PSNR and SSIM over its scenes."""
    by_family: dict[str, list] = {}
    for scene in SCENES:
        if scene.key in entry["scenes"]:
            by_family.setdefault(scene.family, []).append(entry["scenes"][scene.key][:2])
    return {f: (float(np.mean([p for p, _ in v])), float(np.mean([q for _, q in v]))) for f, v in by_family.items()}


def _seconds(entry: dict) -> float:
    return sum(v[2] for v in entry["scenes"].values())


def choose(tried: list[dict]) -> dict:
    """Each preset: the candidate with the least CPU time, over all scenes, among those that
    meet its target on every family (a family's PSNR and SSIM: the means over its scenes)."""
    chosen = {}
    eligible = [e for e in tried if e["settings"] in CANDIDATES]
    for preset, (psnr, ssim) in TARGETS.items():
        passing = [e for e in eligible if all(p >= psnr and q >= ssim for p, q in _family_means(e).values())]
        if passing:
            chosen[preset] = min(passing, key=_seconds)["settings"]
    return chosen


def search(scenes: list[Scene]) -> dict:
    """Render every candidate on every scene; candidates already in MEASURED are not rendered
    again (delete the file to measure all anew)."""
    tried = [json.loads(line) for line in MEASURED.read_text().splitlines()] if MEASURED.exists() else []
    for candidate in CANDIDATES + LEAN_TRIED:
        if any(e["settings"] == candidate for e in tried):
            continue
        per_scene = {}
        for scene in scenes:
            image, seconds = render(scene, {"quality": "final", "denoise": "on", **candidate})
            per_scene[scene.key] = [*(round(v, 4) for v in quality(image, reference(scene))), round(seconds, 2)]
        tried.append({"settings": candidate, "scenes": per_scene})
        MEASURED.parent.mkdir(parents=True, exist_ok=True)
        with MEASURED.open("a") as f:
            f.write(json.dumps(tried[-1]) + "\n")
        print(json.dumps(tried[-1]), flush=True)
    tried = [e for e in tried if e["settings"] in CANDIDATES + LEAN_TRIED]
    return {"targets": TARGETS, "chosen": choose(tried), "tried": tried}


def workbench_flat() -> dict:
    """The flat crest (2D art): Workbench as configured next to Cycles at the standard preset,
    timed, with the share of pixels each gives exactly one of the crest's two colours."""
    scene = Scene("crest", "dataset_configs/crest/composite.yaml", 0, (256, 256))
    out = {}
    for label, keys in (("workbench", {}), ("cycles standard", {"engine": "cycles", "quality": "standard"})):
        cfg = scene_config(scene, keys)
        spec = sample_spec(cfg, make_job(cfg, scene.index), 0)
        with engine.own_scene("quality_flat") as bl_scene:
            build_scene(spec, cfg.family, bl_scene, 2)
            engine.render_image(bl_scene)  # warm
            before = engine.engine_seconds()
            image = engine.render_image(bl_scene)
            seconds = engine.engine_seconds() - before
        colours, counts = np.unique(image.reshape(-1, 3), axis=0, return_counts=True)
        out[label] = {"seconds": round(seconds, 3), "two_colour_share": round(float(np.sort(counts)[-2:].sum() / counts.sum()), 4),
                      "distinct_colours": len(colours)}
    return out


def write_doc(found: dict, flat: dict, path: Path) -> None:
    """docs/quality_presets.md from a search's figures."""
    lines = ["# Quality presets, measured", "",
             "Generated by `bench/quality.py --search` (do not edit by hand). Each family's representative",
             f"scene was rendered once at {REFERENCE_SAMPLES} samples (the final preset's light paths, denoised, another",
             "seed) as its reference; every candidate was rendered and compared with it (PSNR and SSIM",
             "of the 8-bit images, scikit-image). A preset takes the candidate with the least CPU time that meets",
             "its target on every family, a family's figure being the mean over its scenes. Seconds are",
             "the CPU time of the render (Cycles and its denoiser, 2 threads), steadier than wall time on a",
             "busy machine; `make bench` times the presets' wall clock (bench/results.md).", "",
             "Scenes: " + ", ".join(f"{s.key} ({s.config})" for s in SCENES), "",
             "| preset | target PSNR / SSIM | settings |", "|---|---|---|"]
    for preset, (psnr, ssim) in found["targets"].items():
        chosen = found["chosen"].get(preset)
        lines.append(f"| {preset} | {psnr} dB / {ssim} | {json.dumps(chosen) if chosen else 'none of the candidates'} |")
    keys = [s.key for s in SCENES]
    lines += ["", "Every candidate tried (PSNR dB / SSIM / CPU seconds per scene; worst family mean):", "",
              "| settings | " + " | ".join(keys) + " | worst family PSNR / SSIM |",
              "|---|" + "---|" * (len(keys) + 1)]
    for t in found["tried"]:
        cells = [" / ".join(f"{v:g}" for v in t["scenes"][k]) for k in keys]
        means = _family_means(t)
        worst = f"{min(p for p, _ in means.values()):.2f} / {min(q for _, q in means.values()):.4f}"
        lines.append(f"| `{json.dumps(t['settings'])}` | " + " | ".join(cells) + f" | {worst} |")
    wb, cy = flat["workbench"], flat["cycles standard"]
    lines += ["", "## Workbench for flat crests", "",
              "A flat crest is two-colour 2D art seen from above. Workbench with flat lighting and no",
              "anti-aliasing draws it in exactly its two colours; Cycles shades, samples and denoises it:",
              "", "| engine | seconds | pixels in the two main colours | distinct colours |", "|---|---|---|---|",
              f"| Workbench (flat, AA off) | {wb['seconds']} | {100 * wb['two_colour_share']:.1f}% | {wb['distinct_colours']} |",
              f"| Cycles, standard | {cy['seconds']} | {100 * cy['two_colour_share']:.1f}% | {cy['distinct_colours']} |", "",
              f"Workbench is {cy['seconds'] / max(wb['seconds'], 1e-6):.0f}x faster here and exact, so flat crests default to it;",
              "3D crests (on a plaque, banner or lantern) use Cycles and the presets above."]
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--references-only", action="store_true")
    parser.add_argument("--screen", action="store_true", help="one knob at a time on the chess scenes")
    parser.add_argument("--search", action="store_true", help="the cheapest candidate per preset, all scenes")
    parser.add_argument("--doc", action="store_true", help="rewrite the doc from bench/results/quality_search.json")
    args = parser.parse_args()
    if args.references_only:
        for scene in SCENES:
            reference(scene)
        return
    chess = [s for s in SCENES if s.family == "chess"]
    if args.screen:
        base = {"quality": "final", "samples": 8, "adaptive_threshold": None, "denoise": "on"}
        knobs = [{}, {"clamp_indirect": 3.0}, {"clamp_indirect": 1.0}, {"caustics": False},
                 {"diffuse_bounces": 2, "glossy_bounces": 2}, {"max_bounces": 2, "diffuse_bounces": 1, "glossy_bounces": 1},
                 {"denoise_prefilter": "fast"}, {"denoise_prefilter": "none"}, {"filter_width": 2.0},
                 {"adaptive_threshold": 0.05}, {"samples": 4}, {"samples": 16}]
        for knob in knobs:
            print(knob, measure_settings(chess, {**base, **knob}), flush=True)
    found_path = ROOT / "bench" / "results" / "quality_search.json"
    if args.search:
        found = search(SCENES)
        found["workbench_flat"] = workbench_flat()
        found_path.parent.mkdir(parents=True, exist_ok=True)
        found_path.write_text(json.dumps(found, indent=1) + "\n")
    if args.search or args.doc:
        found = json.loads(found_path.read_text())
        found["chosen"] = choose(found["tried"])
        write_doc(found, found["workbench_flat"], ROOT / "docs" / "quality_presets.md")

if __name__ == "__main__":
    main()
