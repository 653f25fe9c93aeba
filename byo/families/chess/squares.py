"""Whether a board's squares resolve in the image as rendered (the rule `squares`,
docs/readability.md "The board's squares"): under the strongest blur the checker is a smear and
"how many squares? 64" is not asked. From the legend: each square's corners as projected
(`landmarks.board_corners`, the grid's (rows + 1) x (columns + 1) corners), its smaller side in
pixels, and the depth-of-field disc at its depth."""

from __future__ import annotations

import numpy as np

from byo.families.api import Problem, blur_px
from byo.families.chess.model import SQUARES_READABLE_MAX_BLUR, SQUARES_READABLE_MIN_PX


def square_blur(legend: dict) -> tuple[np.ndarray, np.ndarray] | None:
    """Per square (rows x columns): its smaller side as projected (pixels) and the blur disc's
    diameter at its depth (pixels); None for a legend without the board's corners."""
    b = legend["extras"]["board"]
    corners = legend.get("landmarks", {}).get("board_corners")
    if not corners or len(corners) != (b["rows"] + 1) * (b["columns"] + 1):
        return None
    c = np.asarray(corners, float).reshape(b["rows"] + 1, b["columns"] + 1, 3)

    def side(a, z):
        return np.linalg.norm(a[..., :2] - z[..., :2], axis=-1)

    along_rows = (side(c[1:, :-1], c[:-1, :-1]) + side(c[1:, 1:], c[:-1, 1:])) / 2
    along_columns = (side(c[:-1, 1:], c[:-1, :-1]) + side(c[1:, 1:], c[1:, :-1])) / 2
    depth = (c[1:, 1:, 2] + c[:-1, :-1, 2] + c[1:, :-1, 2] + c[:-1, 1:, 2]) / 4
    disc = np.vectorize(lambda d: blur_px(legend, {"pixel_coords": [0.0, 0.0, float(d)]}))(depth)
    return np.minimum(along_rows, along_columns), np.asarray(disc, float)


def squares_unresolved(legend: dict) -> Problem | None:
    """The rule `squares`: a square under SQUARES_READABLE_MIN_PX across, or the worst square's blur
    disc over its side beyond SQUARES_READABLE_MAX_BLUR."""
    found = square_blur(legend)
    if found is None:
        return None
    side, disc = found
    if side.min() < SQUARES_READABLE_MIN_PX:
        return ("squares", f"the board's squares do not resolve: the smallest is {side.min():.1f} px across "
                           f"(under {SQUARES_READABLE_MIN_PX:g} px the checker aliases on the pixel grid)")
    ratio = disc / np.maximum(side, 1e-6)
    worst = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    if ratio[worst] <= SQUARES_READABLE_MAX_BLUR:
        return None
    return ("squares", f"the board's squares do not resolve: the blur disc at the board is {disc.min():.1f} to "
                       f"{disc.max():.1f} px across, {ratio[worst]:.2f} times the side of the square it blurs most "
                       f"({side[worst]:.1f} px; at most {SQUARES_READABLE_MAX_BLUR:g})")
