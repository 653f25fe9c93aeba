"""Every bad input a user can write: exit 2, a short message naming the key or flag, nothing
written, no traceback. A table of cases, then a Hypothesis fuzz over mutated configs."""

from __future__ import annotations

import copy
import os
import tempfile
from pathlib import Path

import pytest
import yaml
from conftest import clevr_config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from byo.cli import main
from byo.scene.plan import combination


def run_cli(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as stop:  # argparse refuses a flag this way
        return stop.code


def snapshot(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def config_text(**changes) -> str:
    data = clevr_config()
    for path, value in changes.items():
        node = data
        *parents, last = path.split("__")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return yaml.dump(data, Dumper=yaml.CSafeDumper, sort_keys=False)  # libyaml: dozens are made at import


def range_config(**var) -> str:
    return config_text(variables={"camera.distance": {"type": "varying_all_range", **var}})


BOMB = "\n".join(["dataset: {name: bomb, family: clevr}", "variables:", "  camera.distance:",
                  "    type: varying_all", "    levels:", "      - &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
                  *(f"      - &{n} [{', '.join(['*' + p] * 9)}]" for p, n in zip("abcdefgh", "bcdefghi", strict=True))]
                 ) + "\n"  # 9^9 strings once expanded
DEEP = "dataset: {name: deep, family: clevr}\nscene: {camera: {distance: " + "[" * 3000 + "]" * 3000 + "}}\n"

# name: (config file text or None, command line with CONFIG and OUT placeholders, expected words)
CASES = {
    "missing file": (None, ["render", "CONFIG", "-o", "OUT"], "file not found"),
    "a directory": ("DIR", ["render", "CONFIG", "-o", "OUT"], "is a directory"),
    "a binary file": (b"\x89PNG\r\n\x1a\n\xff\xfe\x00" * 40, ["render", "CONFIG", "-o", "OUT"], "not a text file"),
    "not YAML": ("dataset: [unclosed\n", ["render", "CONFIG", "-o", "OUT"], "not valid YAML"),
    "two dataset keys": ("dataset: {name: a, family: clevr}\ndataset: {name: b, family: clevr}\n",
                         ["render", "CONFIG", "-o", "OUT"], "'dataset' is given twice"),
    "a list at the top": ("- 1\n- 2\n", ["plan", "CONFIG"], "<top level>"),
    "an unknown top key": (config_text(scenes={}), ["plan", "CONFIG"], "scenes: unknown key"),
    "no dataset": ("scene: {}\n", ["plan", "CONFIG"], "dataset: required key is missing"),
    "a 300-character name": (config_text(dataset__name="n" * 300), ["render", "CONFIG"], "dataset.name"),
    "a name with a slash": (config_text(dataset__name="a/b"), ["render", "CONFIG"], "dataset.name"),
    "an unknown family": (config_text(dataset__family="checkers"), ["plan", "CONFIG"], "dataset.family"),
    "a negative seed": (config_text(dataset__seed=-1), ["plan", "CONFIG"], "dataset.seed"),
    "zero images": (config_text(dataset__n_images=0), ["plan", "CONFIG"], "dataset.n_images"),
    "distance NaN": (config_text(scene__camera={"distance": float("nan")}), ["render", "CONFIG", "-o", "OUT"],
                     "scene.camera.distance"),
    "distance infinite": (config_text(scene__camera={"distance": float("inf")}), ["plan", "CONFIG"],
                          "scene.camera.distance"),
    "negative distance": (config_text(scene__camera={"distance": -1}), ["plan", "CONFIG"], "scene.camera.distance"),
    "elevation 120": (config_text(scene__camera={"elevation": 120}), ["plan", "CONFIG"], "scene.camera.elevation"),
    "range with NaN": (range_config(min=float("nan"), max=3, step=1), ["plan", "CONFIG"], "variables"),
    "range to infinity": (range_config(min=1, max=float("inf"), step=1), ["render", "CONFIG", "-o", "OUT"],
                          'variables."camera.distance".max'),
    "range max below min": (range_config(min=3, max=1), ["plan", "CONFIG"], "max (1.0) is below min"),
    "float range without step": (range_config(min=1.5, max=3), ["plan", "CONFIG"], "need a `step`"),
    "a range of 10^12 levels": (config_text(variables={"content.count": {
        "type": "varying_all_range", "min": 3, "max": 10**12}}), ["render", "CONFIG", "-o", "OUT"],
        'variables."content.count".max'),
    "a path out of the scene": (config_text(variables={"camera.distance.x": {"type": "fixed", "value": 1}}),
                                ["plan", "CONFIG"], 'variables."camera.distance.x"'),
    "a bad level": (config_text(variables={"blur.fstop": {"type": "varying_all", "levels": ["low", "huge"]}}),
                    ["plan", "CONFIG"], 'variables."blur.fstop".levels[1]'),
    "zero resolution": (config_text(scene__resolution=[0, 10]), ["plan", "CONFIG"], "scene.resolution"),
    "samples as words": (config_text(scene__render={"samples": "many"}), ["plan", "CONFIG"],
                         "scene.render.samples"),
    "an unknown preset": (config_text(scene__blur={"fstop": "extreme"}), ["plan", "CONFIG"], "scene.blur.fstop"),
    "an alias bomb": (BOMB, ["render", "CONFIG", "-o", "OUT"], 'variables."camera.distance".levels[0]'),
    "a megabyte string": (config_text(scene__floor={"color": "x" * 900_000}), ["render", "CONFIG", "-o", "OUT"],
                          "scene.floor.color"),
    "deep nesting": (DEEP, ["render", "CONFIG", "-o", "OUT"], "<file>"),
    "a config over 1 MB": ("# " + "x" * 1_100_000 + "\n", ["plan", "CONFIG"], "larger than"),
    "10^9 images": (config_text(dataset__n_images=10**9), ["render", "CONFIG", "-o", "OUT"], "--max-images"),
    "--workers 0": (config_text(), ["render", "CONFIG", "-o", "OUT", "--workers", "0"], "--workers"),
    "--workers -1": (config_text(), ["render", "CONFIG", "-o", "OUT", "--workers", "-1"], "--workers"),
    "--limit -3": (config_text(), ["render", "CONFIG", "-o", "OUT", "--limit", "-3"], "--limit"),
    "--limit 0": (config_text(), ["render", "CONFIG", "-o", "OUT", "--limit", "0"], "--limit"),
    "--max-rows -1": (config_text(), ["plan", "CONFIG", "--max-rows", "-1"], "--max-rows"),
    "-o naming a file": (config_text(), ["render", "CONFIG", "-o", "CONFIG"], "is a file"),
    "--concurrency 0": (config_text(), ["eval", "OUT", "--provider", "blind", "--concurrency", "0"], "--concurrency"),
    "--timeout nan": (config_text(), ["eval", "OUT", "--provider", "blind", "--timeout", "nan"], "--timeout"),
    "questions of no dataset": (config_text(), ["questions", "OUT"], "<dataset>"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_input_exits_2_with_a_short_message_and_writes_nothing(case, tmp_path, monkeypatch, capsys):
    content, argv, expected = CASES[case]
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "config.yaml"
    if content == "DIR":
        config.mkdir()
    elif isinstance(content, bytes):
        config.write_bytes(content)
    elif content is not None:
        config.write_text(content)
    (tmp_path / "OUT").mkdir() if argv[0] in ("eval", "questions") else None
    before = snapshot(tmp_path)
    code = run_cli([str(config) if a == "CONFIG" else str(tmp_path / "OUT") if a == "OUT" else a for a in argv])
    err = capsys.readouterr().err
    assert code == 2, err[-2000:]
    assert expected in err, err[-2000:]
    assert len(err) < 1000 and "Traceback" not in err
    assert snapshot(tmp_path) == before  # nothing written, not even output/


def test_plan_of_a_billion_images_answers_at_once(tmp_path, capsys, monkeypatch):
    """Without enumerating the images: no job list, no scene sampled, a table row per shown
    combination only (counted, not timed)."""
    import byo.cli.plan

    config = tmp_path / "config.yaml"
    config.write_text(config_text(dataset__n_images=10**9))
    calls = {"combination": 0}

    def refuse(*args, **kwargs):
        raise AssertionError("byo plan enumerated the images")

    def counted(cfg, k):
        calls["combination"] += 1
        return combination(cfg, k)

    monkeypatch.setattr(byo.cli.plan, "jobs", refuse)
    monkeypatch.setattr(byo.cli.plan, "sample_tasks", refuse)
    monkeypatch.setattr(byo.cli.plan, "combination", counted)
    assert run_cli(["plan", str(config)]) == 0
    assert calls["combination"] <= 1
    out = capsys.readouterr()
    assert "1,000,000,000 images" in out.out and "--max-images" in out.err


# --- fuzz ----------------------------------------------------------------------------------
PATHS = ["dataset.name", "dataset.seed", "dataset.n_images", "dataset.family", "scene.camera.distance",
         "scene.camera.elevation", "scene.camera.jitter.azimuth", "scene.resolution", "scene.render.samples",
         "scene.render.engine", "scene.blur.fstop", "scene.lighting.intensity", "scene.table",
         "scene.content.count", "scene.content.mode", "scene.content.sizes", "scene.content.objects",
         "variables", "variables.content.count", "scene.floor.color", "scene.new_key", "extra"]
numbers = st.one_of(st.integers(min_value=-(10**20), max_value=10**20),
                    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0, -1, 2**63, 1e308]))
values = st.recursive(
    st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=30), st.just("x" * 5000)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)


def _mutate(data: dict, path: str, value) -> dict:
    data = copy.deepcopy(data)
    node = data
    *parents, last = path.split(".", 2) if path.startswith("variables.") else path.split(".")
    for part in parents:
        node = node.setdefault(part, {}) if isinstance(node.get(part), dict) or part not in node else node[part]
        if not isinstance(node, dict):
            return data
    node[last] = value
    return data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations=st.lists(st.tuples(st.sampled_from(PATHS), values), min_size=1, max_size=3),
       duplicate=st.booleans(), nesting=st.integers(min_value=0, max_value=200))
def test_fuzzed_configs_exit_0_or_2_and_a_refusal_writes_nothing(mutations, duplicate, nesting):
    data = clevr_config()
    for path, value in mutations:
        data = _mutate(data, path, value)
    text = yaml.safe_dump(data, sort_keys=False, width=10**6)
    if duplicate:
        text += text.splitlines()[0] + "\n"  # a top-level key given twice
    if nesting:
        text += "deep: " + "[" * nesting + "]" * nesting + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = root / "config.yaml"
        config.write_text(text)
        cwd = os.getcwd()
        os.chdir(root)
        try:
            code = run_cli(["plan", str(config)])
            assert code in (0, 2)
            if code == 2:
                before = snapshot(root)
                assert run_cli(["render", str(config), "-o", str(root / "out")]) == 2
                assert snapshot(root) == before
        finally:
            os.chdir(cwd)
