"""Write tests/data/parse/<answer_type>.jsonl: realistic VLM answers and the parse each must give.

Each expected value comes from how the answer was written (the case below), never from the
parser. Prompts are the real question templates (questions/*.yaml) with their preprompts.
Rerun after changing a case:  .venv/bin/python tests/data/parse/make_corpus.py [ANSWER_TYPE ...]
"""

from __future__ import annotations

import json
import random
from importlib.resources import files
from pathlib import Path

from byo.families.base import CATALOG
from byo.questions.generate import (
    Common,
    FamilyTemplates,
    _load,
    preprompt_parts,
    render,
)

HERE = Path(__file__).resolve().parent
TEMPLATES = files(CATALOG)  # the question templates the project ships
rng = random.Random(2026)

WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen twenty").split()
ORD = "first second third fourth fifth sixth seventh eighth ninth tenth".split()
FAMILIES = {f: _load(TEMPLATES / f"{f}.yaml", FamilyTemplates) for f in ("chess", "clevr")}
COMMON = _load(TEMPLATES / "common.yaml", Common)
PREPROMPTS = ("neutral", "debiased", "helpful")


def word(n: int) -> str:
    return WORDS[n] if n < len(WORDS) else {21: "twenty-one", 24: "twenty-four", 32: "thirty-two"}[n]


def prompt(family: str, key: str, params: dict, preprompt: str = "neutral", instruction: str = "direct") -> str:
    f = FAMILIES[family]
    before, after = preprompt_parts(preprompt, f, COMMON)
    question = render(getattr(f.questions[key], instruction), params, key)
    context = {"rows": 8, "columns": 8}
    return " ".join(render(p, context, "preprompt") for p in (before, question, after) if p)


def row(answer_type, text, status, value, tags, *, key, prompt_text, preprompt="neutral", choices=None, labels=None):
    return {"type": answer_type, "key": key, "preprompt": preprompt, "prompt": prompt_text, "choices": choices,
            "labels": labels, "text": text, "status": status, "value": value, "tags": tags}


def pick(seq):
    return seq[rng.randrange(len(seq))]


# --- integer ---------------------------------------------------------------------------------------
COUNT_KEYS = [("chess", "count_pieces", {}, "pieces"), ("chess", "count_identification_white_pieces", {}, "white pieces"),
              ("chess", "count_identification_black_pieces", {}, "black pieces"),
              ("chess", "count_identification_piece_type", {"piece_type": "pawn", "piece_plural": "pawns"}, "pawns"),
              ("clevr", "count_objects", {}, "objects"), ("clevr", "count_color", {"color": "red"}, "red objects"),
              ("clevr", "count_shape", {"shape": "cube", "shape_plural": "cubes"}, "cubes")]
LINE_KEYS = [("chess", "count_localization_pieces_on_row", "row"), ("chess", "count_localization_pieces_on_column", "column")]


def integer_cases():
    out = []

    def add(text, status, value, tags, family, key, params, preprompt="neutral", instruction="direct"):
        out.append(row("integer", text, status, value, tags, key=key, preprompt=preprompt,
                       prompt_text=prompt(family, key, params, preprompt, instruction)))

    plain = [
        ("{v}", ["plain"]), ("{v}.", ["plain"]), ("{W}.", ["words"]), ("There are {v} {n}.", ["plain"]),
        ("There are {w} {n} on the board.", ["words"]), ("I count {v} {n}.", ["plain"]),
        ("I can see {v} {n} in the image.", ["plain"]), ("There appear to be {v} {n}.", ["plain"]),
        ("The answer is {v}.", ["cue"]), ("Answer: {v}", ["cue"]), ("{{answer: {v}}}", ["structured"]),
        ("<answer>{v}</answer>", ["structured"]), ("\\boxed{{{v}}}", ["structured"]),
        ('{{"answer": {v}}}', ["structured", "json"]), ('```json\n{{"count": {v}}}\n```', ["structured", "json"]),
        ("**{v}**", ["markdown"]), ("The number of {n} is {v}.", ["plain"]), ("Approximately {v} {n}.", ["plain"]),
        ("{v} {n}.", ["plain"]), ("I see exactly {w} {n}.", ["words"]), ("It looks like {v}.", ["plain"]),
        ("There are {v} {n} ({a} on the left and {b} on the right).", ["several"]),
        ("{v} in total: {a} near the front and {b} further back.", ["several"]),
        ("Total: {v} {n}", ["plain"]), ("The image shows {v} {n}; {a} of them are partially hidden.", ["several"]),
    ]
    for template, tags in plain:
        for _ in range(3):
            family, key, params, noun = pick(COUNT_KEYS)
            v = rng.randint(2, 20)
            a = rng.randint(1, v - 1)
            text = template.format(v=v, w=word(v), W=word(v).capitalize(), n=noun, a=a, b=v - a)
            add(text, "ok", v, tags, family, key, params, pick(PREPROMPTS))
    for _ in range(8):  # echoed prompts
        family, key, params, noun = pick(COUNT_KEYS)
        v = rng.randint(0, 15)
        p = prompt(family, key, params)
        add(f"{p} {v}", "ok", v, ["echo"], family, key, params)
        add(f"{p}\n\nThere are {word(v)} {noun}.", "ok", v, ["echo", "words"], family, key, params)
    for _ in range(6):
        family, key, params, noun = pick(COUNT_KEYS)
        v = rng.randint(1, 15)
        f = FAMILIES[family].questions[key]
        lead = render(f.declarative, params, key)
        add(f"{lead} {v}", "ok", v, ["echo", "template"], family, key, params, instruction="declarative")
        blank = render(f.fill_blank, params, key).replace("____", str(v))
        add(blank, "ok", v, ["template"], family, key, params, instruction="fill_blank")
        blank = render(f.fill_blank, params, key).replace("____", word(v))
        add(blank, "ok", v, ["template", "words"], family, key, params, instruction="fill_blank")
    for family, key, axis in LINE_KEYS:  # the question's own number is not the answer
        for _ in range(5):
            line, v = rng.randint(1, 7), rng.randint(0, 5)
            params = {axis: line}
            add(f"On {axis} {line} there are {v} pieces.", "ok", v, ["echo", "several"], family, key, params)
            add(f"{axis.capitalize()} {line} has {word(v)} pieces.", "ok", v, ["echo", "words"], family, key, params)
            add(f"Counting from 0, {axis} {line} contains {v} pieces.", "ok", v, ["echo", "several"], family, key,
                params)
    for text, v, tags in [("There are no black pieces.", 0, ["zero"]), ("None.", 0, ["zero"]), ("Zero", 0, ["zero"]),
                          ("0", 0, ["zero"]), ("No, there are none.", 0, ["zero"]), ("There is a single piece.", 1, ["words"]),
                          ("Just one.", 1, ["words"]), ("A dozen.", 12, ["words"]), ("Twenty-one pieces.", 21, ["words"]),
                          ("twenty one", 21, ["words"]), ("There are 32 pieces on the 8x8 board.", 32, ["several"]),
                          ("The 8x8 board holds 5 pieces.", 5, ["several"]),
                          ("I count 4 pieces. The board is 8 by 8 squares.", 4, ["several"])]:
        add(text, "ok", v, tags, "chess", "count_pieces", {}, "neutral")
    cot_plain = [
        ("Let me count row by row. The top row has {a}, the next rows have {b} in total. "
         "In total there are {v} {n}. {{answer: {v}}}", ["cot", "structured", "several"]),
        ("First, I look at the left half: {a} {n}. Then the right half: {b} {n}. So the total is {v}.",
         ["cot", "several"]),
        ("I see {a} near the camera and {b} further away, which makes {v}. End: {{answer: {v}}}",
         ["cot", "several", "structured"]),
        ("Step 1: scan the image. Step 2: count. I get {a}, then recount and get {v}. {{answer: {v}}}",
         ["cot", "several", "structured"]),
        ("Counting carefully: 1, 2, 3 ... up to {v}. Therefore there are {v} {n}.", ["cot", "several"]),
        ("There are {a} on one side and {b} on the other; altogether {v}.", ["cot", "several"]),
        ("Looking at the image, I first thought there were {c} {n}, but after checking again I count {v}.",
         ["cot", "several"]),
        ("{a} + {b} = {v}. {{answer: {v}}}", ["cot", "several", "structured"]),
    ]
    for template, tags in cot_plain:
        for _ in range(4):
            family, key, params, noun = pick(COUNT_KEYS)
            v = rng.randint(4, 20)
            a = rng.randint(1, v - 2)
            c = v + rng.choice([-2, -1, 1, 2])
            add(template.format(v=v, a=a, b=v - a, c=c, n=noun), "ok", v, tags, family, key, params,
                pick(["cot", "debiased_cot"]))
    for template in ["I think there are {a} or {b} {n}.", "Either {a} or {b}.",
                            "Between {a} and {b} {n}.", "Maybe {a}, maybe {b}, it is hard to tell.",
                            "{a}? Or perhaps {b}."]:
        for _ in range(3):
            family, key, params, noun = pick(COUNT_KEYS)
            a = rng.randint(2, 10)
            add(template.format(a=a, b=a + 1, n=noun), "ambiguous", None, ["several"], family, key, params)
    refusals = ["I'm sorry, but I can't determine the number of {n} from this image.",
                "I cannot see any image attached to your message.", "Unable to count the {n}: the image is too blurry.",
                "As an AI, I can't view images.", "It is impossible to tell how many {n} there are.",
                "I'm not able to identify the {n} in this picture.", "The image is not visible to me.",
                "Sorry, I cannot answer that."]
    for t in refusals:
        family, key, params, noun = pick(COUNT_KEYS)
        add(t.format(n=noun), "refusal", None, ["refusal"], family, key, params)
    family, key, params, noun = COUNT_KEYS[0]
    add("I'm sorry, but I cannot determine how many pieces are on row 3.", "refusal", None, ["refusal", "echo"],
        "chess", "count_localization_pieces_on_row", {"row": 3})
    for t in ["The pieces are arranged on the board.", "It's hard to say.", "", "Many.", "Several pieces are visible.",
              "A lot of them.", "The board is a chessboard.", "{answer: <answer>}", "I see some pieces of both colours."]:
        add(t, "unparsed", None, ["unparsed"], family, key, params)
    add("The pieces are on the third row.", "unparsed", None, ["ordinal", "unparsed"], family, key, params)
    return out


