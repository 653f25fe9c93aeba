"""The plugin shape shared by every scene family (pure Python; the bpy side lives in byo.render)."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from pydantic import BaseModel

from byo.setup import ResolvedSetup
from byo.spec import SceneObject


class Family(Protocol):
    name: str
    content_model: type[BaseModel]
    default_scene: dict[str, Any]  # family defaults under the user's `scene`
    builder: str  # module in byo.render.builders that realizes the spec in Blender

    def sample(self, content: BaseModel, setup: ResolvedSetup, *, draw: np.random.Generator,
               place: np.random.Generator) -> tuple[list[SceneObject], dict[str, Any]]:
        """Objects and family ground truth. `draw` picks what is in the scene, `place` where."""

    def landmarks(self, spec) -> dict[str, list[tuple[float, float, float]]]:
        """Named 3D points whose projection the legend records (e.g. board corners)."""

    def export(self, layout, legends: list[dict[str, Any]]) -> dict[str, Any]:
        """Dataset-level files in the family's own formats; returns name -> path."""

    def legend_lines(self, legend: dict[str, Any]) -> list[str]:
        """Family-specific lines of the human-readable legend."""
