"""BYO-Eval's poker config keys (appendix D.1.6; the public byoeval/BYO-EVAL configs, read in
its poker/ code) and what they are here, for `byo import-config`.

The authors' cards are their deck's .blend cards, 1 x 1.4 units at scale 1 (poker/config/models.py):
a card at `scale` s is s m wide and 1.4 s m high. Their world is this project's turned a quarter
turn: their camera at horizontal angle 0 stands on +x, here at azimuth 0 on -y; so their angles
on the table are 90 degrees more than here."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from byo.families.api import ForeignKey, MissingAsset, NoCounterpart
from byo.families.poker.faces import CARD_ASPECT

HAND_CAPACITY = 5  # the family's most cards in a hand when total_cards deals them (family.py)

AUTHORS_CARD_HEIGHT = 1.4  # the .blend card's height over its width, at scale 1
MIN_HAND_STEP, MAX_HAND_STEP = 0.3, 1.5  # the authors' hand step between card centres, x card width


def _card_height(value: Any) -> dict[str, Any]:
    if isinstance(value, list | tuple) and value:
        value = value[0]  # (x, y, z) scale: the authors' hands use x
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f"expected a card scale (a positive number), got {value!r}")
    return {"content.card.height": round(AUTHORS_CARD_HEIGHT * float(value), 6)}


def _hand_spread(value: Any) -> float:
    """spread_factor_h in [0, 1] -> the step between card centres over the card's width."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError(f"expected a spread factor from 0 to 1, got {value!r}")
    return round(MIN_HAND_STEP + float(value) * (MAX_HAND_STEP - MIN_HAND_STEP), 6)


def _deck(value: Any) -> dict[str, Any]:
    if value == "full_deck":
        return {}
    raise ValueError(f"deck mode {value!r}: cards come from a full deck (full_deck); subsets have no counterpart")


def _unset(what: str):
    def check(value: Any) -> dict[str, Any]:
        if value is None:
            return {}
        raise ValueError(f"{value!r}: {what} has no counterpart (cards come from a full deck)")
    return check


def _verso_loc(value: Any) -> dict[str, Any]:
    if value == "random":
        return {}
    if value == "ordered":
        raise NoCounterpart("which cards lie face down is drawn here; the authors' 'ordered' turns the first ones")
    raise ValueError(f"expected ordered or random, got {value!r}")


def _false_or_note(note: str):
    def check(value: Any) -> dict[str, Any]:
        if value is False or value is None:
            return {}
        raise NoCounterpart(note)
    return check


def _centre(value: Any) -> dict[str, Any]:
    if isinstance(value, list | tuple) and len(value) >= 2 and all(isinstance(v, int | float) for v in value[:2]):
        if value[0] == 0 and value[1] == 0:
            return {}
        raise NoCounterpart(f"the overlapping cards lie at the table's centre here, not at ({value[0]}, {value[1]})")
    raise ValueError(f"expected (x, y, z), got {value!r}")


def _river_start(value: Any) -> dict[str, Any]:
    if isinstance(value, list | tuple) and len(value) >= 2 and all(isinstance(v, int | float) for v in value[:2]):
        raise NoCounterpart(f"the river is centred on content.river.position (0, 0) here; the authors' first card "
                            f"lies at ({value[0]}, {value[1]}) and the row runs from it")
    raise ValueError(f"expected (x, y, z), got {value!r}")