# --- rows and columns ------------------------------------------------------------------------------
def line_cases(axis: str):
    out = []
    key = f"localize_{axis}_one_piece"
    other = "column" if axis == "row" else "row"

    def add(text, status, value, tags, preprompt="neutral", instruction="direct"):
        out.append(row(axis, text, status, value, tags, key=key, preprompt=preprompt,
                       prompt_text=prompt("chess", key, {}, preprompt, instruction)))

    Axis = axis.capitalize()
    plain = [
        ("{v}", ["plain"]), ("{v}.", ["plain"]), (f"{Axis} {{v}}", ["plain"]), (f"{Axis} {{v}}.", ["plain"]),
        (f"The piece is on {axis} {{v}}.", ["plain"]), (f"It is in {axis} {{w}}.", ["words"]),
        (f"{axis} number {{v}}", ["plain"]), (f"The piece stands on {axis} {{v}}, counting from 0.", ["echo", "several"]),
        (f"It's on {axis} {{v}} (the {{o}} {axis} from the {'top' if axis == 'row' else 'left'}).", ["ordinal", "several"]),
        (f"The piece is in the {{o}} {axis}, i.e. {axis} {{v}}.", ["ordinal"]),
        ("{{answer: {v}}}", ["structured"]), ("The answer is {v}.", ["cue"]), ("Answer: {v}", ["cue"]),
        ("<answer>{v}</answer>", ["structured"]), (f'{{{{"{axis}": {{v}}}}}}', ["structured", "json"]),
        (f"The piece is located on {axis} {{v}} of the board.", ["plain"]),
        (f"{Axis}: {{v}}", ["plain"]), (f"I'd say {axis} {{v}}.", ["plain"]),
        (f"The board has 8 {axis}s and the piece is on {axis} {{v}}.", ["several"]),
        (f"The piece is on {axis} {{v}} and {other} {{u}}.", ["several"]),
        (f"Counting {axis}s from 0 at the {'top' if axis == 'row' else 'left'} of the board, the piece is on "
         f"{axis} {{v}}.", ["echo", "template"]),
    ]
    for template, tags in plain:
        for _ in range(6):
            v, u = rng.randint(0, 7), rng.randint(0, 7)
            text = template.format(v=v, w=word(v), o=ORD[v], u=u)
            add(text, "ok", v, tags, pick(PREPROMPTS))
    for _ in range(6):
        v = rng.randint(0, 7)
        f = FAMILIES["chess"].questions[key]
        add(f"{render(f.declarative, {}, key)} {v}", "ok", v, ["echo", "template"], instruction="declarative")
        add(render(f.fill_blank, {}, key).replace("____", str(v)), "ok", v, ["template", "echo"],
            instruction="fill_blank")
        add(f"{prompt('chess', key, {})} {Axis} {v}.", "ok", v, ["echo"])
    edge = "top row" if axis == "row" else "leftmost column"
    for t in [f"The piece is in the {edge}.", f"It stands in the {edge} of the board."]:
        add(t, "ok", 0, ["words"])
    for template in ["Looking at the board, the {axis}s are numbered from 0 at the {edge}. I count the {axis}s: "
                     "0, 1, 2 ... the piece is on {axis} {v}. {{answer: {v}}}",
                     "The piece appears close to {axis} {u}, but looking again it is on {axis} {v}.",
                     "Let me think. The board has 8 {axis}s. The piece is {d} {axis}s from the {edge2}, so it is on "
                     "{axis} {v}.",
                     "Step by step: the piece is in the {o} {axis} from the {edge2}; numbered from 0 that is {v}. "
                     "{{answer: {v}}}"]:
        for _ in range(5):
            v, u = rng.randint(1, 7), rng.randint(0, 7)
            text = template.format(axis=axis, v=v, u=u, d=v, o=ORD[v], edge="top" if axis == "row" else "left",
                                   edge2="top" if axis == "row" else "left")
            add(text, "ok", v, ["cot", "several"], pick(["cot", "debiased_cot"]))
    for template in [f"{Axis} {{a}} or {{b}}.", f"Either {axis} {{a}} or {axis} {{b}}.",
                     f"It could be {axis} {{a}}, or maybe {axis} {{b}}.", f"Between {axis} {{a}} and {axis} {{b}}."]:
        for _ in range(3):
            a = rng.randint(0, 6)
            add(template.format(a=a, b=a + 1), "ambiguous", None, ["several"])
    for o in ORD[:6]:
        add(f"The piece is in the {o} {axis}.", "ambiguous", None, ["ordinal"])
    for t in ["I'm sorry, but I can't determine the position of the piece.", "I cannot see the image.",
              "Unable to identify the piece's location.", "It's impossible to tell from this image.",
              "As an AI, I cannot view images."]:
        add(t, "refusal", None, ["refusal"])
    for t in ["The piece is near the edge of the board.", "", "On the board.", "It's a white pawn.",
              "The piece is somewhere in the middle."]:
        add(t, "unparsed", None, ["unparsed"])
    return out


# --- cells -------------------------------------------------------------------------------------
CELL_PROMPT = ("Which square is the piece on? Answer as (row, column), counting rows from 0 at the top and "
               "columns from 0 at the left.")


def cell_cases():
    out = []

    def add(text, status, value, tags, preprompt="neutral"):
        out.append(row("cell", text, status, value, tags, key="localize_cell_one_piece", preprompt=preprompt,
                       prompt_text=CELL_PROMPT))

    templates = [
        ("Row {r}, column {c}", ["plain"]), ("({r}, {c})", ["plain"]), ("[{r}, {c}]", ["plain"]), ("{r},{c}", ["plain"]),
        ("row {r} and column {c}", ["plain"]), ("Column {c}, row {r}.", ["order"]),
        ("The piece is at row {r}, col {c}.", ["plain"]), ('{{"row": {r}, "column": {c}}}', ["structured", "json"]),
        ("{{answer: ({r}, {c})}}", ["structured"]), ("<answer>({r}, {c})</answer>", ["structured"]),
        ("It's on the square in row {wr} and column {wc}.", ["words"]), ("The answer is ({r}, {c}).", ["cue"]),
        ("Answer: row {r}, column {c}", ["cue"]), ("The piece stands on ({r}, {c}), counting from 0.", ["echo"]),
        ("Counting rows from 0 at the top and columns from 0 at the left, the piece is at ({r}, {c}).", ["echo"]),
        ("(row {r}, column {c})", ["plain"]), ("It sits in column {c} of row {r}.", ["order"]),
        ("Square ({r}, {c}) on the 8x8 board.", ["several"]),
    ]
    for template, tags in templates:
        for _ in range(9):
            r, c = rng.randint(0, 7), rng.randint(0, 7)
            add(template.format(r=r, c=c, wr=word(r), wc=word(c)), "ok", [r, c], tags)
    for template in ["Rows are counted from the top. The piece is 3 squares down, so row {r}; it is in column {c}. "
                     "{{answer: ({r}, {c})}}",
                     "First I find the row: row {r}. Then the column: column {c}. So the piece is at ({r}, {c}).",
                     "At first glance it looks like ({a}, {b}), but counting again it is ({r}, {c})."]:
        for _ in range(5):
            r, c = rng.randint(0, 7), rng.randint(0, 7)
            a, b = (r + 1) % 8, c
            add(template.format(r=r, c=c, a=a, b=b), "ok", [r, c], ["cot", "several"], "cot")
    for _ in range(5):
        r, c = rng.randint(0, 6), rng.randint(0, 6)
        add(f"Either ({r}, {c}) or ({r + 1}, {c}).", "ambiguous", None, ["several"])
        add(f"Row {r}, column {c}, or possibly row {r + 1}, column {c + 1}.", "ambiguous", None, ["several"])
    for t in ["I'm sorry, but I can't determine where the piece is.", "I cannot see the image.",
              "Unable to locate the piece in the picture.", "It is not possible to determine the square."]:
        add(t, "refusal", None, ["refusal"])
    for t in ["Near the center of the board.", "", "The piece is a knight.", "Somewhere on the left side.",
              "Row unknown.", "The upper left corner."]:
        add(t, "unparsed", None, ["unparsed"])
    return out


