"""The counterfactual readability check on renders (byo/render/counterfactuals.py, decided by
byo/scene/counterfactual.py): CLEVR's four shapes seen from 20 to 90 degrees, in rubber and metal,
each object's region rendered as every other shape. A shape question is asked only where every
alternative that would change its answer shows. From directly above, small cones, cylinders and
spheres (about 10 px across) render as discs that no alternative tells apart: no shape question
is asked there, and `byo audit` calls those an older render asked (its legends without the
measurements) ill-posed, rendering the alternatives itself; from 30 to 60 degrees every shape
shows and the same questions are asked as under the size and blur rule."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import write_config

from byo.audit.run import audit_dataset, unmeasured
from byo.blender import engine, regions
from byo.cli import main
from byo.core.dataset import Layout
from byo.families import load_config
from byo.families.base import seen_as_rendered
from byo.questions.generate import generate
from byo.render import counterfactuals
from byo.render.job import build_scene
from byo.scene import counterfactual as cf
from byo.scene.measure import measure as measure_mask
from byo.scene.plan import make_job
from byo.scene.spec import sample_spec

pytestmark = pytest.mark.render

ELEVATIONS = [20, 30, 45, 60, 90]
ROUND = ("cone", "cylinder", "sphere")  # discs from above
SHAPE_KEYS = ("count_shape", "exist_color_shape", "query_color_unique_shape", "query_shape_unique_color",
              "query_material_unique_shape", "query_size_unique_shape")
SETS = {"a": {"cone": "metal", "cylinder": "rubber", "sphere": "rubber", "cube": "metal"},
        "b": {"cone": "rubber", "cylinder": "metal", "sphere": "metal", "cube": "rubber"}}
COLORS = {"cone": "red", "cylinder": "blue", "sphere": "yellow", "cube": "green"}
AT = {"cone": [-1.4, -1.1], "cylinder": [1.4, -1.1], "sphere": [-1.4, 1.1], "cube": [1.4, 1.1]}
# camera distance (m) and elevations: objects about 15 to 20 px across, or about 10 (far)
VIEWS = {"near": (1.25, ELEVATIONS), "far": (2.0, [45, 90])}


def _config(materials: str, view: str = "near") -> dict:
    distance, elevations = VIEWS[view]
    objects = [{"shape": s, "color": COLORS[s], "material": m, "position": AT[s]} for s, m in SETS[materials].items()]
    return {"dataset": {"name": f"shapes_{materials}", "family": "clevr", "seed": 11, "n_images": 1},
            "scene": {"resolution": [128, 96], "render": {"samples": 8, "denoise": "off", "min_visible_pixels": 40},
                      "camera": {"distance": distance}, "content": {"mode": "objects", "objects": objects}},
            "variables": {"camera.elevation": {"type": "varying_all", "levels": elevations}}}


@pytest.fixture(scope="module")
def shapes(tmp_path_factory) -> dict[str, Layout]:
    """Both material sets near at every elevation, and set a far at 45 and 90 degrees, rendered
    once, questions written."""
    out = {}
    for name, materials, view in (("a", "a", "near"), ("b", "b", "near"), ("far", "a", "far")):
        tmp = tmp_path_factory.mktemp(f"shapes_{name}")
        root = tmp / "ds"
        assert main(["render", str(write_config(tmp, _config(materials, view))), "-o", str(root), "--in-process"]) == 0
        generate(root)
        out[name] = Layout(root)
    return out


def _by_elevation(layout: Layout) -> dict[int, dict]:
    return {int(lg["levels"]["camera.elevation"]): lg for lg in layout.legends()}


def _shows(m: cf.Measured, shape: str) -> bool:
    return cf.visible(m.alternatives["shape"][shape])


def _questions(layout: Layout, image: str) -> list[dict]:
    rows = [json.loads(line) for line in (layout.root / "questions.jsonl").read_text().splitlines()]
    return [r for r in rows if r["image"] == image]


def _asked(layout: Layout, image: str) -> set[str]:
    return {r["key"] for r in _questions(layout, image)}


def _decided(legend: dict, q: dict) -> bool:
    """Whether every other shape (material, size) that would change the answer of `q` shows in the
    image as rendered, read from the legend's measurements: the objects of the shape asked about
    told from every other shape, every other object from that shape."""
    seen = [o for o in seen_as_rendered(legend)["objects"] if o["visibility"] == "visible"]

    def all_show(o: dict, attribute: str) -> bool:
        return all(cf.visible(d) for d in cf.measured(o).alternatives[attribute].values())

    def membership(objects: list[dict], shape: str) -> bool:
        return all(all_show(o, "shape") if o["kind"] == shape else _shows(cf.measured(o), shape) for o in objects)

    p = q["params"]
    if q["key"] == "query_shape_unique_color":
        return all(all_show(o, "shape") for o in seen if o["attributes"]["color"] == p["color"])
    if q["key"] == "exist_color_shape":
        return membership([o for o in seen if o["attributes"]["color"] == p["color"]], p["shape"])
    asked = {"query_material_unique_shape": "material", "query_size_unique_shape": "size"}.get(q["key"])
    return membership(seen, p["shape"]) and (
        asked is None or all(all_show(o, asked) for o in seen if o["kind"] == p["shape"]))


def test_every_object_is_rendered_as_every_other_shape_material_and_size(shapes):
    for layout in shapes.values():
        for legend in layout.legends():
            for o in legend["objects"]:
                m = cf.measured(o)
                assert m is not None and m.area == o["visible_pixels"] > 0
                assert set(m.alternatives["shape"]) == {"cube", "sphere", "cylinder", "cone"} - {o["kind"]}
                assert set(m.alternatives) == {"shape", "material", "size"}
                assert cf.presence(m) == "visible"


def test_a_shape_question_is_asked_only_where_every_alternative_that_decides_it_shows(shapes):
    for layout in shapes.values():
        for legend in layout.legends():
            for q in _questions(layout, legend["image"]):
                if q["key"] in SHAPE_KEYS:
                    assert _decided(legend, q), (legend["levels"], q["key"], q["params"])


def test_from_above_small_round_shapes_look_alike_and_no_question_tells_them_apart(shapes):
    top = _by_elevation(shapes["far"])[90]
    confusable = [(o["kind"], s) for o in top["objects"] if o["kind"] in ROUND
                  for s in ROUND if s != o["kind"] and not _shows(cf.measured(o), s)]
    # every round shape is taken for another round shape from above
    assert {kind for kind, _ in confusable} == set(ROUND), confusable
    round_colors = {COLORS[s] for s in ROUND}
    for q in _questions(shapes["far"], top["image"]):
        if q["key"] in SHAPE_KEYS and q["key"] != "exist_color_shape":  # "is there a cyan sphere?" may read
            assert q["params"].get("shape") not in ROUND and q["params"].get("color") not in round_colors, q


def test_from_30_to_60_degrees_every_shape_shows_and_the_same_questions_are_asked(shapes, tmp_path):
    for name, layout in ((n, shapes[n]) for n in SETS):
        for elevation in (30, 45, 60):
            legend = _by_elevation(layout)[elevation]
            for o in legend["objects"]:
                m = cf.measured(o)
                assert all(_shows(m, s) for s in m.alternatives["shape"]), (elevation, o["kind"], m)
        # the same dataset without the measurements: its questions come from the size and blur rule
        old = tmp_path / name
        shutil.copytree(layout.root, old)
        _strip(Layout(old))
        generate(old)
        for elevation in (30, 45, 60):
            image = _by_elevation(layout)[elevation]["image"]
            assert _asked(layout, image) == _asked(Layout(old), image), elevation


def _strip(layout: Layout) -> None:
    """Legends as a render before the check wrote them (the image files, and so their hashes, unchanged)."""
    for path in (layout.root / "legends").glob("*.json"):
        legend = json.loads(path.read_text())
        for o in legend["objects"]:
            o.pop(cf.LEGEND_FIELD, None)
        legend["setup"]["render"].pop("counterfactual", None)
        path.write_text(json.dumps(legend, indent=1) + "\n")


def test_byo_audit_renders_the_alternatives_of_an_older_dataset_and_finds_its_top_down_shape_questions_ill_posed(
        shapes, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(shapes["far"].root, old)
    _strip(Layout(old))
    generate(old)  # asked as before the check: the size and blur rule lets every shape question through
    top = _by_elevation(Layout(old))[90]["image"]
    asked_on_top = _asked(Layout(old), top) & {*SHAPE_KEYS, "relate_left"}  # "is the green cube left of ...?"
    assert asked_on_top
    assert len(unmeasured(old)) == len(VIEWS["far"][1])
    assert main(["audit", str(old)]) == 1  # renders the alternatives (--alternatives missing), then audits
    assert unmeasured(old) == []
    report = json.loads((old / "audit.json").read_text())
    ill = {(f["image"], f["key"]) for f in report["findings"] if f["status"] == "ill_posed"}
    on_top = {k for image, k in ill if image == top}
    assert on_top and on_top <= asked_on_top, (on_top, asked_on_top)
    assert all("unreadable (shape)" in f["reason"] for f in report["findings"]
               if f["status"] == "ill_posed" and f["image"] == top and f["key"] in SHAPE_KEYS)
    levels = {(c["variable"], c["level"]): c for c in report["levels"]}
    assert levels[("camera.elevation", "90")]["asked"]["ill_posed"] == len(on_top)
    # near, from 30 to 60 degrees, the audit agrees with what the size and blur rule asked
    near = tmp_path / "near"
    shutil.copytree(shapes["a"].root, near)
    _strip(Layout(near))
    generate(near)
    main(["audit", str(near)])
    levels = {(c["variable"], c["level"]): c for c in json.loads((near / "audit.json").read_text())["levels"]}
    for elevation in (30, 45, 60):
        assert levels[("camera.elevation", str(elevation))]["asked"].get("ill_posed", 0) == 0, elevation


def test_the_audit_of_a_dataset_with_the_measurements_renders_nothing_and_agrees(shapes):
    for layout in shapes.values():
        assert unmeasured(layout.root) == []
        report = audit_dataset(layout.root, show_progress=False)
        assert report.count("ill_posed") == 0 and report.count("wrong") == 0, report.to_json()["findings"]


def _measured_once(config: dict, screen: bool) -> tuple[dict[int, cf.Measured], list[int]]:
    """The check's measurements of the config's first image, and the samples of each region render."""
    config = json.loads(json.dumps(config))
    config["scene"]["render"]["counterfactual"] = {"screen": screen}  # 4 samples, the default
    cfg = load_config(config)
    spec = sample_spec(cfg, make_job(cfg, 0))
    samples: list[int] = []
    render_region = regions.render_region

    def counted(scene, box):
        samples.append(scene.cycles.samples)
        return render_region(scene, box)

    with engine.own_scene("screen_test") as scene, pytest.MonkeyPatch.context() as patch:
        _, built = build_scene(spec, cfg.family, scene, 2)
        ids = engine.render_instance_ids(scene, built)
        mask = measure_mask(ids, [o.id for o in spec.objects], cfg.family.mask_parts(spec))
        patch.setattr(regions, "render_region", counted)
        return counterfactuals.measure(spec, cfg.family, scene, built, mask), samples


def test_a_first_pass_at_half_the_samples_settles_the_clear_changes_and_decides_every_change_as_one_pass_would():
    config = _config("a")
    config["variables"] = {"camera.elevation": {"type": "varying_all", "levels": [90]}}  # near-threshold shapes
    screened, screened_samples = _measured_once(config, screen=True)
    single, single_samples = _measured_once(config, screen=False)
    assert set(single_samples) == {4} and set(screened_samples) == {2, 4}
    assert screened_samples.count(4) < len(single_samples)  # fewer renders at the check's samples
    settled = again = 0
    for oid, one in single.items():
        two = screened[oid]
        changes = [(cf.PRESENCE, None, one.presence, two.presence)] + [
            (a, v, d, two.alternatives[a][v]) for a, values in one.alternatives.items() for v, d in values.items()]
        for attribute, value, full, first in changes:
            assert cf.visible(first) == cf.visible(full), (oid, attribute, value, first, full)
            if cf.settled(attribute, first):
                settled += 1
            else:  # rendered again at 4 samples, with the same seed: the one pass's measure exactly
                assert first == full, (oid, attribute, value)
                again += 1
    assert settled and again  # both paths taken
