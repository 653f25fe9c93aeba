"""The package as users install it: every module listed, and a plain (not editable)
`pip install .` that renders and writes questions from outside the source tree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, clevr_config
from setuptools import find_packages

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def folders(root: Path, package: str) -> set[str]:
    """The dotted name of `root` (as `package`) and of every folder under it, caches left out."""
    return {package, *(".".join([package, *d.relative_to(root).parts]) for d in root.rglob("*")
                       if d.is_dir() and "__pycache__" not in d.parts)}


def test_every_package_is_listed_for_the_wheel():
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    assert set(find_packages(str(ROOT), include=["byo*"])) <= listed
    # Data folders too (templates, static files, the catalogue, the packs): each one left out of
    # the list is a setuptools warning banner on every build.
    assert listed == folders(ROOT / "byo", "byo") | folders(ROOT / "questions", "byo.catalog") | folders(
        ROOT / "assets", "byo.packs")


def test_a_build_prints_no_warning(tmp_path):
    """`make install` builds the package: setuptools warns of nothing (no data folder left out)."""
    source = tmp_path / "source"
    for name in ("byo", "questions", "assets"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w",
                            str(tmp_path / "dist"), str(source)], capture_output=True, text=True, cwd=tmp_path)
    assert build.returncode == 0, build.stderr[-2000:]
    assert "Warning" not in build.stdout + build.stderr
    (wheel,) = (tmp_path / "dist").glob("byo_render-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    assert {"byo/score/templates/report.html.j2", "byo/packs/simple_deck/pack.yaml", "byo/catalog/clevr.yaml"} <= names


def test_the_asset_packs_ship_as_byo_packs_with_their_files():
    assert PYPROJECT["tool"]["setuptools"]["package-dir"]["byo.packs"] == "assets"
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["byo.packs"]
    files = [p.relative_to(ROOT / "assets") for p in (ROOT / "assets").rglob("*")
             if p.is_file() and "__pycache__" not in p.parts]  # Python's bytecode caches are not the project's
    shipped = [f for f in files if any(f.match(pattern) and len(f.parts) == len(pattern.split("/"))
                                       for pattern in patterns)]
    assert sorted(set(files) - set(shipped), key=str) == [p for p in map(Path, ["__init__.py", "make_packs.py"])]


def test_the_question_catalogue_ships_as_byo_catalog():
    assert PYPROJECT["tool"]["setuptools"]["package-dir"]["byo.catalog"] == "questions"
    families = PYPROJECT["project"]["entry-points"]["byo.families"]
    assert {name: (ROOT / "questions" / f"{name}.yaml").is_file() for name in families} == dict.fromkeys(
        families, True)


@pytest.mark.render
def test_a_plain_install_renders_and_asks_from_anywhere(tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    # The dependencies come from this environment (bpy is 374 MB); the package itself is built
    # and installed from the source tree like any user's `pip install .`.
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(site, "project_deps.pth"), "w") as f:
        f.write(sysconfig.get_paths()["purelib"] + "\n")
    # The project's own build backend (pyproject's build-system) builds the wheel that pip
    # installs, from a clean copy of the sources (setuptools would reuse a stale build/ folder).
    source = tmp_path / "source"
    for name in ("byo", "questions", "assets", "pyproject.toml", "README.md"):
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, source / name, **({"ignore": shutil.ignore_patterns("__pycache__")}
                                            if (ROOT / name).is_dir() else {}))
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"),
                            str(source)], capture_output=True, text=True, cwd=tmp_path)
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("byo_render-*.whl")
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
                             capture_output=True, text=True, cwd=tmp_path)
    assert install.returncode == 0, install.stderr[-2000:]

    work = tmp_path / "elsewhere"
    work.mkdir()
    cfg = work / "tiny.yaml"
    cfg.write_text(yaml.safe_dump(clevr_config("tiny", n_images=2)))
    byo = env_dir / "bin" / "byo"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    for args in (["render", str(cfg), "-o", "out", "--in-process"], ["questions", "out"]):
        proc = subprocess.run([str(byo), *args], capture_output=True, text=True, cwd=work, env=env, timeout=300)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert len((work / "out" / "questions.jsonl").read_text().splitlines()) > 2
    where = subprocess.run([str(python), "-c", "import json, byo, importlib.resources as r; "
                            "from byo.scene.assets import find_pack; print(json.dumps([byo.__file__, "
                            "str(r.files('byo.catalog') / 'clevr.yaml'), str(find_pack('boxwood_blend').root), "
                            "len(find_pack('simple_deck').manifest.cards)]))"],
                           capture_output=True, text=True, cwd=work, env=env, check=True).stdout
    module, catalog, pack, cards = json.loads(where)
    assert module.startswith(site) and catalog.startswith(site) and pack.startswith(site), (module, catalog, pack)
    assert sys.prefix not in catalog and cards == 52
