"""Chess scenes: sampling a spec (pieces on cells, view rows and columns), landmarks and
legend lines. Board coordinates: see model.py."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from byo.families.api import (
    BRIGHT_LIGHT,
    HD_PIXELS,
    NO_BLUR,
    OVERHEAD,
    Family,
    PlacementError,
    QualityPreset,
    ResolvedSetup,
    SceneObject,
    color_name,
    visible,
)
from byo.families.chess import foreign
from byo.families.chess.answers import ANSWERS, board_size
from byo.families.chess.model import (
    FOOTPRINT_RADIUS,
    MIN_VISIBLE_PIXELS,
    PIECE_HEIGHT,
    PIECE_TYPES,
    SPREAD_POOL,
    BoardConfig,
    ChessContent,
    azimuth_from_side,
    piece_rgb,
    rows_readable,
)
from byo.families.chess.vocab import VOCABULARY


class BoardGeometry:
    """Cell centres and corners of a board in world metres (the top surface at z = thickness)."""

    def __init__(self, board: BoardConfig):
        self.board = board
        self.rows, self.cols, self.size = board.rows, board.columns, board.square_size
        self.top = board.thickness

    def centre(self, i: int, j: int) -> tuple[float, float, float]:
        x0, y0 = self.board.location
        return (x0 + (j - (self.cols - 1) / 2) * self.size, y0 + ((self.rows - 1) / 2 - i) * self.size, self.top)

    def corners(self) -> list[tuple[float, float, float]]:
        """(rows + 1) x (columns + 1) grid corners, row-major from the (0, 0) corner."""
        x0, y0 = self.board.location
        return [(x0 + (j - self.cols / 2) * self.size, y0 + (self.rows / 2 - i) * self.size, self.top)
                for i in range(self.rows + 1) for j in range(self.cols + 1)]


class ViewMapping:
    """Physical cells to view cells (row 0 farthest from the camera, column 0 leftmost)."""

    def __init__(self, rows: int, cols: int, directions: dict):
        front = -np.array(directions["behind"][:2])  # towards the camera on the ground
        right = -np.array(directions["left"][:2])
        row_axis, col_axis = np.array([0.0, -1.0]), np.array([1.0, 0.0])  # physical i, j increase
        self.swapped = bool(abs(front @ col_axis) > abs(front @ row_axis) + 1e-9)
        if not self.swapped:
            self.flip_row, self.flip_col = bool(front @ row_axis < 0), bool(right @ col_axis < 0)
            self.view_rows, self.view_cols = rows, cols
        else:
            self.flip_row, self.flip_col = bool(front @ col_axis < 0), bool(right @ row_axis < 0)
            self.view_rows, self.view_cols = cols, rows

    def view_cell(self, i: int, j: int) -> tuple[int, int]:
        r, c = (j, i) if self.swapped else (i, j)
        return (self.view_rows - 1 - r if self.flip_row else r, self.view_cols - 1 - c if self.flip_col else c)


MAX_CELL_DRAWS = 200


def first_clash(c: ChessContent, idents: list[dict], cells: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The first two pieces whose footprints intersect (cell distance below the sum of radii)."""
    radius = [FOOTPRINT_RADIUS[c.style][p["type"]] * c.scale for p in idents]
    for a in range(len(cells)):
        for b in range(a + 1, len(cells)):
            if math.dist(cells[a], cells[b]) < radius[a] + radius[b]:
                return a, b
    return None


def check_on_table(board: BoardConfig, setup: ResolvedSetup) -> None:
    """The board, frame included, must lie on the table top."""
    t = setup.table
    if not t.enabled:
        return
    half_x = board.columns * board.square_size / 2 + board.border
    half_y = board.rows * board.square_size / 2 + board.border
    x0, y0 = board.location
    corners = [(x0 + sx * half_x, y0 + sy * half_y) for sx in (-1, 1) for sy in (-1, 1)]
    a, b = t.length / 2, (t.length if t.shape == "circular" else t.width) / 2
    inside = (all(abs(x) <= a and abs(y) <= b for x, y in corners) if t.shape == "rectangular"
              else all((x / a) ** 2 + (y / b) ** 2 <= 1.0 for x, y in corners))
    if not inside:
        raise PlacementError(
            f"the {2 * half_x:.2f} x {2 * half_y:.2f} m board at {list(board.location)} does not fit on the "
            f"{t.shape} {t.length} x {t.width} m table; enlarge scene.table or make the board smaller")


def grid_in_frame(projector, geometry: BoardGeometry) -> bool:
    """Whether the four outer corners of the squares project inside the image, in front of the camera."""
    corners = geometry.corners()
    outer = [corners[0], corners[geometry.cols], corners[-1 - geometry.cols], corners[-1]]
    px = projector.project(outer)
    w, h = projector.resolution
    return bool(np.all((px[:, 2] > 0) & (px[:, 0] >= 0) & (px[:, 0] <= w) & (px[:, 1] >= 0) & (px[:, 1] <= h)))