# --- labels ------------------------------------------------------------------------------------
PIECES = ["pawn", "rook", "knight", "bishop", "queen", "king"]
SYN = {"knight": ["horse"], "rook": ["castle", "tower"], "gray": ["grey"], "purple": ["violet"],
       "cyan": ["teal", "turquoise"], "metal": ["metallic", "shiny metal"], "rubber": ["matte rubber"],
       "large": ["big"], "small": ["tiny", "little"], "white": ["ivory"], "yellow": ["golden"],
       "cube": ["block"], "sphere": ["ball"]}
LABEL_KEYS = [
    ("chess", "identify_type_one_piece", {}, PIECES),
    ("chess", "identify_color_one_piece", {}, ["white", "black"]),
    ("chess", "identify_localization_piece_type", {"row": 2, "column": 5}, PIECES),
    ("chess", "identify_localization_piece_color", {"row": 4, "column": 1}, ["white", "black"]),
    ("clevr", "query_color_unique_shape", {"shape": "sphere"},
     ["gray", "red", "blue", "green", "brown", "purple", "cyan", "yellow"]),
    ("clevr", "query_shape_unique_color", {"color": "red"}, ["cube", "sphere", "cylinder", "cone"]),
    ("clevr", "query_material_unique_shape", {"shape": "cube"}, ["rubber", "metal"]),
    ("clevr", "query_size_unique_shape", {"shape": "cone"}, ["small", "large"]),
]


def article(w: str) -> str:
    return "an" if w[0] in "aeiou" else "a"


def label_cases():
    out = []

    def add(text, status, value, tags, family, key, params, labels, preprompt="neutral", instruction="direct"):
        out.append(row("label", text, status, value, tags, key=key, preprompt=preprompt, labels=labels,
                       prompt_text=prompt(family, key, params, preprompt, instruction)))

    templates = [
        ("{L}", ["plain"]), ("{L}.", ["plain"]), ("{A} {l}.", ["plain"]), ("It's {a} {l}.", ["plain"]),
        ("It is {a} {l}.", ["plain"]), ("The answer is {l}.", ["cue"]), ("Answer: {l}", ["cue"]),
        ("{{answer: {l}}}", ["structured"]), ("<answer>{l}</answer>", ["structured"]),
        ('{{"answer": "{l}"}}', ["structured", "json"]), ("**{L}**", ["markdown"]),
        ("{L}, clearly.", ["plain"]), ("I believe it is {a} {l}.", ["plain"]), ("{s}.", ["synonym"]),
        ("It looks like {a} {s}.", ["synonym"]), ("{L}, not {o_a} {o}.", ["negation", "several"]),
        ("It is not {o_a} {o}; it is {a} {l}.", ["negation", "several"]),
        ("{A} {l} rather than {o_a} {o}.", ["negation", "several"]),
    ]
    for template, tags in templates:
        for _ in range(6):
            family, key, params, labels = pick(LABEL_KEYS)
            value = pick(labels)
            other = pick([x for x in labels if x != value])
            s = pick(SYN.get(value, [value]))
            text = template.format(l=value, L=value.capitalize(), a=article(value), A=article(value).capitalize(),
                                   s=s, o=other, o_a=article(other))
            add(text, "ok", value, tags, family, key, params, labels, pick(PREPROMPTS))
    for _ in range(12):  # echoes: the question lists every option
        family, key, params, labels = pick(LABEL_KEYS)
        value = pick(labels)
        p = prompt(family, key, params)
        add(f"{p} {value.capitalize()}.", "ok", value, ["echo"], family, key, params, labels)
        f = FAMILIES[family].questions[key]
        add(f"{render(f.declarative, params, key)} {value}", "ok", value, ["echo", "template"], family, key, params,
            labels, instruction="declarative")
        add(render(f.fill_blank, params, key).replace("____", value), "ok", value, ["template"], family, key, params,
            labels, instruction="fill_blank")
    for template in ["Looking at the shape: it has a {feature}. A {o} would look different. Therefore it is {a} {l}.",
                     "Step by step: the object is {o_a} {o}? No. Comparing details, it is {a} {l}. {{answer: {l}}}",
                     "I first considered {o_a} {o}, but the {feature} suggests {a} {l}. Final answer: {l}",
                     "The candidates are {o} and {l}. Based on the image, the answer is {l}."]:
        for _ in range(6):
            family, key, params, labels = pick(LABEL_KEYS)
            value = pick(labels)
            other = pick([x for x in labels if x != value])
            text = template.format(l=value, a=article(value), o=other, o_a=article(other),
                                   feature=pick(["distinctive top", "clear outline", "characteristic silhouette"]))
            add(text, "ok", value, ["cot", "several"], family, key, params, labels, pick(["cot", "debiased_cot"]))
    for template in ["It's either {a} {l} or {o_a} {o}.", "{L} or {o}, hard to tell.",
                     "Could be {a} {l}, could be {o_a} {o}.", "I think it's {a} {l}, but it could also be {o_a} {o}."]:
        for _ in range(4):
            family, key, params, labels = pick(LABEL_KEYS)
            value = pick(labels)
            other = pick([x for x in labels if x != value])
            add(template.format(l=value, L=value.capitalize(), a=article(value), o=other, o_a=article(other)),
                "ambiguous", None, ["several"], family, key, params, labels)
    for t in ["I'm sorry, but I can't identify the object in this image.", "I cannot see any image.",
              "Unable to determine that from the picture.", "It's impossible to tell.", "As an AI, I can't view images.",
              "I'm not able to recognize the piece."]:
        family, key, params, labels = pick(LABEL_KEYS)
        add(t, "refusal", None, ["refusal"], family, key, params, labels)
    for t in ["It's a chess piece.", "", "Something on the board.", "It is an object.", "Hard to say.",
              "The piece stands on a square."]:
        add(t, "unparsed", None, ["unparsed"], "chess", "identify_type_one_piece", {}, PIECES)
    return out


def label_set_cases():
    out = []
    key = "identify_type_several_pieces"

    def add(text, status, value, tags, preprompt="neutral", instruction="direct"):
        out.append(row("label_set", text, status, sorted(value) if value is not None else None, tags, key=key,
                       preprompt=preprompt, labels=PIECES, prompt_text=prompt("chess", key, {}, preprompt, instruction)))

    def plural(w):
        return w + "s"

    def listing(items, style):
        if style == "comma":
            return ", ".join(items)
        if style == "and":
            return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else items[0]
        if style == "plural":
            ps = [plural(i) for i in items]
            return ", ".join(ps[:-1]) + " and " + ps[-1] if len(ps) > 1 else ps[0]
        if style == "bullets":
            return "\n" + "\n".join(f"- {i.capitalize()}" for i in items)
        return "[" + ", ".join(items) + "]"

    templates = [("{x}", ["plain"]), ("{X}.", ["plain"]), ("The types are: {x}.", ["plain"]),
                 ("There are {x} on the board.", ["plain"]), ("I can see {x}.", ["plain"]),
                 ("{{answer: {x}}}", ["structured"]), ("The answer is {x}.", ["cue"]), ("Answer: {x}", ["cue"]),
                 ("<answer>{x}</answer>", ["structured"]), ("The board holds these types of pieces: {x}.", ["template"]),
                 ("Pieces present: {x}", ["plain"])]
    for template, tags in templates * 2:
        for style in ("comma", "and", "plural", "bullets", "list"):
            items = rng.sample(PIECES, rng.randint(1, 4))
            x = listing(items, style)
            add(template.format(x=x, X=x[:1].upper() + x[1:]), "ok", items, tags, pick(PREPROMPTS))
    for _ in range(10):
        items = rng.sample(PIECES, rng.randint(1, 3))
        missing = pick([p for p in PIECES if p not in items])
        add(f"There are {listing(items, 'plural')}, but no {plural(missing)}.", "ok", items, ["negation"])
        add(f"{listing(items, 'and').capitalize()}; there is no {missing}.", "ok", items, ["negation"])
    for _ in range(10):  # synonyms
        items = rng.sample(PIECES, rng.randint(2, 4))
        named = [pick(SYN[i]) if i in SYN else i for i in items]
        add(f"I see {listing(named, 'plural')}.", "ok", items, ["synonym"])
    for _ in range(8):
        items = rng.sample(PIECES, rng.randint(1, 3))
        p = prompt("chess", key, {})
        add(f"{p} {listing(items, 'and')}", "ok", items, ["echo"])
        f = FAMILIES["chess"].questions[key]
        add(f"{render(f.declarative, {}, key)} {listing(items, 'comma')}", "ok", items, ["echo", "template"],
            instruction="declarative")
    for _ in range(12):
        items = rng.sample(PIECES, rng.randint(1, 3))
        first = pick(PIECES)
        text = (f"Let me look at each piece. The first one has a {pick(['cross', 'crown', 'mitre', 'round head'])}. "
                f"At first I thought there was a {first}, but looking closer it is something else. "
                f"So the types are {listing(items, 'and')}.")
        add(text, "ok", items, ["cot", "several"], "cot")
        add(f"Piece by piece: {listing(items, 'comma')}. {{answer: {listing(items, 'comma')}}}", "ok", items,
            ["cot", "structured"], "cot")
    for _ in range(4):
        items = [pick(PIECES)]
        add(f"Only {plural(items[0])}.", "ok", items, ["plain"])
        add(f"All the pieces are {plural(items[0])}.", "ok", items, ["plain"])
    for t in ["I'm sorry, but I can't identify the pieces in this image.", "I cannot see any image.",
              "Unable to determine the piece types.", "As an AI, I can't view images."]:
        add(t, "refusal", None, ["refusal"])
    for t in ["There are several different pieces.", "", "Chess pieces.", "Various kinds of pieces.",
              "Some white and some black ones."]:
        add(t, "unparsed", None, ["unparsed"])
    return out


