"""BYO-Eval's poker config keys (appendix D.1.6; the public byoeval/BYO-EVAL configs)
and what they are here, for `byo import-config`."""

from __future__ import annotations

from typing import Any

from byo.families.api import ForeignKey


def _face_down(value: Any) -> dict[str, Any]:
    if value == 0:
        return {"content.hand.face_down": 0, "content.river.face_down": 0}
    raise ValueError("a number of face-down cards over the whole table has no counterpart: set "
                     "content.hand.face_down and content.river.face_down")


def _deck(value: Any) -> dict[str, Any]:
    if value == "full_deck":
        return {}
    raise ValueError(f"deck mode {value!r}: cards are always dealt from one full deck")


def _no_repeats(value: Any) -> dict[str, Any]:
    if value is False:
        return {}
    raise ValueError("cards are dealt from one deck, never repeated")


NO_LAYOUT = "hands, the river and chips are laid out by the poker family (content.hand, content.river, content.chips)"
BYO_EVAL = {
    "n_players": ForeignKey("content.n_players"),
    "card_distribution_inputs.overall_cards": ForeignKey("content.total_cards"),
    "card_distribution_inputs.river_cards": ForeignKey("content.river.count"),
    "card_distribution_inputs.player_cards": ForeignKey("content.hand.count"),
    "card_distribution_inputs.n_verso": ForeignKey(None, _face_down),
    "card_type_config.mode": ForeignKey(None, _deck),
    "card_type_config.allow_repetition": ForeignKey(None, _no_repeats),
    "default_player_config": ForeignKey(None, note=NO_LAYOUT),
    "community_cards": ForeignKey(None, note=NO_LAYOUT),
    "chip_distribution_inputs": ForeignKey(None, note=NO_LAYOUT + "; chip piles: content.chips"),
    "deck_blend_file": ForeignKey(None, note="card faces are drawn by the family (content.card) or come from a "
                                             "card deck pack"),
}
