"""A newcomer's CLEVR counting config (240x180, 2 to 8 objects, the camera up to 3.5 m) and the
refusal `byo plan` gives it (tests/scene/test_floor_check.py, tests/render/...)."""

from __future__ import annotations

import re

from byo.cli import main

COUNTS, DISTANCES = [2, 5, 8], [1.0, 2.0, 3.5]


def newcomer(distances=DISTANCES, counts=COUNTS, **render) -> dict:
    """A newcomer's CLEVR counting config: 240x180, 2 to 8 objects, the camera up to 3.5 m."""
    return {"dataset": {"name": "newcomer", "family": "clevr", "seed": 7, "n_images": 1},
            "scene": {"resolution": [240, 180], "render": {"samples": 1, "denoise": "off", **render},
                      "content": {"mode": "random"}},
            "variables": {"content.count": {"type": "varying_all", "levels": counts},
                          "camera.distance": {"type": "varying_all", "levels": distances}}}


def refused(path, capsys, command="plan") -> str:
    args = [command, str(path)] + (["-o", str(path.parent / "out"), "--in-process"] if command == "render" else [])
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def fixed_distance(err: str) -> float:
    return float(re.search(r"expected camera\.distance at most ([0-9.]+) m", err).group(1))