# --- position words ------------------------------------------------------------------------------
POSITIONS = ["upper left", "upper middle", "upper right", "middle left", "center", "middle right", "lower left",
             "lower middle", "lower right"]
POS_SYN = {"upper left": ["top left", "top-left", "upper-left", "top left corner"],
           "upper middle": ["top center", "top middle", "upper center", "middle of the top edge"],
           "upper right": ["top right", "top-right", "upper-right corner"],
           "middle left": ["center left", "left center", "middle of the left side", "center-left"],
           "center": ["centre", "middle", "center of the board", "very center"],
           "middle right": ["center right", "right center", "middle of the right side", "centre-right"],
           "lower left": ["bottom left", "bottom-left", "lower-left corner"],
           "lower middle": ["bottom center", "bottom middle", "lower center", "middle of the bottom edge"],
           "lower right": ["bottom right", "bottom-right", "lower-right corner"]}


def position_cases():
    out = []
    key = "localize_position_word_one_piece"

    def add(text, status, value, tags, preprompt="neutral", instruction="direct"):
        out.append(row("position_word", text, status, value, tags, key=key, preprompt=preprompt,
                       prompt_text=prompt("chess", key, {}, preprompt, instruction)))

    templates = [("{p}", ["plain"]), ("{P}.", ["plain"]), ("The piece is in the {p} part of the board.", ["template"]),
                 ("It's in the {p}.", ["plain"]), ("{{answer: {p}}}", ["structured"]), ("Answer: {p}", ["cue"]),
                 ("The answer is {p}.", ["cue"]), ("<answer>{p}</answer>", ["structured"]),
                 ("The piece stands in the {s}.", ["synonym"]), ("{S}.", ["synonym"]),
                 ("It is located at the {s} of the board.", ["synonym"]),
                 ("In the {p}, not the {o}.", ["negation", "several"]),
                 ("The piece is in the {p} area.", ["plain"])]
    for template, tags in templates:
        for _ in range(10):
            p = pick(POSITIONS)
            s = pick(POS_SYN[p])
            o = pick([x for x in POSITIONS if x != p])
            add(template.format(p=p, P=p.capitalize(), s=s, S=s.capitalize(), o=o), "ok", p, tags, pick(PREPROMPTS))
    for _ in range(10):
        p = pick(POSITIONS)
        add(f"{prompt('chess', key, {})} {p.capitalize()}.", "ok", p, ["echo"])
        f = FAMILIES["chess"].questions[key]
        add(f"{render(f.declarative, {}, key)} {p}", "ok", p, ["echo", "template"], instruction="declarative")
    for _ in range(10):
        p, o = rng.sample(POSITIONS, 2)
        text = (f"The board is divided into thirds. The piece is in the {pick(['top', 'bottom', 'middle'])} third "
                f"vertically... Looking again, I first thought {o}, but the final position is the {p}. "
                f"{{answer: {p}}}")
        add(text, "ok", p, ["cot", "several", "structured"], "cot")
        add(f"First impression: {o}. After comparing with the grid lines, it is in the {p}. Therefore: {p}.", "ok",
            p, ["cot", "several"], "cot")
    for _ in range(6):
        p, o = rng.sample(POSITIONS, 2)
        add(f"Somewhere between the {p} and the {o}.", "ambiguous", None, ["several"])
        add(f"{p.capitalize()} or {o}.", "ambiguous", None, ["several"])
    for t in ["I'm sorry, but I can't determine where the piece is.", "I cannot see the image.",
              "Unable to locate the piece.", "It's impossible to tell."]:
        add(t, "refusal", None, ["refusal"])
    for t in ["Near the edge.", "", "On a dark square.", "It's a queen.", "On the board."]:
        add(t, "unparsed", None, ["unparsed"])
    return out


# --- yes / no ------------------------------------------------------------------------------------
YES_NO_KEYS = [("clevr", "exist_color_shape", {"color": "red", "shape": "cube"}),
               ("clevr", "relate_left", {"a": "blue sphere", "b": "gray cylinder"})]


def yes_no_cases():
    out = []

    def add(text, status, value, tags, preprompt="neutral", instruction="direct", which=None):
        family, key, params = which or pick(YES_NO_KEYS)
        out.append(row("yes_no", text, status, value, tags, key=key, preprompt=preprompt,
                       prompt_text=prompt(family, key, params, preprompt, instruction)))

    yes = ["Yes", "Yes.", "yes", "YES", "Yes, there is.", "Yes, there is a red cube in the image.", "Yep.",
           "Yes, the blue sphere is to the left of the gray cylinder.", "{answer: yes}", "Answer: yes",
           "The answer is yes.", "<answer>Yes</answer>", "Yes - it is on the left side.", "True.", "Correct.",
           "Yes, definitely.", '{"answer": "yes"}', "Yes; I can see it clearly.", "**Yes**", "Yes, it is."]
    no = ["No", "No.", "no", "NO", "No, there isn't.", "No, there is no red cube.", "Nope.",
          "No, the blue sphere is to the right of the gray cylinder.", "{answer: no}", "Answer: no",
          "The answer is no.", "<answer>No</answer>", "No - it is on the right side.", "False.",
          "There is no red cube in the image.", "No, definitely not.", '{"answer": "no"}', "No; I don't see one.",
          "**No**", "No, it is not."]
    for t in yes:
        for _ in range(3):
            add(t, "ok", "yes", ["plain"], pick(PREPROMPTS))
    for t in no:
        for _ in range(3):
            add(t, "ok", "no", ["plain"], pick(PREPROMPTS))
    for which in YES_NO_KEYS:
        family, key, params = which
        p = prompt(family, key, params)
        for v in ("yes", "no"):
            add(f"{p} {v.capitalize()}.", "ok", v, ["echo"], which=which)
            f = FAMILIES[family].questions[key]
            add(f"{render(f.declarative, params, key)} {v}", "ok", v, ["echo", "template"], which=which,
                instruction="declarative")
            add(render(f.fill_blank, params, key).replace("____", v), "ok", v, ["template"], which=which,
                instruction="fill_blank")
    for v in ("yes", "no"):
        for template in ["Let me check each object. There is a cube, but is it red? Looking closely, {r}. "
                         "Therefore, the answer is {v}.",
                         "First I locate both objects. Then I compare their x positions. {r}. {{answer: {v}}}",
                         "Step 1: find the objects. Step 2: compare. Initially I would say {w}, but on reflection: {v}.",
                         "No obvious occlusion. {r}. So my answer is {v}."]:
            for _ in range(4):
                r = "it is" if v == "yes" else "it is not"
                add(template.format(v=v, w="no" if v == "yes" else "yes", r=r), "ok", v, ["cot", "several"],
                    pick(["cot", "debiased_cot"]))
    for t in ["Yes and no, it depends on the angle.", "Maybe yes, maybe no.", "Yes or no? Hard to say; perhaps no.",
              "I would say yes or no depending on the viewpoint."]:
        add(t, "ambiguous", None, ["several"])
    for t in ["I'm sorry, but I can't determine that from the image.", "I cannot see any image.",
              "Unable to tell from this picture.", "It is impossible to tell.", "As an AI, I can't view images."]:
        add(t, "refusal", None, ["refusal"])
    for t in ["There is a red object.", "", "The cube is on the left.", "Possibly.", "It's hard to say.",
              "The objects are on a grey floor."]:
        add(t, "unparsed", None, ["unparsed"])
    return out


