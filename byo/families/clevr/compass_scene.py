"""COMPASS scenes (`mode: compass`): CLEVR-style scenes built so that every complexity N of the
paper (OA 2-12, OR 3-12, OAR 4-12) gets a caption on the same image, each of whose primitives a
decomposed negative can test (compass.py).

A decomposed caption names its objects by their shapes only ("There is a cube in the image.",
"The cube is to the left of the sphere."), and its negative must be false of the whole image. So:

- one of the shapes is left out of each image (drawn per image): an object negative names it
  ("There is a cone in the image." where no cone stands);
- each of the other shapes stands in a band of image x of its own, the bands in an order drawn
  per image: every object of one shape is left of every object of the next, so a relation
  between two shapes has a contrary relation word that is false for every pair of them ("The
  cube is to the right of the sphere." with every cube left of every sphere), and a relation
  chain walks from band to band;
- the objects are shared out among the shapes as evenly as possible (8 objects: 3, 3, 2), so a
  chain of 7 objects alternates shapes (OR at N = 12 is 7 objects and 5 relations, or 6 and 6);
- the objects of one shape share a size and a material (drawn per shape) and have different
  colours, so "There is a small cube." is false when the cubes are large, and "There is a blue
  cube." when no cube is blue.

Placement is CLEVR's otherwise (family.py `_place`): every pair apart by the direction margin
along both ground axes and by the x margin in the image, so every relation is decided.
"""

from __future__ import annotations

import numpy as np

from byo.families.api import color_name


def compass_identities(content, draw: np.random.Generator) -> tuple[list[dict], dict]:
    """The objects of one COMPASS scene (shape, colour, material, size, and `x_band`: the fraction
    of the image width its centre must lie in), with what the legend records of the design."""
    colors = [color_name(c) for c in content.colors]
    lo, hi = content.count_range
    n = int(draw.integers(lo, hi, endpoint=True))
    shapes = list(content.shapes)
    left_out = shapes.pop(int(draw.integers(len(shapes))))
    order = [shapes[k] for k in draw.permutation(len(shapes))]  # bands, left to right
    m = len(order)
    counts = [n // m] * m
    for k in draw.choice(m, size=n % m, replace=False):
        counts[int(k)] += 1
    objects = []
    for band, (shape, k) in enumerate(zip(order, counts, strict=True)):
        size = content.sizes[int(draw.integers(len(content.sizes)))]
        material = content.materials[int(draw.integers(len(content.materials)))]
        for c in draw.choice(len(colors), size=k, replace=False):
            objects.append({"shape": shape, "color": colors[int(c)], "material": material, "size": size,
                            "position": None, "rotation": None, "x_band": (band / m, (band + 1) / m)})
    return objects, {"compass_scene": {"left_out": left_out, "bands_left_to_right": order}}
