"""The ceiling of CPU Cycles on the busiest scenes: every sampling setting around the standard
preset, measured in one run next to BYO-Eval's setting, and plotted (docs/quality_frontier.png).

Cycles checks a pixel's convergence every 16 samples (its adaptive step): every pixel takes at
least 16 samples, `adaptive_min_samples` below 15 changes nothing (this bench checks it), and
an adaptive setting is a cap, a threshold, a sampling pattern and the denoiser's prefilter. The
grid covers those around the standard preset; uniform sampling from 16 to 48 samples is the
other family. Each setting is rendered once: CPU seconds of the render (2 threads), PSNR and
SSIM against the 1024-sample reference of bench/quality.py. BYO-Eval's setting is rendered first
and last (the machine drifts); the budget is a fifth of their mean. The figures say how many
settings reach the standard preset's target (45 dB, SSIM 0.995) within that budget, the cheapest
that reaches the target at all, and the floor of adaptive sampling: 16 samples everywhere and
the denoiser.

Writes bench/results/frontier.json and docs/quality_frontier.png. Run by `make bench`; alone:
`.venv/bin/python bench/frontier.py [--scenes chess_200_640x360,clevr_35_320x240]`.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
from figures import Section
from quality import BYO_EVAL, FULL, PLAIN, SCENES, TARGETS, keys_of, quality, reference, render

from byo.core.progress import Bar
from byo.scene.setup import QUALITY

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BUSIEST = ["chess_200_640x360", "clevr_35_320x240"]  # the most pieces, the most objects
SPEEDUP = 5.0  # what issue 33 asks of the standard preset over BYO-Eval's setting
ADAPTIVE_STEP = 16  # Cycles' Integrator::get_adaptive_sampling: convergence is checked every 16 samples

LEAN = {"light_tree": False, "denoise_prefilter": "none"}
UNIFORM = [{"samples": n, **PLAIN, **LEAN, "sampling_pattern": "blue_noise"} for n in (16, 24, 32, 40, 48)]
CAPS = (32, 48, 64, 96)
THRESHOLDS = (0.02, 0.025, 0.03, 0.035, 0.04, 0.05)
ADAPTIVE = [
    {"samples": cap, "adaptive_threshold": threshold, "adaptive_min_samples": 8, **FULL, **LEAN,
     "sampling_pattern": pattern, "denoise_prefilter": prefilter}
    for pattern, prefilter, caps in (("blue_noise", "none", CAPS), ("sobol", "none", CAPS), ("blue_noise", "fast", (48, 64)))
    for cap in caps for threshold in THRESHOLDS
]
STANDARD = {"quality": "standard"}
STEP_MIN_SAMPLES = (8, 4, 14, 15)  # 8, the standard preset's own, rendered again: the run-to-run difference


@dataclass(frozen=True)
class Point:
    """One setting measured on one scene."""

    group: str
    settings: dict
    cpu_s: float
    psnr: float
    ssim: float

    def meets(self, target: tuple[float, float]) -> bool:
        return self.psnr >= target[0] and self.ssim >= target[1]


def group_of(settings: dict) -> str:
    if settings.get("adaptive_threshold") is None:
        return "uniform"
    return f"adaptive, {settings['sampling_pattern'].replace('_', ' ')}, prefilter {settings['denoise_prefilter']}"


def grid() -> list[dict]:
    """The settings measured, uniform first."""
    return UNIFORM + ADAPTIVE


def cheapest(points: list[Point], target: tuple[float, float]) -> Point | None:
    """The point with the least CPU time among those that meet `target`."""
    meeting = [p for p in points if p.meets(target)]
    return min(meeting, key=lambda p: p.cpu_s) if meeting else None


def baseline_and_budget(measured: dict) -> tuple[float, float]:
    """BYO-Eval's CPU seconds on a scene (mean of its renders) and the budget, a fifth of it."""
    baseline = statistics.fmean(p.cpu_s for p in measured["baseline"])
    return baseline, baseline / SPEEDUP


def within(points: list[Point], target: tuple[float, float], budget: float) -> list[Point]:
    """The points that meet `target` in at most `budget` CPU seconds."""
    return [p for p in points if p.meets(target) and p.cpu_s <= budget]


def pareto(points: list[Point]) -> list[Point]:
    """The points no other point beats on both CPU time and PSNR, cheapest first."""
    front, best = [], -np.inf
    for p in sorted(points, key=lambda p: (p.cpu_s, -p.psnr)):
        if p.psnr > best:
            front.append(p)
            best = p.psnr
    return front