# --- multiple choice -------------------------------------------------------------------------------
COLORS = ["gray", "red", "blue", "green", "brown", "purple", "cyan", "yellow"]
SHAPES = ["cube", "sphere", "cylinder", "cone"]


def caption(pairs):
    parts = [f"a {c} {s}" for c, s in pairs]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def mc_question():
    kind = pick(["label_choice", "relation_choice", "binding_swap", "binding_confusion"])
    if kind == "label_choice":
        choices = [f"{c} {s}" for c, s in rng.sample([(c, s) for c in COLORS for s in SHAPES], 5)]
    elif kind == "relation_choice":
        a, b = rng.sample(SHAPES, 2)
        choices = [f"{a} left {b}", f"{a} right {b}", f"{b} left {a}", f"{b} right {a}"]
        rng.shuffle(choices)
    else:
        n = rng.randint(2, 3)
        shapes, colors = rng.sample(SHAPES, n), rng.sample(COLORS, n)
        choices = []
        while len(choices) < 5:
            c = caption(list(zip(rng.sample(colors, n), shapes, strict=True)) if kind == "binding_swap"
                        else [(pick(colors), pick(shapes)) for _ in range(n)])
            if c not in choices:
                choices.append(c)
            if kind == "binding_swap" and len(choices) == (2 if n == 2 else 5):
                break
    options = " ".join(f"({chr(65 + i)}) {o}" for i, o in enumerate(choices))
    return kind, choices, options


def mc_cases():
    out = []

    def add(text, status, value, tags, kind, choices, options, preprompt="neutral", instruction="direct"):
        out.append(row("multiple_choice", text, status, value, tags, key=kind, preprompt=preprompt, choices=choices,
                       prompt_text=prompt("clevr", kind, {"options": options}, preprompt, instruction)))

    templates = [("{L}", ["plain"]), ("{L}.", ["plain"]), ("({L})", ["plain"]), ("{L})", ["plain"]),
                 ("({L}) {t}", ["plain"]), ("{L}. {t}", ["plain"]), ("The answer is {L}.", ["cue"]),
                 ("Answer: {L}", ["cue"]), ("Option {L}", ["plain"]), ("{{answer: {L}}}", ["structured"]),
                 ("<answer>{L}</answer>", ["structured"]), ("The correct option is ({L}).", ["cue"]),
                 ("{T}.", ["text"]), ("The image shows {t}.", ["text"]), ("I'd go with {L}.", ["plain"]),
                 ('{{"answer": "{L}"}}', ["structured", "json"]), ("**{L}**", ["markdown"]),
                 ("{L} - {t}", ["plain"]), ("Option {L}: {t}", ["plain"]), ("Not {O}; it is {L}.", ["negation"])]
    for template, tags in templates:
        for _ in range(7):
            kind, choices, options = mc_question()
            i = rng.randrange(len(choices))
            o = pick([k for k in range(len(choices)) if k != i])
            L, t = chr(65 + i), choices[i]
            add(template.format(L=L, t=t, T=t[:1].upper() + t[1:], O=chr(65 + o)), "ok", L, tags, kind, choices,
                options, pick(PREPROMPTS))
    for _ in range(15):
        kind, choices, options = mc_question()
        i = rng.randrange(len(choices))
        L = chr(65 + i)
        p = prompt("clevr", kind, {"options": options})
        add(f"{p}\n{L}", "ok", L, ["echo"], kind, choices, options)
    for _ in range(15):
        kind, choices, options = mc_question()
        i = rng.randrange(len(choices))
        o = pick([k for k in range(len(choices)) if k != i])
        L, wrong = chr(65 + i), chr(65 + o)
        text = (f"Let me check each option. Option {wrong} says {choices[o]}, which does not match what I see. "
                f"Option {L} says {choices[i]}, which matches. Therefore the answer is {L}.")
        add(text, "ok", L, ["cot", "several"], kind, choices, options, "cot")
        text = f"({wrong}) is wrong because of the colours. ({L}) fits the image. {{answer: {L}}}"
        add(text, "ok", L, ["cot", "several", "structured"], kind, choices, options, "debiased_cot")
    for _ in range(8):
        kind, choices, options = mc_question()
        a, b = rng.sample(range(len(choices)), 2)
        add(f"{chr(65 + a)} or {chr(65 + b)}.", "ambiguous", None, ["several"], kind, choices, options)
        add(f"Either ({chr(65 + a)}) or ({chr(65 + b)}), I'm not sure.", "ambiguous", None, ["several"], kind,
            choices, options)
    for t in ["I'm sorry, but I can't determine which option is correct.", "I cannot see the image.",
              "Unable to identify the objects in the picture.", "As an AI, I can't view images.",
              "None of the options match."]:
        kind, choices, options = mc_question()
        add(t, "refusal", None, ["refusal"], kind, choices, options)
    for t in ["", "The objects are colourful.", "F", "Option Z."]:
        kind, choices, options = mc_question()
        add(t, "unparsed", None, ["unparsed"], kind, choices, options)
    return out


# --- crests ---------------------------------------------------------------------------------------
CONTAINERS = [("01", "丸", "circle"), ("02", "細輪", "thin ring"), ("07", "平角", "square"), ("10", "亀甲", "tortoise shell"),
              ("11", "八角", "octagon"), ("14", "木瓜", "quince")]
MOTIFS = [("0008", "桔梗", "bellflower", "bellflowers"), ("0006", "梅", "plum blossom", "plum blossoms"),
          ("0009", "桜", "cherry blossom", "cherry blossoms"), ("0024", "山形", "mountain", "mountains"),
          ("0025", "扇", "folding fan", "folding fans"), ("0026", "三日月", "crescent moon", "crescent moons"),
          ("0005", "片喰", "wood sorrel", "wood sorrels"), ("0034", "銭", "coin", "coins")]
MODIFIERS = [("0", "", None), ("1", "覗き", "peeking"), ("2", "豆", "bean"), ("3", "三つ盛り", "three stacked"),
             ("4", "尻合せ三つ", "three bottoms-together"), ("5", "頭合せ三つ", "three heads-together")]


def crest_labels(c, x, m):
    """(program, kdl, english) of a crest drawn from the lists above."""
    cid, cja, cen = c if c else (None, "", None)
    xid, xja, xen = x
    mid, mja, men, mpl = m
    program = " ".join(([f"C:{cid}"] if cid else []) + [f"X:{xid}", f"M:{mid}"])
    kdl = (f"{cja}に" if cid else "") + xja + mja
    core = {None: men, "bean": f"bean {men}", "peeking": f"peeking {men}"}.get(xen, f"{xen} {mpl}")
    english = core + (f" in {article(cen)} {cen}" if cid else "")  # KamonBench's Figure 2 wording
    return program, kdl, english


def random_crest():
    c = pick(CONTAINERS) if rng.random() < 0.75 else None
    x = pick(MODIFIERS) if c else pick(MODIFIERS[3:])
    return crest_labels(c, x, pick(MOTIFS))


ALL_CRESTS = [crest_labels(c, x, m) for c in [None, *CONTAINERS] for x in MODIFIERS for m in MOTIFS
              if c or x[0] in "345"]
CREST_PROMPTS = {
    "crest_program": "Write the program code of this crest: one C:<id> token per container (outermost first), "
                     "then X:<k> for the modifier (0 none, 1 peeking, 2 bean, 3 three-stacked, 4 bottoms-together, "
                     "5 heads-together), then M:<id> for the motif.",
    "crest_kdl": "Describe this family crest (kamon) in the kamon description language, in Japanese.",
    "crest_english": "Describe this family crest (kamon) in English, for example \"plum blossom in a circle\".",
}


BARE_WORDS, BARE_CHARS = 40, 80  # byo.families.crest.metrics: the longest unmarked reply read as a prediction


def bare(text: str, answer_type: str) -> str | None:
    """An unmarked reply as KamonBench's rule reads it: the whole reply, unless it is prose."""
    if answer_type == "crest_kdl":
        return text if len("".join(text.split())) <= BARE_CHARS else None
    return text if len(text.split()) <= BARE_WORDS else None


