"""The audit of poker questions (`byo audit`): every answer recomputed from the cards, chip piles
and mats the mask shows, never from answers.py or the legend's derived fields (owners,
identity_visible, grid cells).

- A card or chip pile is a player's when its centre lies on that player's mat; one on no mat
  lies in the middle of the table (a community card, a pile of the pot).
- A face-up card can be identified when one of its corner indices (mask parts of their own)
  shows at least `identity.min_pixels` pixels and `identity.min_fraction` of the index's whole
  projected area (a part beyond the frame's edge is as unreadable as a covered one), blurred by at most `identity.max_blur` of the index's projected height. The
  index's place on the face is the card design's INDEX_BOX; the projection is the audit's own.
  A question about face-up cards is decided only when every face-up card it covers is readable.
- A grid card's cell is the projected cell (grid-corner landmarks) holding its projected
  centre; rows are ranked by image y, columns by image x. Rows and columns are decided only with
  the whole grid in the frame and its row lines within GRID_TILT_LIMIT degrees of the image's
  horizontal (perspective may slant the column lines; rows and columns still read apart).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
from shapely.geometry import Point, Polygon

from byo.families.api import (
    POSITION_WORDS,
    SHOWN,
    AuditTable,
    Expected,
    IllPosed,
    MeasuredImage,
    Seen,
    guarded,
    letter_of,
    plural,
)
from byo.families.poker.faces import (
    ACE_PIP_BOX,
    INDEX_BOX,
    RANK_NAMES,
    RED_SUITS,
    SUIT_NAMES,
    card_name,
)
from byo.families.poker.model import ACE_WHOLE, grid_frame_slack

AUDITS = AuditTable()
GRID_TILT_LIMIT = 30.0  # degrees between the grid's row lines and the image's horizontal
CORNERS = ("top_left", "bottom_right")
RANK_OF_PLURAL = {plural(name): rank for rank, name in RANK_NAMES.items()}
SUIT_OF_NAME = {name: suit for suit, name in SUIT_NAMES.items()}


# --- cards, mats and what lies on them -------------------------------------------------------
def _cards(seen: list[Seen]) -> list[Seen]:
    return [o for o in seen if o.kind == "card"]


def _code(o: Seen) -> str:
    return o.attributes["card"]


def _color(code: str) -> str:
    return "red" if code[-1] in RED_SUITS else "black"


def _mode(image: MeasuredImage, mode: str) -> IllPosed | None:
    actual = image.legend["extras"]["mode"]
    return None if actual == mode else IllPosed(f"a question about {mode} scenes, asked of a {actual} scene")


def _holder(image: MeasuredImage, o: Seen) -> Seen | None:
    """The player whose mat `o`'s centre lies on; None in the middle of the table."""
    x, y = o.location[:2]
    for p in image.objects:
        if p.kind == "player":
            x0, y0, x1, y1 = p.attributes["mat"]
            if x0 <= x <= x1 and y0 <= y <= y1:
                return p
    return None


def _named_player(q: dict, image: MeasuredImage, seen: list[Seen]) -> Seen | IllPosed:
    """The player a question names by their mat's colour, if that mat shows."""
    color = q["params"]["mat_color"]
    if color not in q["params"]["player"].split():
        return IllPosed(f"the question names {q['params']['player']!r}, not the {color} mat")
    mats = [o for o in seen if o.kind == "player" and o.attributes["color"] == color]
    return mats[0] if len(mats) == 1 else IllPosed(f"{len(mats)} {color} mats show")


# --- reading a card's corner index -----------------------------------------------------------
def _regions(image: MeasuredImage, card: Seen) -> list[dict]:
    return [r for r in image.legend["extras"]["index_regions"] if r["card"] == card.id]


def face_quad(image: MeasuredImage, card: Seen, face_box) -> np.ndarray:
    """A box of a face-up card's face ([u0, v0, u1, v1] from its top-left corner, v down) as the
    camera projects it: 4 points (pixel x, y)."""
    size = image.legend["extras"]["card"]
    w, h = size["width"], size["height"]
    u0, v0, u1, v1 = face_box
    quad = [(-w / 2 + u * w, h / 2 - v * h) for u, v in ((u0, v1), (u1, v1), (u1, v0), (u0, v0))]
    a = math.radians(card.rotation)
    x, y, z = card.location
    top = z + size["thickness"] / 2
    world = [(x + math.cos(a) * qx - math.sin(a) * qy, y + math.sin(a) * qx + math.cos(a) * qy, top)
             for qx, qy in quad]
    return image.project(world)[:, :2]


