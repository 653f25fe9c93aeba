"""Poker scenes: sampling a spec (cards, chip piles, players' mats), the grid's landmarks, and the
ground truth that needs the render's measurements (which card identities can be read).

Objects, in id order: the cards (players' hands in player order, then the river; or the
overlap row; or the grid cards), the chip piles, then the players' mats. Each face-up card's
two corner indices are mask parts of their own (`extras.index_regions`), measured apart from
the card and counted in its visible pixels too.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from shapely.geometry import Polygon, box

from byo.families.api import (
    BRIGHT_LIGHT,
    HD_PIXELS,
    NO_BLUR,
    OVERHEAD,
    Factor,
    Family,
    PlacementError,
    QualityPreset,
    ResolvedSetup,
    SceneObject,
    SceneSpec,
    color_name,
    visible,
)
from byo.families.poker import foreign
from byo.families.poker import layout as lay
from byo.families.poker.answers import ANSWERS, cards_of, scene_info
from byo.families.poker.faces import DECK, card_color, card_name
from byo.families.poker.model import (
    ACE_WHOLE,
    MAT_COLORS,
    MIN_VISIBLE_PIXELS,
    PokerContent,
    chip_rgb,
    count_range,
    grid_frame_slack,
)
from byo.families.poker.sheet import SHEETS
from byo.families.poker.vocab import VOCABULARY

HAND_CAPACITY = 5  # cards a hand can take when `total_cards` deals them
OVERLAP_GAP = 0.006  # metres between the cards of an overlap row at factor 0


def _draw_count(value, rng: np.random.Generator) -> int:
    lo, hi = count_range(value)
    return int(rng.integers(lo, hi, endpoint=True))


def _face_up(n: int, face_down, rng: np.random.Generator) -> list[bool]:
    down = min(n, _draw_count(face_down, rng))
    chosen = set(rng.choice(n, size=down, replace=False).tolist()) if down else set()
    return [k not in chosen for k in range(n)]


# byo explain: an overlapping row of cards laid side by side (a table of cards is left as it is)
CARDS_APART = Factor("cards apart", "the overlapping row laid side by side (overlap factor 0)",
                     {"content.overlap.factor": 0.0})


class Deck:
    """The scene's one deck: named cards are taken out first, the rest dealt in a seeded order."""

    def __init__(self, named: list[str], rng: np.random.Generator, repeat: bool = False):
        rest = [c for c in DECK if c not in set(named)]
        self.order = [rest[k] for k in rng.permutation(len(rest))]
        self.rng, self.repeat = rng, repeat

    def deal(self, named: list[str], n: int) -> list[str]:
        extra = max(0, n - len(named))
        if self.repeat:  # each card drawn from a full deck of its own
            return list(named) + [DECK[int(k)] for k in self.rng.integers(len(DECK), size=extra)]
        if extra > len(self.order):
            raise PlacementError(f"the deck has {len(self.order)} cards left, {extra} more are needed")
        dealt, self.order = self.order[:extra], self.order[extra:]
        return list(named) + dealt


def _r(v: float, nd: int = 6) -> float:
    return float(round(float(v), nd))


