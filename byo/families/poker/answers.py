"""Answers to the poker questions, from legends (BYO-Eval's keys, plus a single-card
identification and its multiple choice).

Only visible cards count (at least the visibility threshold of mask pixels). An identity
question is readable only when every face-up card it is about has `identity_visible`: a corner
index measured large and unoccluded enough (see PokerFamily.complete_legend); a question about
a face-up card whose index is hidden would not be decidable from the image. Questions about the
cards and chips also need each to show in the rendered image (the contrast and overlap rules,
docs/readability.md). An unreadable question is skipped, flagged or asked by the config's
`questions.unreadable`.
"""

from __future__ import annotations

from collections import Counter

from byo.families.api import (
    POSITION_WORDS,
    Answer,
    AnswerTable,
    Problem,
    Skip,
    multiple_choice,
    not_separable,
    not_shown,
    unless,
    visible,
)
from byo.families.poker.faces import RANK_NAMES, RANKS, SUIT_NAMES, SUITS, card_name

ANSWERS = AnswerTable()
COLORS = ("red", "black")


def cards_of(legend: dict) -> list[dict]:
    return [o for o in legend["objects"] if o["kind"] == "card"]


def _seen(legend: dict, kind: str = "card", **match) -> list[dict]:
    return [o for o in visible(legend) if o["kind"] == kind
            and all(o["attributes"].get(k) == v for k, v in match.items())]


def _mode(legend: dict) -> str:
    return legend["extras"]["mode"]


def _only_mode(legend: dict, mode: str) -> Skip | None:
    return None if _mode(legend) == mode else Skip(f"asked of {mode} scenes only")


def scene_info(legend: dict) -> dict:
    """The preprompts' parameters: the mode, and the grid's size (0 without a grid)."""
    g = legend["extras"].get("grid")
    return {"mode": _mode(legend), "rows": g["rows"] if g else 0, "columns": g["columns"] if g else 0}


def _readable(cards: list[dict]) -> list[dict] | Skip:
    """The face-up cards among `cards` (Skip: none)."""
    up = [o for o in cards if o["attributes"]["face_up"]]
    return up or Skip("no visible face-up card")


def _identity(cards: list[dict]) -> Problem | None:
    """The identity rule: a face-up card among `cards` whose corner index does not read."""
    unread = tuple(o["id"] for o in cards if o["attributes"]["face_up"] and not o["attributes"]["identity_visible"])
    if unread:
        return "identity", "a visible face-up card shows no readable corner index", unread
    return None


def _objects_unreadable(legend: dict) -> Problem | None:
    """The contrast and overlap rules (docs/readability.md): every visible card and chip pile stands
    out from the table, and every card that overlaps another shows ink or a seam in its strip."""
    things = [o for o in visible(legend) if o["kind"] in ("card", "chip_pile")]
    return not_separable([o for o in things if o["kind"] == "card"]) or not_shown(things)


def shown(fn):
    """Decorate an answer function about the cards or chips: the contrast and overlap rules."""
    def checked(legend, rng):
        return unless(_objects_unreadable(legend), fn(legend, rng))

    checked.__doc__ = fn.__doc__
    return checked


def _player_count(legend: dict, rng, kind: str) -> Answer | Skip:
    """How many visible objects of `kind` belong to a visible player drawn at random; the
    question names the player by the colour of their mat."""
    if skip := _only_mode(legend, "table"):
        return skip
    players = _seen(legend, "player")
    if not players:
        return Skip("no visible player")
    player = players[int(rng.integers(len(players)))]["attributes"]
    owned = _seen(legend, kind, owner=f"player_{player['player']}")
    return Answer(len(owned), {"player": f"the player with the {player['color']} mat", "mat_color": player["color"]})


# --- counting --------------------------------------------------------------------------------
@ANSWERS.key("count_total_cards")
@shown
def count_total(legend, rng):
    return Answer(len(_seen(legend)))


@ANSWERS.key("count_cards_overlap")
@shown
def count_overlap(legend, rng):
    return _only_mode(legend, "overlap") or Answer(len(_seen(legend)))


