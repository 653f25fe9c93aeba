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
import skimage  # skimage.metrics loads on first use (importing this module stays cheap)
import yaml
from PIL import Image

from byo.blender import engine
from byo.families import load_config
from byo.render.job import build_scene
from byo.scene.plan import make_job
from byo.scene.spec import sample_spec

ROOT = Path(__file__).resolve().parent.parent
REFERENCES = ROOT / "bench" / "references"
REFERENCE_SAMPLES = 1024


@dataclass(frozen=True)
class Scene:
    """A family's representative scene: a shipped config, an image index, a resolution, and
    optionally a window of the frame rendered alone (Cycles' border, cropped to it): fractions
    (min x, max x, min y, max y) of the frame, y measured from the bottom as Blender does."""

    family: str
    config: str
    index: int
    resolution: tuple[int, int]
    crop: tuple[float, float, float, float] | None = None

    @property
    def key(self) -> str:
        key = f"{self.family}_{self.index}_{self.resolution[0]}x{self.resolution[1]}"
        return key if self.crop is None else key + "_crop" + "-".join(f"{100 * v:.0f}" for v in self.crop)

    @property
    def pixels(self) -> int:
        """Pixels rendered: the crop's where there is one."""
        w, h = self.resolution
        if self.crop is None:
            return w * h
        return round(w * (self.crop[1] - self.crop[0])) * round(h * (self.crop[3] - self.crop[2]))


SCENES = [
    Scene("chess", "dataset_configs/chess/count.yaml", 0, (640, 360)),
    Scene("chess", "dataset_configs/chess/count.yaml", 100, (640, 360)),
    Scene("chess", "dataset_configs/chess/count.yaml", 200, (640, 360)),
    Scene("clevr", "dataset_configs/clevr/count.yaml", 20, (320, 240)),
    Scene("clevr", "dataset_configs/clevr/count.yaml", 35, (320, 240)),  # 10 objects, the most
    Scene("poker", "dataset_configs/poker/count.yaml", 40, (800, 600)),
    Scene("poker", "dataset_configs/poker/count.yaml", 65, (800, 600)),  # 15 cards, the most
    Scene("crest", "dataset_configs/crest/composite_3d.yaml", 0, (320, 240)),
]

# What a setting leaves out: the final preset's light paths and adaptive floor, and Blender's
# defaults for the rest (light tree on, Sobol, OIDN's accurate prefilter), pinned here so that a
# change of a preset moves neither the references nor the figures measured before it.
UNSET = {"adaptive_min_samples": 8, "denoise_prefilter": "accurate", "light_tree": True, "sampling_pattern": "sobol"}


def keys_of(settings: dict) -> dict:
    """The render keys a setting is measured with: the final preset, denoised, what it leaves out
    pinned (UNSET)."""
    return {"quality": "final", "denoise": "on", **UNSET, **settings}


# The reference: the final preset's light paths (the Cycles defaults: bounces 4/3/3, indirect
# clamp 10, caustics on) at 1024 samples everywhere, denoised.
REFERENCE = keys_of({"samples": REFERENCE_SAMPLES, "adaptive_threshold": None})


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
        if scene.crop is not None:
            r = bl_scene.render
            r.use_border = r.use_crop_to_border = True
            r.border_min_x, r.border_max_x, r.border_min_y, r.border_max_y = scene.crop
        before = time.process_time()
        image = engine.render_image(bl_scene)
        return image, time.process_time() - before


def scene_digest(scene: Scene) -> str:
    """What the scene's pixels depend on: its spec (content, setup, the reference's render
    settings; the tool version and the counterfactual check's own render settings left out: they
    never touch the image) and the config file. A config or family change that moves the scene
    gives a new digest, so its reference and figures are made anew."""
    cfg = scene_config(scene, REFERENCE)
    spec = sample_spec(cfg, make_job(cfg, scene.index), 0).model_dump(
        mode="json", exclude={"tool_version": True, "setup": {"render": {"counterfactual"}}})
    return hashlib.sha256(json.dumps([scene.key, scene.config, spec], sort_keys=True).encode()).hexdigest()[:12]


def reference(scene: Scene) -> np.ndarray:
    """The cached reference image (rendered with another seed than the candidates)."""
    path = REFERENCES / f"{scene.key}_{scene_digest(scene)}.png"
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
    psnr = skimage.metrics.peak_signal_noise_ratio(ref, image, data_range=255)
    ssim = skimage.metrics.structural_similarity(ref, image, channel_axis=2, data_range=255)
    return float(psnr), float(ssim)