def _ace_pip_readable(image: MeasuredImage, card: Seen) -> bool:
    """An ace read from its one large pip: the card shows ACE_WHOLE of its projected area in the
    mask, the pip projects to at least `identity.min_pixels` and the blur is at most
    `identity.max_blur` of its height."""
    if card.attributes["rank"] != "A":
        return False
    rule = image.legend["content"]["identity"]
    whole = Polygon(face_quad(image, card, (0, 0, 1, 1))).area
    pip = face_quad(image, card, ACE_PIP_BOX)
    height = max(np.linalg.norm(pip[1] - pip[0]), np.linalg.norm(pip[2] - pip[1]))
    return (whole > 0 and card.pixels >= ACE_WHOLE * whole and Polygon(pip).area >= rule["min_pixels"]
            and image.blur_px(card) <= rule["max_blur"] * height)


def index_quad(image: MeasuredImage, card: Seen, corner: str) -> np.ndarray:
    """A face-up card's corner index as the camera projects it: 4 points (pixel x, y)."""
    size = image.legend["extras"]["card"]
    w, h = size["width"], size["height"]
    u0, v0, u1, v1 = INDEX_BOX  # on the face, from its top-left corner, v down
    quad = [(-w / 2 + u * w, h / 2 - v * h) for u, v in ((u0, v1), (u1, v1), (u1, v0), (u0, v0))]
    if corner == "bottom_right":  # the same box turned half a turn
        quad = [(-x, -y) for x, y in quad]
    a = math.radians(card.rotation)
    x, y, z = card.location
    top = z + size["thickness"] / 2
    world = [(x + math.cos(a) * qx - math.sin(a) * qy, y + math.sin(a) * qx + math.cos(a) * qy, top)
             for qx, qy in quad]
    return image.project(world)[:, :2]