def crest_cases(answer_type: str):
    rng.seed(f"2026 {answer_type}")  # a stream of its own (see main)
    out = []
    labels_kdl = [k for _, k, _ in ALL_CRESTS]
    labels_en = [e for _, _, e in ALL_CRESTS]
    labels = {"crest_kdl": labels_kdl, "crest_english": labels_en}.get(answer_type)
    column = {"crest_program": 0, "crest_kdl": 1, "crest_english": 2}[answer_type]

    def add(text, status, value, tags, preprompt="neutral"):
        p = CREST_PROMPTS[answer_type]
        if "cot" in preprompt:
            p = f"{COMMON.preprompts['cot'].before} {p} {COMMON.preprompts['cot'].after}"
        out.append(row(answer_type, text, status, value, tags, key=answer_type.replace("crest_", "crest_name_"),
                       preprompt=preprompt, labels=labels, prompt_text=p))

    if answer_type == "crest_program":
        # (template, what the paper's rule reads from it, tags): as for KDL and English below, the
        # whole reply, or the answer it marks (a cue, a structure, its label form "Program:")
        templates = [("{v}", "{v}", ["plain"]), ("{v}.", "{v}.", ["plain"]), ("`{v}`", "{v}", ["markdown"]),
                     ("Program: {v}", "{v}", ["plain"]),
                     ("The program code is {v}.", "The program code is {v}.", ["plain", "frame"]),
                     ("{{answer: {v}}}", "{v}", ["structured"]), ("<answer>{v}</answer>", "{v}", ["structured"]),
                     ('{{"program": "{v}"}}', "{v}", ["structured", "json"]), ("Answer: {v}", "{v}", ["cue"]),
                     ("The answer is {v}", "{v}", ["cue"]), ("```\n{v}\n```", "{v}", ["markdown"]),
                     ("Code: {v} (circle container, stacked motif)", "{v} (circle container, stacked motif)",
                      ["plain", "frame"]), ("{lower}", "{lower}", ["case"]), ("{commas}", "{commas}", ["punctuation"]),
                     ("I read this crest as {v}.", "I read this crest as {v}.", ["plain", "frame"])]
        for template, read, tags in templates:
            for _ in range(10):
                v = random_crest()[0]
                fields = {"v": v, "lower": v.lower(), "commas": v.replace(" ", ", ")}  # kept as written
                add(template.format(**fields), "ok", read.format(**fields), tags, pick(["neutral", "debiased"]))
        for _ in range(10):
            prog = random_crest()[0]
            no_x = " ".join(t for t in prog.split() if not t.startswith("X:"))
            add(f"{no_x}", "ok", no_x, ["no_modifier"])
            add(f"{prog.split()[-1]} {prog.split()[-1].replace('M:', 'M:1')}", "ok",
                f"{prog.split()[-1]} {prog.split()[-1].replace('M:', 'M:1')}", ["invalid"])
        for _ in range(12):
            v, w = random_crest()[0], random_crest()[0]
            text = (f"The outer shape is a container ({v.split()[0]}). The motif in the middle looks like "
                    f"{w.split()[-1]} at first, but the petals suggest otherwise. Final: {v}")
            add(text, "ok", v, ["cot", "several"], "cot")
            add(f"Step by step: container, then modifier, then motif. {{answer: {v}}}", "ok", v,
                ["cot", "structured"], "cot")
        for _ in range(6):
            v, w = random_crest()[0], random_crest()[0]
            if v != w:  # a hedge is a wrong prediction, not two
                add(f"Either {v} or {w}.", "ok", f"Either {v} or {w}.", ["several"])
        for t in ["I'm sorry, but I can't identify this crest.", "I cannot see the image.",
                  "Unable to determine the program code from the picture."]:
            add(t, "refusal", None, ["refusal"])
        for t in ["It's a bellflower in a circle.", "A Japanese family crest.", "The motif is a flower."]:
            add(t, "ok", t, ["plain", "frame"])  # a prediction, as in every form: a wrong one
        for t in ["", "{answer: <answer>}", "It's a bellflower.\nIt sits in a circle.",
                  "This is a traditional Japanese family crest drawn in black on a white ground, with a ring around "
                  "a flower of five petals, each petal rounded at its tip, and a small circle at the centre of the "
                  "flower where the petals meet, like many crests of its kind."]:
            add(t, "unparsed", None, ["unparsed"])  # prose: no prediction in any form
        return out

    # (template, what the paper's rule reads from it, tags): KamonBench scores the whole string a
    # model emits, so an unmarked reply is the prediction as written (its full stop, frame and case
    # included); a marked answer ({answer: ...}, "Answer: ...", JSON) is the marked text.
    forms = [("{v}", "{v}", ["plain"]), ("{v}.", "{v}.", ["plain"]), ("{{answer: {v}}}", "{v}", ["structured"]),
             ("Answer: {v}", "{v}", ["cue"]), ("<answer>{v}</answer>", "{v}", ["structured"]),
             ('{{"description": "{v}"}}', "{v}", ["structured", "json"])]
    if answer_type == "crest_kdl":
        forms += [("{v}です。", "{v}です。", ["plain", "frame"]), ("この家紋は{v}です。", "この家紋は{v}です。", ["plain", "frame"]),
                  ("この家紋は「{v}」です。", "この家紋は「{v}」です。", ["plain", "frame"]), ("答えは{v}", "{v}", ["cue"]),
                  ("The crest is {v} ({roman}).", "The crest is {v} ({roman}).", ["plain", "frame"]),
                  ("The kamon description is {v}.", "The kamon description is {v}.", ["plain", "frame"]),
                  ("{v}（かもん）", "{v}(かもん)", ["plain", "frame"])]  # NFKC: full-width brackets
    else:
        forms += [("A {v}.", "A {v}.", ["plain", "frame"]), ("This crest shows {v}.", "This crest shows {v}.", ["plain", "frame"]),
                  ("It is a {v}.", "It is a {v}.", ["plain", "frame"]),
                  ("The English translation is: {v}", "The English translation is: {v}", ["plain", "frame"]),
                  ("{V}", "{V}", ["case"]),
                  ("The crest depicts a {v}, a common design.", "The crest depicts a {v}, a common design.",
                   ["plain", "frame"]), ("{ja} ({v})", "{ja} ({v})", ["plain", "frame"])]
    for template, read, tags in forms:
        for _ in range(12):
            prog, kdl, en = random_crest()
            v = kdl if answer_type == "crest_kdl" else en
            fields = {"v": v, "V": v.upper(), "roman": "maru ni ...", "ja": kdl}
            value = bare(read.format(**fields), answer_type)
            add(template.format(**fields), "ok" if value else "unparsed", value, tags, pick(["neutral", "debiased"]))
    for _ in range(12):
        prog, kdl, en = random_crest()
        other = random_crest()
        v = kdl if answer_type == "crest_kdl" else en
        o = other[column]
        if o == v or o in v or v in o:
            continue
        if answer_type == "crest_kdl":
            text = f"外側は枠、中の紋を見ると、最初は{o}かと思いましたが、よく見ると違います。答えは{v}"
        else:
            text = f"At first I thought of a {o}, but the details differ. Final answer: {v}"
        add(text, "ok", v, ["cot", "several"], "cot")
        add(f"Let me reason step by step about the container and the motif. {{answer: {v}}}", "ok", v,
            ["cot", "structured"], "cot")
        hedge = bare(f"Either {v} or {o}.", answer_type)  # a hedge is a wrong prediction, not two
        add(f"Either {v} or {o}.", "ok" if hedge else "unparsed", hedge, ["several"])
    # an answer that contains the target is not the target: an extra outer container
    for _ in range(6):
        prog, kdl, en = random_crest()
        c = pick(CONTAINERS)
        wrapped = f"{c[1]}に{kdl}" if answer_type == "crest_kdl" else f"{en} in {article(c[2])} {c[2]}"
        add(wrapped, "ok", wrapped, ["extra_container"])
    free = ["鶴の丸", "丸に蔦", "丸に違い鷹の羽"] if answer_type == "crest_kdl" else \
        ["crane in a circle", "ivy leaf in a circle", "crossed hawk feathers in a circle"]
    for f in free:
        add(f, "ok", f, ["free_text"])
        add(f"{f}.", "ok", f"{f}.", ["free_text"])
    for t in ["I'm sorry, but I can't identify this crest.", "I cannot see the image.",
              "Unable to determine the crest from the picture."]:
        add(t, "refusal", None, ["refusal"])
    long = ("This is a traditional Japanese family crest with an elegant design featuring several elements "
            "arranged symmetrically within a border, typical of the Edo period style.\nIt is very beautiful.")
    for t in ["", long, "{answer: <answer>}"]:
        add(t, "unparsed", None, ["unparsed"])
    return out


