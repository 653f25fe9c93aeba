"""`byo plan --power`: the images needed agree with a simulation of the test they are sized for."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from conftest import ROOT

from byo.cli import main
from byo.core.stats import clustered_proportion
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


@pytest.mark.slow
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


def test_questions_for_a_wilson_interval_by_hand():
    # p = 0.5, h = 0.05: p q = 0.25, sqrt(0.0625 - 4 * 0.0025 * 0.25 + 0.0025) = 0.25, so
    # N = z^2 (0.25 - 0.005 + 0.25) / 0.005 = 99 z^2 = 380.30 (the normal approximation: 100 z^2).
    z2 = 1.959963984540054**2
    assert power.wilson_questions(0.05, 0.5) == pytest.approx(99 * z2)
    # p = 0.9, h = 0.03: p q = 0.09, sqrt(0.0081 - 0.000324 + 0.0009) = 0.0931450, so
    # N = z^2 (0.09 - 0.0018 + 0.0931450) / 0.0018 = 387.016.
    assert power.wilson_questions(0.03, 0.9) == pytest.approx(387.016, abs=1e-3)
    with pytest.raises(ValueError, match="half_width"):
        power.wilson_questions(0.5, 0.5)


@pytest.mark.parametrize("half_width, expected, icc, m, images", [
    (0.05, 0.5, 0.3, 1, 382),  # D = 1: ceil(380.30 + 1)
    (0.05, 0.5, 0.3, 4, 182),  # D = 1.9: ceil(1.9 * 381.30 / 4) = ceil(181.12)
    (0.03, 0.9, 0.5, 3, 259),  # D = 2: ceil(2 * 388.016 / 3) = ceil(258.68)
    (0.05, 0.5, 1.0, 5, 382),  # perfectly correlated questions are one question: D = 5
])
def test_images_for_an_interval_by_hand(half_width, expected, icc, m, images):
    assert power.images_for_interval(half_width, expected, icc, m) == images


def test_images_for_an_interval_are_the_fewest_the_scorer_agrees_with():
    """One question per image: the scorer's interval (design-effect Wilson) on the formula's 382
    images at accuracy 0.5 is within +-0.05, on 380 it is not."""
    for images, within in ((382, True), (380, False)):
        hits = [True, False] * (images // 2)
        r = clustered_proportion(hits, list(range(images)))
        assert ((r["hi"] - r["lo"]) / 2 <= 0.05) is within


def test_images_for_an_interval_match_the_scorer_on_correlated_questions():
    """Four questions per image with intra-image correlation 0.3 (beta-binomial verdicts): the
    scorer's clustered interval on the formula's images is +-0.05 on average, within 2%."""
    images = power.images_for_interval(0.05, 0.5, 0.3, 4)
    rng = np.random.default_rng(3)
    a = b = 0.5 * (1 - 0.3) / 0.3
    widths = []
    for _ in range(400):
        k = rng.binomial(4, rng.beta(a, b, size=images))
        hits = np.concatenate([[True] * int(n) + [False] * (4 - int(n)) for n in k])
        r = clustered_proportion(hits, np.repeat(np.arange(images), 4))
        widths.append((r["hi"] - r["lo"]) / 2)
    assert np.mean(widths) == pytest.approx(0.05, rel=0.02)


def test_half_width_of_the_config_by_hand():
    # 10 images of 4 questions, D = 1.9: n_eff = 40 / 1.9 - 1 = 20.0526; Wilson at 0.5:
    # z / (1 + z^2/n) * sqrt(0.25/n + z^2/(4 n^2)) = 1.64486 * 0.121885 = 0.20048
    assert power.interval_half_width(10, 0.5, 0.3, 4) == pytest.approx(0.20048, abs=1e-5)
    assert power.interval_half_width(1, 0.5, 0.3, 1) is None  # one image: not estimable


def test_plan_power_prints_the_images_for_an_interval(tmp_path, capsys):
    config = tmp_path / "count.yaml"
    shutil.copy(ROOT / "dataset_configs" / "chess" / "count.yaml", config)
    assert main(["plan", str(config), "--no-sample", "--power", "--keys-per-image", "4", "--interval", "0.05",
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["power"]
    cell, pooled = result["interval"][0], result["interval"][-1]
    assert cell["scope"] == "each combination of levels" and cell["n_images"] == 182
    assert pooled["combinations"] == 21 and pooled["n_images"] == 9  # ceil(182 / 21)
    assert cell["half_width_with_config"] == pytest.approx(0.20048, abs=1e-5)
    assert main(["plan", str(config), "--no-sample", "--power", "--expected-accuracy", "0.9",
                 "--interval", "0.03", "--keys-per-image", "3", "--icc", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "+-0.03 on an accuracy of 0.9" in out and "259" in out


def test_an_interval_of_half_or_more_is_one_line(tmp_path, capsys):
    config = tmp_path / "count.yaml"
    shutil.copy(ROOT / "dataset_configs" / "chess" / "count.yaml", config)
    assert main(["plan", str(config), "--no-sample", "--power", "--interval", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "--interval" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    for bad in (["--interval", "0"], ["--expected-accuracy", "1"]):
        with pytest.raises(SystemExit) as exit_:
            main(["plan", str(config), "--no-sample", "--power", *bad])
        assert exit_.value.code == 2
