"""Render a dataset config inside a real Blender:

    blender -b -P render.py -- CONFIG [-o DIR] [--limit N] [--resume]

Same options as `byo render`; renders in Blender's own process. The project's virtualenv
(.venv) supplies the pure-Python dependencies when Blender's Python lacks them.
"""

import glob
import os
import site
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, ROOT)
for site_dir in sorted(glob.glob(os.path.join(ROOT, ".venv", "lib", "python3*", "site-packages"))):
    if site_dir not in sys.path:
        # Appended, after Blender's own paths (its bundled modules win); as a site directory, so
        # that the project's install (its entry points and the question catalogue) is seen.
        site.addsitedir(site_dir)


# Extensions that ship a library Debian's Blender also holds, each imported deep-bound.
OWN_LIBRARIES = ("shapely", "PIL._imagingft")


def _import_with_their_own_libraries() -> None:
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
            try:
                __import__(module)
            except ImportError:
                pass
    finally:
        sys.setdlopenflags(flags)


def main() -> int:
    import argparse

    _import_with_their_own_libraries()

    from byo.cli import add_render_arguments, cmd_render

    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    parser = argparse.ArgumentParser(prog="blender -b -P render.py --")
    add_render_arguments(parser)
    args = parser.parse_args(argv)
    args.in_process = True  # bpy is this Blender; no worker processes
    from byo.cli import run

    return run(cmd_render, args)


if __name__ == "__main__":
    sys.exit(main())