# Preset targets against the references: PSNR (dB) and SSIM on every scene (the worst one counts).
TARGETS = {"draft": (40.0, 0.99), "standard": (45.0, 0.995), "final": (50.0, 0.995)}
# Light paths: "full" is the reference's (bounces 4/3/3, indirect clamp 10, caustics). Cutting
# them ("lean": no caustics, 2 diffuse and glossy bounces, indirect clamped at 1) saved no time
# and cost CLEVR's metal 2-4 dB (measured before; docs/quality_presets.md keeps the figures).
FULL = {"clamp_indirect": 10.0, "caustics": True, "max_bounces": 4, "diffuse_bounces": 3, "glossy_bounces": 3}
PLAIN = {"adaptive_threshold": None, **FULL}
# One knob at a time against 16 samples with the full light paths (the screen). Measured before
# and left out of it: path guiding (+29-62% CPU, no gain), fast GI, fewer bounces, a pixel filter
# other than 1.5 px, the scrambling distance.
SCREEN_BASE = {"samples": 16, **PLAIN}
KNOBS = [{}, {"adaptive_threshold": 0.05, "adaptive_min_samples": 2}, {"light_tree": False},
         {"sampling_pattern": "blue_noise"}, {"denoise_guides": "albedo"}, {"denoise_guides": "none"},
         {"denoise_quality": "fast"}, {"denoise_prefilter": "fast"}, {"denoise_prefilter": "none"}]
SCREENED = ROOT / "bench" / "results" / "quality_screen.jsonl"
LEAN_SAMPLING = {"light_tree": False, "sampling_pattern": "blue_noise", "denoise_prefilter": "none"}
# The presets are chosen among these (after the screen).
CANDIDATES = [
    {"samples": 8, **PLAIN, "denoise_prefilter": "fast"},
    {"samples": 8, **PLAIN, "light_tree": False, "denoise_prefilter": "fast"},
    {"samples": 8, **PLAIN, "light_tree": False, "denoise_prefilter": "fast", "denoise_quality": "balanced"},
    {"samples": 12, **PLAIN, "light_tree": False, "denoise_prefilter": "fast"},
    {"samples": 16, **PLAIN},
    {"samples": 16, **PLAIN, "light_tree": False, "sampling_pattern": "blue_noise"},
    {"samples": 24, **PLAIN, "light_tree": False, "denoise_prefilter": "fast"},
    {"samples": 32, **PLAIN, "light_tree": False},
    {"samples": 40, **PLAIN, "light_tree": False, "sampling_pattern": "blue_noise"},
    {"samples": 48, **PLAIN, "light_tree": False, "denoise_prefilter": "fast"},
    {"samples": 48, **PLAIN, "light_tree": False, "sampling_pattern": "blue_noise"},
    {"samples": 64, "adaptive_threshold": 0.02, "adaptive_min_samples": 8, **FULL},
    {"samples": 256, "adaptive_threshold": 0.01, "adaptive_min_samples": 8, **FULL},
    # Adaptive sampling spends its samples on the edges, where the error of the busy scenes is
    # (70% of it on 12% of the pixels of 21 chess pieces); blue noise and no prefilter of the
    # denoiser's guides measured best with it.
    {"samples": 12, **PLAIN, **LEAN_SAMPLING},
    *({"samples": samples, "adaptive_threshold": threshold, "adaptive_min_samples": min_samples, **FULL, **LEAN_SAMPLING}
      for samples, threshold, min_samples in [(24, 0.1, 4), (32, 0.08, 4), (64, 0.035, 8), (64, 0.0325, 8),
                                              (64, 0.03, 8), (64, 0.04, 16), (384, 0.0075, 8), (512, 0.0075, 8)]),
    *({"samples": 64, "adaptive_threshold": 0.025, "adaptive_min_samples": 8, **FULL, **LEAN_SAMPLING, **denoiser}
      for denoiser in ({"denoise_prefilter": "fast"}, {"denoise_quality": "balanced"})),
]
# BYO-Eval's own setting (128 samples, adaptive at Blender's default threshold), for the ratios.
BYO_EVAL = {"samples": 128, "adaptive_threshold": 0.01, "adaptive_min_samples": 0, **FULL}
MEASURED = ROOT / "bench" / "results" / "quality_candidates.jsonl"  # one line per candidate measured


