"""Poker content: what a user writes under `scene.content`.

Three modes:

- `table` (default): `n_players` players seated around the table, each with a coloured mat,
  a hand and chip piles; community cards (the river) in the middle; chip piles on the table.
- `overlap`: one row (or column) of cards overlapping by a factor, for counting under occlusion.
- `grid`: an R x C grid of card slots laid out as the camera sees it (row 0 at the top of the
  image, column 0 at the left), cards in chosen or random cells.

Lengths are metres on the table top (z = 0). Card codes are rank then suit: AS, 10H, QD (T for
ten is also read). Every card of a scene comes from one deck, so a card appears at most once.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from byo.families.api import ColorDef, Strict, custom_rgb, keyed_error, left_out_when_none
from byo.families.poker.faces import CARD_ASPECT, normalize

RawCount = int | tuple[int, int]
MAX_MASK_ID = 255  # the instance-id mask is 8-bit
# A card, chip pile or player mat counts as seen (counted, located) from this many mask pixels of
# the image as rendered, whatever its size (render.min_visible_pixels, byo/scene/measure.py): the
# 96 px the band gave at the family's 800x600 default when it was a share of the image's area;
# not measured on its own (the overlap and identity rules judge what a card shows, docs/readability.md).
MIN_VISIBLE_PIXELS = 96

# Chip and mat colours (sRGB); a colour may also be written as {name, rgb}.
CHIP_COLORS = {"white": (0.92, 0.92, 0.90), "red": (0.75, 0.08, 0.10), "blue": (0.10, 0.25, 0.75),
               "green": (0.10, 0.55, 0.20), "black": (0.07, 0.07, 0.07), "yellow": (0.95, 0.80, 0.10),
               "purple": (0.45, 0.15, 0.60), "orange": (0.95, 0.45, 0.08)}
MAT_COLORS = {"red": (0.70, 0.12, 0.12), "blue": (0.12, 0.28, 0.70), "yellow": (0.90, 0.75, 0.12),
              "purple": (0.45, 0.18, 0.58), "orange": (0.92, 0.45, 0.10), "white": (0.88, 0.88, 0.86),
              "pink": (0.95, 0.55, 0.70), "black": (0.08, 0.08, 0.08)}
MAX_PLAYERS = len(MAT_COLORS)


def count_range(value: RawCount) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else (int(value[0]), int(value[1]))


def _between(lo: int, hi: int):
    def check(value: RawCount) -> RawCount:
        a, b = count_range(value)
        if a < lo or b < a or b > hi:
            raise ValueError(f"expected an integer from {lo} to {hi}, or [min, max] with {lo} <= min <= max <= {hi}")
        return value

    return AfterValidator(check)


# A number, or [min, max] drawn per image; each kind bounded, so that no scene takes hours.
MAX_PILES = 32  # chip piles of a player, or on the table
MAX_CHIPS = 60  # chips in a pile (a stack of 60 casino chips is 20 cm high)
Count = Annotated[RawCount, _between(0, 52)]  # cards: one deck
PositiveCount = Annotated[RawCount, _between(1, 52)]
PileCount = Annotated[RawCount, _between(0, MAX_PILES)]
ChipCount = Annotated[RawCount, _between(1, MAX_CHIPS)]


def _face_down_fits(count: RawCount, face_down: RawCount) -> None:
    """face_down is clamped to the cards dealt in an image; more than there can ever be is a mistake."""
    most = count_range(count)[1]
    if count_range(face_down)[1] > most:
        raise keyed_error("face_down", f"up to {count_range(face_down)[1]} cards face down, more than there can be "
                          f"(count up to {most})")


def _cards(cls, value: list[str]) -> list[str]:
    cards = [normalize(c) for c in value]
    doubles = sorted({c for c in cards if cards.count(c) > 1})
    if doubles:
        raise ValueError(f"card {doubles[0]} is named twice; a scene is dealt from one deck")
    return cards


class CardStyle(Strict):
    height: float = Field(0.089, gt=0.01, le=1.0)  # metres (a poker card is 63.5 x 88.9 mm)
    aspect: float = Field(CARD_ASPECT, gt=0.3, le=1.0)  # width / height
    thickness: float = Field(0.0003, gt=0, le=0.01)
    corner_radius: float = Field(0.06, ge=0, le=0.5)  # fraction of the width
    back: Literal["blue", "red"] = "blue"
    roughness: float = Field(0.5, ge=0, le=1)

    @property
    def width(self) -> float:
        return self.height * self.aspect


class HandConfig(Strict):
    """A player's hand. Named cards come first; the rest are dealt at random."""

    cards: list[str] = []
    count: Count = 2  # cards in the hand (at least the named ones)
    face_down: Count = 0  # how many of them lie face down (which ones is drawn)
    layout: Literal["horizontal", "vertical", "auto"] = "auto"
    spread: float = Field(1.08, ge=0.1, le=3.0)  # centre-to-centre step / card width
    fan: float = Field(0.0, ge=0.0, le=30.0)  # degrees between neighbouring cards

    _check_cards = field_validator("cards")(_cards)

    @model_validator(mode="after")
    def _face_down(self):
        _face_down_fits(self.count, self.face_down)
        return self


