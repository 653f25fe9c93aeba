"""The family contract (lint/family_contract.py, configured in pyproject.toml): byo's families
keep it, and an import a family may not make breaks it."""

from __future__ import annotations

import tomllib
from copy import deepcopy

import grimp
import pytest
from conftest import ROOT

from lint.family_contract import FamilyContract


@pytest.fixture(scope="module")
def contract() -> FamilyContract:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (options,) = [c for c in config["contracts"] if c["type"] == "family"]
    return FamilyContract(options["name"], {}, {k: v for k, v in options.items() if k not in ("name", "type")})


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("byo", include_external_packages=True)


def test_every_family_of_byo_is_checked_and_keeps_it(contract, graph):
    assert contract.family_packages(graph) == [f"byo.families.{n}" for n in ("chess", "clevr", "crest", "poker")]
    assert contract.check(graph, verbose=False).kept


@pytest.mark.parametrize(("importer", "imported"), [
    ("byo.families.chess.vocab", "byo.render.runner"),  # a layer above
    ("byo.families.chess.vocab", "byo.scene.config"),  # a layer below, not re-exported
    ("byo.families.chess.family", "byo.families.base"),  # the contract's own source, not the contract
    ("byo.families.poker.answers", "byo.families.chess.model"),  # another family
    ("byo.families.clevr.family", "byo.blender.meshes"),  # the toolkit outside the builder
])
def test_an_import_a_family_may_not_make_breaks_it(contract, graph, importer, imported):
    planted = deepcopy(graph)
    planted.add_import(importer=importer, imported=imported, line_number=7, line_contents="planted")
    check = contract.check(planted, verbose=False)
    assert not check.kept
    assert check.metadata["illegal"] == [{"family": importer.rsplit(".", 1)[0], "importer": importer,
                                          "imported": imported, "lines": [7]}]


def test_the_builder_may_use_the_toolkit_and_anything_outside_byo(contract, graph):
    planted = deepcopy(graph)
    planted.add_import(importer="byo.families.clevr.builder", imported="byo.blender.engine")
    planted.add_import(importer="byo.families.clevr.model", imported="scipy")
    assert contract.check(planted, verbose=False).kept
