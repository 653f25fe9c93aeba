"""bench/frontier.py's reading of its measurements: which settings reach the target within a fifth
of BYO-Eval's time, the cheapest that reaches it, the best trade-offs, and the figures and plot
it writes from them (measurements made up here; the bench renders the real ones)."""

from __future__ import annotations

import itertools
import sys

from conftest import ROOT
from PIL import Image

sys.path.insert(0, str(ROOT / "bench"))
import frontier  # noqa: E402
from figures import Section  # noqa: E402
from frontier import Point, cheapest, pareto, within  # noqa: E402
from quality import Scene  # noqa: E402

TARGET = (45.0, 0.995)
SCENE = Scene("chess", "dataset_configs/chess/count.yaml", 200, (640, 360))


def point(cpu_s: float, psnr: float, ssim: float = 0.996, samples: int = 64, threshold: float | None = 0.03) -> Point:
    settings = {"samples": samples, "adaptive_threshold": threshold, "sampling_pattern": "blue_noise",
                "denoise_prefilter": "none"}
    return Point(frontier.group_of(settings), settings, cpu_s, psnr, ssim)


POINTS = [point(8.0, 42.4, samples=16, threshold=None), point(10.0, 43.6), point(11.0, 43.0), point(12.0, 44.9),
          point(12.5, 45.3, ssim=0.994), point(13.0, 45.1), point(14.0, 45.2), point(15.0, 45.0), point(20.0, 47.0)]


def measured(points=POINTS, baselines=(64.0, 66.0)) -> dict:
    return {"scene": SCENE, "points": points[:-1], "standard": points[-1],
            "baseline": [point(s, 48.2, samples=128, threshold=0.01) for s in baselines],
            "step": {4: 0.0, 14: 0.0, 15: 0.46}}


def test_within_needs_psnr_ssim_and_budget():
    assert [p.cpu_s for p in within(POINTS, TARGET, 13.0)] == [13.0]  # 12.5 s misses the SSIM
    assert within(POINTS, TARGET, 12.9) == []
    assert [p.cpu_s for p in within(POINTS, TARGET, 100.0)] == [13.0, 14.0, 15.0, 20.0]


def test_cheapest_is_the_least_time_meeting_the_target():
    assert cheapest(POINTS, TARGET).cpu_s == 13.0
    assert cheapest(POINTS, (50.0, 0.99)) is None


def test_pareto_is_exactly_the_points_nothing_beats():
    front = pareto(POINTS)
    beaten = {id(p) for p, q in itertools.permutations(POINTS, 2)
              if q.cpu_s <= p.cpu_s and q.psnr >= p.psnr and (q.cpu_s, q.psnr) != (p.cpu_s, p.psnr)}
    assert {id(p) for p in front} == {id(p) for p in POINTS} - beaten
    assert [p.cpu_s for p in front] == sorted(p.cpu_s for p in front)


def test_groups_name_sampling_pattern_and_prefilter():
    assert frontier.group_of({"samples": 16, "adaptive_threshold": None}) == "uniform"
    assert frontier.group_of({"adaptive_threshold": 0.03, "sampling_pattern": "sobol", "denoise_prefilter": "fast"}) \
        == "adaptive, sobol, prefilter fast"


def test_the_grid_spans_caps_thresholds_patterns_and_prefilters():
    adaptive = [s for s in frontier.grid() if s.get("adaptive_threshold") is not None]
    assert {s["samples"] for s in adaptive} == set(frontier.CAPS)
    assert {s["adaptive_threshold"] for s in adaptive} == set(frontier.THRESHOLDS)
    assert {(s["sampling_pattern"], s["denoise_prefilter"]) for s in adaptive} == \
        {("blue_noise", "none"), ("sobol", "none"), ("blue_noise", "fast")}
    assert any(s.get("adaptive_threshold") is None and s["samples"] == frontier.ADAPTIVE_STEP for s in frontier.grid())


def test_report_figures_follow_the_measurements():
    section = Section("frontier", "test")
    frontier.report(section, [measured()], TARGET)
    figures = section.figures
    assert figures["frontier_baseline_cpu_s_chess"]["value"] == 65.0
    assert figures["frontier_settings_in_budget_chess"]["value"] == 1  # 13.0 s within 65 / 5
    assert figures["frontier_best_speedup_chess"]["value"] == 5.0
    assert figures["frontier_floor_speedup_chess"]["value"] == round(65.0 / 8.0, 2)
    assert figures["frontier_standard_speedup_chess"]["value"] == round(65.0 / 20.0, 2)
    slower = Section("frontier", "test")
    frontier.report(slower, [measured(baselines=(60.0, 62.0))], TARGET)  # budget 12.2 s: nothing inside
    assert slower.figures["frontier_settings_in_budget_chess"]["value"] == 0
    rows = next(t for t in slower.tables if t["name"].startswith("settings on"))["rows"]
    assert [r[2] for r in rows] == sorted(r[2] for r in rows) and not any(r[-1] for r in rows)


def test_plot_writes_a_panel_per_scene(tmp_path):
    path = tmp_path / "frontier.png"
    frontier.plot([measured(), measured()], TARGET, path)
    with Image.open(path) as im:
        width, height = im.size
    assert width > 1.8 * height  # two panels side by side
