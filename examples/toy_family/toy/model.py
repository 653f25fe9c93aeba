"""The content model: what a config writes under `scene.content`. Strict refuses unknown keys
and numbers given as text; every bound is a config error naming the key."""

from pydantic import Field

from byo.families.api import Strict


class ToyContent(Strict):
    count: int = Field(2, ge=1, le=4)  # cubes in the row
    size: float = Field(0.08, gt=0, le=0.2)  # half the edge of a cube, metres