# --- hand-written answers, in the style of real VLM replies -----------------------------------------
# (answer type, prompt key or None, preprompt, text, status, value); prompts as in `handwritten_prompt`.
HANDWRITTEN = [
    ("integer", "count_pieces", "neutral", "**Answer:** 7", "ok", 7),
    ("integer", "count_pieces", "neutral", "There are **9** pieces on the chessboard.", "ok", 9),
    ("integer", "count_pieces", "neutral", "I count 6 chess pieces: 4 pawns, 1 rook and 1 king.", "ok", 6),
    ("integer", "count_pieces", "neutral", "6 (4 white, 2 black)", "ok", 6),
    ("integer", "count_pieces", "neutral", "The chessboard has eleven pieces on it.", "ok", 11),
    ("integer", "count_pieces", "neutral", "3-4 pieces", "ambiguous", None),
    ("integer", "count_pieces", "neutral", "around 10 or 11", "ambiguous", None),
    ("integer", "count_pieces", "cot", "Let me count the pieces one by one.\n1. White pawn on the left\n"
     "2. Black rook\n3. White knight\n4. Black king\n\nThat's 4 pieces in total.\n\n{answer: 4}", "ok", 4),
    ("integer", "count_pieces", "cot", "Scanning from left to right: pawn (1), rook (2), bishop (3), queen (4), "
     "king (5). So there are 5 pieces.", "ok", 5),
    ("integer", "count_pieces", "cot", "Row by row:\n- Row 0: 2 pieces\n- Row 1: 0 pieces\n- Row 2: 3 pieces\n"
     "Total = 5", "ok", 5),
    ("integer", "count_pieces", "neutral", "There are 2 white pieces and 3 black pieces.", "ambiguous", None),
    ("integer", "count_pieces", "neutral", "The image shows a chessboard with 8 pieces. Two of them are kings.",
     "ok", 8),
    ("integer", "count_pieces", "neutral", "I see a total of 12 pieces.", "ok", 12),
    ("integer", "count_pieces", "neutral", "12 pieces, 6 of each colour.", "ok", 12),
    ("integer", "count_pieces", "neutral", "There's only one piece on the board.", "ok", 1),
    ("integer", "count_pieces", "neutral", "The board is empty - there are no pieces.", "ok", 0),
    ("integer", "count_pieces", "neutral", "Number of pieces: 14", "ok", 14),
    ("integer", "count_pieces", "neutral", "14.0", "ok", 14),
    ("integer", "count_pieces", "neutral", "about 3.5", "ok", 3.5),
    ("integer", "count_objects", "neutral", "There are 5 objects: a red cube, a blue sphere, two cylinders and a "
     "cone.", "ok", 5),
    ("integer", "count_objects", "neutral", "In the image there are six objects.", "ok", 6),
    ("integer", "count_objects", "neutral", "Answer: 5\n\nExplanation: I see 2 cubes, 2 spheres and 1 cone.",
     "ok", 5),
    ("integer", "count_objects", "neutral", "5\n\nThe scene contains 2 cubes and 3 spheres.", "ok", 5),
    ("integer", "count_objects", "neutral", "I'm not sure, but I think there are 7 objects.", "ok", 7),
    ("integer", "count_objects", "neutral", "I can't be certain, but there seem to be 4 objects.", "ok", 4),
    ("integer", "count_objects", "neutral", "The image contains 10 objects.\nFinal answer: 10", "ok", 10),
    ("integer", "count_objects", "neutral", "The answer is 3 or 4.", "ambiguous", None),
    ("row", None, "neutral", "**Row 3**", "ok", 3),
    ("row", None, "neutral", "The piece is on row 3 (counting from 0 at the top).", "ok", 3),
    ("row", None, "neutral", "It's on the 4th row from the top, which is row 3.", "ok", 3),
    ("row", None, "neutral", "4th row", "ambiguous", None),
    ("row", None, "neutral", "The piece is in row 0, the top row.", "ok", 0),
    ("row", None, "neutral", "The board is 8x8 and the piece sits on row 6.", "ok", 6),
    ("row", None, "helpful", "Rows are numbered from 0 at the top of the image to 7 at the bottom. The piece is on "
     "row 5.", "ok", 5),
    ("row", None, "neutral", "Row: 2\nColumn: 4", "ok", 2),
    ("row", None, "neutral", "The piece is located in row 1, column 6.", "ok", 1),
    ("row", None, "cot", "Counting from the top: row 0 is empty, row 1 is empty, row 2 has the piece. {answer: 2}",
     "ok", 2),
    ("row", None, "cot", "Row 0 is the top row. The piece is three squares below it, so it is on row 3.", "ok", 3),
    ("column", None, "neutral", "**Column 5**", "ok", 5),
    ("column", None, "neutral", "The piece is on column 2 (counting from 0 at the left).", "ok", 2),
    ("column", None, "neutral", "Column index: 7", "ok", 7),
    ("column", None, "neutral", "It's in the leftmost column, column 0.", "ok", 0),
    ("column", None, "neutral", "Row 4, column 1", "ok", 1),
    ("column", None, "neutral", "Column 6, that is the seventh column from the left.", "ok", 6),
    ("column", None, "cot", "From the left: columns 0 to 3 are empty, the piece stands in column 4. {answer: 4}",
     "ok", 4),
    ("column", None, "neutral", "3rd column", "ambiguous", None),
    ("cell", None, "neutral", "The knight is at row 3, column 6.", "ok", [3, 6]),
    ("cell", None, "neutral", "**(2, 5)**", "ok", [2, 5]),
    ("cell", None, "neutral", "Row: 4\nColumn: 0", "ok", [4, 0]),
    ("cell", None, "neutral", "(row 1, col 7)", "ok", [1, 7]),
    ("cell", None, "neutral", "It is on the square at row 6 and column 2 of the 8x8 board.", "ok", [6, 2]),
    ("cell", None, "neutral", "row=5, column=3", "ok", [5, 3]),
    ("cell", None, "cot", "The piece is 2 rows down from the top and 4 columns from the left edge. {answer: (2, 4)}",
     "ok", [2, 4]),
    ("label", "identify_type_one_piece", "neutral", "**Knight**", "ok", "knight"),
    ("label", "identify_type_one_piece", "neutral", "The piece on the board is a white knight.", "ok", "knight"),
    ("label", "identify_type_one_piece", "neutral", "It appears to be a rook (castle).", "ok", "rook"),
    ("label", "identify_type_one_piece", "neutral", "Bishop - you can tell from the slit in its mitre.", "ok",
     "bishop"),
    ("label", "identify_type_one_piece", "neutral", "This is the king, identifiable by the cross on top.", "ok", "king"),
    ("label", "identify_type_one_piece", "neutral", "Pawn", "ok", "pawn"),
    ("label", "identify_type_one_piece", "neutral", "The queen.", "ok", "queen"),
    ("label", "identify_type_one_piece", "neutral", "A horse-shaped piece, i.e. a knight.", "ok", "knight"),
    ("label", "identify_type_one_piece", "neutral", "It could be a bishop or a pawn; the image is blurry.",
     "ambiguous", None),
    ("label", "identify_type_one_piece", "cot", "The piece is tall with a crown. Queens have a coronet while kings "
     "have a cross. I see a coronet, so the piece is a queen.", "ok", "queen"),
    ("label", "identify_color_one_piece", "neutral", "White.", "ok", "white"),
    ("label", "identify_color_one_piece", "neutral", "The piece is black.", "ok", "black"),
    ("label", "identify_color_one_piece", "neutral", "It's a black pawn.", "ok", "black"),
    ("label", "identify_color_one_piece", "neutral", "The piece is white, standing on a dark square.", "ok", "white"),
    ("label", "query_color_unique_shape", "neutral", "The sphere is grey.", "ok", "gray"),
    ("label", "query_color_unique_shape", "neutral", "It's turquoise.", "ok", "cyan"),
    ("label", "query_color_unique_shape", "neutral", "Purple (or violet).", "ok", "purple"),
    ("label", "query_color_unique_shape", "neutral", "Red or brown, it is hard to say.", "ambiguous", None),
    ("label", "query_shape_unique_color", "neutral", "It's a cylinder.", "ok", "cylinder"),
    ("label", "query_shape_unique_color", "neutral", "The red object is a ball.", "ok", "sphere"),
    ("label", "query_material_unique_shape", "neutral", "Metal - it is shiny and reflective.", "ok", "metal"),
    ("label", "query_material_unique_shape", "neutral", "It's made of rubber (matte surface).", "ok", "rubber"),
    ("label", "query_size_unique_shape", "neutral", "The cone is large.", "ok", "large"),
    ("label", "query_size_unique_shape", "neutral", "Small.", "ok", "small"),
    ("label_set", None, "neutral", "The board has pawns, a rook and a king.", "ok", ["king", "pawn", "rook"]),
    ("label_set", None, "neutral", "- Pawn\n- Knight\n- Queen", "ok", ["knight", "pawn", "queen"]),
    ("label_set", None, "neutral", "1. King\n2. Queen\n3. Bishop", "ok", ["bishop", "king", "queen"]),
    ("label_set", None, "neutral", "Types present: pawn, rook. No knights or bishops.", "ok", ["pawn", "rook"]),
    ("label_set", None, "neutral", "I can see two pawns, one knight (horse) and a queen.", "ok",
     ["knight", "pawn", "queen"]),
    ("label_set", None, "neutral", "Only kings.", "ok", ["king"]),
    ("label_set", None, "neutral", "rook, rook, pawn, pawn, pawn", "ok", ["pawn", "rook"]),
    ("label_set", None, "neutral", "There is a white queen, a black queen and a black bishop.", "ok",
     ["bishop", "queen"]),
    ("label_set", None, "neutral", "Castles and horses.", "ok", ["knight", "rook"]),
    ("label_set", None, "neutral", "Pawn, rook, knight, bishop, queen and king: every type is there.", "ok",
     ["bishop", "king", "knight", "pawn", "queen", "rook"]),
    ("label_set", None, "neutral", '{"types": ["pawn", "queen"]}', "ok", ["pawn", "queen"]),
    ("label_set", None, "cot", "Piece 1 looks like a bishop. Piece 2 is a pawn. Piece 3 is another pawn. "
     "Therefore the types are bishop and pawn.", "ok", ["bishop", "pawn"]),
    ("position_word", None, "neutral", "**Upper right**", "ok", "upper right"),
    ("position_word", None, "neutral", "The piece is in the upper-right part of the board.", "ok", "upper right"),
    ("position_word", None, "neutral", "It stands near the center of the board.", "ok", "center"),
    ("position_word", None, "neutral", "Lower left corner.", "ok", "lower left"),
    ("position_word", None, "neutral", "The piece is in the bottom right area of the chessboard.", "ok",
     "lower right"),
    ("position_word", None, "neutral", "Middle right.", "ok", "middle right"),
    ("position_word", None, "neutral", "Top middle (upper middle).", "ok", "upper middle"),
    ("position_word", None, "neutral", "Upper left or center, hard to tell.", "ambiguous", None),
    ("position_word", None, "cot", "The board is split into a 3x3 grid. The piece is in the top third and the left "
     "third, so it is in the upper left. {answer: upper left}", "ok", "upper left"),
    ("yes_no", "exist_color_shape", "neutral", "Yes, there is a red cube near the center.", "ok", "yes"),
    ("yes_no", "exist_color_shape", "neutral", "No. I see a red sphere and a blue cube, but no red cube.", "ok", "no"),
    ("yes_no", "exist_color_shape", "neutral", "**No**, there isn't one.", "ok", "no"),
    ("yes_no", "exist_color_shape", "neutral", "Yes.\n\nThe red cube is on the left.", "ok", "yes"),
    ("yes_no", "exist_color_shape", "neutral", "There is no red cube.", "ok", "no"),
    ("yes_no", "relate_left", "neutral", "Yes, the blue sphere is to the left of the gray cylinder.", "ok", "yes"),
    ("yes_no", "relate_left", "neutral", "No, it's on the right.", "ok", "no"),
    ("yes_no", "relate_left", "neutral", "No - the gray cylinder is further left.", "ok", "no"),
    ("yes_no", "relate_left", "cot", "The blue sphere is at the far left of the image, and the gray cylinder is "
     "near the right edge. So yes, the sphere is to the left. {answer: yes}", "ok", "yes"),
    ("yes_no", "relate_left", "cot", "Looking at the positions: the sphere is right of the cylinder. Therefore: no.",
     "ok", "no"),
    ("yes_no", "exist_color_shape", "neutral", "Yes, I can see one red cube on the right side of the image.", "ok", "yes"),
    ("yes_no", "exist_color_shape", "neutral", "No, there are only blue and green objects.", "ok", "no"),
    ("yes_no", "exist_color_shape", "neutral", "Yes - a small, shiny red cube.", "ok", "yes"),
    ("yes_no", "exist_color_shape", "neutral", "No red cube is visible.", "ok", "no"),
    ("yes_no", "exist_color_shape", "neutral", "Yes!", "ok", "yes"),
    ("yes_no", "exist_color_shape", "neutral", "Yes, there is no doubt: a red cube is visible.", "ok", "yes"),
    ("yes_no", "relate_left", "neutral", "No problem: yes, the sphere is on the left.", "ok", "yes"),
    ("yes_no", "exist_color_shape", "neutral", "Nope, I don't see one.", "ok", "no"),
    ("yes_no", "exist_color_shape", "neutral", "Answer: Yes. There is a red cube behind the sphere.", "ok", "yes"),
    ("yes_no", "exist_color_shape", "neutral", "I'm sorry, but I can't see the image you are referring to.", "refusal",
     None),
    ("yes_no", "exist_color_shape", "neutral", "The image shows several objects of different colours.", "unparsed",
     None),
    ("yes_no", "relate_left", "neutral", "Yes. The blue sphere is on the left and the gray cylinder on the right.",
     "ok", "yes"),
    ("yes_no", "relate_left", "neutral", "No. The gray cylinder is to the left of the blue sphere.", "ok", "no"),
    ("yes_no", "relate_left", "neutral", "Yes, it is to the left.", "ok", "yes"),
    ("yes_no", "relate_left", "neutral", "No, the sphere is on the right-hand side.", "ok", "no"),
    ("yes_no", "relate_left", "neutral", "Correct, the sphere is left of the cylinder.", "ok", "yes"),
    ("yes_no", "relate_left", "cot", "Step 1: the sphere is at x about 100 px. Step 2: the cylinder is at x about "
     "250 px. 100 < 250, so the answer is yes.", "ok", "yes"),
    ("yes_no", "relate_left", "cot", "Comparing horizontal positions, the cylinder comes first from the left. "
     "Thus, no.", "ok", "no"),
    ("multiple_choice", None, "neutral", "**B**", "ok", "B"),
    ("multiple_choice", None, "neutral", "The correct answer is (C).", "ok", "C"),
    ("multiple_choice", None, "neutral", "B) is the right one.", "ok", "B"),
    ("multiple_choice", None, "neutral", "I choose option D.", "ok", "D"),
    ("multiple_choice", None, "neutral", "Answer: A", "ok", "A"),
    ("multiple_choice", None, "neutral", "A or D", "ambiguous", None),
    ("multiple_choice", None, "cot", "(A) mentions a cone, but there is no cone. (B) matches. So the answer is B.",
     "ok", "B"),
    ("crest_program", None, "neutral", "**C:01 X:3 M:0008**", "ok", "C:01 X:3 M:0008"),
    ("crest_program", None, "neutral", "Program code: `C:07 X:0 M:0025`", "ok", "C:07 X:0 M:0025"),
    ("crest_program", None, "neutral", "C:01 C:02 X:2 M:0006", "ok", "C:01 C:02 X:2 M:0006"),
    ("crest_program", None, "neutral", "The crest is a circle containing three stacked bellflowers, so: C:01 X:3 "
     "M:0008", "ok", "The crest is a circle containing three stacked bellflowers, so: C:01 X:3 M:0008"),
    ("crest_program", None, "neutral", "X:5 M:0024", "ok", "X:5 M:0024"),
    ("crest_kdl", None, "neutral", "丸に桔梗", "ok", "丸に桔梗"),
    ("crest_kdl", None, "neutral", "答え：丸に三つ盛り桜", "ok", "丸に三つ盛り桜"),
    ("crest_kdl", None, "neutral", "「平角に梅」", "ok", "「平角に梅」"),
    ("crest_kdl", None, "neutral", "This crest is called 亀甲に覗き扇 in kamon terms.", "ok",
     "This crest is called 亀甲に覗き扇 in kamon terms."),
    ("crest_kdl", None, "neutral", "丸に丸に桔梗", "ok", "丸に丸に桔梗"),
    ("crest_english", None, "neutral", "Bellflower in a circle.", "ok", "Bellflower in a circle."),
    ("crest_english", None, "neutral", "**Three stacked plum blossoms in a square**", "ok",
     "Three stacked plum blossoms in a square"),
    ("crest_english", None, "neutral", "It's a bean mountain in an octagon.", "ok", "It's a bean mountain in an octagon."),
    ("crest_english", None, "neutral", "Peeking folding fan in a quince.", "ok", "Peeking folding fan in a quince."),
    ("crest_english", None, "neutral", "Answer: bellflower in a circle in a square", "ok",
     "bellflower in a circle in a square"),
]


