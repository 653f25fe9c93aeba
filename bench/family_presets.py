"""Quality presets per family and resolution band: on each family's busiest scene (the image of
its representative config with the most objects, blurred first), at the family's own resolution,
at 640x360 and at 1920x1080, each preset's cheapest Cycles setting that meets its target
(bench/quality.py's TARGETS: standard 45 dB and SSIM 0.995 against the 1,024-sample reference)
on every scene of the band.

Two bands: images below 1920x1080's pixel count, and from it up (byo.scene.setup.HD_PIXELS).
At 1920x1080 a 1,024-sample reference of a whole frame costs about an hour of CPU here, so one
third of the frame in each direction (640x360 of its pixels: the cell of a 3x3 grid holding the
most objects) is rendered alone (Cycles' border, cropped): the pixels and the noise per pixel are
the full frame's there, the denoiser sees that window, and the busiest part of the frame is what
is measured.

The search: for each cap of samples, a bisection over adaptive thresholds (cheapest first, the
quality assumed monotone in the threshold) for the largest that meets the target on every scene
of the band, rendering the band's scenes one at a time and stopping at the first that misses;
uniform sampling below the adaptive floor (12 and 16 samples) beside them. The preset is the
setting with the least CPU time, summed over the band's scenes. Every render is kept in
bench/results/family_presets.jsonl by scene digest and settings (a rerun measures what is
missing). `--confirm` renders each family's standard preset, as the code now applies it, next to
BYO-Eval's setting on every scene in one run: the figures of docs/speed.md.

    .venv/bin/python bench/family_presets.py --search [--families chess,clevr] [--presets standard]
    .venv/bin/python bench/family_presets.py --confirm [--candidate clevr=32:0.1] --json bench/results/family_presets.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml
from figures import Section
from quality import (
    BYO_EVAL,
    FULL,
    PLAIN,
    TARGETS,
    Scene,
    keys_of,
    quality,
    reference,
    render,
    scene_digest,
)

from byo.families import load_config
from byo.scene.plan import image_count, make_job
from byo.scene.setup import HD_PIXELS
from byo.scene.spec import sample_spec

ROOT = Path(__file__).resolve().parent.parent
MEASURED = ROOT / "bench" / "results" / "family_presets.jsonl"
CHOSEN = ROOT / "bench" / "results" / "family_presets_chosen.json"

# Each family's representative config (its busiest image is found in it).
FAMILIES = {
    "chess": "dataset_configs/chess/count.yaml",
    "clevr": "dataset_configs/clevr/count.yaml",
    "poker": "dataset_configs/poker/count.yaml",
    "crest": "dataset_configs/crest/composite_3d.yaml",
}
PAPER_RESOLUTIONS = [(640, 360), (1920, 1080)]  # BYO-Eval's low and high 16:9 sizes

LEAN = {"light_tree": False, "sampling_pattern": "blue_noise", "denoise_prefilter": "none"}
# Caps of samples: 32 and 64 were the cheapest to reach 45 dB on CLEVR and chess of the 4 caps
# bench/frontier.py measures (32 to 96); 24 leaves chess at 43.4 dB even at a threshold of 0.02.
CAPS = (32, 64)
THRESHOLDS = (0.1, 0.08, 0.065, 0.05, 0.04, 0.035, 0.0325, 0.03, 0.025, 0.02)  # cheapest first
UNIFORM_FLOOR = (12, 16)
DRAFT_SAMPLES = (4, 6, 8, 12, 16)  # uniform, the denoiser's fast prefilter (the draft preset's kind)
FINAL_LADDER = ((256, 0.01), (384, 0.0075), (512, 0.006), (768, 0.005))  # cheapest first


def adaptive(cap: int, threshold: float) -> dict:
    return {"samples": cap, "adaptive_threshold": threshold, "adaptive_min_samples": 8, **FULL, **LEAN}


def uniform(samples: int, **knobs) -> dict:
    return {"samples": samples, **PLAIN, **LEAN, **knobs}


def busiest(config: str) -> int:
    """The image of `config` with the most objects; among those, a blurred one (depth of field
    is the noisiest thing a render does) and then the first."""
    cfg = load_config(ROOT / config)
    best = max(range(image_count(cfg)), key=lambda i: _busyness(cfg, i))
    return best


def _busyness(cfg, index: int) -> tuple[int, bool, int]:
    spec = sample_spec(cfg, make_job(cfg, index), 0)
    return len(spec.objects), spec.setup.blur.enabled, -index


def busiest_third(config: str, index: int, resolution: tuple[int, int]) -> tuple[float, float, float, float]:
    """The third of the frame (one cell of a 3x3 grid) holding the most object centres at this
    resolution, the centre cell on a tie: Blender's border fractions (min x, max x, min y, max y;
    y from the bottom)."""
    raw = yaml.safe_load((ROOT / config).read_text())
    raw["scene"]["resolution"] = list(resolution)
    cfg = load_config(raw, file=config)
    spec = sample_spec(cfg, make_job(cfg, index), 0)
    xy = spec.setup.projector().project([o.location for o in spec.objects])[:, :2]
    w, h = resolution
    counts = Counter((int(3 * x // w), int(3 * y // h)) for x, y in xy if 0 <= x < w and 0 <= y < h)
    col, row = max(((c, r) for c in range(3) for r in range(3)),
                   key=lambda cell: (counts[cell], cell == (1, 1)))
    return col / 3, (col + 1) / 3, (2 - row) / 3, (3 - row) / 3  # rows counted from the top


def family_scenes(family: str) -> list[Scene]:
    """The family's busiest scene at 640x360, at 1920x1080 (the third of the frame with the most
    objects) and at its config's own resolution where that is smaller than 640x360 (a preset that
    meets its target at a size meets it at larger sizes of its band: the denoiser has more pixels
    per feature, which the two paper sizes measure)."""
    config = FAMILIES[family]
    index = busiest(config)
    cfg = load_config(ROOT / config)
    own = tuple(sample_spec(cfg, make_job(cfg, index), 0).setup.resolution)
    smallest = PAPER_RESOLUTIONS[0]
    sizes = ([own] if own[0] * own[1] < smallest[0] * smallest[1] else []) + PAPER_RESOLUTIONS
    return [Scene(family, config, index, size,
                  busiest_third(config, index, size) if size[0] * size[1] >= HD_PIXELS else None)
            for size in sizes]


def band_of(scene: Scene) -> str:
    return "hd" if scene.resolution[0] * scene.resolution[1] >= HD_PIXELS else "below_hd"


@dataclass
class Store:
    """Every render measured: scene key -> digest -> settings (JSON) -> [PSNR, SSIM, CPU s]."""

    path: Path

    def __post_init__(self):
        self.known: dict = {}
        if self.path.exists():
            for line in self.path.read_text().splitlines():
                e = json.loads(line)
                self.known[(e["scene"], e["digest"], json.dumps(e["settings"], sort_keys=True))] = e["figures"]
        self.digests: dict[str, str] = {}
        self.references: dict = {}

    def digest(self, scene: Scene) -> str:
        if scene.key not in self.digests:
            self.digests[scene.key] = scene_digest(scene)
        return self.digests[scene.key]

    def measure(self, scene: Scene, settings: dict) -> list[float]:
        key = (scene.key, self.digest(scene), json.dumps(settings, sort_keys=True))
        if key not in self.known:
            if scene.key not in self.references:
                self.references[scene.key] = reference(scene)
            image, seconds = render(scene, keys_of(settings))
            psnr, ssim = quality(image, self.references[scene.key])
            figures = [round(psnr, 3), round(ssim, 4), round(seconds, 2)]
            self.known[key] = figures
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as f:
                f.write(json.dumps({"scene": scene.key, "digest": key[1], "settings": settings, "figures": figures,
                                    "at": time.strftime("%Y-%m-%dT%H:%M:%S")}) + "\n")
            print(f"{scene.key}: {_label(settings)}: {figures[0]:.2f} dB, SSIM {figures[1]:.4f}, {figures[2]:.1f} CPU s",
                  flush=True)
        return self.known[key]

    def meets_all(self, scenes: list[Scene], settings: dict, target: tuple[float, float]) -> bool:
        """Whether `settings` meet `target` on every scene, measuring one scene at a time and
        stopping at the first that misses (the one that missed last time first)."""
        for scene in scenes:
            psnr, ssim, _ = self.measure(scene, settings)
            if psnr < target[0] or ssim < target[1]:
                return False
        return True


def _label(settings: dict) -> str:
    text = f"{settings['samples']} samples"
    if settings.get("adaptive_threshold") is not None:
        text += f", adaptive {settings['adaptive_threshold']:g}"
    if settings.get("denoise_prefilter") not in (None, "none"):
        text += f", prefilter {settings['denoise_prefilter']}"
    return text


def first_meeting(ladder: list[dict], meets) -> dict | None:
    """The first setting of `ladder` (cheapest first) that meets the target, by bisection: the
    quality is assumed to rise along the ladder."""
    lo, hi = 0, len(ladder)  # ladder[hi:] meets (hi == len: none known to)
    while lo < hi:
        mid = (lo + hi) // 2
        if meets(ladder[mid]):
            hi = mid
        else:
            lo = mid + 1
    return ladder[lo] if lo < len(ladder) else None


def search_standard(store: Store, scenes: list[Scene], caps: tuple[int, ...] = CAPS,
                    thresholds: tuple[float, ...] = THRESHOLDS) -> list[dict]:
    """The settings that meet the standard target on every scene: the uniform floor where it does,
    then per cap the largest threshold that does (`caps` and `thresholds`: a narrower grid where
    the whole one costs too much CPU)."""
    target = TARGETS["standard"]

    def meets(s):
        return store.meets_all(scenes, s, target)

    found = [s for s in (uniform(n) for n in UNIFORM_FLOOR) if meets(s)][:1]
    for cap in caps:
        best = first_meeting([adaptive(cap, t) for t in sorted(thresholds, reverse=True)], meets)
        if best is not None:
            found.append(best)
    return found


def search_draft(store: Store, scenes: list[Scene]) -> list[dict]:
    target = TARGETS["draft"]
    best = first_meeting([uniform(n, denoise_prefilter="fast", sampling_pattern="sobol") for n in DRAFT_SAMPLES],
                         lambda s: store.meets_all(scenes, s, target))
    return [best] if best else []


def search_final(store: Store, scenes: list[Scene]) -> list[dict]:
    target = TARGETS["final"]
    for cap, threshold in FINAL_LADDER:  # linear: each step costs minutes
        settings = adaptive(cap, threshold)
        if store.meets_all(scenes, settings, target):
            return [settings]
    return []


SEARCHES = {"standard": search_standard, "draft": search_draft, "final": search_final}


def cheapest(store: Store, scenes: list[Scene], found: list[dict]) -> dict | None:
    """The setting with the least CPU time summed over `scenes` (each measured on all of them)."""
    if not found:
        return None
    for s in found:
        for scene in scenes:
            store.measure(scene, s)
    return min(found, key=lambda s: sum(store.measure(scene, s)[2] for scene in scenes))


def search(families: list[str], presets: list[str], grid: dict | None = None) -> dict:
    store = Store(MEASURED)
    chosen = json.loads(CHOSEN.read_text()) if CHOSEN.exists() else {}
    for preset in presets:
        for family in families:
            scenes = family_scenes(family)
            for band in ("below_hd", "hd"):
                mine = sorted((s for s in scenes if band_of(s) == band), key=lambda s: s.pixels)  # smallest first: likeliest to miss
                found = SEARCHES[preset](store, mine, **(grid or {}) if preset == "standard" else {})
                best = cheapest(store, mine, found)
                chosen.setdefault(family, {}).setdefault(preset, {})[band] = {
                    "settings": best, "scenes": {s.key: store.measure(s, best) if best else None for s in mine},
                    "candidates": [{"settings": s, "cpu_s": round(sum(store.measure(x, s)[2] for x in mine), 2)}
                                   for s in found]}
                print(f"{family} {preset} {band}: {_label(best) if best else 'none meets the target'}", flush=True)
                CHOSEN.write_text(json.dumps(chosen, indent=1) + "\n")
    return chosen


def confirm(families: list[str], path: Path, sizes: list[tuple[int, int]] | None = None,
            candidates: dict[str, list[dict]] | None = None) -> None:
    """Each family's standard preset as the code applies it next to BYO-Eval's setting, on every
    scene, in this run: CPU seconds of the render (2 threads), PSNR and SSIM; `candidates`: a
    family's other settings (the search's) rendered in the same run, each a row of its own."""
    section = Section("family_presets", "Quality presets per family and resolution",
                      "Each family's busiest scene at its own resolution, 640x360 and 1920x1080 (the frame's centre "
                      "third rendered alone); CPU seconds of the render (2 threads), PSNR and SSIM against 1,024-sample "
                      "references; standard and BYO-Eval's setting rendered in this run.")
    rows = []
    for family in families:
        for scene in family_scenes(family):
            if sizes and scene.resolution not in sizes:
                continue
            ref = reference(scene)
            settings = [("standard", {"quality": "standard"})] + [(_label(c), keys_of(c))
                                                                  for c in (candidates or {}).get(family, [])]
            image, base = render(scene, keys_of(BYO_EVAL))
            for label, keys in settings:
                image, seconds = render(scene, keys)
                psnr, ssim = quality(image, ref)
                rows.append([family, scene.key, label, round(base, 2), round(seconds, 2), round(base / seconds, 2),
                             round(psnr, 2), round(ssim, 4)])
                print(rows[-1], flush=True)
                if label != "standard":
                    continue
                short = scene.key.rsplit("_crop", 1)[0]
                section.figure(f"standard_speedup_{short}", round(base / seconds, 2), "x",
                               f"standard over BYO-Eval's 128 samples adaptive on {scene.key}")
                section.figure(f"standard_psnr_{short}", round(psnr, 2), "dB", f"standard: PSNR on {scene.key}",
                               at_least=45)
                section.figure(f"standard_ssim_{short}", round(ssim, 4), "", f"standard: SSIM on {scene.key}",
                               at_least=0.995)
    section.table("standard (and candidates) next to BYO-Eval's 128 samples adaptive on each family's busiest scene",
                  [("family", ""), ("scene", ""), ("setting", ""), ("BYO-Eval's", "CPU s"), ("setting", "CPU s"),
                   ("speed-up", "x"), ("PSNR", "dB"), ("SSIM", "")], rows)
    section.write(path)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--presets", default="standard,draft,final")
    parser.add_argument("--references-only", action="store_true")
    parser.add_argument("--search", action="store_true")
    parser.add_argument("--caps", help="--search, standard: only these caps of samples, e.g. 32,64")
    parser.add_argument("--thresholds", help="--search, standard: only these adaptive thresholds, e.g. 0.08,0.05")
    parser.add_argument("--prefilter", choices=("none", "fast", "accurate"), default=LEAN["denoise_prefilter"],
                        help="--search: the denoiser's prefilter of its albedo and normal guides in every setting "
                             "tried (crests: accurate, see docs/speed.md)")
    parser.add_argument("--confirm", action="store_true")
    parser.add_argument("--candidate", action="append", default=[], metavar="FAMILY=SAMPLES:THRESHOLD[:PREFILTER]",
                        help="--confirm: also this adaptive setting of the family's (and the denoiser's prefilter of "
                             "its guides), in the same run (repeatable)")
    parser.add_argument("--sizes", help="--confirm: only these sizes, e.g. 1920x1080,640x360 (default: every one)")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "family_presets.json")
    args = parser.parse_args()
    families = args.families.split(",")
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        parser.error(f"--families: no family {', '.join(unknown)}; expected some of {', '.join(FAMILIES)}")
    if args.references_only:
        for family in families:
            for scene in family_scenes(family):
                reference(scene)
                print(f"reference {scene.key}: ready", flush=True)
    if args.search:
        try:
            grid = {**({"caps": tuple(int(v) for v in args.caps.split(","))} if args.caps else {}),
                    **({"thresholds": tuple(float(v) for v in args.thresholds.split(","))} if args.thresholds else {})}
        except ValueError:
            parser.error(f"--caps/--thresholds: expected numbers separated by commas, got {args.caps!r}, "
                         f"{args.thresholds!r}")
        LEAN["denoise_prefilter"] = args.prefilter
        search(families, args.presets.split(","), grid)
    if args.confirm:
        try:
            sizes = [tuple(int(v) for v in s.lower().split("x")) for s in args.sizes.split(",")] if args.sizes else None
        except ValueError:
            parser.error(f"--sizes: expected WIDTHxHEIGHT[,WIDTHxHEIGHT...], got {args.sizes!r}")
        candidates: dict[str, list[dict]] = {}
        for text in args.candidate:
            family, _, setting = text.partition("=")
            try:
                cap, threshold, *prefilter = setting.split(":")
                if prefilter and prefilter[0] not in ("none", "fast", "accurate"):
                    raise ValueError(prefilter)
                candidates.setdefault(family, []).append(
                    {**adaptive(int(cap), float(threshold)), **({"denoise_prefilter": prefilter[0]} if prefilter else {})})
            except ValueError:
                parser.error(f"--candidate: expected FAMILY=SAMPLES:THRESHOLD[:PREFILTER], e.g. clevr=32:0.1 or "
                             f"clevr=32:0.1:accurate, got {text!r}")
        confirm(families, args.json, sizes, candidates)
    if not (args.references_only or args.search or args.confirm):
        parser.print_usage(sys.stderr)


if __name__ == "__main__":
    main()