def _river_step(value: Any) -> dict[str, Any]:
    """The authors' distance between river card centres: kept until the card's width is known."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"expected a distance between card centres in metres, got {value!r}")
    return {RIVER_STEP: float(value)}


def _seat_start(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected degrees, got {value!r}")
    return float(value) - 90.0


def _layout(value: Any) -> dict[str, Any]:
    if value == "circular":
        return {}
    raise ValueError(f"player layout {value!r}: players sit on an ellipse around the table (circular)")


def _counter_clockwise(value: Any) -> dict[str, Any]:
    if value is True:
        return {}
    raise ValueError("players are seated counter-clockwise seen from above (trigonometric_direction: true)")


def _overlap_mode(value: Any) -> dict[str, Any]:
    if value in ("horizontal", "vertical"):
        return {"content.mode": "overlap", "content.overlap.direction": value}
    raise ValueError(f"layout_mode {value!r}: expected horizontal or vertical")


def _pile_options(value: Any) -> list[int]:
    if not (isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise ValueError(f"expected a list of numbers of chips, got {value!r}")
    return [min(value), max(value)]


def _chip_colors(value: Any) -> list[dict[str, Any]]:
    if not (isinstance(value, list) and value):
        raise ValueError(f"expected a list of RGBA colours, got {value!r}")
    out = []
    for k, rgba in enumerate(value):
        if not (isinstance(rgba, list | tuple) and len(rgba) in (3, 4)):
            raise ValueError(f"color_options[{k}]: expected an RGBA colour, got {rgba!r}")
        out.append({"name": f"color_{k + 1}", "rgb": [float(v) for v in rgba[:3]]})
    return out


def _most_piles(value: Any) -> list[int]:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"expected a number of piles, got {value!r}")
    return [0, value]


def _deck_file(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    raise MissingAsset(f"card deck {value!r} is a .blend asset of BYO-Eval's repository, not shipped here: the "
                       "family's own card faces stand in (a card_deck pack can replace them, docs/assets.md)")


RIVER_STEP = "content.river.gap@centres"  # resolved by `finish` once the card's size is known
# Keys of one overlap direction, resolved by `finish` to the direction the config lays out.
FACTOR, LINES, LINE_GAP = "content.overlap.factor", "content.overlap.lines", "content.overlap.line_gap"
BY_DIRECTION = {f"{path}@{d}": (path, d) for path in (FACTOR, LINES, LINE_GAP) for d in ("horizontal", "vertical")}

EXAMPLE = ("no effect in the authors' code either: their poker generator lays variables over the base config, "
           "and their scene reads no `poker` section (poker/dataset/generate_dataset.py, poker/config/models.py)")
NO_JITTER = "the cards of a hand are laid without the authors' random offsets and turns"
CHIP_LAYOUT = ("chip piles are laid in a row in front of each hand here (content.chips: radius, thickness, "
               "spread); the authors' .blend chips and their pile gaps differ in look only")


def _table_keys(prefix: str) -> dict[str, ForeignKey]:
    return {
        f"{prefix}card_type_config.mode": ForeignKey(None, _deck),
        f"{prefix}card_type_config.allow_repetition": ForeignKey("content.repeat_cards"),
        f"{prefix}card_type_config.subset_n": ForeignKey(None, _unset("a subset of the deck")),
        f"{prefix}card_type_config.card_list": ForeignKey(None, _unset("a list of cards to draw from")),
        f"{prefix}card_type_config.suit": ForeignKey(None, _unset("one suit to draw from")),
    }


BYO_EVAL: Mapping[str, ForeignKey] = {
    "n_players": ForeignKey("content.n_players"),
    "deck_blend_file": ForeignKey(None, _deck_file),
    "card_distribution_inputs.overall_cards": ForeignKey("content.total_cards"),
    "card_distribution_inputs.river_cards": ForeignKey("content.river.count"),
    "card_distribution_inputs.player_cards": ForeignKey("content.hand.count"),
    "card_distribution_inputs.min_cards_per_player": ForeignKey(None, _unset("a least number of cards per player")),
    "card_distribution_inputs.n_verso": ForeignKey("content.face_down",
                                                   note="face-down cards over the whole table, which ones drawn"),
    **_table_keys(""),
    # The players' hands (every player's: the authors' template for each generated player).
    "default_player_config.player_id": ForeignKey(None, changes="a name only: players are numbered here"),
    "default_player_config.hand_config.n_cards": ForeignKey("content.hand.count"),
    "default_player_config.hand_config.n_verso": ForeignKey("content.hand.face_down"),
    "default_player_config.hand_config.verso_loc": ForeignKey(None, _verso_loc),
    "default_player_config.hand_config.scale": ForeignKey(None, _card_height,
                                                          note="card height 1.4 x scale (the authors' .blend card)"),
    "default_player_config.hand_config.spread_factor_h": ForeignKey(
        "content.hand.spread", _hand_spread, note="the step between card centres, 0.3 to 1.5 card widths"),
    "default_player_config.hand_config.spread_factor_v": ForeignKey(
        None, changes="each card of a hand lies level with the others here; the authors' step it towards the "
                      "player by this share of 0.1 to 0.5 card heights"),
    "default_player_config.hand_config.first_card_std_dev": ForeignKey(None, changes=NO_JITTER),
    "default_player_config.hand_config.rotation_std_dev": ForeignKey(None, changes=NO_JITTER),
    "default_player_config.hand_config.randomize_gap_h": ForeignKey(None, _false_or_note(NO_JITTER)),
    "default_player_config.hand_config.randomize_gap_v": ForeignKey(None, _false_or_note(NO_JITTER)),
    "default_player_config.chip_area_config": ForeignKey(None, changes=CHIP_LAYOUT),
    # The players' seats.
    "player_distribution_config.layout": ForeignKey(None, _layout),
    "player_distribution_config.start_angle_degrees": ForeignKey(
        "content.seats.start", _seat_start, note="degrees; the authors' angles are 90 more than here"),
    "player_distribution_config.trigonometric_direction": ForeignKey(None, _counter_clockwise),
    "player_distribution_config.spacing_degrees": ForeignKey(None, _unset("spacing between seats (they are even)")),
    # The community cards (the river).
    "community_cards.n_cards": ForeignKey("content.river.count"),
    "community_cards.n_verso": ForeignKey("content.river.face_down"),
    "community_cards.verso_loc": ForeignKey(None, _verso_loc),
    "community_cards.scale": ForeignKey(None, _card_height,
                                        note="card height 1.4 x scale; one card size for hands and river here"),
    "community_cards.start_location": ForeignKey(None, _river_start),
    "community_cards.card_gap.base_gap_x": ForeignKey(None, _river_step,
                                                      note="the distance between card centres, less a card's width"),
    "community_cards.card_gap.base_gap_y": ForeignKey(None, changes="the river lies straight here (no jitter)"),
    "community_cards.card_gap.random_gap": ForeignKey(None, _false_or_note("the river lies straight here")),
    "community_cards.card_gap.random_percentage": ForeignKey(None, changes="the river lies straight here"),
    'community_cards.card_gap.random_percentage"': ForeignKey(
        None, changes="a misspelt key of the authors' base config (read by nothing there): the river lies straight"),
    # Chips: the piles of each player.
    "chip_distribution_inputs.overall_piles": ForeignKey(
        None, changes="no total number of piles over the table here: each player gets from 0 to "
                      "max_piles_per_player (content.chips.piles_per_player), drawn per player"),
    "chip_distribution_inputs.max_piles_per_player": ForeignKey("content.chips.piles_per_player", _most_piles),
    "chip_distribution_inputs.n_chips_options": ForeignKey(
        "content.chips.per_pile", _pile_options, note="chips per pile drawn from the least to the most option"),
    "chip_distribution_inputs.color_options": ForeignKey("content.chips.colors", _chip_colors),
    "chip_distribution_inputs.scale_options": ForeignKey(
        None, changes="chips are one size here (content.chips.radius, 39 mm casino chips)"),
    # The overlap layouts (one row or column of overlapping cards, in lines).
    "card_overlap_config.layout_mode": ForeignKey(None, _overlap_mode),
    "card_overlap_config.horizontal_overlap_factor": ForeignKey(f"{FACTOR}@horizontal"),
    "card_overlap_config.vertical_overlap_factor": ForeignKey(f"{FACTOR}@vertical"),
    "card_overlap_config.overall_cards": ForeignKey("content.overlap.count"),
    "card_overlap_config.n_lines": ForeignKey(f"{LINES}@horizontal"),
    "card_overlap_config.line_gap": ForeignKey(f"{LINE_GAP}@horizontal"),
    "card_overlap_config.n_columns": ForeignKey(f"{LINES}@vertical"),
    "card_overlap_config.column_gap": ForeignKey(f"{LINE_GAP}@vertical"),
    "card_overlap_config.center_location": ForeignKey(None, _centre),
    "card_overlap_config.scale": ForeignKey(None, _card_height, note="card height 1.4 x scale"),
    **_table_keys("card_overlap_config."),
    # The example config's keys (examples/configs/poker_example.yml), which the authors' code never reads.
    "poker": ForeignKey(None, changes=EXAMPLE),
}


def _set(values: Mapping[str, Any], variables: Mapping[str, Any], path: str) -> bool:
    return path in values or path in variables


def _most(values: Mapping[str, Any], variables: Mapping[str, Any], path: str) -> int:
    if path in variables:
        v = variables[path]
        return int(max(v.get("max", 0), *v.get("levels", [0]), *v.get("choices", [0])))
    value = values[path]
    return int(value[1] if isinstance(value, list | tuple) else value)


def _range(values: Mapping[str, Any], variables: Mapping[str, Any], path: str, default: Any) -> tuple[int, int]:
    if path in variables:
        v = variables[path]
        levels = [v["min"], v["max"]] if "min" in v else v.get("levels", v.get("choices"))
        flat = [x for level in levels for x in (level if isinstance(level, list | tuple) else [level])]
        return int(min(flat)), int(max(flat))
    value = values.get(path, default)
    return (int(value[0]), int(value[1])) if isinstance(value, list | tuple) else (int(value), int(value))


def _boxes_meet(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _seats(values: dict[str, Any], variables: dict[str, dict]) -> list[tuple[str, Any, str]]:
    """The players' seats: the authors' sit on the table's edge inset 0.1 m, then 10% towards the
    centre (poker/player_location_builder.py); their code checks nothing for overlap, so a long
    river runs through the hands. Here hands, mats and river must lie apart: the seats stand
    back as far as the largest scene needs, and the table grows to hold them when it must."""
    if _set(values, variables, "content.seats.radius"):
        return []
    h = float(values.get("content.card.height", 0.089))
    w = h * CARD_ASPECT
    gap = float(values.get("content.river.gap", 0.008))
    river = _range(values, variables, "content.river.count", 5)[1]
    total = _range(values, variables, "content.total_cards", 0)[1] if _set(values, variables,
                                                                           "content.total_cards") else 0
    river = max(river, 0 if not total else min(river, total))
    hand = min(HAND_CAPACITY, total) if total else _range(values, variables, "content.hand.count", 2)[1]
    piles = _range(values, variables, "content.chips.piles_per_player", (0, 2))[1]
    spread = float(values.get("content.hand.spread", 1.08))
    hand_w = w + max(hand - 1, 0) * spread * w if hand else w
    depth = (h if hand else 0.0) + ((0.01 if hand else 0.0) + 2 * 0.0195 * 1.08 + 0.008) * (piles > 0) or h
    chip_row = piles * (2 * 0.0195 * 1.08 + 0.008)
    half_long, half_deep = max(hand_w, chip_row) / 2 + 0.03, depth / 2 + 0.03
    river_box = (-(river * w + max(river - 1, 0) * gap) / 2, -h / 2, (river * w + max(river - 1, 0) * gap) / 2, h / 2)
    length, width = float(values["table.length"]), float(values["table.width"])
    radius = [max(0.05, 0.9 * (length / 2 - 0.1)), max(0.05, 0.9 * (width / 2 - 0.1))]
    authors = list(radius)
    low, high = _range(values, variables, "content.n_players", 4)
    start = float(values.get("content.seats.start", -90.0))
    for _ in range(60):
        clear = True
        for n in range(max(low, 1), high + 1):
            boxes = []
            for k in range(n):
                a = math.radians(start + 360.0 * k / n)
                x, y = radius[0] * math.cos(a), radius[1] * math.sin(a)
                along_x = abs(math.sin(a)) >= abs(math.cos(a)) - 1e-9
                dx, dy = (half_long, half_deep) if along_x else (half_deep, half_long)
                boxes.append((x - dx, y - dy, x + dx, y + dy))
            river_ok = river == 0 or not any(_boxes_meet(b, river_box) for b in boxes)
            if not river_ok or any(_boxes_meet(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]):
                clear = False
        if clear:
            break
        radius = [r * 1.08 for r in radius]
    radius = [round(r, 4) for r in radius]
    out: list[tuple[str, Any, str]] = []
    values["content.seats.radius"] = radius
    moved = radius != [round(r, 4) for r in authors]
    out.append(("content.seats.radius", radius, f"the authors' seats at ({authors[0]:.3g}, {authors[1]:.3g}) m"
                + (" stand back until the hands, mats and river lie apart (the authors' overlap)" if moved else "")))
    if not moved:
        return out
    need = (2 * (radius[0] + max(half_long, half_deep) + 0.02), 2 * (radius[1] + max(half_long, half_deep) + 0.02))
    for path, size, wanted in (("table.length", length, need[0]), ("table.width", width, need[1])):
        if wanted > size:
            values[path] = round(wanted, 3)
            out.append((path, round(wanted, 3), f"the authors' {size:g} m table grown to hold the seats"))
    return out


def finish(values: dict[str, Any], variables: dict[str, dict]) -> list[tuple[str, Any, str]]:
    """What the authors' poker code does beyond the keys, on the mapped values (project path ->
    value) and variables (project path -> variation), in place; (path, value, why) of each change."""
    out: list[tuple[str, Any, str]] = []
    direction = values.get("content.overlap.direction", "horizontal")
    for tree in (values, variables):
        for key in [k for k in tree if k in BY_DIRECTION]:
            path, d = BY_DIRECTION[key]
            value = tree.pop(key)
            if d == direction:
                tree[path] = value
            else:
                out.append((key, None, f"the {d} layout's key, not read by the authors' code in a {direction} "
                                       "layout"))
    step = values.pop(RIVER_STEP, None)
    if step is not None:
        width = values.get("content.card.height", 0.089) / AUTHORS_CARD_HEIGHT
        gap = round(step - width, 6)
        why = f"{step:g} m between centres less the card's {width:g} m width"
        if gap < 0:
            why += f": the authors' river cards overlap by {-gap:g} m, here they lie side by side"
        values["content.river.gap"] = max(gap, 0.0)
        out.append(("content.river.gap", max(gap, 0.0), why))
    if values.get("content.mode", "table") == "table":
        if _set(values, variables, "content.total_cards"):
            if not _set(values, variables, "content.river.count"):
                most = _most(values, variables, "content.total_cards")
                values["content.river.count"] = [0, most]
                out.append(("content.river.count", [0, most], "the authors' dealer gives the river 0 to overall_cards "
                                                              "cards when river_cards is not given"))
        else:
            for path in ("content.hand.count", "content.river.count"):
                if not _set(values, variables, path):
                    values[path] = 0
                    out.append((path, 0, "the authors' dealer deals no cards there unless overall_cards, "
                                         "player_cards or river_cards says so"))
        out += _seats(values, variables)
        if not any(k.startswith("content.chips.") for k in [*values, *variables]):
            values |= {"content.chips.piles_per_player": 0, "content.chips.table_piles": 0}
            out.append(("content.chips", {"piles_per_player": 0, "table_piles": 0},
                        "the authors' scene has chip piles only when chip_distribution_inputs sets them"))
        elif not _set(values, variables, "content.chips.table_piles"):
            values["content.chips.table_piles"] = 0
            out.append(("content.chips.table_piles", 0, "the authors' piles belong to the players (no pot)"))
    return out
