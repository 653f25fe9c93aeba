"""The layers of byo (pyproject.toml's import-linter contracts): byo keeps them, an upward import
breaks them, and the stage contract stays short enough to read."""

from __future__ import annotations

import tomllib
from copy import deepcopy

import grimp
import pytest
from conftest import ROOT
from importlinter.contracts.layers import LayersContract


def contract_named(start: str) -> LayersContract:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (options,) = [c for c in config["contracts"] if c["name"].startswith(start)]
    return LayersContract(options["name"], {"root_packages": ["byo"]},
                          {k: v for k, v in options.items() if k not in ("name", "type")})


@pytest.fixture(scope="module")
def stages() -> LayersContract:
    return contract_named("The packages are layered by stage")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("byo", include_external_packages=True)


def test_byo_keeps_its_stage_layers(stages, graph):
    assert stages.check(deepcopy(graph), verbose=False).kept  # a check drops the ignored imports from its graph


def test_the_stage_contract_names_a_dozen_packages(stages):
    names = {tail.name for layer in stages.layers for tail in layer.module_tails}
    assert len(names) <= 17 and {"cli", "api", "score", "scene", "core"} <= {n.rsplit(".", 1)[-1] for n in names}


@pytest.mark.parametrize(("importer", "imported"), [
    ("byo.scene.spec", "byo.score.run"),  # scoring above the scene spec
    ("byo.core.dataset", "byo.scene.config"),  # the core above nothing
    ("byo.families.chess.model", "byo.questions.generate"),  # questions are asked of families
    ("byo.score.tables", "byo.cli.score"),  # the command line is on top
])
def test_an_upward_import_breaks_the_layers(stages, graph, importer, imported):
    planted = deepcopy(graph)
    planted.add_import(importer=importer, imported=imported, line_number=3, line_contents="planted")
    assert not stages.check(planted, verbose=False).kept