class PlayerConfig(Strict):
    """One player's own hand and number of chip piles, instead of `hand` and
    `chips.piles_per_player`."""

    hand: HandConfig | None = None
    chip_piles: PileCount | None = None


class ChipsConfig(Strict):
    piles_per_player: PileCount = (0, 2)
    table_piles: PileCount = (0, 3)  # piles in the middle of the table (the pot)
    per_pile: ChipCount = (3, 8)  # chips in a pile
    colors: list[str | ColorDef] = ["white", "red", "blue", "green", "black"]
    mixed: bool = False  # each chip its own colour; otherwise one colour per pile
    spread: float = Field(0.08, ge=0.0, le=0.5)  # how untidy a pile is: chip offsets / chip radius
    radius: float = Field(0.0195, gt=0.005, le=0.1)  # metres (a casino chip is 39 mm across)
    thickness: float = Field(0.0034, gt=0.0005, le=0.02)

    @field_validator("colors")
    @classmethod
    def _colors(cls, v):
        if not v:
            raise ValueError("give at least one chip colour")
        for c in v:
            if isinstance(c, str) and c not in CHIP_COLORS:
                raise ValueError(f"unknown chip colour {c!r}; expected one of {', '.join(CHIP_COLORS)} "
                                 "or {name, rgb}")
        return v


class RiverConfig(Strict):
    """The community cards: a row in the middle of the table."""

    cards: list[str] = []
    count: Count = 5
    face_down: Count = 0
    position: tuple[float, float] = (0.0, 0.0)  # the row's centre on the table
    gap: float = Field(0.008, ge=0.0, le=0.2)  # metres between neighbouring cards

    _check_cards = field_validator("cards")(_cards)

    @model_validator(mode="after")
    def _face_down(self):
        _face_down_fits(self.count, self.face_down)
        return self


class SeatConfig(Strict):
    """Players sit on an ellipse around the table centre, player 1 nearest the default camera
    (on the -Y side), then counter-clockwise seen from above."""

    radius: tuple[float, float] = (0.35, 0.24)  # metres along x and y
    start: float = -90.0  # degrees of player 1's seat (-90: the -Y side)
    mat_margin: float = Field(0.012, ge=0.0, le=0.2)  # metres of mat around the hand and chips


class OverlapConfig(Strict):
    """A row (horizontal: each card on top of the one to its left) or column (vertical: each card
    on top of the one above it) of cards, overlapping by `factor` of a card: 0 lays them side by
    side 6 mm apart, towards 1 they lie almost fully stacked."""

    count: PositiveCount = 5
    direction: Literal["horizontal", "vertical"] = "horizontal"
    factor: float = Field(0.3, ge=0.0, le=0.99)
    cards: list[str] = []
    face_down: Count = 0
    # The cards shared out over this many rows (horizontal) or columns (vertical), the first ones
    # taking one card more when they do not share evenly, `line_gap` metres apart (BYO-Eval's
    # card_overlap_config n_lines and line_gap, n_columns and column_gap). None: one line, 0.02 m.
    lines: int | None = Field(None, ge=1, le=13)
    line_gap: float | None = Field(None, ge=0.0, le=0.5)

    _serialize = left_out_when_none("lines", "line_gap")  # legends of one-line rows stay as they were

    @property
    def n_lines(self) -> int:
        return self.lines or 1

    @property
    def gap_between_lines(self) -> float:
        return 0.02 if self.line_gap is None else self.line_gap

    _check_cards = field_validator("cards")(_cards)

    @model_validator(mode="after")
    def _face_down(self):
        _face_down_fits(self.count, self.face_down)
        return self


