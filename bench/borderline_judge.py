"""The readability rules against one judge on a borderline sheet (docs/readability.md, "Agreement
with a judge"). Renders a small CLEVR set at the extremes (elevation 90, 6 and 35 degrees; no blur
and f/0.5; the camera at 1.5 and 3 m; the lowest lighting preset and the default; 128x96, 8
samples, 2 images per combination), writes its questions with the unreadable ones flagged, makes
the borderline sheet of `byo human --borderline 6`, records the answers in ANSWERS through the
store the web page writes (annotator `agent`), and prints `byo human --agreement`.

ANSWERS are what the developing agent read from each image at its rendered size (the image viewer,
one image at a time), before seeing any truth: one judge, not a panel of people. To repeat it with
people, run the first two steps, then `byo human DATASET --run borderline --borderline 6` and send
each annotator to the page; `byo human DATASET --run borderline --agreement` pools their answers.

    .venv/bin/python bench/borderline_judge.py [--out output/bench_borderline] [--json]
"""

from __future__ import annotations

import argparse
import secrets
import shutil
from pathlib import Path

import yaml

from byo.cli import main as byo_main
from byo.human.answers import response_text
from byo.human.serve import HumanSettings, prepare

RUN, JUDGE, PER_SIDE = "borderline", "agent", 6
CONFIG = {
    "dataset": {"name": "clevr_borderline", "family": "clevr", "seed": 11, "n_images": 2},
    "scene": {"resolution": [128, 96], "render": {"samples": 8, "denoise": "off", "min_visible_pixels": 4,
                                                  "on_hidden": "flag"},
              "content": {"mode": "random", "count": 4}},
    "questions": {"unreadable": "flag"},
    "variables": {"camera.elevation": {"type": "varying_all", "levels": [90, 6, 35]},
                  "blur.fstop": {"type": "varying_all", "levels": ["none", "very_high"]},
                  "camera.distance": {"type": "varying_all", "levels": [1.5, 3.0]},
                  "lighting.intensity": {"type": "varying_all", "levels": ["very_low", "medium"]}},
}
CANNOT = "cannot tell"
# (image number, question key): the judge's answer, read from the image alone
ANSWERS = {
    ("000000", "count_color"): 0, ("000000", "exist_color_shape"): "no",
    ("000003", "exist_color_shape"): "no", ("000004", "count_color"): 0,
    ("000005", "count_objects"): 3, ("000006", "count_color"): 0, ("000007", "count_color"): 1,
    ("000011", "relate_left"): "no", ("000015", "count_objects"): 4,
    ("000016", "count_color"): 0, ("000016", "count_objects"): 3, ("000017", "count_objects"): 3,
    ("000019", "query_shape_unique_color"): "sphere", ("000019", "count_color"): 1,
    ("000019", "exist_color_shape"): "no", ("000020", "count_color"): 0, ("000022", "count_objects"): 2,
    ("000025", "count_objects"): 3, ("000030", "count_objects"): 2, ("000032", "relate_left"): "yes",
    ("000034", "exist_color_shape"): CANNOT, ("000034", "query_shape_unique_color"): "cylinder",
    ("000035", "count_color"): 1, ("000038", "count_shape"): CANNOT, ("000038", "query_size_unique_shape"): CANNOT,
    ("000040", "count_color"): 0, ("000042", "relate_left"): "no", ("000043", "relate_left"): "yes",
    ("000043", "count_shape"): CANNOT, ("000043", "query_size_unique_shape"): CANNOT,
}


def record(dataset: Path) -> int:
    """The judge's answers written through the store; the number written."""
    study = prepare(HumanSettings(dataset=dataset, run=RUN, borderline=PER_SIDE))
    try:
        for note in study.notes:
            print(note)
        who = study.annotator(JUDGE)
        missing = [q for q in who.order if (q.split("/")[0].rsplit("_", 1)[1], q.split("/")[1]) not in ANSWERS]
        if missing:
            raise SystemExit(f"bench/borderline_judge.py: ANSWERS has no answer to {', '.join(missing)} (the render "
                             "differs from the one judged: look at those images and add them)")
        for qid in who.order:
            answer = ANSWERS[(qid.split("/")[0].rsplit("_", 1)[1], qid.split("/")[1])]
            spec = study.selection.items[qid].input
            cannot = answer == CANNOT
            study.record(who, qid, "" if cannot else response_text(spec, answer), cannot_tell=cannot,
                         seconds=20.0, nonce=secrets.token_hex(8), kind=spec["kind"])
        return len(who.rows)
    finally:
        study.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("output/bench_borderline"))
    ap.add_argument("--json", action="store_true", help="print the agreement as JSON")
    args = ap.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    config = args.out / "borderline.yaml"
    config.write_text(yaml.safe_dump(CONFIG, sort_keys=False))
    dataset = args.out / "ds"
    assert byo_main(["render", str(config), "-o", str(dataset), "--in-process", "-q"]) == 0
    assert byo_main(["questions", str(dataset)]) == 0
    print(f"{record(dataset)} answers of {JUDGE} recorded")
    byo_main(["human", str(dataset), "--run", RUN, "--agreement", *(["--json"] if args.json else [])])


if __name__ == "__main__":
    main()
