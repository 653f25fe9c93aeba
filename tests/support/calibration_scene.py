"""The shape-calibration scene of docs/readability.md ("Identifiable, not just different"): a blue
cylinder, a green cube turned square to the camera and a red metal cone, 128x96, the camera at
1.25 m, one image per elevation. Shared by the question side's and the audit's outline tests."""

from __future__ import annotations


def calibration_config(name: str, elevations: list[float], keys: list[str] | None = None, **scene) -> dict:
    """The scene at `elevations` (camera.elevation's levels); `scene` keys replace or add to the
    scene's (camera, blur...); `keys`: the question keys asked, else the family's defaults."""
    objects = [{"shape": "cylinder", "color": "blue", "material": "rubber", "position": [-1.3, 0.0]},
               {"shape": "cube", "color": "green", "material": "rubber", "position": [1.3, 0.0], "rotation": 0},
               {"shape": "cone", "color": "red", "material": "metal", "position": [0.0, -1.5]}]
    camera = scene.pop("camera", {"distance": 1.25})
    config = {"dataset": {"name": name, "family": "clevr", "seed": 5, "n_images": 1},
              "scene": {"resolution": [128, 96], "render": {"samples": 8, "denoise": "off", "min_visible_pixels": 1},
                        "camera": camera, "content": {"mode": "objects", "objects": objects}, **scene},
              "variables": {"camera.elevation": {"type": "varying_all", "levels": elevations}}}
    if keys is not None:
        config["questions"] = {"keys": keys}
    return config