def _measure_scenes(settings: dict, scenes: list[Scene], known: dict) -> dict:
    """[PSNR, SSIM, CPU seconds] per scene; scenes in `known` are not rendered again."""
    per_scene = dict(known)
    for scene in scenes:
        if scene.key not in per_scene:
            image, seconds = render(scene, keys_of(settings))
            per_scene[scene.key] = [*(round(v, 4) for v in quality(image, reference(scene))), round(seconds, 2)]
    return per_scene


def _measured(path: Path, settings_list: list[dict], scenes: list[Scene]) -> list[dict]:
    """Every settings' figures on every scene, appended to `path` as they are measured. A rerun
    measures only what is missing or what was measured on a scene that has since changed (its
    digest differs); delete the file to measure all anew in one run."""
    done = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    digests = {s.key: scene_digest(s) for s in scenes}
    out = []
    for settings in settings_list:
        known = {k: v for e in done if e["settings"] == settings for k, v in e["scenes"].items()
                 if k in digests and e.get("digests", {}).get(k) == digests[k]}
        if all(s.key in known for s in scenes):
            out.append({"settings": settings, "scenes": known, "digests": digests})
            continue
        entry = {"settings": settings, "scenes": _measure_scenes(settings, scenes, known), "digests": digests}
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as f:
            f.write(json.dumps(entry) + "\n")
        print(json.dumps(entry), flush=True)
        out.append(entry)
    return out


def _seconds(entry: dict) -> float:
    return sum(v[2] for v in entry["scenes"].values())


def shortfalls(entry: dict, target: tuple[float, float]) -> dict[str, tuple[float, float]]:
    """The scenes where these settings miss the target: scene -> (PSNR, SSIM)."""
    psnr, ssim = target
    return {k: (v[0], v[1]) for k, v in entry["scenes"].items() if v[0] < psnr or v[1] < ssim}


def choose(tried: list[dict]) -> dict:
    """Each preset: the candidate with the least CPU time, over all scenes, among those that
    meet its target on every scene. Where none does, the one that misses it on the fewest
    scenes (then the least CPU time); the doc names those scenes and the figures."""
    chosen = {}
    eligible = [e for e in tried if e["settings"] in CANDIDATES]
    for preset, target in TARGETS.items():
        best = min(eligible, key=lambda e: (len(shortfalls(e, target)), _seconds(e)))
        chosen[preset] = best["settings"]
    return chosen


def search(scenes: list[Scene]) -> dict:
    screen = _measured(SCREENED, [{**SCREEN_BASE, **knob} for knob in KNOBS], scenes)
    tried = _measured(MEASURED, CANDIDATES + [BYO_EVAL], scenes)
    return {"targets": TARGETS, "unset": UNSET, "chosen": choose(tried), "tried": tried, "screen": screen}


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
        colors, counts = np.unique(image.reshape(-1, 3), axis=0, return_counts=True)
        out[label] = {"seconds": round(seconds, 3), "two_colour_share": round(float(np.sort(counts)[-2:].sum() / counts.sum()), 4),
                      "distinct_colours": len(colors)}
    return out


def _cell(figures: list) -> str:
    return f"{figures[0]:.2f} / {figures[1]:.4f} / {figures[2]:g}"


