"""The counterfactual check of one version of byo against another's, on the same scenes: the demo
configs (CLEVR and poker, as written and at the standard preset's samples), the CLEVR shapes of
tests/render/test_counterfactual.py (near at 20, 45 and 90 degrees, far at 90) and the stylised
chess and far poker of bench/presence_sheet.py. Each scene is built and its image rendered, then
the check measured (seconds of each); the comparison gives, per scene, how many decisions differ
(a change visible or not at MIN_DIFFERENCE; the presence band) and the largest difference between
the two measurements.

    cd /tmp && PYTHONPATH=OLD_CHECKOUT python BENCH/counterfactual_groups.py --dump old.json
    .venv/bin/python bench/counterfactual_groups.py --dump new.json
    .venv/bin/python bench/counterfactual_groups.py --compare old.json new.json
(OLD_CHECKOUT: e.g. `git archive main byo | tar -x -C /tmp/old`; run from outside the worktree so
that its byo comes first.)
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

import yaml
from presence_sheet import configs

from byo.families import load_config
from byo.scene import counterfactual as cf
from byo.scene.plan import make_job
from byo.scene.spec import sample_spec

ROOT = Path(__file__).resolve().parent.parent


def _demo(path: str, standard: bool) -> dict:
    cfg = yaml.safe_load((ROOT / path).read_text())
    cfg["dataset"].pop("output_dir", None)
    if standard:
        cfg["scene"].get("render", {}).pop("samples", None)
    return cfg


def _shapes(elevation: int, distance: float) -> dict:
    at = {"cone": [-1.4, -1.1], "cylinder": [1.4, -1.1], "sphere": [-1.4, 1.1], "cube": [1.4, 1.1]}
    colors = {"cone": "red", "cylinder": "blue", "sphere": "yellow", "cube": "green"}
    materials = {"cone": "metal", "cylinder": "rubber", "sphere": "rubber", "cube": "metal"}
    objects = [{"shape": s, "color": colors[s], "material": materials[s], "position": at[s]} for s in at]
    return {"dataset": {"name": "shapes", "family": "clevr", "seed": 11, "n_images": 1},
            "scene": {"resolution": [128, 96], "render": {"samples": 8, "denoise": "off", "min_visible_pixels": 40},
                      "camera": {"distance": distance, "elevation": elevation},
                      "content": {"mode": "objects", "objects": objects}}}


def scenes() -> list[tuple[str, dict, int]]:
    """(name, config, job index)."""
    out = []
    for path, jobs in (("dataset_configs/demo.yaml", (0, 3, 6)), ("dataset_configs/demo_poker.yaml", (0, 3))):
        for standard in (False, True):
            for job in jobs:
                out.append((f"{Path(path).stem} {'standard' if standard else 'as written'} #{job}",
                            _demo(path, standard), job))
    for elevation in (20, 45, 90):
        out.append((f"shapes near {elevation}", _shapes(elevation, 1.25), 0))
    out.append(("shapes far 90", _shapes(90, 2.0), 0))
    for name, cfg in configs(2).items():
        for job in range(2):
            out.append((f"presence {name} #{job}", copy.deepcopy(cfg), job))
    return out


def measured(config: dict, job: int) -> dict:
    """The check's measurements of one scene (object id -> Measured's JSON, without the merges
    for the comparison) and its seconds, as the render job measures them after the image."""
    from byo.blender import engine
    from byo.render import counterfactuals
    from byo.render.job import _measured, build_scene

    cfg = load_config(config)
    spec = sample_spec(cfg, make_job(cfg, job))
    with engine.own_scene("cf_speed") as scene:
        _, built = build_scene(spec, cfg.family, scene, 2)
        measured, _, _ = _measured(spec, cfg.family, engine.render_instance_ids(scene, built))
        started = time.perf_counter()
        engine.render_image(scene)
        image = time.perf_counter() - started
        started = time.perf_counter()
        found = counterfactuals.measure(spec, cfg.family, scene, built, measured)
        check = time.perf_counter() - started
    return {"image_seconds": round(image, 2), "check_seconds": round(check, 2),
            "objects": {str(k): {f: v for f, v in m.to_json().items() if f != "merged"} for k, m in found.items()}}


def compare(old: dict, new: dict) -> dict:
    """Decisions (a change shows or not; the presence band) and differences of two measurements."""
    changes = flips = 0
    worst, flipped = 0.0, []
    for oid, a in old["objects"].items():
        b = new["objects"].get(oid)
        if b is None:
            flips += 1
            flipped.append(f"{oid}: not measured")
            continue
        ma, mb = cf.Measured.from_json(a), cf.Measured.from_json(b)
        pairs = [("presence", ma.presence, mb.presence)] + [
            (f"{attr} {v}", d, mb.alternatives[attr][v]) for attr, vs in ma.alternatives.items() for v, d in vs.items()]
        changes += len(pairs)
        for name, x, y in pairs:
            worst = max(worst, abs(x - y))
            if cf.visible(x) != cf.visible(y):
                flips += 1
                flipped.append(f"{oid} {name}: {x} -> {y}")
        if cf.presence(ma) != cf.presence(mb) and cf.visible(ma.presence) == cf.visible(mb.presence):
            flips += 1
            flipped.append(f"{oid} presence band: {ma.presence} -> {mb.presence}")
    return {"objects": len(old["objects"]), "changes": changes, "decisions_differ": flips,
            "max_abs_difference": round(worst, 1), "flipped": flipped,
            "check_old": old["check_seconds"], "check_new": new["check_seconds"],
            "image_old": old["image_seconds"], "image_new": new["image_seconds"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", help="measure every scene with the byo on the path and write this JSON")
    parser.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), help="compare two dumps")
    parser.add_argument("--only", default="", help="the scenes whose name contains this")
    args = parser.parse_args()
    if args.dump:
        out = {}
        for name, config, job in scenes():
            if args.only in name:
                out[name] = measured(config, job)
                print(name, out[name]["check_seconds"], flush=True)
        Path(args.dump).write_text(json.dumps(out, indent=1))
    if args.compare:
        old, new = (json.loads(Path(p).read_text()) for p in args.compare)
        rows = [{"scene": k, **compare(old[k], new[k])} for k in old if k in new]
        for r in rows:
            print(json.dumps(r))
        total = {k: round(sum(r[k] for r in rows), 2) for k in ("check_old", "check_new", "image_old", "image_new")}
        print(json.dumps({"changes": sum(r["changes"] for r in rows),
                          "decisions_differ": sum(r["decisions_differ"] for r in rows), **total}))


if __name__ == "__main__":
    main()