def handwritten(answer_type: str) -> list[dict]:
    out = []
    for kind, key, preprompt, text, status, value in HANDWRITTEN:
        if kind != answer_type:
            continue
        base = [r for r in SETS[kind] if key is None or r["key"] == key]
        template = next(r for r in base if r["preprompt"] in ("neutral", "debiased"))
        p = template["prompt"]
        if "cot" in preprompt and "cot" not in template["preprompt"]:
            p = f"{COMMON.preprompts['cot'].before} {p} {COMMON.preprompts['cot'].after}"
        out.append({**template, "preprompt": preprompt, "prompt": p, "text": text, "status": status, "value": value,
                    "tags": ["handwritten"]})
    return out


SETS: dict[str, list[dict]] = {}


GENERATORS = {"integer": integer_cases, "row": lambda: line_cases("row"), "column": lambda: line_cases("column"),
              "cell": cell_cases, "label": label_cases, "label_set": label_set_cases, "position_word": position_cases,
              "yes_no": yes_no_cases, "multiple_choice": mc_cases, "crest_program": lambda: crest_cases("crest_program"),
              "crest_kdl": lambda: crest_cases("crest_kdl"), "crest_english": lambda: crest_cases("crest_english")}


def main(names: list[str]) -> None:
    """Write the corpora of `names` (every answer type without them). The crest corpora draw from
    a stream of their own, so each can be rewritten alone."""
    for name in names or GENERATORS:
        SETS[name] = GENERATORS[name]()
    for name, rows in SETS.items():
        rows = rows + handwritten(name)
        (HERE / f"{name}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        print(f"{name}: {len(rows)}")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
