"""The public API loads one stage at a time: a name of `byo` imports the stage module that holds
it, and nothing of the later stages."""

from __future__ import annotations

import json
import subprocess
import sys
import types

import byo
from byo import api


def loaded_after(name: str) -> set[str]:
    """The modules a fresh interpreter holds after `byo.NAME`."""
    code = f"import sys, json, byo; byo.{name}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout))


def test_every_name_of_the_api_is_its_object_not_a_module():
    assert sorted(byo.API) == sorted(api.STAGES)
    for name in byo.API:
        assert not isinstance(getattr(byo, name), types.ModuleType), name
    assert byo.evaluate.__module__ == "byo.api.evaluation" and byo.plan.__module__ == "byo.api.render"


def test_planning_and_asking_load_no_later_stage():
    planning = loaded_after("plan")
    assert not {m for m in planning if m.startswith(("byo.questions", "byo.eval", "byo.score", "byo.audit"))}
    asking = loaded_after("write_questions")
    assert "byo.questions.generate" in asking
    assert not {m for m in asking if m.startswith(("byo.eval.", "byo.score.report", "matplotlib", "statsmodels"))}