@ANSWERS.key("count_community_cards")
@shown
def count_community(legend, rng):
    return _only_mode(legend, "table") or Answer(len(_seen(legend, owner="river")))


@ANSWERS.key("count_players")
def count_players(legend, rng):
    return _only_mode(legend, "table") or Answer(len(_seen(legend, "player")))


@ANSWERS.key("count_table_chip_piles")
@shown
def count_table_piles(legend, rng):
    return _only_mode(legend, "table") or Answer(len(_seen(legend, "chip_pile", owner="table")))


@ANSWERS.key("count_chip_piles_per_player")
@shown
def count_player_piles(legend, rng):
    return _player_count(legend, rng, "chip_pile")


@ANSWERS.key("count_cards_per_player")
@shown
def count_player_cards(legend, rng):
    return _player_count(legend, rng, "card")


@ANSWERS.key("count_identify_face_up_cards")
@shown
def count_face_up(legend, rng):
    return Answer(len(_seen(legend, face_up=True)))


@ANSWERS.key("count_identify_face_down_cards")
@shown
def count_face_down(legend, rng):
    return Answer(len(_seen(legend, face_up=False)))


def _count_attribute(legend, rng, attribute: str, values: tuple[str, ...], params) -> Answer | Skip:
    """How many readable face-up cards have a value of `attribute`: one shown in the image two
    times in three, else any (so 0 is an answer too). `params(value)` names it in the question."""
    cards = _readable(_seen(legend))
    if isinstance(cards, Skip):
        return cards
    present = sorted({o["attributes"][attribute] for o in cards}, key=values.index)
    pool = present if rng.random() < 2 / 3 else list(values)
    value = pool[int(rng.integers(len(pool)))]
    return unless(_identity(cards), Answer(sum(o["attributes"][attribute] == value for o in cards), params(value)))


def _rank_words(rank: str) -> dict:
    name = RANK_NAMES[rank]
    return {"rank": rank, "rank_plural": "sixes" if name == "six" else f"{name}s"}


@ANSWERS.key("count_identification_color_cards")
@shown
def count_color(legend, rng):
    return _count_attribute(legend, rng, "color", COLORS, lambda c: {"color": c})


@ANSWERS.key("count_identification_rank_cards")
@shown
def count_rank(legend, rng):
    return _count_attribute(legend, rng, "rank", RANKS, _rank_words)


@ANSWERS.key("count_identification_type_cards")
@shown
def count_suit(legend, rng):
    """The card's type is its suit."""
    return _count_attribute(legend, rng, "suit", SUITS, lambda s: {"suit": s, "suit_name": SUIT_NAMES[s]})


# --- identification --------------------------------------------------------------------------
def _codes(cards: list[dict]) -> list[str]:
    return sorted(o["attributes"]["card"] for o in cards)


@ANSWERS.key("identify_cards")
@shown
def identify_cards(legend, rng):
    cards = _readable(_seen(legend))
    return cards if isinstance(cards, Skip) else unless(_identity(cards), Answer(_codes(cards)))


@ANSWERS.key("identify_community_cards")
@shown
def identify_community(legend, rng):
    if skip := _only_mode(legend, "table"):
        return skip
    cards = _readable(_seen(legend, owner="river"))
    return cards if isinstance(cards, Skip) else unless(_identity(cards), Answer(_codes(cards)))


@ANSWERS.key("identify_card")
@shown
def identify_card(legend, rng):
    cards = _seen(legend)
    if len(cards) != 1:
        return Skip("needs exactly one visible card")
    only = _readable(cards)
    return only if isinstance(only, Skip) else unless(_identity(only), Answer(only[0]["attributes"]["card"]))


