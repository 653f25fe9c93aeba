"""The Family subclass: the parts of the family, declared on the class, and `sample`, which
turns the validated content and the resolved setup into the scene's objects (pure Python)."""

from typing import Any

from byo.families.api import Family, SceneObject

from .answers import ANSWERS
from .metrics import ANSWER_TYPES
from .model import ToyContent
from .sheet import SHEETS
from .vocab import VOCABULARY


class ToyFamily(Family):
    # name: not set, so the family is named after its package ("toy"), as its entry point is.
    content_model = ToyContent
    template_package = __package__  # the question templates ship with the family...
    template_file = "toy.yaml"  # ...in this file
    answers = ANSWERS  # question key -> answer function
    vocabulary = VOCABULARY  # label synonyms, for parsing answers
    answer_types = ANSWER_TYPES  # an answer type of its own, with the metrics table it carries
    design_keys = ("count", "size")  # what the Blender add-on's panel shows
    audit = "audit"  # the module that recomputes the answers from the masks (byo audit)
    sheets = SHEETS  # byo sheet toy
    # builder = "builder" is the default: the module that builds a spec in Blender
    default_scene: dict[str, Any] = {"camera": {"distance": 1.0, "elevation": 60.0}, "table": {"enabled": False}}

    def sample(self, content, setup, *, draw, place):
        """The cubes in a row along y, each at a random x: `place` draws where things stand
        (a new placement draws again); `draw` would draw what is in the scene."""
        xs = place.uniform(-0.15, 0.15, size=content.count)
        return [SceneObject(id=k + 1, name=f"cube_{k + 1}", kind="cube", attributes={"shape": "cube"},
                            location=(round(float(x), 6), round(0.2 * (k - (content.count - 1) / 2), 6), content.size),
                            rotation=0.0, scale=content.size)
                for k, x in enumerate(xs)], {}

    def caption(self, legend: dict[str, Any]) -> str:
        return f"{sum(o['visible'] for o in legend['objects'])} cubes"
