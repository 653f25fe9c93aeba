"""What the counterfactual readability check costs: the demo configs rendered with the check on and
off (render.counterfactual.enabled), as written and at the standard quality preset's own samples,
in one run (both sides measured in the same run, so the machine's load weighs on both). Reports
the seconds per image of each side, their ratio, and the check's own phase (the render log's
`counterfactual`) as a share of the render without it.

    .venv/bin/python bench/counterfactual_cost.py [--out output/bench_counterfactual_cost] [--json FILE]
Writes the cost section of docs/readability_calibration.md (between its markers) and cost.json;
`--json`: the bench section `make bench` merges (bench/report.py), with the check's share of the
CLEVR demo's render at the standard preset held to at most 30% (issue 45).
"""

from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path

import yaml
from figures import Section, write_block

from byo.render.executors.inprocess import InProcess
from byo.render.runner import render_dataset

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "readability_calibration.md"
BEGIN, END = "<!-- cost: begin -->", "<!-- cost: end -->"
CONFIGS = ["dataset_configs/demo.yaml", "dataset_configs/demo_poker.yaml"]


def variants(path: str) -> dict[str, dict]:
    """(as written | standard preset) x (check on | off) of one config."""
    written = yaml.safe_load((ROOT / path).read_text())
    written["dataset"].pop("output_dir", None)
    standard = copy.deepcopy(written)
    standard["scene"].get("render", {}).pop("samples", None)  # the preset's own 64 (adaptive)
    out = {}
    for preset, cfg in (("as written", written), ("standard preset", standard)):
        for check in (True, False):
            c = copy.deepcopy(cfg)
            c["scene"].setdefault("render", {})["counterfactual"] = {"enabled": check}
            out[f"{preset} | check {'on' if check else 'off'}"] = c
    return out


def phases(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "render_log.jsonl").read_text().splitlines()
            if json.loads(line).get("event") == "image"]


def measure(out: Path) -> list[dict]:
    rows = []
    for path in CONFIGS:
        runs = {}
        for label, cfg in variants(path).items():
            target = out / Path(path).stem / label.replace(" | ", "_").replace(" ", "_")
            render_dataset(cfg, target, executor=InProcess(), show_progress=False)
            runs[label] = phases(target)
        for preset in ("as written", "standard preset"):
            on, off = runs[f"{preset} | check on"], runs[f"{preset} | check off"]
            t_on, t_off = sum(p["seconds"] for p in on), sum(p["seconds"] for p in off)
            check = sum(p["phases"].get("counterfactual", 0.0) for p in on)
            rows.append({"config": path, "preset": preset, "images": len(on), "seconds_on": round(t_on, 2),
                         "seconds_off": round(t_off, 2), "ratio": round(t_on / t_off, 3),
                         "check_seconds": round(check, 2), "check_share": round(check / (t_on - check), 3)})
    return rows


def markdown(rows: list[dict]) -> str:
    lines = [BEGIN, "## Cost of the counterfactual check", "",
             "Measured by `bench/counterfactual_cost.py`: each demo config rendered with the check on and off in one "
             "run (the render log's seconds per image, the check's own phase), as written and at the standard preset's "
             "samples.", "",
             "| config | samples | images | seconds, check on | seconds, check off | on / off | the check's phase / "
             "render without it |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['config']} | {r['preset']} | {r['images']} | {r['seconds_on']} | {r['seconds_off']} | "
                     f"{r['ratio']:.2f} | {r['check_share']:.0%} |")
    return "\n".join([*lines, "", END]) + "\n"


def section(out: Section, rows: list[dict]) -> Section:
    """The bench section (begun before the renders): each config's check share and on / off ratio, and the table."""
    for r in rows:
        key = f"{Path(r['config']).stem}_{r['preset'].replace(' ', '_')}"
        limit = 0.30 if r["config"].endswith("demo.yaml") and r["preset"] == "standard preset" else None
        out.figure(f"{key}_check_share", r["check_share"], "", f"{r['config']}, {r['preset']}: the check / render",
                   at_most=limit)
        out.figure(f"{key}_on_off", r["ratio"], "", f"{r['config']}, {r['preset']}: seconds with the check / without")
    out.table("cost", [("config", ""), ("samples", ""), ("images", ""), ("check on", "s"), ("check off", "s"),
                       ("check", "s")],
              [[r["config"], r["preset"], r["images"], r["seconds_on"], r["seconds_off"], r["check_seconds"]]
               for r in rows])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "output" / "bench_counterfactual_cost"))
    parser.add_argument("--json", type=Path, help="write the bench section here (make bench)")
    args = parser.parse_args()
    begun = Section("counterfactual_cost", "The counterfactual check's cost on the demo configs",
                    "Each demo config rendered with render.counterfactual on and off in one run, as written and at the "
                    "standard preset's samples: seconds per image from the render log, the check's own phase over the "
                    "render without it.")
    rows = measure(Path(args.out))
    (Path(args.out) / "cost.json").write_text(json.dumps(rows, indent=1))
    write_block(DOC, markdown(rows), BEGIN, END)
    section(begun, rows).write(args.json)


if __name__ == "__main__":
    main()
