"""Asset packs: a user's own chess sets, card decks and table textures. Pure Python; no bpy.

A pack is a folder with a `pack.yaml` manifest and its files:

    kind: chess_set | card_deck | table_texture
    license: CC0-1.0           # required: what users may do with the files
    source: where the files come from (a URL, or the script that made them)
    ...                        # the kind's mapping from files or objects to the family's vocabulary

A config names a pack by its folder name (or gives a folder path). Packs are looked up in the
folders of the `BYO_ASSETS` environment variable (separated like PATH), then in
`$XDG_DATA_HOME/byo/assets` (default `~/.local/share/byo/assets`), then among the packs shipped
with byo (the top-level assets/ folder, installed as `byo.packs`). The family checks that the
mapping covers its vocabulary (e.g. chess: every piece type in every colour a config uses).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import AfterValidator, Field, TypeAdapter, ValidationError, model_validator

from byo.core.schema import SRGB, Strict, validation_problems

MANIFEST = "pack.yaml"
SHIPPED = "byo.packs"  # the top-level assets/ folder, inside the wheel
ENV = "BYO_ASSETS"
MODEL_SUFFIXES = (".glb", ".gltf", ".blend")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
SUITS = ("S", "H", "D", "C")
CARDS = tuple(r + s for s in SUITS for r in RANKS)  # "AS", "10H": the notation of byo.score's card parser


class PackError(ValueError):
    """A pack that cannot be found or whose manifest or files are wrong."""


def _suffix(value: str, allowed: tuple[str, ...]) -> str:
    if Path(value).suffix.lower() not in allowed:
        raise ValueError(f"expected a file ending in {', '.join(allowed)} (got {value!r})")
    return value


ModelFile = Annotated[str, AfterValidator(lambda v: _suffix(v, MODEL_SUFFIXES))]
ImageFile = Annotated[str, AfterValidator(lambda v: _suffix(v, IMAGE_SUFFIXES))]


class _Manifest(Strict):
    license: str = Field(min_length=1)
    source: str = Field(min_length=1)
    description: str = ""

    def files(self) -> dict[str, str]:
        """Key path -> file (relative to the pack) for every file the manifest names."""
        return {}


class ChessSet(_Manifest):
    """`pieces` maps each colour to each piece type's object (or top node) in `file`."""

    kind: Literal["chess_set"]
    file: ModelFile
    pieces: dict[str, dict[str, str]] = Field(min_length=1)
    # The colour of each side's material (sRGB), recorded in legends as the pieces' `rgb`.
    colors: dict[str, SRGB] = {}

    @model_validator(mode="after")
    def _check(self):
        unknown = set(self.colors) - set(self.pieces)
        if unknown:
            raise ValueError(f"colors names {', '.join(sorted(unknown))}, which pieces does not map")
        return self

    def files(self) -> dict[str, str]:
        return {"file": self.file}

    def object_name(self, color: str, piece_type: str) -> str:
        return self.pieces[color][piece_type]


class CardDeck(_Manifest):
    """`cards` maps each of the 52 cards ("AS", "10H", "QC"...) to its face image."""

    kind: Literal["card_deck"]
    back: ImageFile
    cards: dict[str, ImageFile]
    size: tuple[float, float] = (0.0635, 0.0889)  # metres, width x height (poker size)

    @model_validator(mode="after")
    def _check(self):
        missing = [c for c in CARDS if c not in self.cards]
        extra = sorted(set(self.cards) - set(CARDS))
        if missing or extra:
            raise ValueError("cards must map exactly the 52 cards, rank then suit (AS, 10H, QC...)"
                             + (f"; missing {', '.join(missing)}" if missing else "")
                             + (f"; unknown {', '.join(extra)}" if extra else ""))
        return self

    def files(self) -> dict[str, str]:
        return {"back": self.back, **{f"cards.{code}": path for code, path in self.cards.items()}}


class Texture(Strict):
    file: ImageFile
    size: tuple[Annotated[float, Field(gt=0)], Annotated[float, Field(gt=0)]] = (0.5, 0.5)  # metres one copy covers


class TableTextures(_Manifest):
    """`textures` names each image; a config picks one (or lets each image draw one)."""

    kind: Literal["table_texture"]
    textures: dict[str, Texture] = Field(min_length=1)

    def files(self) -> dict[str, str]:
        return {f"textures.{name}.file": t.file for name, t in self.textures.items()}


Manifest = Annotated[ChessSet | CardDeck | TableTextures, Field(discriminator="kind")]
KINDS: tuple[str, ...] = ("chess_set", "card_deck", "table_texture")
_MANIFEST = TypeAdapter(Manifest)


