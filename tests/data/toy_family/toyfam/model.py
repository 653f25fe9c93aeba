from pydantic import Field

from byo.families.api import Strict


class ToyContent(Strict):
    count: int = Field(2, ge=1, le=4)
    size: float = Field(0.08, gt=0)
