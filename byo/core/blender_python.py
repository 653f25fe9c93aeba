"""Running inside a Blender executable's own Python (render.py, the add-on, make_packs.py):
the project's pure-Python dependencies come from its virtualenv, and shapely and Pillow's fonts
need their own libraries.
No third-party imports at module level: this runs before the dependencies are on the path."""

from __future__ import annotations

import glob
import os
import site
import sys
from pathlib import Path


def project_site_dirs(root: str | Path) -> list[str]:
    """The virtualenv site-packages folders of a checkout (`make install` makes .venv)."""
    return sorted(glob.glob(os.path.join(str(root), ".venv", "lib", "python3*", "site-packages")))


def use_checkout(root: str | Path) -> None:
    """Make a checkout's byo and its virtualenv's packages importable. They come after Blender's
    own paths (its bundled modules win), as site directories, so that the install's entry points
    (the families) and the question catalogue are seen."""
    root = str(root)
    if root not in sys.path:
        sys.path.insert(0, root)
    for site_dir in project_site_dirs(root):
        if site_dir not in sys.path:
            site.addsitedir(site_dir)
    import_with_their_own_libraries()


# Extensions that ship a library Debian's Blender also holds, each imported deep-bound.
OWN_LIBRARIES = ("shapely", "PIL._imagingft")


def import_with_their_own_libraries() -> None:
    """Debian's Blender links GDAL, which loads the system's GEOS into the process, and its own
    FreeType: shapely's extension would bind to that GEOS instead of the one it ships with, and
    Pillow's font renderer to that FreeType (garbage glyph sizes), and fail in odd ways.
    RTLD_DEEPBIND makes them prefer their own. Only they get the flag: numpy is imported first
    and normally, because a deep-bound numpy would free Blender's jemalloc memory with glibc."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return
    flags = sys.getdlopenflags()
    sys.setdlopenflags(flags | getattr(os, "RTLD_DEEPBIND", 0))
    try:
        for module in OWN_LIBRARIES:
            if module in sys.modules:
                continue
            try:
                __import__(module)
            except ImportError:
                pass
    finally:
        sys.setdlopenflags(flags)


def drop_script_main_alias() -> None:
    """multiprocessing keeps the `__main__` of the script that imported it as `__mp_main__`.
    Blender frees a script's `__main__` when the script ends, and Blender 3.4 then crashes on
    exit while it walks sys.modules. Only worker processes need the alias, and Blender's own
    process starts none (it renders in-process), so it goes."""
    if "__mp_main__" in sys.modules and sys.modules["__mp_main__"] is sys.modules.get("__main__"):
        del sys.modules["__mp_main__"]