@dataclass(frozen=True)
class Pack:
    name: str
    root: Path
    manifest: ChessSet | CardDeck | TableTextures

    @property
    def kind(self) -> str:
        return self.manifest.kind

    def path(self, relative: str) -> Path:
        return self.root / relative

    # card decks
    def card(self, code: str) -> Path:
        return self.path(self.manifest.cards[code])

    @property
    def back(self) -> Path:
        return self.path(self.manifest.back)


def _problems_text(where: Path, problems: list[tuple[str, str]]) -> str:
    return "; ".join(f"{where}: {key}: {msg}" for key, msg in problems)


@cache
def _load(root: Path, stamp: int) -> Pack:
    manifest_path = root / MANIFEST
    try:
        raw = yaml.safe_load(manifest_path.read_text())
    except yaml.YAMLError as err:
        raise PackError(f"{manifest_path}: not valid YAML: {err}") from None
    if not isinstance(raw, dict):
        raise PackError(f"{manifest_path}: expected a mapping with kind, license, source and the kind's mapping")
    if raw.get("kind") not in KINDS:
        raise PackError(f"{manifest_path}: kind: expected one of {', '.join(KINDS)} (got {raw.get('kind')!r})")
    try:
        manifest = _MANIFEST.validate_python(raw)
    except ValidationError as err:
        problems = [(key.removeprefix(f"{raw['kind']}.").removeprefix(raw["kind"]) or "<top level>", msg)
                    for key, msg in validation_problems(err)]
        raise PackError(_problems_text(manifest_path, problems)) from None
    missing = [(key, f"file {rel!r} is not in the pack") for key, rel in manifest.files().items()
               if not (root / rel).is_file()]
    if missing:
        raise PackError(_problems_text(manifest_path, missing))
    return Pack(root.name, root, manifest)


def load_pack(root: str | Path) -> Pack:
    """The pack in folder `root`, its manifest validated and its files checked (cached until the
    manifest changes)."""
    root = Path(root).expanduser().resolve()
    manifest = root / MANIFEST
    if not manifest.is_file():
        raise PackError(f"{root}: not an asset pack (no {MANIFEST})")
    return _load(root, manifest.stat().st_mtime_ns)


def pack_dirs() -> list[Path]:
    """Where packs are looked for, first match wins: $BYO_ASSETS, the user folder, then byo's own."""
    dirs = [Path(p).expanduser() for p in os.environ.get(ENV, "").split(os.pathsep) if p]
    data_home = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    dirs.append(data_home / "byo" / "assets")
    dirs.append(Path(str(files(SHIPPED))))
    return dirs


def _candidates() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder in pack_dirs():
        if folder.is_dir():
            for manifest in sorted(folder.glob(f"*/{MANIFEST}")):
                found.setdefault(manifest.parent.name, manifest.parent)
    return found


def find_pack(ref: str, kind: str | None = None) -> Pack:
    """A pack by name (searched in `pack_dirs()`) or by folder path; `kind` is checked when given."""
    looks_like_path = os.sep in ref or ref.startswith((".", "~"))
    if looks_like_path:
        pack = load_pack(ref)
    else:
        known = _candidates()
        if ref not in known:
            names = [n for n, p in known.items() if kind is None or _kind_of(p) == kind]
            raise PackError(f"no asset pack named {ref!r}" + (f" of kind {kind}" if kind else "")
                            + f"; known: {', '.join(names) or 'none'} (searched {', '.join(map(str, pack_dirs()))};"
                            f" set {ENV} to add a folder, or give the pack's folder path)")
        pack = load_pack(known[ref])
    if kind is not None and pack.kind != kind:
        raise PackError(f"asset pack {ref!r} is a {pack.kind}, not a {kind}")
    return pack


def _kind_of(root: Path) -> str | None:
    try:
        return _manifest_kind(root / MANIFEST, (root / MANIFEST).stat().st_mtime_ns)
    except OSError:
        return None


@cache
def _manifest_kind(manifest: Path, stamp: int) -> str | None:
    try:
        raw = yaml.safe_load(manifest.read_text())
    except (OSError, yaml.YAMLError):
        return None
    return raw.get("kind") if isinstance(raw, dict) else None


def list_packs(kind: str | None = None) -> list[str]:
    """Names of the packs found (of `kind`), whether or not their manifests are valid."""
    return [name for name, root in _candidates().items() if kind is None or _kind_of(root) == kind]
