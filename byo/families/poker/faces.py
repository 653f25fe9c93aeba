"""Playing-card textures drawn by the project with Pillow: the 52 faces and the backs.

Pure Python (no bpy). Every face has its rank and suit index in the top-left corner and,
turned half a turn, in the bottom-right corner; number cards carry the usual pip layouts, aces
one large pip, and the court cards (jack, queen, king) a framed, mirrored figure made of
shapes with its big letter. Suits are drawn as shapes (circles and polygons), ranks with the
DejaVu fonts `make install` provides.

Textures are drawn once per design and kept on disk (`texture_dir`), in a folder named by a
hash of this module's source, its parameters and the Pillow version: a change to the drawing
code draws them again; nothing is drawn per image.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

import numpy as np
import PIL
from PIL import Image, ImageDraw, ImageFont

from byo.families.api import atomic_write_bytes, png_bytes

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES = {"A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
              "8": "eight", "9": "nine", "10": "ten", "J": "jack", "Q": "queen", "K": "king"}
RED_SUITS = ("H", "D")
DECK = tuple(r + s for s in SUITS for r in RANKS)  # "AS" ... "KC"
BACKS = {"blue": (0.13, 0.25, 0.62), "red": (0.66, 0.10, 0.12)}  # sRGB

CARD_ASPECT = 63.5 / 88.9  # width / height of a poker card (63.5 x 88.9 mm)
# Texture size in pixels (about the card's aspect) and supersampling for smooth edges.
WIDTH, HEIGHT = 500, 700
SUPERSAMPLE = 2
# The corner index (rank over suit) as a fraction of the face: [u0, v0, u1, v1] from the
# top-left corner, y down. The bottom-right index is the same box turned half a turn.
INDEX_BOX = (0.025, 0.02, 0.225, 0.33)
# An ace's one large central pip (drawn by _pips), as the same fractions: an ace reads from it
# when its corner index does not (a person sees one big spade: the ace of spades).
ACE_PIP_W = 0.42  # of the width; its height is 1.1 x that, in pixels of the face
ACE_PIP_BOX = (0.5 - ACE_PIP_W / 2, 0.5 - 0.55 * ACE_PIP_W * WIDTH / HEIGHT,
               0.5 + ACE_PIP_W / 2, 0.5 + 0.55 * ACE_PIP_W * WIDTH / HEIGHT)
INK = {"red": (200, 16, 32), "black": (18, 18, 18)}
PAPER = (250, 250, 246)
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
RANK_FONT = FONT_DIR / "DejaVuSans-Bold.ttf"
COURT_FONT = FONT_DIR / "DejaVuSerif-Bold.ttf"


def card_color(code: str) -> str:
    return "red" if code[-1] in RED_SUITS else "black"


def card_name(code: str) -> str:
    """"QH" -> "queen of hearts"."""
    return f"{RANK_NAMES[code[:-1]]} of {SUIT_NAMES[code[-1]]}"


def normalize(code: str) -> str:
    """A card code in the canonical form ("qh", "TD" -> "QH", "10D"); ValueError if it is none."""
    c = str(code).strip().upper()
    rank, suit = c[:-1], c[-1:]
    rank = "10" if rank == "T" else rank
    if rank not in RANKS or suit not in SUITS:
        raise ValueError(f"{code!r} is not a card: expected a rank ({' '.join(RANKS)}) then a suit (S H D C), "
                         "e.g. AS, 10H, QD")
    return rank + suit


# --- suits as shapes ----------------------------------------------------------------------
def _circle(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill) -> None:
    draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=fill)


def draw_suit(draw: ImageDraw.ImageDraw, suit: str, box: tuple[float, float, float, float], fill,
              upside_down: bool = False) -> None:
    """A suit symbol filling `box` (x0, y0, x1, y1), point or stem down unless `upside_down`."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0

    def p(u: float, v: float) -> tuple[float, float]:
        return (x0 + u * w, y0 + (1 - v if upside_down else v) * h)

    def disc(u: float, v: float, r: float) -> None:
        cx, cy = p(u, v)
        _circle(draw, cx, cy, r * w, fill)

    if suit == "D":
        draw.polygon([p(0.5, 0.0), p(0.88, 0.5), p(0.5, 1.0), p(0.12, 0.5)], fill=fill)
    elif suit == "H":
        disc(0.27, 0.30, 0.27)
        disc(0.73, 0.30, 0.27)
        draw.polygon([p(0.01, 0.36), p(0.5, 0.30), p(0.99, 0.36), p(0.5, 0.98)], fill=fill)
    elif suit == "S":
        disc(0.27, 0.60, 0.25)
        disc(0.73, 0.60, 0.25)
        draw.polygon([p(0.02, 0.56), p(0.5, 0.0), p(0.98, 0.56), p(0.5, 0.70)], fill=fill)
        draw.polygon([p(0.5, 0.62), p(0.30, 1.0), p(0.70, 1.0)], fill=fill)
    elif suit == "C":
        disc(0.5, 0.26, 0.23)
        disc(0.25, 0.60, 0.23)
        disc(0.75, 0.60, 0.23)
        draw.polygon([p(0.40, 0.35), p(0.60, 0.35), p(0.62, 0.62), p(0.38, 0.62)], fill=fill)
        draw.polygon([p(0.5, 0.55), p(0.30, 1.0), p(0.70, 1.0)], fill=fill)
    else:
        raise ValueError(f"unknown suit {suit!r}")