def _measure(scene, settings: dict, ref: np.ndarray, group: str | None = None) -> tuple[Point, np.ndarray]:
    """One render of `settings` (a preset, or keys of bench/quality.py's `keys_of`): its point
    and its image."""
    image, seconds = render(scene, settings if "quality" in settings else keys_of(settings))
    psnr, ssim = quality(image, ref)
    return Point(group or group_of(settings), settings, round(seconds, 2), round(psnr, 3), round(ssim, 4)), image


def adaptive_step_check(scene, standard_image: np.ndarray) -> dict[int, float]:
    """Share of pixels that differ from the standard preset's image (adaptive_min_samples 8)
    when `adaptive_min_samples` is 8 again, 4, 14 and 15. Two renders of one setting differ in a
    few pixels by one level (threads); 4 and 14 differ no more (the first check is after 16
    samples either way), 15 in about half (the first check moves to 32)."""
    images = {m: render(scene, {**STANDARD, "adaptive_min_samples": m})[0] for m in STEP_MIN_SAMPLES}
    return {m: round(float((image != standard_image).any(axis=2).mean()), 4) for m, image in images.items()}


def measure_scene(scene, bar: Bar) -> dict:
    """Every setting on `scene` between two renders of BYO-Eval's setting, then the adaptive
    step check (reusing the standard preset's image)."""
    ref = reference(scene)
    first, _ = _measure(scene, BYO_EVAL, ref, "BYO-Eval's setting")
    bar.advance()
    points = []
    for settings in grid():
        points.append(_measure(scene, settings, ref)[0])
        bar.advance()
    standard, standard_image = _measure(scene, STANDARD, ref, "standard preset")
    last, _ = _measure(scene, BYO_EVAL, ref, "BYO-Eval's setting")
    bar.advance(2)
    step = adaptive_step_check(scene, standard_image)
    bar.advance(len(STEP_MIN_SAMPLES))
    return {"scene": scene, "points": points, "standard": standard, "baseline": [first, last], "step": step}


def _settings_cell(settings: dict) -> str:
    if "quality" in settings:
        return "standard preset: " + ", ".join(f"{k} {v}" for k, v in QUALITY["standard"].items())
    shown = [f"{settings['samples']} samples"]
    if settings.get("adaptive_threshold") is not None:
        shown.append(f"adaptive {settings['adaptive_threshold']}")
    return ", ".join(shown)


def report(section: Section, measured: list[dict], target: tuple[float, float]) -> None:
    for m in measured:
        key, points, standard = m["scene"].key, m["points"], m["standard"]
        baseline, budget = baseline_and_budget(m)
        short = key.split("_")[0]
        rows = [[p.group, _settings_cell(p.settings), p.cpu_s, round(baseline / p.cpu_s, 2), p.psnr, p.ssim,
                 "yes" if within([p], target, budget) else ""]
                for p in sorted([*points, standard], key=lambda p: p.cpu_s)]
        section.table(f"settings on {key}, cheapest first (BYO-Eval's setting: {baseline:.2f} CPU s, "
                      f"{m['baseline'][0].psnr:.2f} dB; the budget, a fifth of it: {budget:.2f} s)",
                      [("family", ""), ("settings", ""), ("CPU", "s"), ("speed-up over BYO-Eval's", "x"),
                       ("PSNR", "dB"), ("SSIM", ""), (f"{target[0]:g} dB within the budget", "")], rows)
        section.figure(f"frontier_baseline_cpu_s_{short}", round(baseline, 2), "s",
                       f"BYO-Eval's setting on {key}: CPU seconds (mean of the first and last render)")
        section.figure(f"frontier_baseline_drift_{short}", round(m["baseline"][1].cpu_s / m["baseline"][0].cpu_s, 3), "",
                       f"BYO-Eval's setting on {key}: last render's CPU time / first's")
        section.figure(f"frontier_settings_in_budget_{short}", len(within([*points, standard], target, budget)), "settings",
                       f"settings reaching {target[0]:g} dB / {target[1]} within a fifth of BYO-Eval's CPU time on {key} "
                       f"(of {len(points) + 1})")
        best = cheapest([*points, standard], target)
        if best is not None:
            section.figure(f"frontier_best_speedup_{short}", round(baseline / best.cpu_s, 2), "x",
                           f"the cheapest setting reaching {target[0]:g} dB on {key} ({_settings_cell(best.settings)}, "
                           f"{best.group}) over BYO-Eval's", at_least=SPEEDUP)
        floor = next((p for p in points if p.group == "uniform" and p.settings["samples"] == ADAPTIVE_STEP), None)
        if floor is not None:
            section.figure(f"frontier_floor_speedup_{short}", round(baseline / floor.cpu_s, 2), "x",
                           f"16 samples everywhere and the denoiser, the least any adaptive setting costs, on {key}: "
                           f"{floor.psnr:.2f} dB, speed-up over BYO-Eval's")
        section.figure(f"frontier_standard_speedup_{short}", round(baseline / standard.cpu_s, 2), "x",
                       f"standard preset over BYO-Eval's on {key} ({standard.psnr:.2f} dB)", at_least=SPEEDUP)
        section.table(f"Cycles' adaptive step on {key}: pixels that differ from the standard preset's image "
                      "(adaptive_min_samples 8; the row 8 is that setting rendered again)",
                      [("adaptive_min_samples", ""), ("pixels differing", "%")],
                      [[k, round(100 * v, 2)] for k, v in m["step"].items()])


