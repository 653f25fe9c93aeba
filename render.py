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


def _import_shapely_with_its_own_geos() -> None:
    """Debian's Blender links GDAL, which loads the system's GEOS into the process: shapely's
    extension would bind to that GEOS instead of the one it ships with, and fail in odd ways.
    RTLD_DEEPBIND makes it prefer its own. Only shapely gets the flag: numpy is imported first
    and normally, because a deep-bound numpy would free Blender's jemalloc memory with glibc."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return
    flags = sys.getdlopenflags()
    sys.setdlopenflags(flags | getattr(os, "RTLD_DEEPBIND", 0))
    try:
        import shapely  # noqa: F401
    except ImportError:
        pass
    finally:
        sys.setdlopenflags(flags)


def main() -> int:
    import argparse

    _import_shapely_with_its_own_geos()

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