MAX_GRID = 13  # rows or columns of a card grid
# A grid counts as in the frame (its rows and columns asked about) when every corner lies within
# this share of the image's smaller side (at least GRID_FRAME_MIN_PX) beyond the frame: a grid a
# few pixels out still shows every row and column to a person (issue 25).
GRID_FRAME_TOLERANCE = 0.02
GRID_FRAME_MIN_PX = 3.0


def grid_frame_slack(width: int, height: int) -> float:
    """Pixels a grid corner may lie beyond the frame's edge."""
    return max(GRID_FRAME_MIN_PX, GRID_FRAME_TOLERANCE * min(width, height))
GridCell = tuple[Annotated[int, Field(ge=0, lt=MAX_GRID)], Annotated[int, Field(ge=0, lt=MAX_GRID)]]


class GridConfig(Strict):
    """An R x C grid of card slots, laid out as the camera sees it: row 0 at the top of the image,
    column 0 at the left, whatever the camera's azimuth."""

    rows: int = Field(3, ge=1, le=MAX_GRID)
    columns: int = Field(3, ge=1, le=MAX_GRID)
    count: Count = 1  # cards on the grid (random cells unless `cells` names them)
    cells: list[GridCell] | None = None  # [row, column] of each card, in order
    cards: list[str] = []
    face_down: Count = 0
    lines: bool = True  # draw the grid lines
    line_width: float = Field(0.003, gt=0.0, le=0.05)
    cell_margin: float = Field(0.4, ge=0.0, le=3.0)  # space around a card, fraction of its width
    location: tuple[float, float] = (0.0, 0.0)  # the grid's centre on the table

    _check_cards = field_validator("cards")(_cards)


    @model_validator(mode="after")
    def _fits(self):
        _face_down_fits(self.count, self.face_down)
        if self.cells is not None:
            for cell in self.cells:
                if not (0 <= cell[0] < self.rows and 0 <= cell[1] < self.columns):
                    raise keyed_error("cells", f"cell {list(cell)} is off the {self.rows}x{self.columns} grid")
            if len(set(self.cells)) != len(self.cells):
                raise ValueError("two cards share a grid cell")
        most = count_range(self.count)[1]
        if most > self.rows * self.columns:
            raise ValueError(f"{most} cards do not fit the {self.rows * self.columns} cells of a "
                             f"{self.rows}x{self.columns} grid")
        if self.cells is not None and len(self.cells) < most:
            raise ValueError(f"`cells` names {len(self.cells)} cells for up to {most} cards")
        return self


# An ace's identity also reads from its one large central pip (faces.ACE_PIP_BOX) when the card
# shows at least this share of its projected area (the pip is then in view), the pip's projected
# area is at least `identity.min_pixels` and the blur at most `identity.max_blur` of its height.
ACE_WHOLE = 0.95


class IdentityConfig(Strict):
    """When a card's identity counts as visible: one of its corner indices shows at least
    `min_pixels` mask pixels and `min_fraction` of its whole projected area (covered or beyond the
    frame's edge, a part does not show), and depth-of-field blur there is at most `max_blur` of
    the index's height."""

    # 100 px: an index about 15 px high, its rank about 8 px (smaller ones stop being legible).
    min_pixels: int = Field(100, ge=1, le=8192 * 8192)
    min_fraction: float = Field(0.8, gt=0.0, le=1.0)
    max_blur: float = Field(0.2, gt=0.0)