# --- text ---------------------------------------------------------------------------------
@cache
def _font(path: Path, size: int) -> ImageFont.FreeTypeFont:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: `make install` installs Debian's fonts-dejavu-core")
    return ImageFont.truetype(str(path), size)


def _text_in_box(img: Image.Image, text: str, box: tuple[int, int, int, int], fill, font: Path) -> None:
    """`text` cropped to its ink, scaled to fill `box` and centred; a wide text such as "10" may
    be squeezed to half its width."""
    x0, y0, x1, y1 = box
    size = 4 * (y1 - y0)
    face = _font(font, size)
    left, top, right, bottom = face.getbbox(text)
    glyph = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(glyph).text((2 - left, 2 - top), text, fill=255, font=face)
    glyph = glyph.crop(glyph.getbbox())
    bw, bh = x1 - x0, y1 - y0
    scale = min(bh / glyph.height, 2.0 * bw / glyph.width)
    w, h = min(bw, round(glyph.width * scale)), round(glyph.height * scale)
    glyph = glyph.resize((w, h), Image.LANCZOS)
    ink = Image.new("RGB", glyph.size, fill)
    img.paste(ink, (x0 + (bw - w) // 2, y0 + (bh - h) // 2), glyph)


# --- faces --------------------------------------------------------------------------------
PIP_COLUMNS = (0.34, 0.5, 0.66)  # left, middle, right (fractions of the width)
PIP_TOP, PIP_BOTTOM = 0.15, 0.85  # first and last pip row centres (fractions of the height)
PIPS = {  # (column, row in [0, 1] from the top) of each pip
    "2": [(1, 0), (1, 1)],
    "3": [(1, 0), (1, 0.5), (1, 1)],
    "4": [(0, 0), (2, 0), (0, 1), (2, 1)],
    "5": [(0, 0), (2, 0), (1, 0.5), (0, 1), (2, 1)],
    "6": [(0, 0), (2, 0), (0, 0.5), (2, 0.5), (0, 1), (2, 1)],
    "7": [(0, 0), (2, 0), (1, 0.25), (0, 0.5), (2, 0.5), (0, 1), (2, 1)],
    "8": [(0, 0), (2, 0), (1, 0.25), (0, 0.5), (2, 0.5), (1, 0.75), (0, 1), (2, 1)],
    "9": [(0, 0), (2, 0), (0, 1 / 3), (2, 1 / 3), (1, 0.5), (0, 2 / 3), (2, 2 / 3), (0, 1), (2, 1)],
    "10": [(0, 0), (2, 0), (1, 1 / 6), (0, 1 / 3), (2, 1 / 3), (0, 2 / 3), (2, 2 / 3), (1, 5 / 6), (0, 1),
           (2, 1)],
}
PIP_SIZE = 0.15  # pip width, fraction of the card width


def _index(img: Image.Image, code: str, ink) -> None:
    """Rank over suit in the top-left corner (the caller turns the card for the other corner)."""
    W, H = img.size
    u0, v0, u1, v1 = INDEX_BOX
    x0, y0, x1, y1 = round(u0 * W), round(v0 * H), round(u1 * W), round(v1 * H)
    pad = round(0.012 * W)
    rank_bottom = y0 + round(0.54 * (y1 - y0))
    _text_in_box(img, code[:-1], (x0 + pad, y0 + pad, x1 - pad, rank_bottom), ink, RANK_FONT)
    side = min(x1 - x0 - 2 * pad, y1 - rank_bottom - 2 * pad)
    cx = (x0 + x1) / 2
    top = rank_bottom + pad * 1.5
    draw_suit(ImageDraw.Draw(img), code[-1], (cx - side / 2, top, cx + side / 2, top + side), ink)


def _pips(draw: ImageDraw.ImageDraw, code: str, W: int, H: int, ink) -> None:
    rank, suit = code[:-1], code[-1]
    if rank == "A":
        s = ACE_PIP_W * W
        draw_suit(draw, suit, (W / 2 - s / 2, H / 2 - s * 0.55, W / 2 + s / 2, H / 2 + s * 0.55), ink)
        return
    s = PIP_SIZE * W
    for col, row in PIPS[rank]:
        cx = PIP_COLUMNS[col] * W
        cy = (PIP_TOP + row * (PIP_BOTTOM - PIP_TOP)) * H
        draw_suit(draw, suit, (cx - s / 2, cy - s * 0.55, cx + s / 2, cy + s * 0.55), ink,
                  upside_down=row > 0.5)


# Court figures' robe and trim colours (the headdress and the hair or beard differ by rank).
COURT = {"J": {"robe": (40, 110, 60), "trim": (230, 180, 40)},
         "Q": {"robe": (120, 40, 130), "trim": (230, 180, 40)},
         "K": {"robe": (170, 30, 40), "trim": (230, 180, 40)}}
SKIN = (240, 205, 170)


def _headdress(draw: ImageDraw.ImageDraw, rank: str, cx: float, top: float, r: float, color) -> None:
    """King: a five-point crown; queen: a rounded tiara with a jewel; jack: a cap with a feather."""
    if rank == "K":
        base, peak = top, top - 1.3 * r
        pts = [(cx - r, base)]
        for k in range(5):
            x = cx - r + (k + 0.5) * 2 * r / 5
            pts += [(x - 0.2 * r, base - 0.55 * r), (x, peak), (x + 0.2 * r, base - 0.55 * r)]
        pts.append((cx + r, base))
        draw.polygon(pts, fill=color, outline=(90, 60, 10))
        for k in range(5):
            _circle(draw, cx - r + (k + 0.5) * 2 * r / 5, peak, 0.13 * r, (200, 30, 40))
    elif rank == "Q":
        draw.chord([cx - r, top - 1.1 * r, cx + r, top + 0.9 * r], 180, 360, fill=color, outline=(90, 60, 10))
        _circle(draw, cx, top - 0.55 * r, 0.22 * r, (60, 120, 210))
        for k in (-1, 1):
            _circle(draw, cx + k * 0.6 * r, top - 0.3 * r, 0.14 * r, (255, 255, 255))
    else:
        draw.rectangle([cx - 1.05 * r, top - 0.45 * r, cx + 1.05 * r, top + 0.05 * r], fill=color,
                       outline=(90, 60, 10))
        draw.polygon([(cx + 0.4 * r, top - 0.4 * r), (cx + 1.6 * r, top - 1.6 * r), (cx + 0.9 * r, top - 0.3 * r)],
                     fill=(230, 60, 60))


def _court_half(rank: str, suit: str, w: int, h: int, ink) -> Image.Image:
    """The upper half of a court card's framed picture; the lower half is this turned."""
    half = Image.new("RGB", (w, h), (252, 246, 225))
    d = ImageDraw.Draw(half)
    style = COURT[rank]
    cx, r = 0.5 * w, 0.16 * w
    head_y = 0.48 * h
    # Robe: shoulders and body down to the middle line, with a trim band.
    d.polygon([(cx - 2.6 * r, h), (cx - 1.9 * r, head_y + 1.3 * r), (cx + 1.9 * r, head_y + 1.3 * r),
               (cx + 2.6 * r, h)], fill=style["robe"])
    d.polygon([(cx - 0.5 * r, head_y + 1.3 * r), (cx + 0.5 * r, head_y + 1.3 * r), (cx + 0.25 * r, h),
               (cx - 0.25 * r, h)], fill=style["trim"])
    _circle(d, cx, head_y, r, SKIN)
    d.ellipse([cx - 0.45 * r, head_y - 0.25 * r, cx - 0.2 * r, head_y], fill=(30, 30, 30))
    d.ellipse([cx + 0.2 * r, head_y - 0.25 * r, cx + 0.45 * r, head_y], fill=(30, 30, 30))
    if rank == "K":  # a beard
        d.chord([cx - 0.9 * r, head_y - 0.1 * r, cx + 0.9 * r, head_y + 1.25 * r], 0, 180, fill=(120, 80, 40))
    elif rank == "Q":  # long hair either side
        for k in (-1, 1):
            d.rectangle([cx + k * 0.85 * r - 0.25 * r, head_y - 0.2 * r, cx + k * 0.85 * r + 0.25 * r,
                         head_y + 1.2 * r], fill=(150, 90, 30))
    _headdress(d, rank, cx, head_y - 0.8 * r, 1.05 * r, style["trim"])
    # The big letter and a suit symbol in the picture's top corners.
    size = round(0.22 * w)
    _text_in_box(half, rank, (round(0.05 * w), round(0.05 * h), round(0.05 * w) + size, round(0.05 * h) + size),
                 ink, COURT_FONT)
    s = 0.17 * w
    draw_suit(d, suit, (0.93 * w - s, 0.06 * h, 0.93 * w, 0.06 * h + 1.1 * s), ink)
    return half


def _court(img: Image.Image, code: str, ink) -> None:
    W, H = img.size
    x0, y0, x1, y1 = round(0.25 * W), round(0.11 * H), round(0.75 * W), round(0.89 * H)
    w, hh = x1 - x0, (y1 - y0) // 2
    upper = _court_half(code[:-1], code[-1], w, hh, ink)
    img.paste(upper, (x0, y0))
    img.paste(upper.rotate(180), (x0, y0 + hh))
    d = ImageDraw.Draw(img)
    d.rectangle([x0, y0, x1, y0 + 2 * hh], outline=ink, width=max(2, W // 120))
    d.line([(x0, y0 + hh), (x1, y0 + hh)], fill=ink, width=max(1, W // 250))


def face(code: str, width: int = WIDTH, height: int = HEIGHT) -> Image.Image:
    """The face of card `code` ("QH"), `width` x `height` pixels, RGB."""
    code = normalize(code)
    W, H = width * SUPERSAMPLE, height * SUPERSAMPLE
    ink = INK[card_color(code)]
    img = Image.new("RGB", (W, H), PAPER)
    if code[:-1] in ("J", "Q", "K"):
        _court(img, code, ink)
    else:
        _pips(ImageDraw.Draw(img), code, W, H, ink)
    _index(img, code, ink)
    img = img.rotate(180)
    _index(img, code, ink)
    img = img.rotate(180)
    return img.resize((width, height), Image.LANCZOS)


def back(design: str, width: int = WIDTH, height: int = HEIGHT) -> Image.Image:
    """A card back: a white margin around a coloured field with a diagonal lattice and a medallion."""
    if design not in BACKS:
        raise ValueError(f"unknown card back {design!r}; expected one of {', '.join(BACKS)}")
    W, H = width * SUPERSAMPLE, height * SUPERSAMPLE
    color = tuple(round(255 * c) for c in BACKS[design])
    light = tuple(min(255, round(c + 0.55 * (255 - c))) for c in color)
    img = Image.new("RGB", (W, H), PAPER)
    d = ImageDraw.Draw(img)
    m = round(0.06 * W)
    d.rounded_rectangle([m, m, W - m, H - m], radius=round(0.04 * W), fill=color)
    field = Image.new("RGB", (W - 2 * m, H - 2 * m), color)
    fd = ImageDraw.Draw(field)
    step, lw = round(0.07 * W), max(2, W // 160)
    for k in range(-H, W + H, step):
        fd.line([(k, 0), (k + H, H)], fill=light, width=lw)
        fd.line([(k, 0), (k - H, H)], fill=light, width=lw)
    mask = Image.new("L", field.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle([m // 2, m // 2, field.width - m // 2, field.height - m // 2],
                                           radius=round(0.03 * W), fill=255)
    img.paste(field, (m, m), mask)
    cx, cy, r = W / 2, H / 2, 0.2 * W
    d.ellipse([cx - r, cy - 1.2 * r, cx + r, cy + 1.2 * r], fill=PAPER)
    d.ellipse([cx - 0.8 * r, cy - r, cx + 0.8 * r, cy + r], fill=color)
    for k, suit in enumerate(SUITS):
        s = 0.5 * r
        ox, oy = (-0.3 * r, -0.35 * r) if k % 2 == 0 else (0.3 * r, -0.35 * r)
        oy += 0.7 * r * (k // 2)
        draw_suit(d, suit, (cx + ox - s / 2, cy + oy - s / 2, cx + ox + s / 2, cy + oy + s / 2), light)
    return img.resize((width, height), Image.LANCZOS)


# --- the on-disk cache --------------------------------------------------------------------
def design_hash() -> str:
    """Names a design: this module's source, the texture size, the fonts and Pillow's version."""
    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update(f"{WIDTH}x{HEIGHT}x{SUPERSAMPLE}|{PIL.__version__}|{RANK_FONT}|{COURT_FONT}".encode())
    for font in (RANK_FONT, COURT_FONT):
        if font.is_file():
            h.update(hashlib.sha256(font.read_bytes()).digest())
    return h.hexdigest()[:16]


def cache_root() -> Path:
    base = os.environ.get("BYO_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "byo-render")
    return Path(base) / "cards"


@cache
def texture_dir() -> Path:
    return cache_root() / design_hash()


def texture_path(name: str) -> Path:
    """The PNG of a face ("QH") or a back ("back_blue"), drawn on first use and then reused."""
    path = texture_dir() / f"{name}.png"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        img = back(name.removeprefix("back_")) if name.startswith("back_") else face(name)
        # Several workers may draw it at once: each writes whole files, the last rename wins.
        atomic_write_bytes(path, png_bytes(np.asarray(img)))
    return path