GROUP_STYLE = {"uniform": ("o", "#555555"), "adaptive, blue noise, prefilter none": ("s", "#1f77b4"),
               "adaptive, sobol, prefilter none": ("^", "#ff7f0e"), "adaptive, blue noise, prefilter fast": ("v", "#2ca02c"),
               "standard preset": ("*", "#d62728")}


def plot(measured: list[dict], target: tuple[float, float], path: Path) -> None:
    """PSNR against CPU seconds per scene, the target region (at least the target PSNR within a
    fifth of BYO-Eval's CPU time) shaded; each panel's title says how many settings it holds."""
    fig, axes = plt.subplots(1, len(measured), figsize=(6.2 * len(measured), 4.6), squeeze=False)
    for ax, m in zip(axes[0], measured, strict=True):
        baseline, budget = baseline_and_budget(m)
        points = [*m["points"], m["standard"]]
        for group, (marker, color) in GROUP_STYLE.items():
            mine = [p for p in points if p.group == group]
            if mine:
                ax.scatter([p.cpu_s for p in mine], [p.psnr for p in mine], marker=marker, color=color,
                           s=120 if group == "standard preset" else 28, label=group, zorder=3)
        front = pareto(points)
        ax.plot([p.cpu_s for p in front], [p.psnr for p in front], color="#999999", lw=1, zorder=2, label="best trade-offs")
        low = min(p.psnr for p in points) - 0.5
        ax.axhline(target[0], color="black", lw=0.8, ls="--")
        ax.axvline(budget, color="black", lw=0.8, ls=":")
        ax.fill_between([0, budget], target[0], max(target[0] + 3, max(p.psnr for p in points) + 0.5),
                        color="#2ca02c", alpha=0.12, zorder=1)
        ax.set_title(f"{m['scene'].key}: {len(within(points, target, budget))} of {len(points)} settings reach {target[0]:g} dB\n"
                     f"within {budget:.1f} CPU s (BYO-Eval's {baseline:.1f} s / {SPEEDUP:g})", fontsize=10)
        ax.set_xlim(0, max(max(p.cpu_s for p in points), budget) * 1.05)
        ax.set_ylim(low, max(target[0] + 3, max(p.psnr for p in points) + 0.5))
        ax.set_xlabel("CPU seconds per image (2 threads)")
        ax.set_ylabel("PSNR against the 1024-sample reference (dB)")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", default=",".join(BUSIEST), help="scene keys of bench/quality.py, comma-separated")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "frontier.json")
    parser.add_argument("--plot", type=Path, default=ROOT / "docs" / "quality_frontier.png")
    args = parser.parse_args()
    by_key = {s.key: s for s in SCENES}
    unknown = [k for k in args.scenes.split(",") if k not in by_key]
    if unknown:
        parser.error(f"--scenes: no scene {', '.join(unknown)}; expected some of {', '.join(by_key)}")
    scenes = [by_key[k] for k in args.scenes.split(",")]
    target = TARGETS["standard"]
    section = Section("frontier", "The ceiling: every sampling setting on the busiest scenes",
                      "CPU seconds of the render (2 threads), PSNR and SSIM against the 1024-sample references; "
                      "BYO-Eval's setting rendered first and last.")
    with Bar("frontier", len(scenes) * (len(grid()) + 3 + len(STEP_MIN_SAMPLES)), unit="render") as bar:
        measured = [measure_scene(scene, bar) for scene in scenes]
    report(section, measured, target)
    section.write(args.json)
    plot(measured, target, args.plot)
    print(f"wrote {args.json} and {args.plot}")


if __name__ == "__main__":
    main()
