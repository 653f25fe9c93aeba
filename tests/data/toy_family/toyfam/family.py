from typing import Any

from byo.families.api import Family, SceneObject
from toyfam.answers import ANSWERS
from toyfam.model import ToyContent
from toyfam.vocab import VOCABULARY


class ToyFamily(Family):
    name = "toy"
    content_model = ToyContent
    template_package = "toyfam"
    template_file = "toy.yaml"
    answers = ANSWERS
    vocabulary = VOCABULARY
    audit = "audit"
    default_scene: dict[str, Any] = {"camera": {"distance": 1.0, "elevation": 60.0}, "table": {"enabled": False}}

    def sample(self, content, setup, *, draw, place):
        xs = place.uniform(-0.15, 0.15, size=content.count)
        return [SceneObject(id=k + 1, name=f"cube_{k + 1}", kind="cube", attributes={"shape": "cube"},
                            location=(round(float(x), 6), round(0.2 * (k - (content.count - 1) / 2), 6), content.size),
                            rotation=0.0, scale=content.size)
                for k, x in enumerate(xs)], {}
