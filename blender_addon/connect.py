"""Finding the `byo` package from inside Blender: Blender's own Python, or a folder set in the
add-on's preferences (a byo-render checkout with its .venv, a virtualenv, or a site-packages
folder). Plain Python with no bpy and no relative imports, so that the preview job (a Blender
process of its own) uses it too."""

from __future__ import annotations

import glob
import importlib
import os
import site
import sys

INSTALL_HINT = (
    "BYO Render needs the byo package. Either set the add-on's preference 'byo folder' "
    "(Edit > Preferences > Add-ons > BYO Render) to your byo-render checkout after `make install`, "
    "or to a virtualenv holding byo-render for Python {version}; or install it into Blender's own "
    "Python: {python} -m pip install byo-render"
)


def hint() -> str:
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    return INSTALL_HINT.format(version=version, python=sys.executable or "<Blender's python>")


def _site_dirs(folder: str) -> list[str]:
    return sorted(glob.glob(os.path.join(folder, "lib", "python3*", "site-packages")))


def add_folder(folder: str) -> list[str]:
    """Put the byo of `folder` on sys.path: a checkout (byo/ and .venv/), a virtualenv, or a
    site-packages folder. Returns what was added."""
    folder = os.path.abspath(os.path.expanduser(folder))
    added = []
    if os.path.isdir(os.path.join(folder, "byo")) and not folder.endswith("site-packages"):
        if folder not in sys.path:
            sys.path.insert(0, folder)
            added.append(folder)
        dirs = _site_dirs(os.path.join(folder, ".venv"))
    elif folder.endswith("site-packages"):
        dirs = [folder]
    else:
        dirs = _site_dirs(folder)
    for d in dirs:
        if d not in sys.path:
            site.addsitedir(d)  # after Blender's own paths: its bundled modules win
            added.append(d)
    return added


def connect(folder: str = "") -> str | None:
    """Import byo (after adding `folder` when given); returns None, or what went wrong and what
    to do about it."""
    if folder:
        if not os.path.isdir(os.path.expanduser(folder)):
            return f"The byo folder {folder!r} does not exist. " + hint()
        add_folder(folder)
    importlib.invalidate_caches()
    try:
        import byo.core.blender_python

        if _in_blender_binary():
            byo.core.blender_python.import_with_their_own_libraries()
        import byo.families  # noqa: F401  (pydantic, yaml, numpy: the dependencies are there too)

        byo.families.reload()
    except ImportError as err:
        return f"Cannot import byo ({err}). " + hint()
    return None


def _in_blender_binary() -> bool:
    """A Blender executable (whose GDAL brings the system's GEOS), not the bpy module."""
    bpy = sys.modules.get("bpy")
    return bpy is not None and bool(bpy.app.binary_path)
