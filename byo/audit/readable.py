"""The audit's own readability measures, from a dataset's image and mask files (not the question
generator's code, so that a fault there is not repeated here; docs/readability.md):

- `contrast_bands`: presence relative to the scene. Per object, the Weber contrast of linear
  luminance between its mask pixels and its local background (the pixels 2 to 3 px out that no
  object covers), the step in grey levels, and the step over the background's interquartile
  range; seen when all three pass, not seen at all below the lower thresholds. A ratio of
  luminances holds across exposure, where a colour difference shrinks with the light.
- `hidden_changes`: hidden is not absent. A question is ill-posed when counting an object the
  image does not show (alone, or all of them together) changes the answer the pixels give.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from scipy import ndimage

# The thresholds are the documented ones (docs/readability.md, "Presence relative to the scene").
SEEN = {"weber": 0.2, "standout": 1.5}
NEARLY = {"weber": 0.1, "standout": 1.0}
MIN_GREY_STEP = 3.0


def _linear_y(rgb: np.ndarray) -> np.ndarray:
    srgb = rgb[..., :3] / 255.0
    lin = np.where(srgb > 0.04045, ((srgb + 0.055) / 1.055) ** 2.4, srgb / 12.92)
    return 0.2126 * lin[..., 0] + 0.7152 * lin[..., 1] + 0.0722 * lin[..., 2]


def _grey(rgb: np.ndarray) -> np.ndarray:
    return 0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]


def contrast_bands(rgb: np.ndarray, mask: np.ndarray, ids: Mapping[int, Sequence[int]]) -> dict[int, str]:
    """Object id (-> its mask ids) -> "visible", "ambiguous" or "hidden" by its contrast against its
    local background in the image; objects with no mask pixels or no background around are left out."""
    rgb = rgb.astype(np.float64)
    y, g = _linear_y(rgb), _grey(rgb)
    covered = mask > 0
    out: dict[int, str] = {}
    for oid, own in ids.items():
        region = np.isin(mask, list(own))
        if not region.any():
            continue
        near = ndimage.binary_dilation(region, iterations=1)
        ring = ndimage.binary_dilation(region, iterations=3) & ~near
        background = ring & ~covered
        if not background.any():
            background = ring
        if not background.any():
            continue
        y_in, y_bg = np.median(y[region]), np.median(y[background])
        q25, q75 = np.percentile(y[background], [25, 75])
        weber = abs(y_in - y_bg) / max(y_bg, 1e-4)
        standout = abs(y_in - y_bg) / max(q75 - q25, 1e-5)
        step = abs(np.median(g[region]) - np.median(g[background]))
        if step < MIN_GREY_STEP:
            out[oid] = "hidden"
        elif weber >= SEEN["weber"] and standout >= SEEN["standout"]:
            out[oid] = "visible"
        elif weber >= NEARLY["weber"] and standout >= NEARLY["standout"]:
            out[oid] = "ambiguous"
        else:
            out[oid] = "hidden"
    return out


def hidden_changes(finding, others: Sequence, evaluate: Callable[[list], object], expected_type: type) -> object | None:
    """The first of `others` (objects the image does not show) whose being counted changes the
    answer (`evaluate(extra objects)` -> a finding; only an answer of `expected_type` counts: a
    question the extra object would make ill-posed says nothing of this one), each alone, then
    all together; None when none does."""
    trials = [[o] for o in others] + ([list(others)] if len(others) > 1 else [])
    for extra in trials:
        found = evaluate(extra)
        if isinstance(found, expected_type) and found != finding:
            return extra[0]
    return None


# A board's squares resolve when the light and dark squares' centres still differ: the 10th
# percentile over adjacent light-dark pairs of their Michelson contrast of linear luminance
# (docs/readability.md, "The board's squares"). The checker blurred by a disc wider than about
# twice a square flattens and then inverts (the disc's first zero), whatever the exposure.
MIN_SQUARE_CONTRAST = 0.15
SQUARE_PERCENTILE = 10


def square_contrast(rgb: np.ndarray, mask: np.ndarray, corners: np.ndarray, dark: np.ndarray) -> tuple[float, int] | None:
    """(the SQUARE_PERCENTILE-th percentile of the light-minus-dark Michelson contrast between
    adjacent squares' centres, the pairs measured); `corners`: the grid's projected corners
    ((rows + 1) x (columns + 1) x 2, pixels), `dark`: 1 where a square is dark. A centre whose 3x3
    pixels any object covers is left out; None when no pair is left."""
    y = _linear_y(rgb.astype(np.float64))
    h, w = y.shape
    centres = (corners[1:, 1:] + corners[:-1, :-1] + corners[1:, :-1] + corners[:-1, 1:]) / 4
    level = np.full(centres.shape[:2], np.nan)
    for (i, j), (x, yy) in zip(np.ndindex(*centres.shape[:2]), centres.reshape(-1, 2), strict=True):
        c, r = int(x), int(yy)
        if 1 <= c < w - 1 and 1 <= r < h - 1 and not mask[r - 1:r + 2, c - 1:c + 2].any():
            level[i, j] = np.median(y[r - 1:r + 2, c - 1:c + 2])
    found = []
    for a, b, da, db in ((level[:, :-1], level[:, 1:], dark[:, :-1], dark[:, 1:]),
                         (level[:-1], level[1:], dark[:-1], dark[1:])):
        pair = (da != db) & ~np.isnan(a) & ~np.isnan(b)
        light, shade = np.where(da[pair] == 0, a[pair], b[pair]), np.where(da[pair] == 0, b[pair], a[pair])
        found.append((light - shade) / np.maximum(light + shade, 1e-6))
    values = np.concatenate(found)
    return (float(np.percentile(values, SQUARE_PERCENTILE)), int(values.size)) if values.size else None


def squares_unresolved(legend: Mapping, rgb: np.ndarray, mask: np.ndarray) -> str | None:
    """Why the board's squares cannot be counted in the image (their centres' contrast); None
    when they resolve or the legend records no board of squares (`extras.board`, the projected
    `landmarks.board_corners`)."""
    board = (legend.get("extras") or {}).get("board")
    corners = (legend.get("landmarks") or {}).get("board_corners")
    if not board or not corners or len(corners) != (board["rows"] + 1) * (board["columns"] + 1):
        return None
    dark = np.asarray(board.get("dark_squares")
                      or [[(i + j) % 2 for j in range(board["columns"])] for i in range(board["rows"])])
    grid = np.asarray(corners, float)[:, :2].reshape(board["rows"] + 1, board["columns"] + 1, 2)
    found = square_contrast(rgb, mask, grid, dark)
    if found is None or found[0] >= MIN_SQUARE_CONTRAST:
        return None
    return (f"unreadable (squares): the board's squares do not resolve in the image: the light and dark squares' "
            f"centres differ by a Michelson contrast of {found[0]:.2f} or less in {SQUARE_PERCENTILE}% of "
            f"{found[1]} neighbouring pairs (< {MIN_SQUARE_CONTRAST:g})")