class PokerContent(Strict):
    mode: Literal["table", "overlap", "grid"] = "table"
    card: CardStyle = CardStyle()
    # table mode
    n_players: Count = 4
    hand: HandConfig = HandConfig()
    players: list[PlayerConfig] = []  # per-player settings, player 1 first
    total_cards: Count | None = None  # deal this many cards over the hands and the river instead
    # Face-down cards over the whole table, hands and river together (which ones is drawn), instead
    # of hand.face_down and river.face_down (BYO-Eval's card_distribution_inputs.n_verso).
    face_down: Count | None = None
    # Every card drawn from a full deck, so that a card may lie twice on the table (BYO-Eval's
    # card_type_config.allow_repetition); None or false: a scene is dealt from one deck.
    repeat_cards: bool | None = None
    river: RiverConfig = RiverConfig()
    chips: ChipsConfig = ChipsConfig()
    seats: SeatConfig = SeatConfig()
    # other modes
    overlap: OverlapConfig = OverlapConfig()
    grid: GridConfig = GridConfig()
    identity: IdentityConfig = IdentityConfig()

    _serialize = left_out_when_none("face_down", "repeat_cards")  # legends without them stay as they were

    @field_validator("n_players")
    @classmethod
    def _players(cls, v):
        if count_range(v)[1] > MAX_PLAYERS:
            raise ValueError(f"at most {MAX_PLAYERS} players (one mat colour each)")
        return v

    def named_cards(self) -> list[str]:
        if self.mode == "overlap":
            return list(self.overlap.cards)
        if self.mode == "grid":
            return list(self.grid.cards)
        return [c for h in self.hands(count_range(self.n_players)[1]) for c in h.cards] + list(self.river.cards)

    def hands(self, n: int) -> list[HandConfig]:
        return [(self.players[k].hand if k < len(self.players) and self.players[k].hand else self.hand)
                for k in range(n)]

    def max_cards(self) -> int:
        if self.mode == "overlap":
            return count_range(self.overlap.count)[1]
        if self.mode == "grid":
            return count_range(self.grid.count)[1]
        if self.total_cards is not None:
            return count_range(self.total_cards)[1]
        n = count_range(self.n_players)[1]
        return (sum(max(count_range(h.count)[1], len(h.cards)) for h in self.hands(n))
                + max(count_range(self.river.count)[1], len(self.river.cards)))

    def max_ids(self) -> int:
        """The most mask ids a scene can need: a card and its two corner indices, each chip pile,
        each player's mat."""
        if self.mode != "table":
            return 3 * self.max_cards()
        n = count_range(self.n_players)[1]
        piles = count_range(self.chips.table_piles)[1] + sum(count_range(p)[1] for p in self.player_piles(n))
        return 3 * self.max_cards() + piles + n

    def player_piles(self, n: int) -> list[Count]:
        return [(self.players[k].chip_piles if k < len(self.players) and self.players[k].chip_piles is not None
                 else self.chips.piles_per_player) for k in range(n)]

    @model_validator(mode="after")
    def _feasible(self):
        named = self.named_cards()
        if self.max_cards() > 52 and not self.repeat_cards:
            raise ValueError(f"this scene can hold {self.max_cards()} cards; a scene is dealt from one deck of 52")
        if self.face_down is not None:
            own = [name for name, hd in [("hand", self.hand), ("river", self.river)]
                   + [(f"players.{k}.hand", p.hand) for k, p in enumerate(self.players) if p.hand]
                   if count_range(hd.face_down)[1]]
            if own:
                raise keyed_error("face_down", f"face_down over the whole table replaces {own[0]}.face_down: "
                                  "give one of them")
        doubles = sorted({c for c in named if named.count(c) > 1})
        if doubles:
            raise ValueError(f"card {doubles[0]} is named twice; a scene is dealt from one deck")
        if self.mode == "table":
            n_max = count_range(self.n_players)[1]
            if len(self.players) > n_max:
                raise ValueError(f"`players` sets {len(self.players)} players but n_players is at most {n_max}")
        ids = self.max_ids()
        if ids > MAX_MASK_ID:
            raise ValueError(f"this scene can need {ids} mask ids (3 per card, 1 per chip pile and player); "
                             f"the 8-bit mask holds {MAX_MASK_ID}: use fewer cards, piles or players")
        return self


def chip_rgb(content: PokerContent, color: str) -> tuple[float, float, float]:
    own = custom_rgb(content.chips.colors, color)
    return own if own is not None else CHIP_COLORS[color]