def _index_readable(image: MeasuredImage, card: Seen, region: dict) -> bool:
    rule = image.legend["content"]["identity"]
    quad = index_quad(image, card, region["corner"])
    area = Polygon(quad).area  # all of it: a part beyond the frame's edge does not show either
    height = max(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
    pixels = int(image.pixel_counts[region["id"]])
    return (pixels >= rule["min_pixels"] and area > 0 and pixels >= rule["min_fraction"] * area
            and image.blur_px(card) <= rule["max_blur"] * height)


def readable(image: MeasuredImage, card: Seen) -> bool:
    """Whether the card lies face up with a corner index large, whole and sharp enough to read (or,
    an ace, its one large pip)."""
    return card.attributes["face_up"] and (any(_index_readable(image, card, r) for r in _regions(image, card))
                                           or _ace_pip_readable(image, card))


def _readable_face_up(image: MeasuredImage, cards: list[Seen]) -> list[Seen] | IllPosed:
    """The face-up cards among `cards`, when every one of them can be read."""
    up = [o for o in cards if o.attributes["face_up"]]
    unread = sorted(_code(o) for o in up if not readable(image, o))
    if unread:
        return IllPosed(f"face-up card(s) {', '.join(unread)} show no readable corner index")
    return up


# --- counting --------------------------------------------------------------------------------
@AUDITS.key("count_total_cards")
def count_total(q, image, seen):
    return Expected(len(_cards(seen)))


@AUDITS.key("count_cards_overlap")
def count_overlap(q, image, seen):
    return _mode(image, "overlap") or Expected(len(_cards(seen)))


@AUDITS.key("count_community_cards")
def count_community(q, image, seen):
    return _mode(image, "table") or Expected(sum(_holder(image, o) is None for o in _cards(seen)))


@AUDITS.key("count_players")
def count_players(q, image, seen):
    return Expected(sum(o.kind == "player" for o in seen))


@AUDITS.key("count_table_chip_piles")
def count_table_piles(q, image, seen):
    return Expected(sum(o.kind == "chip_pile" and _holder(image, o) is None for o in seen))


@AUDITS.key("count_chip_piles_per_player", "count_cards_per_player")
def count_per_player(q, image, seen):
    if problem := _mode(image, "table"):
        return problem
    player = _named_player(q, image, seen)
    if isinstance(player, IllPosed):
        return player
    kind = "card" if "cards" in q["key"] else "chip_pile"
    return Expected(sum(o.kind == kind and _holder(image, o) is player for o in seen))


@AUDITS.key("count_identify_face_up_cards", "count_identify_face_down_cards")
def count_face(q, image, seen):
    up = "face_up" in q["key"]
    return Expected(sum(o.attributes["face_up"] == up for o in _cards(seen)))


def _count_read(q, image, seen, test) -> Expected | IllPosed:
    """How many readable face-up cards pass `test(code)`."""
    cards = _readable_face_up(image, _cards(seen))
    return cards if isinstance(cards, IllPosed) else Expected(sum(test(_code(o)) for o in cards))


@AUDITS.key("count_identification_color_cards")
def count_color(q, image, seen):
    return _count_read(q, image, seen, lambda code: _color(code) == q["params"]["color"])


@AUDITS.key("count_identification_rank_cards")
def count_rank(q, image, seen):
    rank = RANK_OF_PLURAL.get(q["params"]["rank_plural"])  # the rank the question's text names
    if rank is None:
        return IllPosed(f"{q['params']['rank_plural']!r} names no rank")
    return _count_read(q, image, seen, lambda code: code[:-1] == rank)


@AUDITS.key("count_identification_type_cards")
def count_suit(q, image, seen):
    suit = SUIT_OF_NAME.get(q["params"]["suit_name"])  # the suit the question's text names
    if suit is None:
        return IllPosed(f"{q['params']['suit_name']!r} names no suit")
    return _count_read(q, image, seen, lambda code: code[-1] == suit)


# --- identification --------------------------------------------------------------------------
@AUDITS.key("identify_cards")
def identify_cards(q, image, seen):
    cards = _readable_face_up(image, _cards(seen))
    return cards if isinstance(cards, IllPosed) else Expected(sorted(_code(o) for o in cards))


@AUDITS.key("identify_community_cards")
def identify_community(q, image, seen):
    if problem := _mode(image, "table"):
        return problem
    cards = _readable_face_up(image, [o for o in _cards(seen) if _holder(image, o) is None])
    return cards if isinstance(cards, IllPosed) else Expected(sorted(_code(o) for o in cards))


@AUDITS.key("identify_card")
def identify_card(q, image, seen):
    cards = _cards(seen)
    if len(cards) != 1:
        return IllPosed(f"{len(cards)} cards show, the question is about one")
    if not readable(image, cards[0]):
        return IllPosed(f"the card ({_code(cards[0])}) shows no readable corner index")
    return Expected(_code(cards[0]))


@AUDITS.key("identify_card_multiple_choice")
def identify_choice(q, image, seen):
    """Options are card names; an option is true when that card shows face up."""
    up = _readable_face_up(image, _cards(seen))
    if isinstance(up, IllPosed):
        return up
    shown = {card_name(_code(o)) for o in up}
    ids = {o.id for o in seen}
    unseen = {card_name(_code(o)) for o in _cards(image.objects) if o.attributes["face_up"] and o.id not in ids}
    named = sorted(set(q["choices"]) & unseen)
    if named:
        return IllPosed(f"an option names {', '.join(named)}, face up but not shown")
    return letter_of(q, [option in shown for option in q["choices"]])


@AUDITS.key("identify_most_cards_player")
def most_cards_player(q, image, seen):
    if problem := _mode(image, "table"):
        return problem
    players = [o for o in image.objects if o.kind == "player"]
    if not players:
        return IllPosed("no player sits at the table")
    held = Counter(p.id for p in (_holder(image, o) for o in _cards(seen)) if p is not None)
    ranked = sorted(players, key=lambda p: -held[p.id])
    if len(ranked) > 1 and held[ranked[0].id] == held[ranked[1].id]:
        return IllPosed(f"two players hold {held[ranked[0].id]} cards each")
    if ranked[0].id not in {o.id for o in seen}:
        return IllPosed("the mat of the player with the most cards does not show")
    return Expected(ranked[0].attributes["color"])


# --- localization on the grid ----------------------------------------------------------------
class Grid:
    """The grid as its corner landmarks show it: (rows + 1) x (columns + 1) projected corners."""

    def __init__(self, image: MeasuredImage):
        g = image.legend["extras"]["grid"]
        self.rows, self.columns = g["rows"], g["columns"]
        self.image = image
        self.corners = np.array(image.legend["landmarks"]["grid_corners"], float).reshape(
            self.rows + 1, self.columns + 1, 3)
        c = self.corners[:, :, :2]
        self.centres = (c[:-1, :-1] + c[:-1, 1:] + c[1:, :-1] + c[1:, 1:]) / 4

    def in_frame(self) -> bool:
        """Every corner in the frame, or beyond its edge by at most the slack a person tolerates."""
        w, h = self.image.size
        s = grid_frame_slack(w, h)
        x, y, depth = (self.corners[:, :, k] for k in range(3))
        return bool(np.all((depth > 0) & (x >= -s) & (x <= w + s) & (y >= -s) & (y <= h + s)))

    def problem(self) -> IllPosed | None:
        if not self.in_frame():
            return IllPosed("the grid is partly out of the frame")
        across = self.corners[:, -1, :2] - self.corners[:, 0, :2]  # each row line, left to right
        tilt = float(np.degrees(np.arctan2(np.abs(across[:, 1]), across[:, 0])).max())
        if tilt > GRID_TILT_LIMIT:
            return IllPosed(f"the grid's rows run {tilt:.0f} degrees off the image's horizontal: they are not readable")
        return None

    def cell_of(self, o: Seen) -> tuple[int, int] | None:
        """The landmark cell (i, j) holding the object's projected centre."""
        centre = Point(o.centre[:2])
        c = self.corners[:, :, :2]
        for i in range(self.rows):
            for j in range(self.columns):
                if Polygon([c[i, j], c[i, j + 1], c[i + 1, j + 1], c[i + 1, j]]).covers(centre):
                    return i, j
        return None

    def view_cell(self, cell: tuple[int, int]) -> tuple[int, int]:
        """(row from the top, column from the left) as the image shows them."""
        row_y, column_x = self.centres[:, :, 1].mean(axis=1), self.centres[:, :, 0].mean(axis=0)
        i, j = cell
        return int(np.sum(row_y < row_y[i])), int(np.sum(column_x < column_x[j]))


def _grid_card(q: dict, image: MeasuredImage, seen: list[Seen]) -> Seen | IllPosed:
    """The card a grid question names: "the card" when one shows, else "the <name>" of a readable one."""
    cards = _cards(seen)
    said = q["params"]["card"]
    if said == "the card":
        return cards[0] if len(cards) == 1 else IllPosed(f"{len(cards)} cards show; 'the card' names none")
    named = [o for o in cards if said == f"the {card_name(_code(o))}"]
    if len(named) != 1:
        return IllPosed(f"no card that shows is {said!r}")
    if not readable(image, named[0]):
        return IllPosed(f"{said} shows no readable corner index")
    return named[0]


def _grid_cell(q: dict, image: MeasuredImage, seen: list[Seen]) -> tuple[int, int] | IllPosed:
    if problem := _mode(image, "grid"):
        return problem
    grid = Grid(image)
    if problem := grid.problem():
        return problem
    card = _grid_card(q, image, seen)
    if isinstance(card, IllPosed):
        return card
    cell = grid.cell_of(card)
    return IllPosed(f"{q['params']['card']} lies in no cell of the grid") if cell is None else grid.view_cell(cell)


@AUDITS.key("localize_card_on_grid_row", "localize_card_on_grid_column")
def grid_line(q, image, seen):
    cell = _grid_cell(q, image, seen)
    return cell if isinstance(cell, IllPosed) else Expected(cell["row" not in q["key"]])


@AUDITS.key("localize_card_on_grid_3x3")
def grid_word(q, image, seen):
    g = image.legend["extras"].get("grid") or {}
    if (g.get("rows"), g.get("columns")) != (3, 3):
        return IllPosed("position words name the cells of a 3 x 3 grid only")
    cell = _grid_cell(q, image, seen)
    return cell if isinstance(cell, IllPosed) else Expected(POSITION_WORDS[3 * cell[0] + cell[1]])


# --- legend fields ---------------------------------------------------------------------------
def check_cards(image: MeasuredImage) -> list[tuple[str, str]]:
    """Each card's identity fields agree; its corner indices are the parts the mask shows where
    the design puts them; identity_visible and the indices' pixel counts are what the mask gives."""
    problems = []
    parts = {p["id"]: p["object"] for p in image.legend.get("parts", [])}
    codes = Counter(_code(o) for o in _cards(image.objects))
    problems += [("objects", f"card {code} lies {n} times; a scene is dealt from one deck")
                 for code, n in codes.items() if n > 1]
    for o in _cards(image.objects):
        where, a, code = f"objects[{o.id}].attributes", o.attributes, _code(o)
        said = (a["rank"] + a["suit"], a["color"], a["name"])
        if said != (code, _color(code), card_name(code)):
            problems.append((f"{where}.rank/suit/color/name", f"{said} for the card {code}"))
        regions = _regions(image, o)
        corners = sorted(r["corner"] for r in regions)
        if corners != (sorted(CORNERS) if a["face_up"] else []):
            problems.append(("extras.index_regions", f"card {o.id} ({'up' if a['face_up'] else 'down'}) has "
                                                     f"corner indices {corners}"))
        recorded = {r["id"]: r["visible_pixels"] for r in a.get("index_regions", [])}
        for r in regions:
            pixels = int(image.pixel_counts[r["id"]])
            if parts.get(r["id"]) != o.id:
                problems.append(("parts", f"index region {r['id']} is not listed as a part of card {o.id}"))
            if recorded.get(r["id"]) != pixels:
                problems.append((f"{where}.index_regions", f"region {r['id']}: {recorded.get(r['id'])} px, "
                                                           f"the mask shows {pixels}"))
            if pixels and not _within(image, r["id"], index_quad(image, o, r["corner"])):
                problems.append(("parts", f"index region {r['id']} shows outside card {o.id}'s {r['corner']} index"))
        identity = o.band == SHOWN and readable(image, o)
        if a.get("identity_visible") != identity:
            problems.append((f"{where}.identity_visible", f"{a.get('identity_visible')}, its corner indices "
                                                          f"in the mask give {identity}"))
    return problems


def _within(image: MeasuredImage, mask_id: int, quad: np.ndarray, tolerance: float = 1.5) -> bool:
    """Whether the pixels of `mask_id` lie within the box of the projected `quad` (a pixel's slack)."""
    ys, xs = np.nonzero(image.mask == mask_id)
    (x0, y0), (x1, y1) = quad.min(axis=0) - tolerance, quad.max(axis=0) + tolerance
    return bool(xs.min() >= x0 and xs.max() + 1 <= x1 and ys.min() >= y0 and ys.max() + 1 <= y1)


def check_owners(image: MeasuredImage) -> list[tuple[str, str]]:
    """A table scene's cards and chip piles lie on their owner's mat, the river and the pot on none."""
    if image.legend["extras"]["mode"] != "table":
        return []
    problems = []
    for o in image.objects:
        if o.kind in ("card", "chip_pile"):
            holder = _holder(image, o)
            lies = f"player_{holder.attributes['player']}" if holder else "the middle of the table"
            owner = o.attributes["owner"]
            if (owner if owner.startswith("player_") else "the middle of the table") != lies:
                problems.append((f"objects[{o.id}].attributes.owner", f"{owner}, it lies on {lies}"))
    return problems


def check_grid(image: MeasuredImage) -> list[tuple[str, str]]:
    """The corner landmarks are the projected corners of the grid the extras describe, in the
    frame as `in_frame` says; each card's cell, row and column are where its projected centre lies."""
    g = image.legend["extras"].get("grid")
    if not g:
        return []
    centre, right, down = (np.array(g[k], float) for k in ("centre", "right", "down"))
    corners = [(*(centre + right * (j - g["columns"] / 2) * g["pitch"][0] + down * (i - g["rows"] / 2) * g["pitch"][1]),
                0.0) for i in range(g["rows"] + 1) for j in range(g["columns"] + 1)]
    recorded = np.array([p[:2] for p in image.legend["landmarks"].get("grid_corners", [])])
    projected = image.project(corners)[:, :2]
    if recorded.shape != projected.shape or np.abs(recorded - projected).max() > 0.5:
        return [("landmarks.grid_corners", "do not match the projected grid corners")]
    grid = Grid(image)
    problems = [] if g.get("in_frame") == grid.in_frame() else [
        ("extras.grid.in_frame", f"{g.get('in_frame')}, the corner landmarks say {grid.in_frame()}")]
    readable_grid = grid.problem() is None
    for o in _cards(image.objects):
        cell = grid.cell_of(o)
        a = o.attributes
        if cell is None:
            problems.append((f"objects[{o.id}].location", "not on a cell of the grid"))
        elif readable_grid and ((a["row"], a["column"]) != grid.view_cell(cell) or a["cell"] != [a["row"], a["column"]]):
            problems.append((f"objects[{o.id}].attributes.row/column", f"({a['row']}, {a['column']}), its projected "
                                                                       f"centre lies in {grid.view_cell(cell)}"))
    return problems


LEGEND_CHECKS = [check_cards, check_owners, check_grid]


@AUDITS.key("localize_card_on_grid_cell")
def grid_cell(q, image, seen):
    cell = _grid_cell(q, image, seen)
    columns = (image.legend["extras"].get("grid") or {}).get("columns")
    return cell if isinstance(cell, IllPosed) else Expected(cell[0] * columns + cell[1])


def _unreadable_things(q, image: MeasuredImage, seen: list[Seen]) -> IllPosed | None:
    """The contrast and overlap rules (docs/readability.md), from the image file: each seen card
    and chip pile borders another shows ink or a seam (the overlap rule, named first), and each stands out."""
    things = [o for o in seen if o.kind in ("card", "chip_pile")]
    return image.unseparable([o for o in things if o.kind == "card"]) or image.unshown(things)


guarded(AUDITS, [k for k in AUDITS if k != "count_players"], _unreadable_things)