class PokerFamily(Family):
    name = "poker"
    content_model = PokerContent
    template_file = "poker.yaml"
    foreign_keys = {"byo-eval": foreign.BYO_EVAL}  # byo import-config
    foreign_finish = {"byo-eval": foreign.finish}
    answers = ANSWERS
    design_keys = ("players", "river")
    audit = "audit"
    sheets = SHEETS
    vocabulary = VOCABULARY
    object_kinds = ("card", "chip_pile", "player")
    explain_factors = (NO_BLUR, BRIGHT_LIGHT, OVERHEAD, CARDS_APART)  # byo explain: each alone, in a failed image's scene
    default_scene: dict[str, Any] = {
        "camera": {"distance": 1.3, "elevation": 62.0, "azimuth": 0.0, "focal_length": 50.0},
        "table": {"enabled": True, "shape": "elliptic", "length": 1.6, "width": 1.1,
                  "color": [0.07, 0.33, 0.17], "roughness": 0.9},
        "resolution": [800, 600],
        # Overlapping cards are part of the design: a hidden card is flagged, never re-placed.
        # Seen from MIN_VISIBLE_PIXELS px of the image as rendered.
        "render": {"min_visible_pixels": MIN_VISIBLE_PIXELS, "on_hidden": "flag", "max_visibility_attempts": 1},
    }
    # From 1920x1080 up the shared standard (adaptive 0.0325) gives 44.65 dB and SSIM 0.9948 on the
    # busiest scene's busiest third, 0.025 gives 45.62 dB and 0.9954 (bench/family_presets.py,
    # docs/speed.md): the standard here is 64 samples adaptive 0.025.
    quality_presets = {"standard": [QualityPreset({"adaptive_threshold": 0.025}, from_pixels=HD_PIXELS)]}

    # --- sampling -------------------------------------------------------------------------
    def sample(self, content: PokerContent, setup: ResolvedSetup, *, draw: np.random.Generator,
               place: np.random.Generator) -> tuple[list[SceneObject], dict[str, Any]]:
        if setup.render.engine == "workbench":
            raise PlacementError("poker cards show their faces as image textures, which Workbench does not draw: "
                                 "use render.engine: cycles")
        c = content
        deck = Deck(c.named_cards(), draw, repeat=bool(c.repeat_cards))
        extras: dict[str, Any] = {"mode": c.mode, "card": {"width": _r(c.card.width), "height": c.card.height,
                                                         "thickness": c.card.thickness, "back": c.card.back}}
        piles: list[dict] = []
        players: list[dict] = []
        if c.mode == "overlap":
            cards = self._overlap(c, deck, draw, setup)
            extras["overlap"] = {"direction": c.overlap.direction, "factor": c.overlap.factor}
            if c.overlap.n_lines > 1:
                extras["overlap"] |= {"lines": c.overlap.n_lines, "line_gap": c.overlap.gap_between_lines}
        elif c.mode == "grid":
            cards, frame = self._grid(c, deck, draw, place, setup)
            extras["grid"] = {"rows": frame.rows, "columns": frame.columns, "pitch": [_r(p) for p in frame.pitch],
                              "centre": [_r(v) for v in frame.centre], "right": [_r(v) for v in frame.right],
                              "down": [_r(v) for v in frame.down], "lines": c.grid.lines,
                              "line_width": c.grid.line_width}
        else:
            cards, piles, players = self._table(c, deck, draw, place)

        objects: list[SceneObject] = []
        h, t = c.card.height, c.card.thickness
        names: set[str] = set()
        for card in cards:
            z = lay.card_z(card, t)
            name = f"card_{card.code}"  # a card dealt again (repeat_cards) gets its own name
            name = next(f"{name}_{k}" for k in range(2, 2 + len(cards)) if f"{name}_{k}" not in names) \
                if name in names else name
            names.add(name)
            attrs = {"card": card.code, "rank": card.code[:-1], "suit": card.code[-1], "name": card_name(card.code),
                     "color": card_color(card.code), "face_up": card.face_up, "owner": card.owner,
                     "position": card.position, **card.extra}
            objects.append(SceneObject(
                id=len(objects) + 1, name=name, kind="card", attributes=attrs,
                location=(_r(card.x), _r(card.y), _r(z, 7)), rotation=_r(card.rotation % 360.0, 4), scale=h))
        for pile in piles:
            objects.append(SceneObject(id=len(objects) + 1, name=f"chips_{len(objects) + 1}", kind="chip_pile",
                                       **pile))
        for player in players:
            objects.append(SceneObject(id=len(objects) + 1, name=f"player_{player['attributes']['player']}",
                                       kind="player", **player))
        regions = []
        for o in objects:
            if o.kind == "card" and o.attributes["face_up"]:
                for corner in lay.CORNERS:
                    regions.append({"id": len(objects) + len(regions) + 1, "card": o.id, "corner": corner})
        if len(objects) + len(regions) > 255:
            raise PlacementError(f"{len(objects) + len(regions)} mask ids needed; the 8-bit mask holds 255")
        extras["index_regions"] = regions
        extras["players"] = [{"player": p["attributes"]["player"], "color": p["attributes"]["color"]} for p in players]
        return objects, extras

    @staticmethod
    def _deal(spec, deck: Deck, draw, setup: ResolvedSetup):
        """Cards of an overlap row or the grid (`spec`: their config), whether each lies face up,
        and the image's right and down directions on the table."""
        n = _draw_count(spec.count, draw)
        right, down = lay.view_axes(setup.projector().ground_directions())
        return deck.deal(spec.cards[:n], n), _face_up(n, spec.face_down, draw), right, down

    def _overlap(self, c: PokerContent, deck: Deck, draw, setup: ResolvedSetup) -> list[lay.CardPlace]:
        o = c.overlap
        codes, face_up, right, down = self._deal(o, deck, draw, setup)
        w, h = c.card.width, c.card.height
        # At factor 0 the cards lie OVERLAP_GAP apart; the gap shrinks with the overlap.
        if o.direction == "horizontal":  # each card lies on the one to its left; rows one below another
            along, step, across, pitch = right, (w + OVERLAP_GAP) * (1 - o.factor), down, h + o.gap_between_lines
        else:  # each card lies on the one above it in the image; columns side by side
            along, step, across, pitch = down, (h + OVERLAP_GAP) * (1 - o.factor), right, w + o.gap_between_lines
        if o.n_lines == 1:
            return lay.row_places(codes, face_up, "row", (0.0, 0.0), along, -down, step)
        n_lines = o.n_lines
        sizes = [len(codes) // n_lines + (k < len(codes) % n_lines) for k in range(n_lines)]
        sizes = [n for n in sizes if n]
        places: list[lay.CardPlace] = []
        for line, n in enumerate(sizes):
            first = sum(sizes[:line])
            centre = np.asarray(across, float) * (line - (len(sizes) - 1) / 2) * pitch
            for p in lay.row_places(codes[first:first + n], face_up[first:first + n], "row", centre, along, -down,
                                    step):
                p.position, p.extra = first + p.position, {"line": line}
                places.append(p)
        return places

    def _grid(self, c: PokerContent, deck: Deck, draw, place, setup: ResolvedSetup):
        g = c.grid
        codes, face_up, right, down = self._deal(g, deck, draw, setup)
        n = len(codes)
        w, h = c.card.width, c.card.height
        frame = lay.GridFrame(g.rows, g.columns, (w * (1 + g.cell_margin), h + w * g.cell_margin),
                              np.asarray(g.location, float), right, down)
        if g.cells is not None:
            cells = [tuple(cell) for cell in g.cells[:n]]
        else:
            picks = place.choice(g.rows * g.columns, size=n, replace=False)
            cells = [divmod(int(k), g.columns) for k in picks]
        rotation = lay.heading(-down)
        cards = []
        for k, (code, up, (row, col)) in enumerate(zip(codes, face_up, cells, strict=True)):
            x, y = frame.cell_centre(row, col)
            cards.append(lay.CardPlace(code, up, "grid", k, float(x), float(y), rotation, base=lay.LINE_HEIGHT,
                                       extra={"cell": [int(row), int(col)], "row": int(row), "column": int(col)}))
        return cards, frame

    def _table(self, c: PokerContent, deck: Deck, draw, place):
        n = _draw_count(c.n_players, draw)
        hands = c.hands(n)
        w, h = c.card.width, c.card.height
        # How many cards each hand and the river get.
        if c.total_cards is not None:
            total = _draw_count(c.total_cards, draw)
            named = [len(hd.cards) for hd in hands]
            if total < sum(named) + len(c.river.cards):
                raise PlacementError(f"total_cards {total} is below the {sum(named) + len(c.river.cards)} named cards")
            # The river leaves a card for every hand without named cards, when there are enough.
            reserve = sum(k == 0 for k in named)
            river_n = max(len(c.river.cards), min(total - sum(named) - reserve, _draw_count(c.river.count, draw)))
            counts = list(named)
            to_deal = total - river_n - sum(named)
            # Every empty hand gets a card first; then each card goes to a random hand that is not
            # yet much longer than an even share (at most HAND_CAPACITY); the river takes the rest.
            for k in draw.permutation(n).tolist():
                if to_deal and counts[k] == 0:
                    counts[k], to_deal = 1, to_deal - 1
            cap = min(HAND_CAPACITY, math.ceil((to_deal + sum(counts)) / n) + 1) if n else 0
            for _ in range(to_deal):
                open_ = [k for k in range(n) if counts[k] < cap]
                if not open_:
                    river_n += 1
                    continue
                counts[open_[int(draw.integers(len(open_)))]] += 1
        else:
            counts = [max(len(hd.cards), _draw_count(hd.count, draw)) for hd in hands]
            river_n = max(len(c.river.cards), _draw_count(c.river.count, draw))
        hand_codes = [deck.deal(hd.cards, k) for hd, k in zip(hands, counts, strict=True)]
        river_codes = deck.deal(c.river.cards, river_n)
        if c.face_down is None:
            hand_up = [_face_up(k, hd.face_down, draw) for hd, k in zip(hands, counts, strict=True)]
            river_up = _face_up(river_n, c.river.face_down, draw)
        else:  # face-down cards drawn over the whole table
            ups = _face_up(sum(counts) + river_n, c.face_down, draw)
            hand_up = [ups[sum(counts[:k]):sum(counts[:k + 1])] for k in range(len(counts))]
            river_up = ups[sum(counts):]
        pile_counts = [_draw_count(p, draw) for p in c.player_piles(n)]
        table_piles = _draw_count(c.chips.table_piles, draw)

        # Seats, hands and the chips beside each hand, then the mat under both.
        chip_r, chip_spread = c.chips.radius, c.chips.spread
        pitch = 2 * chip_r * (1 + chip_spread) + 0.008
        seats = lay.seats(n, c.seats.radius, c.seats.start, [hd.layout for hd in hands])
        cards: list[lay.CardPlace] = []
        pile_specs: list[tuple[str, float, float, float]] = []  # owner, x, y, base height
        mats = []
        margin = c.seats.mat_margin
        for seat, hd, codes, ups, n_piles in zip(seats, hands, hand_codes, hand_up, pile_counts, strict=True):
            # The hand nearest the player, the chip piles in a row in front of it (towards the pot).
            hand_depth = h if codes else 0.0
            gap = 0.01 if codes and n_piles else 0.0
            depth = hand_depth + gap + (pitch if n_piles else 0.0)
            hand_centre = seat.point - seat.inward * (depth / 2 - hand_depth / 2)
            placed = lay.hand_places(seat, codes, ups, w, h, hd.spread, hd.fan, hand_centre)
            shapes = [lay.footprint(p.x, p.y, p.rotation, w, h) for p in placed]
            row_centre = seat.point + seat.inward * (depth / 2 - pitch / 2)
            for j in range(n_piles):
                centre = row_centre + seat.right * (j - (n_piles - 1) / 2) * pitch
                jitter = place.uniform(-1, 1, 2) * 0.003
                px, py = centre + seat.inward * jitter[0] + seat.right * jitter[1]
                pile_specs.append((f"player_{seat.player}", float(px), float(py), lay.MAT_THICKNESS))
                shapes.append(lay.pile_shape(px, py, chip_r, chip_spread))
            if not shapes:  # an empty seat still gets a mat the size of one card
                shapes.append(lay.footprint(*seat.point, lay.heading(seat.inward), w, h))
            x0, y0, x1, y1 = lay.union(shapes).bounds
            mat = box(x0 - margin, y0 - margin, x1 + margin, y1 + margin)
            for p in placed:
                p.base = lay.MAT_THICKNESS
            cards += placed
            mats.append((seat, mat))
        river_step = w + c.river.gap
        river = lay.row_places(river_codes, river_up, "river", c.river.position, (1.0, 0.0), (0.0, 1.0), river_step)
        cards += river
        river_shape = lay.union([lay.footprint(p.x, p.y, p.rotation, w, h) for p in river]) if river else None
        self._check_clear(mats, river_shape)

        # Chip piles in the middle of the table, clear of the river and the mats.
        if table_piles:
            rx, ry = c.seats.radius
            area = Polygon([(rx * math.cos(a), ry * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 64)])
            avoid = lay.union([m.buffer(0.01) for _, m in mats] + ([river_shape.buffer(0.01)] if river_shape else []))
            spots = lay.scatter_piles(table_piles, area, avoid, chip_r, chip_spread, place)
            if spots is None:
                raise PlacementError(f"{table_piles} chip piles do not fit between the river and the players' mats: "
                                     "fewer table_piles, smaller chips or a larger seats.radius")
            pile_specs += [("table", x, y, 0.0) for x, y in spots]

        piles = [self._pile(c, owner, x, y, base, draw, place) for owner, x, y, base in pile_specs]
        colors = list(MAT_COLORS)
        players = []
        for seat, mat in mats:
            color = colors[seat.player - 1]
            x0, y0, x1, y1 = mat.bounds
            players.append({"attributes": {"player": seat.player, "color": color,
                                           "rgb": list(MAT_COLORS[color]), "seat_angle": seat.angle,
                                           "layout": seat.layout, "mat": [_r(x0), _r(y0), _r(x1), _r(y1)],
                                           "thickness": lay.MAT_THICKNESS},
                            "location": (_r((x0 + x1) / 2), _r((y0 + y1) / 2), lay.MAT_THICKNESS / 2),
                            "rotation": 0.0, "scale": _r(max(x1 - x0, y1 - y0))})
        return cards, piles, players

    @staticmethod
    def _check_clear(mats, river_shape) -> None:
        for i, (seat_a, a) in enumerate(mats):
            for seat_b, b in mats[i + 1:]:
                if a.buffer(0.004).intersects(b):
                    raise PlacementError(
                        f"the mats of players {seat_a.player} and {seat_b.player} overlap: use fewer players, "
                        "fewer cards or chip piles per player, a smaller hand spread or a larger seats.radius")
            if river_shape is not None and a.buffer(0.01).intersects(river_shape):
                raise PlacementError(f"player {seat_a.player}'s mat overlaps the river: use fewer river cards, "
                                     "a smaller river gap or a larger seats.radius")

    @staticmethod
    def _pile(c: PokerContent, owner: str, x: float, y: float, base: float, draw, place) -> dict:
        ch = c.chips
        n = _draw_count(ch.per_pile, draw)
        names = [color_name(col) for col in ch.colors]
        if ch.mixed:
            colors = [names[int(k)] for k in draw.integers(len(names), size=n)]
        else:
            colors = [names[int(draw.integers(len(names)))]] * n
        offsets = []
        for _ in range(n):
            r, a = ch.spread * ch.radius * math.sqrt(place.uniform()), place.uniform(0, 2 * math.pi)
            offsets.append([_r(r * math.cos(a)), _r(r * math.sin(a))])
        height = n * ch.thickness
        return {"attributes": {"owner": owner, "chips": n, "colors": colors,
                               "rgb": {k: [_r(v) for v in chip_rgb(c, k)] for k in dict.fromkeys(colors)},
                               "offsets": offsets, "radius": ch.radius, "thickness": ch.thickness, "base": base},
                "location": (_r(x), _r(y), _r(base + height / 2)), "rotation": 0.0, "scale": ch.radius}

    # --- what the legend records beyond the spec --------------------------------------------
    def mask_parts(self, spec: SceneSpec) -> dict[int, int]:
        return {r["id"]: r["card"] for r in spec.extras.get("index_regions", [])}

    def landmarks(self, spec: SceneSpec) -> dict:
        g = spec.extras.get("grid")
        if not g:
            return {}
        return {"grid_corners": lay.GridFrame.from_extras(g).corners()}

    def complete_legend(self, legend: dict[str, Any]) -> None:
        """Per card: its corner indices as measured, the blur there, and `identity_visible`; for a
        grid, whether all of it lies in the frame (`extras.grid.in_frame`)."""
        from_parts = {p["id"]: p for p in legend.get("parts", [])}
        setup = ResolvedSetup.model_validate(legend["setup"])
        projector = setup.projector()
        grid = legend["extras"].get("grid")
        if grid:
            w, h = setup.resolution
            slack = grid_frame_slack(w, h)
            grid["in_frame"] = all(-slack <= x <= w + slack and -slack <= y <= h + slack and depth > 0
                                   for x, y, depth in legend["landmarks"]["grid_corners"])
        rule = PokerContent.model_validate(legend["content"]).identity
        card = legend["extras"]["card"]
        by_card: dict[int, list[dict]] = {}
        for region in legend["extras"]["index_regions"]:
            by_card.setdefault(region["card"], []).append(region)
        for o in cards_of(legend):
            a = o["attributes"]
            regions = []
            for region in by_card.get(o["id"], []):
                quad = lay.index_quad_world(o["location"], o["rotation"], card["width"], card["height"],
                                            card["thickness"], region["corner"])
                # The whole index: a part beyond the frame's edge does not show, as a covered one.
                projected = Polygon(projector.project(quad)[:, :2])
                measured = from_parts[region["id"]]
                area = float(projected.area)
                regions.append({"id": region["id"], "corner": region["corner"],
                                "visible_pixels": measured["visible_pixels"], "bbox": measured["bbox"],
                                "area_pixels": round(area, 1),
                                "fraction": round(measured["visible_pixels"] / area, 4) if area > 0 else 0.0,
                                "height_pixels": round(self._height(projector.project(quad)), 2)})
            blur = blur_pixels(setup, o["pixel_coords"][2])
            a["blur_pixels"] = round(blur, 2)
            a["index_regions"] = regions
            a["identity_visible"] = bool(a["face_up"] and o["visible"] and any(
                r["visible_pixels"] >= rule.min_pixels and r["fraction"] >= rule.min_fraction
                and blur <= rule.max_blur * r["height_pixels"] for r in regions))
            if not a["identity_visible"] and a["face_up"] and o["visible"] and a["rank"] == "A":
                # an ace also reads from its one large pip, on a card wholly in view (issue 25)
                whole = Polygon(projector.project(lay.card_corners_world(o["location"], o["rotation"], card))[:, :2])
                pip = projector.project(lay.ace_pip_world(o["location"], o["rotation"], card["width"],
                                                          card["height"], card["thickness"]))
                pip_height = self._height(pip)
                if (whole.area > 0 and o["visible_pixels"] >= ACE_WHOLE * whole.area
                        and Polygon(pip[:, :2]).area >= rule.min_pixels and blur <= rule.max_blur * pip_height):
                    a["identity_visible"] = True
                    a["identity_from"] = "pip"

    @staticmethod
    def _height(points) -> float:
        """The longer side of a projected index quad, in pixels (the index's height on screen)."""
        p = np.asarray(points)[:, :2]
        return float(max(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[2] - p[1])))

    # --- text -------------------------------------------------------------------------------
    def legend_lines(self, legend: dict[str, Any]) -> list[str]:
        e = legend["extras"]
        lines = [f"mode: {e['mode']}"]
        if e.get("overlap"):
            lines.append(f"overlap: {e['overlap']['direction']}, factor {e['overlap']['factor']}")
        if e.get("grid"):
            lines.append(f"grid: {e['grid']['rows']}x{e['grid']['columns']} (rows from the top of the image)")
        owners: dict[str, list[str]] = {}
        for o in cards_of(legend):
            a = o["attributes"]
            state = "up" if a["face_up"] else "down"
            where = f" at row {a['row']}, column {a['column']}" if "row" in a else ""
            seen = "identity visible" if a.get("identity_visible") else (
                "visible" if o["visible"] else "hidden")
            owners.setdefault(a["owner"], []).append(f"{a['card']} ({state}{where}; {seen})")
        for owner, listed in owners.items():
            lines.append(f"{owner.upper().replace('_', ' ')}: " + ", ".join(listed))
        for o in legend["objects"]:
            if o["kind"] == "chip_pile":
                a = o["attributes"]
                lines.append(f"chip pile #{o['id']} ({a['owner']}): {a['chips']} chips, {', '.join(dict.fromkeys(a['colors']))}")
        for p in e.get("players", []):
            lines.append(f"player {p['player']}: {p['color']} mat")
        return lines

    def caption(self, legend: dict[str, Any]) -> str:
        shown = visible(legend)
        cards = sum(o["kind"] == "card" for o in shown)
        piles = sum(o["kind"] == "chip_pile" for o in shown)
        players = sum(o["kind"] == "player" for o in shown)
        parts = [f"{cards} cards"] + ([f"{piles} piles"] if piles else []) + ([f"{players} players"] if players else [])
        return ", ".join(parts)

    def question_context(self, legend: dict[str, Any]) -> dict[str, Any]:
        return scene_info(legend)


def blur_pixels(setup: ResolvedSetup, depth: float) -> float:
    """Diameter (pixels) of the depth-of-field blur disc at `depth` metres from the camera."""
    b, cam = setup.blur, setup.camera
    if not b.enabled or cam.projection == "orthographic" or depth <= 0:
        return 0.0
    f = cam.focal_length / 1000.0
    aperture = f / b.fstop
    focus = b.focus_distance
    disc = aperture * f * abs(depth - focus) / (depth * max(focus - f, 1e-9))  # on the sensor, metres
    return disc / (cam.sensor_width / 1000.0) * max(setup.resolution)