class ChessFamily(Family):
    name = "chess"
    content_model = ChessContent
    template_file = "chess.yaml"
    foreign_keys = {"byo-eval": foreign.BYO_EVAL}  # byo import-config
    foreign_finish = {"byo-eval": foreign.finish}
    answers = ANSWERS
    design_keys = ("board.rows", "board.columns", "count", "types", "n_types", "colors", "style", "piece_set",
                   "scale", "max_rotation", "placement.spread", "placement.start")
    audit = "audit"
    vocabulary = VOCABULARY
    object_kinds = PIECE_TYPES
    explain_factors = (NO_BLUR, BRIGHT_LIGHT, OVERHEAD)  # byo explain: each alone, in a failed image's scene
    default_scene: dict[str, Any] = {
        "camera": {"distance": 1.3, "elevation": 42.0, "azimuth": 0.0, "focal_length": 50.0},
        # A table a little larger than the board: its outline and the floor around it show, so
        # that table.shape and floor.color change the image (docs/observability.md).
        "table": {"enabled": True, "length": 0.9, "width": 0.7},
        "resolution": [640, 360],
        # Pieces are small: seen from MIN_VISIBLE_PIXELS px of the image as rendered.
        "render": {"min_visible_pixels": MIN_VISIBLE_PIXELS},
    }
    # From 1920x1080 up the shared standard (adaptive 0.0325) gives 46.1 dB but SSIM 0.9941 on the
    # busiest scene, 0.025 gives 0.9947, 0.02 gives 47.0 dB and 0.9951 (bench/family_presets.py,
    # docs/speed.md): the standard here is 64 samples adaptive 0.02.
    quality_presets = {"standard": [QualityPreset({"adaptive_threshold": 0.02}, from_pixels=HD_PIXELS)]}

    def _identities(self, c: ChessContent, draw: np.random.Generator) -> list[dict]:
        colors = [color_name(x) for x in c.colors]
        if c.pieces:
            return [{"type": p.type, "color": color_name(p.color),
                     "cell": p.cell} for p in c.pieces]
        lo, hi = c.count_range
        n = int(draw.integers(lo, hi, endpoint=True))
        pool = list(c.type_pool)
        if c.n_types is not None:
            pool = [pool[k] for k in sorted(draw.choice(len(pool), size=c.n_types, replace=False))]
        return [{"type": pool[int(draw.integers(len(pool)))], "color": colors[int(draw.integers(len(colors)))],
                 "cell": None} for _ in range(n)]

    def _cells(self, c: ChessContent, n_free: int, taken: set, place: np.random.Generator) -> list[tuple[int, int]]:
        rows, cols = c.board.rows, c.board.columns
        allowed = sorted(set(c.placement.cells)) if c.placement.cells else [
            (i, j) for i in range(rows) for j in range(cols)]
        free = [cell for cell in allowed if cell not in taken]
        if n_free > len(free):
            raise PlacementError(f"{n_free} pieces do not fit on the {len(free)} free allowed cells")
        spread = c.placement.spread
        if spread != "high":
            start = c.placement.start
            if start == "center":
                start = ((rows - 1) / 2, (cols - 1) / 2)
            elif start == "corner":
                start = (0, 0)
            # Nearest cells first; random tie-breaking keeps clusters from always growing the same way.
            dist = np.array([math.hypot(i - start[0], j - start[1]) for i, j in free]) + place.uniform(0, 0.5, len(free))
            pool_size = min(len(free), max(n_free, math.ceil(SPREAD_POOL[spread] * n_free)))
            free = [free[k] for k in np.argsort(dist, kind="stable")[:pool_size]]
        picks = place.choice(len(free), size=n_free, replace=False)
        return [free[k] for k in picks]

    def _place(self, c: ChessContent, idents: list[dict], place: np.random.Generator) -> list[tuple[int, int]]:
        """A cell per piece: the explicit ones, then free cells drawn again (bounded) while two
        pieces' footprints would intersect."""
        taken = {p["cell"] for p in idents if p["cell"] is not None}
        for _ in range(MAX_CELL_DRAWS):
            free = iter(self._cells(c, sum(p["cell"] is None for p in idents), taken, place))
            cells = [p["cell"] if p["cell"] is not None else next(free) for p in idents]
            clash = first_clash(c, idents, cells)
            if clash is None:
                return cells
            a, b = clash
            if idents[a]["cell"] is not None and idents[b]["cell"] is not None:
                raise PlacementError(
                    f"the {idents[a]['type']} on cell {list(cells[a])} and the {idents[b]['type']} on cell "
                    f"{list(cells[b])} intersect at scale {c.scale}; move them apart or lower `scale`")
        raise PlacementError(f"{len(idents)} pieces at scale {c.scale} could not be placed without two of them "
                             f"intersecting after {MAX_CELL_DRAWS} draws; lower `scale` or `count`")

    def sample(self, content: ChessContent, setup: ResolvedSetup, *, draw: np.random.Generator,
               place: np.random.Generator) -> tuple[list[SceneObject], dict[str, Any]]:
        idents = self._identities(content, draw)
        rotations = [float(draw.uniform(-content.max_rotation, content.max_rotation)) for _ in idents]
        board = content.board
        geometry = BoardGeometry(board)
        check_on_table(board, setup)
        cells = self._place(content, idents, place)
        projector = setup.projector()
        directions = projector.ground_directions()
        view = ViewMapping(board.rows, board.columns, directions)
        pattern = (place.integers(0, 2, size=(board.rows, board.columns)).tolist() if board.random_pattern
                   else [[(i + j) % 2 for j in range(board.columns)] for i in range(board.rows)])

        objects = []
        for k, (p, rot, (i, j)) in enumerate(zip(idents, rotations, cells, strict=True)):
            row, col = view.view_cell(i, j)
            objects.append(SceneObject(
                id=k + 1, name=f"{p['color']}_{p['type']}_{k + 1}", kind=p["type"],
                attributes={"type": p["type"], "color": p["color"],
                            "rgb": [round(v, 6) for v in piece_rgb(content, p["color"])],
                            "style": content.style, "cell": [i, j], "row": row, "column": col,
                            "height": round(PIECE_HEIGHT[p["type"]] * board.square_size * content.scale, 6)},
                location=tuple(round(v, 6) for v in geometry.centre(i, j)),  # base centre on the board
                rotation=round(rot % 360.0, 4), scale=round(board.square_size * content.scale, 6)))

        extras = {
            "board": {
                "rows": board.rows, "columns": board.columns, "view_rows": view.view_rows,
                "view_columns": view.view_cols, "square_size": board.square_size, "border": board.border,
                "thickness": board.thickness, "location": list(board.location),
                "colors": {"frame": list(board.frame_color), "light": list(board.light_color),
                           "dark": list(board.dark_color)},
                "pattern": "random" if board.random_pattern else "checker",
                "dark_squares": pattern,  # 1 = dark, physical [i][j]
                "view_axes_swapped": view.swapped, "view_flip_rows": view.flip_row,
                "view_flip_columns": view.flip_col,
                # Rows and columns are asked about only when readable (model.rows_readable) and
                # with the whole grid in the frame.
                "azimuth_from_side": round(azimuth_from_side(setup.camera.azimuth), 4),
                "rows_readable": rows_readable(setup.camera.azimuth),
                "in_frame": grid_in_frame(projector, geometry),
            },
            "directions": directions,
        }
        return objects, extras

    # -- the counterfactual check (byo/scene/counterfactual.py) ------------------------------------
    # A piece's type is told by the silhouette rule (model.TYPE_READABLE_*), which agrees with
    # rendering each other type (docs/readability_calibration.md); render.counterfactual.attributes
    # [type] renders them instead.
    rendered_attributes = ()

    def alternatives(self, spec, obj: SceneObject) -> dict[str, dict[str, SceneObject]]:
        square = obj.scale
        return {"type": {t: obj.model_copy(update={
            "kind": t, "name": f"{obj.name}_as_{t}",
            "attributes": {**obj.attributes, "type": t, "height": round(PIECE_HEIGHT[t] * square, 6)}})
            for t in PIECE_TYPES if t != obj.kind}}

    def landmarks(self, spec) -> dict:
        board = ChessContent.model_validate(spec.content).board
        return {"board_corners": BoardGeometry(board).corners()}

    def legend_lines(self, legend: dict[str, Any]) -> list[str]:
        b = legend["extras"]["board"]
        lines = [f"board: {b['rows']}x{b['columns']} squares of {b['square_size']} m ({b['pattern']}), seen as "
                 f"{b['view_rows']} rows x {b['view_columns']} columns; colours light {b['colors']['light']}, "
                 f"dark {b['colors']['dark']}, frame {b['colors']['frame']}"]
        by_type: dict[str, list[str]] = {}
        for o in legend["objects"]:
            a = o["attributes"]
            by_type.setdefault(a["type"], []).append(f"{a['color']} at row {a['row']}, column {a['column']}")
        for t in PIECE_TYPES:
            if t in by_type:
                lines.append(f"{t.upper()} ({len(by_type[t])}): " + "; ".join(by_type[t]))
        return lines

    def caption(self, legend: dict[str, Any]) -> str:
        edge = sum(o.get("visibility") == "ambiguous" for o in legend["objects"])
        return f"{len(visible(legend))} pieces" + (f" (+{edge} unclear)" if edge else "")

    def question_context(self, legend: dict[str, Any]) -> dict[str, Any]:
        return board_size(legend)

