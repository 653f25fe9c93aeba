"""`byo plan --power`: the images needed agree with a simulation of the test they are sized for."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from conftest import ROOT

from byo.cli import main
from byo.score import power
from byo.score import psychometric as psy


def simulated_images(s: power.PowerSettings, around: int, reps: int = 6000) -> float:
    """The number of images at which the simulated power reaches the target (linear interpolation over
    a grid of sizes around the formula's answer)."""
    rng = np.random.default_rng(7)
    sizes = np.unique(np.round(around * np.linspace(0.75, 1.25, 9)).astype(int))
    powers = np.array([power.simulate_accuracy_power(int(g), s, reps, rng) for g in sizes])
    slope, intercept = np.polyfit(sizes, powers, 1)  # nearly straight over +-25% around the target
    return (s.power - intercept) / slope


@pytest.mark.parametrize("settings", [
    power.PowerSettings(difference=0.10, baseline=0.6, icc=0.3, keys_per_image=4),
    power.PowerSettings(difference=0.15, baseline=0.5, icc=0.0, keys_per_image=1),
    power.PowerSettings(difference=0.08, baseline=0.7, icc=0.5, keys_per_image=3, variants=2, power=0.9),
], ids=["icc0.3-4keys", "independent", "icc0.5-6questions-power0.9"])
def test_images_needed_match_a_simulation_within_10_percent(settings):
    m = settings.keys_per_image * settings.variants
    formula = power.images_for_accuracy(settings.difference, settings.baseline, settings.alpha, settings.power,
                                        settings.icc, m)
    simulated = simulated_images(settings, formula)
    print(f"{settings}: formula {formula} images, simulation {simulated:.1f}")
    assert abs(formula - simulated) / simulated < 0.10


def test_plan_power_prints_and_writes_only_where_asked(tmp_path, capsys):
    config = tmp_path / "count.yaml"
    shutil.copy(ROOT / "dataset_configs" / "chess" / "count.yaml", config)
    assert main(["plan", str(config), "--no-sample", "--power"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["count.yaml"]  # nothing beside the config unasked
    assert "Power: a 10% accuracy difference" in capsys.readouterr().out
    written = tmp_path / "power" / "count.json"
    assert main(["plan", str(config), "--no-sample", "--power", "--difference", "0.1", "--icc", "0.3",
                 "--keys-per-image", "4", "--threshold-difference", "1", "-o", str(written)]) == 0
    result = json.loads(written.read_text())
    pooled = result["accuracy"][-1]
    assert result["combinations"] == 21 and result["config_n_images"] == 10
    assert pooled["images_per_group"] == power.images_for_accuracy(0.1, 0.5, 0.05, 0.8, 0.3, 4)
    assert pooled["n_images"] == -(-pooled["images_per_group"] // 21)
    assert result["thresholds"][0]["variable"] == "content.count"
    out = capsys.readouterr()
    assert "Power: a 10% accuracy difference" in out.out and str(written) in out.err


def test_plan_output_without_power_is_refused_before_any_work(tmp_path, capsys):
    config = tmp_path / "count.yaml"
    shutil.copy(ROOT / "dataset_configs" / "chess" / "count.yaml", config)
    assert main(["plan", str(config), "--no-sample", "-o", str(tmp_path / "p.json")]) == 2
    err = capsys.readouterr().err
    assert "-o" in err and "--power" in err and "Traceback" not in err
    assert not (tmp_path / "p.json").exists()


def test_more_correlated_questions_need_more_images():
    base = dict(difference=0.1, baseline=0.5, alpha=0.05, power=0.8, questions_per_image=5)
    assert power.images_for_accuracy(icc=0.6, **base) > power.images_for_accuracy(icc=0.1, **base)
    assert power.images_for_accuracy(icc=1.0, **base) == power.images_for_accuracy(
        0.1, 0.5, 0.05, 0.8, 0.0, 1)  # perfectly correlated questions are one question


def test_bad_power_settings_exit_2(tmp_path):
    config = tmp_path / "count.yaml"
    shutil.copy(ROOT / "dataset_configs" / "chess" / "count.yaml", config)
    for bad in (["--difference", "1.5"], ["--icc", "-0.1"], ["--keys-per-image", "0"]):
        with pytest.raises(SystemExit) as exit_:
            main(["plan", str(config), "--no-sample", "--power", *bad])
        assert exit_.value.code == 2


@pytest.mark.parametrize("variants, icc, difference", [(1, 0.0, 1.0), (3, 0.3, 1.0), (2, 0.5, 1.5)])
def test_images_for_a_threshold_difference_are_a_safe_bound_of_a_simulation(variants, icc, difference):
    """The threshold's spread over 3,000 simulated fits (the real batched fit, lapse bounded to
    [0, 0.1]) at the formula's number of images per level: the Fisher information with the lapse
    free is a little pessimistic, so the formula asks for up to 20% more images than needed, never
    fewer."""
    levels = np.arange(1.0, 22.0)  # chess_count's counts
    s = power.PowerSettings(variants=variants, icc=icc, threshold_difference=difference)
    need = power.images_for_threshold(levels, s)
    g = need["images_per_level"]
    theta = np.array([need["assumed_threshold"], np.log(need["assumed_steepness"]), s.lapse])
    shape = psy.Shape(s.chance, "logistic", -1)
    p = shape.predict(theta, levels)
    rng = np.random.default_rng(0)
    reps = 3000
    if icc > 0:
        a, b = p * (1 - icc) / icc, (1 - p) * (1 - icc) / icc
        image_p = rng.beta(a, b, size=(reps, g, len(levels)))
    else:
        image_p = np.broadcast_to(p, (reps, g, len(levels)))
    k = rng.binomial(variants, image_p).sum(axis=1).astype(float)
    fit, _ = psy.fit_batch(shape, np.repeat(theta[None], reps, 0), levels, k, np.full_like(k, g * variants),
                           psy.bounds_for(levels))
    predicted_var = need["threshold_sd_one_image"] ** 2 * power.design_effect(variants, icc) / (g * variants)
    simulated = g * fit[:, 0].var() / predicted_var  # images per level the simulated spread asks for
    print(f"threshold {difference} apart, {variants} variants, icc {icc}: formula {g}, simulation {simulated:.1f}")
    assert simulated <= g <= 1.2 * simulated