def hard_negatives(code: str, exclude: set[str], rng, n: int = 3) -> list[str]:
    """Cards easy to mistake for `code`: the same rank in another suit and the same suit with a
    neighbouring rank (the ace neighbours the two and the king), none of them in `exclude`."""
    rank, suit = code[:-1], code[-1]
    k = RANKS.index(rank)
    same_rank = [rank + s for s in SUITS if s != suit]
    neighbours = [RANKS[(k + d) % len(RANKS)] + suit for d in (-1, 1)]
    same_rank = [same_rank[i] for i in rng.permutation(len(same_rank)) if same_rank[i] not in exclude]
    neighbours = [neighbours[i] for i in rng.permutation(len(neighbours)) if neighbours[i] not in exclude]
    picked = same_rank[:2] + neighbours[:1]
    rest = same_rank[2:] + neighbours[1:]
    return (picked + rest)[:n]


@ANSWERS.key("identify_card_multiple_choice")
@shown
def identify_choice(legend, rng):
    """Which of these cards lies face up? The true card and hard negatives, none face up."""
    cards = _readable(_seen(legend))
    if isinstance(cards, Skip):
        return cards
    target = cards[int(rng.integers(len(cards)))]["attributes"]["card"]
    face_up = {o["attributes"]["card"] for o in cards_of(legend) if o["attributes"]["face_up"]}
    negatives = hard_negatives(target, face_up, rng)
    if len(negatives) < 2:
        return Skip("too few hard negatives are absent from the table")
    return unless(_identity(cards), multiple_choice(card_name(target), [card_name(c) for c in negatives], rng))


@ANSWERS.key("identify_most_cards_player")
@shown
def most_cards_player(legend, rng):
    if skip := _only_mode(legend, "table"):
        return skip
    players = _seen(legend, "player")
    if len(players) < 2:
        return Skip("needs two visible players")
    held = Counter(o["attributes"]["owner"] for o in _seen(legend))
    counts = sorted(((held[f"player_{p['attributes']['player']}"], p) for p in players),
                    key=lambda x: -x[0])
    if counts[0][0] == counts[1][0]:
        return Skip("two players hold the most cards")
    return Answer(counts[0][1]["attributes"]["color"])


# --- localization on the grid ----------------------------------------------------------------
def _grid_target(legend, rng) -> tuple[dict, dict] | Skip:
    """The card asked about and how the question names it: "the card" when it is the only
    visible one, else its name (a face-up card whose identity is visible)."""
    if skip := _only_mode(legend, "grid"):
        return skip
    if not legend["extras"]["grid"]["in_frame"]:
        return Skip("the grid is partly out of the frame: its rows and columns cannot be counted")
    cards = _seen(legend)
    if not cards:
        return Skip("no visible card")
    if len(cards) == 1:
        return cards[0], {"card": "the card"}
    named = [o for o in cards if o["attributes"]["face_up"] and o["attributes"]["identity_visible"]]
    if not named:
        return Skip("several visible cards and none can be named")
    target = named[int(rng.integers(len(named)))]
    return target, {"card": f"the {target['attributes']['name']}"}


def _grid_answer(legend, rng, value) -> Answer | Skip:
    """`value(attributes)` of the card asked about (see `_grid_target`)."""
    found = _grid_target(legend, rng)
    if isinstance(found, Skip):
        return found
    card, params = found
    return Answer(value(card["attributes"]), params)


@ANSWERS.key("localize_card_on_grid_row")
@shown
def grid_row(legend, rng):
    return _grid_answer(legend, rng, lambda a: a["row"])


@ANSWERS.key("localize_card_on_grid_column")
@shown
def grid_column(legend, rng):
    return _grid_answer(legend, rng, lambda a: a["column"])


@ANSWERS.key("localize_card_on_grid_3x3")
@shown
def grid_word(legend, rng):
    g = legend["extras"].get("grid")
    if not g or (g["rows"], g["columns"]) != (3, 3):
        return Skip("asked of 3 x 3 grids only")
    return _grid_answer(legend, rng, lambda a: POSITION_WORDS[3 * a["row"] + a["column"]])


@ANSWERS.key("localize_card_on_grid_cell")
@shown
def grid_cell(legend, rng):
    """The grid cell's number, counting cells from 0 left to right along each row, rows from the top."""
    columns = (legend["extras"].get("grid") or {}).get("columns")
    return _grid_answer(legend, rng, lambda a: a["row"] * columns + a["column"])