def write_doc(found: dict, flat: dict, path: Path) -> None:
    """docs/quality_presets.md from a search's figures."""
    keys = [s.key for s in SCENES]
    tried = {json.dumps(t["settings"], sort_keys=True): t for t in found["tried"]}
    baseline = tried.get(json.dumps(BYO_EVAL, sort_keys=True))
    lines = ["# Quality presets, measured", "",
             "Generated by `bench/quality.py --search` (do not edit by hand). Every scene below was rendered",
             f"once at {REFERENCE_SAMPLES} samples (the final preset's light paths, denoised, another seed) as its",
             "reference; every setting was rendered and compared with it (PSNR and SSIM of the 8-bit",
             "images, scikit-image). A preset takes the setting with the least CPU time",
             "that meets its target on **every** scene, the busiest included; where none does, the table",
             "says which scene falls short and by how much. Seconds are the CPU time of the render",
             "(Cycles and its denoiser, 2 threads), steadier than wall time on a busy machine.",
             "Figures are kept per setting and per scene digest (the scene's spec) in",
             "bench/results/quality_*.jsonl: a rerun measures what is missing or what was measured on a",
             "scene that has changed since (delete the files to measure everything in one run).",
             "`make bench` times the presets again next to BYO-Eval's setting in one run (bench/results.md).", "",
             "Scenes: " + ", ".join(f"{s.key} ({s.config}, image {s.index})" for s in SCENES), "",
             "| preset | target PSNR / SSIM | settings | worst scene | CPU s, all scenes | vs BYO-Eval's 128 adaptive | falls short on |",
             "|---|---|---|---|---|---|---|"]
    for preset, target in found["targets"].items():
        entry = tried[json.dumps(found["chosen"][preset], sort_keys=True)]
        worst_key = min(entry["scenes"], key=lambda k: entry["scenes"][k][0])
        worst = entry["scenes"][worst_key]
        short = shortfalls(entry, tuple(target))
        missing = ", ".join(f"{k}: {p:.2f} dB / {q:.4f} ({p - target[0]:+.2f} dB)" for k, (p, q) in short.items())
        speed = f"{_seconds(baseline) / _seconds(entry):.1f}x faster" if baseline else "-"
        lines.append(f"| {preset} | {target[0]} dB / {target[1]} | `{json.dumps(found['chosen'][preset])}` | "
                     f"{worst_key}: {worst[0]:.2f} dB / {worst[1]:.4f} | {_seconds(entry):.1f} | {speed} | "
                     f"{missing or 'none'} |")
    header = "| settings | " + " | ".join(keys) + " | CPU s, all |"
    rule = "|---|" + "---|" * (len(keys) + 1)
    lines += ["", "## One knob at a time", "",
              f"Each knob changed alone from `{json.dumps(SCREEN_BASE)}` (PSNR dB / SSIM / CPU s per scene).", "",
              header, rule]
    for t in found["screen"]:
        knob = {k: v for k, v in t["settings"].items() if SCREEN_BASE.get(k, object()) != v} or "16 samples (the base)"
        lines.append(f"| `{json.dumps(knob) if isinstance(knob, dict) else knob}` | "
                     + " | ".join(_cell(t["scenes"][k]) for k in keys) + f" | {_seconds(t):.1f} |")
    lines += ["", "## Every candidate", "", "PSNR dB / SSIM / CPU s per scene; the last row is BYO-Eval's setting.", "",
              header, rule]
    for t in found["tried"]:
        lines.append(f"| `{json.dumps(t['settings'])}` | " + " | ".join(_cell(t["scenes"][k]) for k in keys)
                     + f" | {_seconds(t):.1f} |")
    wb, cy = flat["workbench"], flat["cycles standard"]
    lines += ["", "## Workbench for flat crests", "",
              "A flat crest is two-colour 2D art seen from above. Workbench with flat lighting and no",
              "anti-aliasing draws it in exactly its two colours; Cycles shades, samples and denoises it:",
              "", "| engine | seconds | pixels in the two main colours | distinct colours |", "|---|---|---|---|",
              f"| Workbench (flat, AA off) | {wb['seconds']} | {100 * wb['two_color_share']:.1f}% | {wb['distinct_colors']} |",
              f"| Cycles, standard | {cy['seconds']} | {100 * cy['two_color_share']:.1f}% | {cy['distinct_colors']} |", "",
              f"Workbench is {cy['seconds'] / max(wb['seconds'], 1e-6):.0f}x faster here and exact, so flat crests default to it;",
              "3D crests (on a plaque, banner or lantern) use Cycles and the presets above."]
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--references-only", action="store_true")
    parser.add_argument("--screen", action="store_true", help="one knob at a time, every scene")
    parser.add_argument("--candidates", action="store_true", help="every candidate, every scene")
    parser.add_argument("--search", action="store_true", help="the screen, then every candidate, every scene")
    parser.add_argument("--doc", action="store_true", help="rewrite the doc from bench/results/quality_search.json")
    parser.add_argument("--scenes", help="only these scene keys, comma-separated (the rest later)")
    args = parser.parse_args()
    scenes = [s for s in SCENES if not args.scenes or s.key in args.scenes.split(",")]
    if args.references_only:
        for scene in scenes:
            reference(scene)
        return
    if args.screen:
        _measured(SCREENED, [{**SCREEN_BASE, **knob} for knob in KNOBS], scenes)
    if args.candidates:
        _measured(MEASURED, CANDIDATES + [BYO_EVAL], scenes)
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
