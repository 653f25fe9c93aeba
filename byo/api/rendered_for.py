"""Rendering what models receive: `byo render --for MODEL` and `byo run --received-size`.

`sized_for` gives the size to render a config at for some models: the largest image any of them
receives of a render at the config's size (byo.providers.image_pipeline.render_size), never
above it; and what each model receives of that render. `config_for` lays that size over the
config, with each model's received size in `scene.render.counterfactual.received`, so that the
legends record the sizes and the counterfactual check is measured at each of them as well
(byo.render.counterfactuals). The dataset keeps the record (RENDERED_FOR): `byo eval` of a
model that would receive more than was rendered is refused (rendered_for_problem), never sent
an image upscaled.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from byo.core.dataset import atomic_write_text
from byo.core.errors import ConfigError
from byo.families import load_config
from byo.providers import PROVIDERS, pipeline_of
from byo.providers.image_pipeline import RENDERED_FOR, render_size
from byo.scene.config import parse_resolution, quick_config, set_path
from byo.scene.setup import RESOLUTION

__all__ = ["RENDERED_FOR", "SizedFor", "config_for", "config_resolution", "image_models", "receivers",
           "rendered_for", "rendered_for_clash", "sized_for", "write_record"]


@dataclass(frozen=True)
class SizedFor:
    """The size to render for `models`, and what each receives of a render at that size."""

    config: tuple[int, int]  # the config's resolution (or the one asked for)
    size: tuple[int, int]  # rendered: the largest any model receives of `config`, never above it
    received: dict[str, tuple[int, int]]  # model -> the whole image as it receives a render at `size`
    of_config: dict[str, dict]  # model -> what it receives of a render at `config` (Received.to_json)
    detail: str | None = None  # OpenAI's image detail the models are asked at

    @property
    def record(self) -> dict:
        """The dataset's RENDERED_FOR record."""
        return {"config": list(self.config), "rendered": list(self.size), "models": self.of_config,
                "received": {m: list(s) for m, s in self.received.items()},
                **({"detail": self.detail} if self.detail else {})}


def config_resolution(config: str | Path, resolution: str | None = None) -> tuple[int, int]:
    """The config's scene.resolution in pixels (or `resolution`'s, WIDTHxHEIGHT or a preset)."""
    given = parse_resolution(resolution) if resolution else load_config(config).scene.get("resolution", "high")
    if isinstance(given, str):
        return RESOLUTION[given]
    return int(given[0]), int(given[1])


def sized_for(config: str | Path, models: Sequence[str], *, detail: str | None = None,
              resolution: str | None = None, field: str = "for_models") -> SizedFor:
    """The size to render `config` at for `models` (PROVIDER:MODEL each; OpenAI's `detail`): a
    ConfigError naming `field` for a model whose received size is not published."""
    size = config_resolution(config, resolution)
    pipelines = {spec: pipeline_of(spec, detail=detail, field=field) for spec in models}
    try:
        render, of_config = render_size(size, pipelines)
    except ValueError as err:
        raise ConfigError(str(config), [(field, str(err))]) from None
    received = {spec: p.receive(*render).resampled for spec, p in pipelines.items()}
    return SizedFor(size, render, received, of_config, detail)


def config_for(config: str | Path | dict, sized: SizedFor, *, quality: str | None = None,
               file: str | None = None) -> dict:
    """The config's data rendered at `sized.size`, each model's received size recorded in
    scene.render.counterfactual.received (the legends carry it; the check is measured there too)."""
    data = quick_config(config, quality=quality, resolution=f"{sized.size[0]}x{sized.size[1]}", file=file)
    set_path(data.setdefault("scene", {}), "render.counterfactual.received",
             {m: list(s) for m, s in sized.received.items()})
    return data


def write_record(dataset: str | Path, sized: SizedFor) -> Path:
    """DATASET/RENDERED_FOR: the config's size, the size rendered and what each model receives."""
    path = Path(dataset) / RENDERED_FOR
    atomic_write_text(path, json.dumps(sized.record, indent=1) + "\n")
    return path


def image_models(specs) -> list[str]:
    """PROVIDER:MODEL of each model spec (byo.api.experiment.ModelSpec) that looks at the image:
    the references (blind, oracle...) and text-only providers left out."""
    return [f"{m.provider}:{m.model}" for m in specs if m.model and m.provider in PROVIDERS
            and PROVIDERS[m.provider].needs_image and not PROVIDERS[m.provider].reference]


def receivers(models: Sequence[str], detail: str | None = None, field: str = "models") -> dict:
    """Per model whose received size is published, its rule as the question generator takes it
    (sent size -> the whole image at the received scale): byo.questions.generate's `received`.
    The others (Gemini's, an unknown model's) are left out: they are asked every question."""
    pipelines = {spec: pipeline_of(spec, detail=detail, field=field) for spec in models}
    return {spec: (lambda w, h, p=p: p.receive(w, h).resampled) for spec, p in pipelines.items()
            if p.receive(1920, 1080).known}


def rendered_for_clash(dataset: str | Path, sized: SizedFor) -> str | None:
    """Why `dataset`, rendered for other models, cannot be rendered for these (a model receives
    more than was rendered, or less: the images would change), or None. Never upscaled: it is
    rendered again only into another folder."""
    path = Path(dataset) / RENDERED_FOR
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text())
        rendered, models = tuple(int(v) for v in record["rendered"]), list(record.get("models") or {})
    except (ValueError, KeyError, TypeError):
        return (f"{path}: expected config and rendered as [width, height] (a render for models, `for_models`, "
                "writes it)")
    if rendered == sized.size:
        return None
    more = [m for m, s in sized.received.items() if m not in models and (s[0] > rendered[0] or s[1] > rendered[1])]
    why = f"{', '.join(more)} receives more" if more else "the models' largest received size differs"
    return (f"{dataset} was rendered at {rendered[0]}x{rendered[1]} for {', '.join(models)}; {why} "
            f"({sized.size[0]}x{sized.size[1]}): render into another output (-o), never upscaled")


def rendered_for(dataset: str | Path) -> tuple[list[str], str | None]:
    """The models a dataset was rendered for (its RENDERED_FOR record) and their detail; none
    without a record, or with one byo cannot read (byo eval names that one)."""
    path = Path(dataset) / RENDERED_FOR
    try:
        record = json.loads(path.read_text()) if path.is_file() else {}
        return [str(m) for m in record.get("models") or {}], record.get("detail")
    except (ValueError, AttributeError, TypeError):
        return [], None
