"""Write tests/data/parse/card.jsonl and card_set.jsonl: answers naming playing cards (for the
poker family's questions), in every common notation. The expected value comes from the case,
never from the parser. Rerun after changing a case:  .venv/bin/python tests/data/parse/make_card_corpus.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
RANK_WORD = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "10": "ten", "9": "nine", "8": "eight",
             "7": "seven", "5": "five", "3": "three", "2": "two"}
SUIT = {"S": ("spades", "♠"), "H": ("hearts", "♥"), "D": ("diamonds", "♦"), "C": ("clubs", "♣")}
CARDS = [r + s for r in RANK_WORD for s in SUIT]
ONE = "Which card is face up in the middle of the table?"
ALL = "Which cards are on the table? List them all."
COT = ("First, think carefully, step by step, about the question being asked and the relevant elements of "
       "the image to which the question refers. {q} End your message with {{answer: <answer>}}.")
rng = random.Random(2026)


def name(card: str) -> str:
    rank, suit = card[:-1], card[-1]
    word, symbol = SUIT[suit]
    return rng.choice([f"{RANK_WORD[rank]} of {word}", f"{RANK_WORD[rank].title()} of {word.title()}",
                       f"{rank}{symbol}", f"{rank}{suit}"])


def listing(cards: list[str]) -> str:
    names = [name(c) for c in cards]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def row(kind, prompt, text, status, value, tags, preprompt="neutral"):
    return {"type": kind, "key": "identify_cards" if kind == "card_set" else "identify_card",
            "preprompt": preprompt, "prompt": prompt, "choices": None, "labels": None, "text": text,
            "status": status, "value": value, "tags": tags}


def single() -> list[dict]:
    rows = []
    for card in CARDS:
        rows.append(row("card", ONE, rng.choice(["{c}", "The {c}.", "It is the {c}."]).format(c=name(card)),
                        "ok", card, ["plain"]))
        rows.append(row("card", ONE, f"The card face up in the middle of the table is the {name(card)}.",
                        "ok", card, ["echo"]))
        other = rng.choice([c for c in CARDS if c != card])
        text = (f"The left pile shows several backs. The card in the middle has a red corner; at first it "
                f"looks like the {name(other)}, but looking again the pips say otherwise. {{answer: {name(card)}}}")
        rows.append(row("card", COT.format(q=ONE), text, "ok", card, ["cot"], "cot"))
        rows.append(row("card", ONE, f"{{answer: {name(card)}}}", "ok", card, ["structured"]))
        rows.append(row("card", ONE, f"Answer: {name(card)}", "ok", card, ["cue"]))
    for a, b in [("AS", "KH"), ("10D", "2C"), ("QS", "QH"), ("7C", "8C"), ("JD", "9S")]:
        rows.append(row("card", ONE, f"It is either the {name(a)} or the {name(b)}.", "ambiguous", None, ["several"]))
    for text in ["I cannot tell which card this is.", "Sorry, I can't identify the card in this image.",
                 "I'm unable to determine the card from this picture."]:
        rows.append(row("card", ONE, text, "refusal", None, ["refusal"]))
    for text in ["A red card.", "It is a face card.", "Something with hearts, maybe.", "The card is face down."]:
        rows.append(row("card", ONE, text, "unparsed", None, ["handwritten"]))
    rows += [row("card", ONE, t, "ok", v, ["handwritten"]) for t, v in [
        ("Looks like the queen of hearts to me", "QH"), ("10♦", "10D"), ("TD", "10D"), ("A♠!", "AS")]]
    return rows


def sets() -> list[dict]:
    rows = []
    for _ in range(150):
        hand = rng.sample(CARDS, rng.randint(1, 5))
        truth = sorted(hand)
        template = rng.choice(["The cards on the table are {l}.", "{l}", "I see {l}."])
        rows.append(row("card_set", ALL, template.format(l=listing(hand)), "ok", truth,
                        ["several"] if len(hand) > 1 else ["plain"]))
    for _ in range(30):
        hand = rng.sample(CARDS, rng.randint(2, 4))
        text = (f"Step by step: the river holds {len(hand)} face-up cards. Reading them from left to right: "
                f"{listing(hand)}. {{answer: {listing(hand)}}}")
        rows.append(row("card_set", COT.format(q=ALL), text, "ok", sorted(hand), ["cot"], "cot"))
    for _ in range(15):
        hand = rng.sample(CARDS, rng.randint(2, 4))
        rows.append(row("card_set", ALL, f"The cards on the table are: {listing(hand)}.", "ok", sorted(hand), ["echo"]))
    for text in ["I cannot tell which cards these are.", "Sorry, I can't read the cards.",
                 "I'm unable to identify the cards in this image."]:
        rows.append(row("card_set", ALL, text, "refusal", None, ["refusal"]))
    for text in ["Several red and black cards.", "Two face cards and a number card.", "They are face down.",
                 "A pair of something."]:
        rows.append(row("card_set", ALL, text, "unparsed", None, ["handwritten"]))
    rows += [row("card_set", ALL, t, "ok", v, ["handwritten"]) for t, v in [
        ("ace of spades, A♥", ["AH", "AS"]), ("KS KH", ["KH", "KS"]), ("10♣ and TD", ["10C", "10D"]),
        ("Just the two of clubs", ["2C"])]]
    return rows


if __name__ == "__main__":
    for kind, rows in (("card", single()), ("card_set", sets())):
        (HERE / f"{kind}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        print(kind, len(rows))
